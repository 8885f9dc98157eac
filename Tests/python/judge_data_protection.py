#!/usr/bin/env python3
"""Judge suite for data protection: the official alibabacloud-oss-v2 client (and oss2, V1-signed, for the refused
calls) drives the bucket retention policy (WORM) through its states and the overwrite rules, and sees the refused
deletes and overwrites, in two phases run by DataProtectionJudgeTests around the Swift SDK:

  write: on --bucket, writes the overwrite rules below, puts `kept`, initiates, locks and extends a retention
         policy (2 days), checking OSS's refusals on the way; the Swift SDK then reads both back field for field.
  check: on --bucket, reads what the Swift SDK wrote (the same rules with its own IDs, a locked 3-day policy)
         field for field, and sees a delete and an overwrite of `kept` refused.

Usage: judge_data_protection.py --phase write|check --bucket B --endpoint http://127.0.0.1:PORT
                                --access-key-id AK --access-key-secret SK
"""
import sys

import alibabacloud_oss_v2 as oss
import oss2

from common import Failure, check, equal, expect_error, parse_args, run_cases, take_phase, v2_client

PHASE = take_phase()
args = parse_args(__doc__)
BUCKET = args.bucket
PRINCIPAL = "27737962156157"
client = v2_client(args)
bucket2 = oss2.Bucket(oss2.Auth(args.access_key_id, args.access_key_secret), args.endpoint, BUCKET)


def rules(prefix_id):
    """The fixture both sides write, the IDs named by the writer."""
    return oss.OverwriteConfiguration(rules=[
        oss.OverwriteRule(id=prefix_id + "-conf", action="forbid", prefix="conf/", suffix=".json",
                          principals=oss.OverwritePrincipals(principals=[PRINCIPAL])),
        oss.OverwriteRule(id=prefix_id + "-locked", action="forbid", prefix="locked/"),
    ])


def check_rules(got, prefix_id):
    equal(len(got.rules), 2, "overwrite rules")
    a, b = got.rules
    equal((a.id, a.action, a.prefix, a.suffix, a.principals.principals),
          (prefix_id + "-conf", "forbid", "conf/", ".json", [PRINCIPAL]), "rule 1")
    equal((b.id, b.action, b.prefix, b.suffix), (prefix_id + "-locked", "forbid", "locked/", None), "rule 2")
    check(b.principals is None or not b.principals.principals, "rule 2 names no principal: %r" % b.principals)


def worm():
    return client.get_bucket_worm(oss.GetBucketWormRequest(bucket=BUCKET)).worm_configuration


def extend(worm_id, days):
    return client.extend_bucket_worm(oss.ExtendBucketWormRequest(
        bucket=BUCKET, worm_id=worm_id,
        extend_worm_configuration=oss.ExtendWormConfiguration(retention_period_in_days=days)))


def put(key, data):
    return client.put_object(oss.PutObjectRequest(bucket=BUCKET, key=key, body=data))


def refused_deletes_and_overwrites():
    expect_error(lambda: client.delete_object(oss.DeleteObjectRequest(bucket=BUCKET, key="kept")), 409, "FileImmutable",
                 "v2 DeleteObject")
    expect_error(lambda: put("kept", b"again"), 409, "FileImmutable", "v2 PutObject over a retained object")
    expect_error(lambda: client.delete_multiple_objects(oss.DeleteMultipleObjectsRequest(
        bucket=BUCKET, objects=[oss.DeleteObject(key="kept")])), 409, "FileImmutable", "v2 DeleteMultipleObjects")
    expect_error(lambda: bucket2.delete_object("kept"), 409, "FileImmutable", "oss2 (V1) delete_object")
    expect_error(lambda: bucket2.copy_object(BUCKET, "locked/x", "kept"), 409, "FileImmutable", "oss2 copy onto it")
    got = client.get_object(oss.GetObjectRequest(bucket=BUCKET, key="kept"))
    equal(got.body.read(), b"kept", "the retained object")


def write_overwrite_rules():
    expect_error(lambda: client.get_bucket_overwrite_config(oss.GetBucketOverwriteConfigRequest(bucket=BUCKET)),
                 404, None, "no overwrite configuration yet")
    client.put_bucket_overwrite_config(oss.PutBucketOverwriteConfigRequest(
        bucket=BUCKET, overwrite_configuration=rules("py")))
    got = client.get_bucket_overwrite_config(oss.GetBucketOverwriteConfigRequest(bucket=BUCKET))
    check_rules(got.overwrite_configuration, "py")
    put("locked/x", b"first")
    expect_error(lambda: put("locked/x", b"second"), 409, "FileAlreadyExists", "an overwrite a rule forbids")
    bucket2.append_object("locked/log", 0, b"log1")
    expect_error(lambda: bucket2.append_object("locked/log", 4, b"more"), 409, "FileAlreadyExists", "append onto it")
    put("conf/app.json", b"{}")
    put("conf/app.json", b"{}")  # the rule names another principal: allowed
    bad = oss.OverwriteConfiguration(rules=[oss.OverwriteRule(action="allow")])
    expect_error(lambda: client.put_bucket_overwrite_config(oss.PutBucketOverwriteConfigRequest(
        bucket=BUCKET, overwrite_configuration=bad)), 400, "InvalidArgument", "Action allow")


def write_worm():
    put("kept", b"kept")
    expect_error(worm, 404, "NoSuchWORMConfiguration", "GetBucketWorm before any")
    first = client.initiate_bucket_worm(oss.InitiateBucketWormRequest(
        bucket=BUCKET, initiate_worm_configuration=oss.InitiateWormConfiguration(retention_period_in_days=1)))
    check(first.worm_id, "InitiateBucketWorm returns x-oss-worm-id")
    w = worm()
    equal((w.worm_id, w.state, w.retention_period_in_days), (first.worm_id, "InProgress", 1), "InProgress policy")
    check(w.creation_date and w.expiration_date, "CreationDate and ExpirationDate: %r" % vars(w))
    expect_error(lambda: extend(first.worm_id, 2), 409, "InvalidWORMConfiguration", "extending an unlocked policy")
    client.abort_bucket_worm(oss.AbortBucketWormRequest(bucket=BUCKET))
    expect_error(worm, 404, "NoSuchWORMConfiguration", "GetBucketWorm after abort")
    second = client.initiate_bucket_worm(oss.InitiateBucketWormRequest(
        bucket=BUCKET, initiate_worm_configuration=oss.InitiateWormConfiguration(retention_period_in_days=1)))
    expect_error(lambda: client.complete_bucket_worm(oss.CompleteBucketWormRequest(bucket=BUCKET, worm_id="0" * 24)),
                 404, "NoSuchWORMConfiguration", "CompleteBucketWorm with another id")
    client.complete_bucket_worm(oss.CompleteBucketWormRequest(bucket=BUCKET, worm_id=second.worm_id))
    equal(worm().state, "Locked", "State after CompleteBucketWorm")
    expect_error(lambda: client.abort_bucket_worm(oss.AbortBucketWormRequest(bucket=BUCKET)), 409,
                 "WORMConfigurationLocked", "AbortBucketWorm of a locked policy")
    extend(second.worm_id, 2)
    expect_error(lambda: extend(second.worm_id, 1), 400, "InvalidWORMConfiguration", "shortening a locked policy")
    equal(worm().retention_period_in_days, 2, "RetentionPeriodInDays after ExtendBucketWorm")
    refused_deletes_and_overwrites()
    expect_error(lambda: client.put_bucket_versioning(oss.PutBucketVersioningRequest(
        bucket=BUCKET, versioning_configuration=oss.VersioningConfiguration(status="Enabled"))), 409, None,
        "versioning on a bucket with a retention policy")


def check_swift_rules():
    got = client.get_bucket_overwrite_config(oss.GetBucketOverwriteConfigRequest(bucket=BUCKET))
    check_rules(got.overwrite_configuration, "swift")


def check_swift_worm():
    w = worm()
    equal((w.state, w.retention_period_in_days), ("Locked", 3), "the Swift SDK's locked policy")
    check(w.worm_id and w.creation_date, "WormId and CreationDate: %r" % vars(w))
    expect_error(lambda: extend(w.worm_id, 2), 400, "InvalidWORMConfiguration", "shortening the Swift SDK's policy")
    extend(w.worm_id, 4)
    equal(worm().retention_period_in_days, 4, "extended by the official client")
    refused_deletes_and_overwrites()


if PHASE == "write":
    run_cases([("overwrite rules", write_overwrite_rules), ("WORM states and refusals", write_worm)])
elif PHASE == "check":
    run_cases([("overwrite rules the Swift SDK wrote", check_swift_rules),
               ("WORM policy the Swift SDK locked", check_swift_worm)])
else:
    raise Failure("unknown phase " + PHASE)
