#!/usr/bin/env python3
"""Judge suite for the operations families (HTTPS config, access monitor, archive direct read, resource group,
inventory, image styles, replication): the official alibabacloud-oss-v2 client against an OSS endpoint, in two
phases run by BucketOperationsJudgeTests around the Swift SDK:

  write: writes the fixture below to --bucket (for the Swift SDK to read back field for field) and checks OSS's
         refusals on the destination bucket;
  check: reads what the Swift SDK wrote to --bucket and compares it field for field with the same fixture.

Usage: judge_bucket_operations.py --phase write|check --bucket B --endpoint http://127.0.0.1:PORT
                                  --access-key-id AK --access-key-secret SK
"""
import alibabacloud_oss_v2 as oss

from common import Failure, equal, parse_args, run_cases, take_phase, v2_client
from common import expect_error  # noqa: E402  (unwraps v2 errors)

PHASE = take_phase()
args = parse_args(__doc__)
BUCKET = args.bucket
DEST = "judge-ops-dest"

client = v2_client(args)


# The fixture: the same values BucketOperationsJudgeTests.swift writes and expects.
def https():
    return oss.HttpsConfiguration(
        tls=oss.TLS(enable=True, tls_versions=["TLSv1.2", "TLSv1.3"]),
        cipher_suite=oss.CipherSuite(enable=True, strong_cipher_suite=False,
                                     custom_cipher_suites=["ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"],
                                     tls13_custom_cipher_suites=["TLS_AES_256_GCM_SHA384"]))


def inventory():
    return oss.InventoryConfiguration(
        id="report1", is_enabled=True, included_object_versions="All",
        destination=oss.InventoryDestination(oss_bucket_destination=oss.InventoryOSSBucketDestination(
            format="CSV", account_id="1000000000000000", role_arn="acs:ram::1000000000000000:role/AliyunOSSRole",
            bucket="acs:oss:::" + DEST, prefix="inv/",
            encryption=oss.InventoryEncryption(sse_kms=oss.SSEKMS(key_id="kms-1")))),
        schedule=oss.InventorySchedule(frequency="Weekly"),
        filter=oss.InventoryFilter(prefix="logs/", lower_size_bound=1024, upper_size_bound=1048576,
                                   storage_class="Standard,IA", last_modify_begin_time_stamp=1637883649,
                                   last_modify_end_time_stamp=1638347592),
        optional_fields=oss.OptionalFields(fields=["Size", "LastModifiedDate", "ETag"]))


def small_inventory():
    return oss.InventoryConfiguration(
        id="report2", is_enabled=False, included_object_versions="Current",
        destination=oss.InventoryDestination(oss_bucket_destination=oss.InventoryOSSBucketDestination(
            format="CSV", bucket="acs:oss:::" + DEST)),
        schedule=oss.InventorySchedule(frequency="Daily"))


def replication_rule():
    return oss.ReplicationRule(
        id="rule-1", prefix_set=oss.ReplicationPrefixSet(prefixs=["source/", "docs/"]), action="PUT",
        destination=oss.ReplicationDestination(bucket=DEST, location="oss-cn-beijing", transfer_type="oss_acc"),
        historical_object_replication="disabled", sync_role="aliyunramrole",
        source_selection_criteria=oss.ReplicationSourceSelectionCriteria(
            sse_kms_encrypted_objects=oss.SseKmsEncryptedObjects(status="Enabled")),
        encryption_configuration=oss.ReplicationEncryptionConfiguration(replica_kms_key_id="kms-2"),
        rtc=oss.ReplicationTimeControl(status="enabled"))


def write_all():
    b = BUCKET
    client.put_bucket_https_config(oss.PutBucketHttpsConfigRequest(bucket=b, https_configuration=https()))
    client.put_bucket_access_monitor(oss.PutBucketAccessMonitorRequest(
        bucket=b, access_monitor_configuration=oss.AccessMonitorConfiguration(status="Enabled")))
    client.put_bucket_archive_direct_read(oss.PutBucketArchiveDirectReadRequest(
        bucket=b, archive_direct_read_configuration=oss.ArchiveDirectReadConfiguration(enabled=True)))
    client.put_bucket_resource_group(oss.PutBucketResourceGroupRequest(
        bucket=b, bucket_resource_group_configuration=oss.BucketResourceGroupConfiguration(resource_group_id="rg-aek27tc123")))
    client.put_bucket_inventory(oss.PutBucketInventoryRequest(bucket=b, inventory_id="report1", inventory_configuration=inventory()))
    client.put_bucket_inventory(oss.PutBucketInventoryRequest(bucket=b, inventory_id="report2", inventory_configuration=small_inventory()))
    client.put_style(oss.PutStyleRequest(bucket=b, style_name="thumb", style=oss.StyleContent(content="image/resize,p_50")))
    result = client.put_bucket_replication(oss.PutBucketReplicationRequest(
        bucket=b, replication_configuration=oss.ReplicationConfiguration(rules=[replication_rule()])))
    # v2 declares replication_rule_id but does not read headers for this call: read the header itself.
    equal(result.headers.get("x-oss-replication-rule-id"), "rule-1", "x-oss-replication-rule-id")


def check_all():
    b = BUCKET
    h = client.get_bucket_https_config(oss.GetBucketHttpsConfigRequest(bucket=b)).https_configuration
    equal((h.tls.enable, h.tls.tls_versions), (True, ["TLSv1.2", "TLSv1.3"]), "TLS")
    c = h.cipher_suite
    equal((c.enable, c.strong_cipher_suite, c.custom_cipher_suites, c.tls13_custom_cipher_suites),
          (True, False, ["ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"], ["TLS_AES_256_GCM_SHA384"]),
          "CipherSuite")
    equal(client.get_bucket_access_monitor(oss.GetBucketAccessMonitorRequest(bucket=b))
          .access_monitor_configuration.status, "Enabled", "access monitor")
    equal(client.get_bucket_archive_direct_read(oss.GetBucketArchiveDirectReadRequest(bucket=b))
          .archive_direct_read_configuration.enabled, True, "archive direct read")
    equal(client.get_bucket_resource_group(oss.GetBucketResourceGroupRequest(bucket=b))
          .bucket_resource_group_configuration.resource_group_id, "rg-aek27tc123", "resource group")

    i = client.get_bucket_inventory(oss.GetBucketInventoryRequest(bucket=b, inventory_id="report1")).inventory_configuration
    equal((i.id, i.is_enabled, i.included_object_versions, i.schedule.frequency), ("report1", True, "All", "Weekly"),
          "inventory")
    d = i.destination.oss_bucket_destination
    equal((d.format, d.account_id, d.role_arn, d.bucket, d.prefix, d.encryption.sse_kms.key_id),
          ("CSV", "1000000000000000", "acs:ram::1000000000000000:role/AliyunOSSRole", "acs:oss:::" + DEST, "inv/", "kms-1"),
          "inventory destination")
    f = i.filter
    equal((f.prefix, f.lower_size_bound, f.upper_size_bound, f.storage_class, f.last_modify_begin_time_stamp,
           f.last_modify_end_time_stamp), ("logs/", 1024, 1048576, "Standard,IA", 1637883649, 1638347592), "inventory filter")
    equal(i.optional_fields.fields, ["Size", "LastModifiedDate", "ETag"], "inventory fields")
    listed = client.list_bucket_inventory(oss.ListBucketInventoryRequest(bucket=b)).list_inventory_configurations_result
    equal([x.id for x in listed.inventory_configurations], ["report1", "report2"], "ListBucketInventory")
    equal((listed.inventory_configurations[1].schedule.frequency, listed.inventory_configurations[1].included_object_versions,
           listed.is_truncated), ("Daily", "Current", False), "second inventory")

    s = client.get_style(oss.GetStyleRequest(bucket=b, style_name="thumb")).style
    equal((s.name, s.content), ("thumb", "image/resize,p_50"), "style")
    equal([x.name for x in client.list_style(oss.ListStyleRequest(bucket=b)).style_list.styles], ["thumb"], "ListStyle")

    rules = client.get_bucket_replication(oss.GetBucketReplicationRequest(bucket=b)).replication_configuration.rules
    equal(len(rules), 1, "replication rules")
    r = rules[0]
    equal((r.id, r.prefix_set.prefixs, r.action, r.historical_object_replication, r.sync_role),
          ("rule-1", ["source/", "docs/"], "PUT", "disabled", "aliyunramrole"), "replication rule")
    equal((r.destination.bucket, r.destination.location, r.destination.transfer_type),
          (DEST, "oss-cn-beijing", "oss_acc"), "replication destination")
    equal((r.source_selection_criteria.sse_kms_encrypted_objects.status,
           r.encryption_configuration.replica_kms_key_id, r.rtc.status), ("Enabled", "kms-2", "enabled"),
          "replication KMS and RTC")
    progress = client.get_bucket_replication_progress(oss.GetBucketReplicationProgressRequest(bucket=b, rule_id="rule-1"))
    p = progress.replication_progress.rules[0]
    equal((p.id, p.destination.bucket), ("rule-1", DEST), "replication progress rule")
    if not p.progress or not p.progress.new_object:
        raise Failure("replication progress: no NewObject")
    locations = client.get_bucket_replication_location(oss.GetBucketReplicationLocationRequest(bucket=b))
    if "oss-cn-beijing" not in locations.replication_location.locations:
        raise Failure("replication locations: %r" % locations.replication_location.locations)



def refusals():
    d = DEST
    inv = small_inventory()
    expect_error(lambda: client.put_bucket_inventory(oss.PutBucketInventoryRequest(
        bucket=d, inventory_id="other", inventory_configuration=inv)), 400, "InvalidArgument", "inventory Id mismatch")
    client.put_bucket_inventory(oss.PutBucketInventoryRequest(bucket=d, inventory_id="report2", inventory_configuration=inv))
    expect_error(lambda: client.put_bucket_inventory(oss.PutBucketInventoryRequest(
        bucket=d, inventory_id="report2", inventory_configuration=inv)), 409, "InventoryAlreadyExist", "inventory twice")
    inv.destination.oss_bucket_destination.bucket = "acs:oss:::judge-missing"
    inv.id = "report3"
    expect_error(lambda: client.put_bucket_inventory(oss.PutBucketInventoryRequest(
        bucket=d, inventory_id="report3", inventory_configuration=inv)), 400, "InvalidArgument", "inventory to a missing bucket")
    client.delete_bucket_inventory(oss.DeleteBucketInventoryRequest(bucket=d, inventory_id="report2"))
    expect_error(lambda: client.get_bucket_inventory(oss.GetBucketInventoryRequest(bucket=d, inventory_id="report2")),
                 404, "NoSuchInventory", "deleted inventory")
    expect_error(lambda: client.put_bucket_https_config(oss.PutBucketHttpsConfigRequest(
        bucket=d, https_configuration=oss.HttpsConfiguration(tls=oss.TLS(enable=True, tls_versions=["SSLv3"])))),
        400, "InvalidArgument", "TLS version SSLv3")
    expect_error(lambda: client.put_bucket_access_monitor(oss.PutBucketAccessMonitorRequest(
        bucket=d, access_monitor_configuration=oss.AccessMonitorConfiguration(status="On"))),
        400, "InvalidArgument", "access monitor On")
    expect_error(lambda: client.put_bucket_resource_group(oss.PutBucketResourceGroupRequest(
        bucket=d, bucket_resource_group_configuration=oss.BucketResourceGroupConfiguration(resource_group_id="group-1"))),
        400, "InvalidArgument", "resource group group-1")
    equal(client.get_bucket_resource_group(oss.GetBucketResourceGroupRequest(bucket=d))
          .bucket_resource_group_configuration.resource_group_id, "rg-default-id", "default resource group")
    equal(client.get_bucket_access_monitor(oss.GetBucketAccessMonitorRequest(bucket=d))
          .access_monitor_configuration.status, "Disabled", "access monitor never set")
    client.put_style(oss.PutStyleRequest(bucket=d, style_name="gone", style=oss.StyleContent(content="image/rotate,90")))
    client.delete_style(oss.DeleteStyleRequest(bucket=d, style_name="gone"))
    expect_error(lambda: client.get_style(oss.GetStyleRequest(bucket=d, style_name="gone")), 404, "NoSuchStyle", "deleted style")
    expect_error(lambda: client.get_bucket_replication(oss.GetBucketReplicationRequest(bucket=d)),
                 404, "NoSuchReplicationConfiguration", "unset replication")
    to_self = replication_rule()
    to_self.id = "self"
    expect_error(lambda: client.put_bucket_replication(oss.PutBucketReplicationRequest(
        bucket=d, replication_configuration=oss.ReplicationConfiguration(rules=[to_self]))),
        400, "InvalidArgument", "replication to the source bucket")
    expect_error(lambda: client.get_bucket_replication_progress(oss.GetBucketReplicationProgressRequest(
        bucket=BUCKET, rule_id="nope")), 404, "NoSuchReplicationRule", "progress of a missing rule")


def delete_replication():
    """v2 deletes the rule it reads back after the Swift SDK read it (check phase only)."""
    client.delete_bucket_replication(oss.DeleteBucketReplicationRequest(
        bucket=BUCKET, replication_rules=oss.ReplicationRules(ids=["rule-1"])))
    expect_error(lambda: client.get_bucket_replication(oss.GetBucketReplicationRequest(bucket=BUCKET)),
                 404, "NoSuchReplicationConfiguration", "replication after its one rule is deleted")


if PHASE == "write":
    run_cases([("write every family (v2)", write_all), ("v2 reads its own writes", check_all), ("refusals", refusals)])
else:
    run_cases([("v2 reads what the Swift SDK wrote", check_all), ("v2 deletes the replication rule", delete_replication)])
