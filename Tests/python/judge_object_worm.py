#!/usr/bin/env python3
"""Judge suite for object-level retention (ObjectWorm): the official alibabacloud-oss-v2 client turns ObjectWorm on,
sets retention and legal hold on object versions and meets the refused deletes, in two phases run by
ObjectWormJudgeTests around the Swift SDK:

  write: on --bucket (versioning enabled by the test), writes an ObjectWorm configuration (default GOVERNANCE for
         1 day), puts `gov` (gets the default), `comp` (COMPLIANCE retention set explicitly) and `held` (legal hold
         ON), checking OSS's refusals; prints the three version ids as KEY=ID lines for the Swift SDK to read back.
  check: on --bucket, where the Swift SDK put `comp` under COMPLIANCE retention and `held` under legal hold, reads
         both back, sees their deletes refused, shortening refused, and a GOVERNANCE version deleted with bypass.

Usage: judge_object_worm.py --phase write|check --bucket B --endpoint http://127.0.0.1:PORT
                            --access-key-id AK --access-key-secret SK
"""
import datetime

import alibabacloud_oss_v2 as oss

from common import Failure, check, equal, expect_error, parse_args, run_cases, take_phase, v2_client

PHASE = take_phase()
args = parse_args(__doc__)
BUCKET = args.bucket
# The dates both sides use: whole seconds, far enough ahead that no run outlives them.
COMPLIANCE_UNTIL = "2099-01-02T03:04:05.000Z"
SHORTER = "2098-01-01T00:00:00.000Z"

client = v2_client(args)


def put(key, data):
    return client.put_object(oss.PutObjectRequest(bucket=BUCKET, key=key, body=data)).version_id


def retention(key, version_id):
    return client.get_object_retention(oss.GetObjectRetentionRequest(
        bucket=BUCKET, key=key, version_id=version_id)).retention


def legal_hold(key, version_id):
    return client.get_object_legal_hold(oss.GetObjectLegalHoldRequest(
        bucket=BUCKET, key=key, version_id=version_id)).legal_hold.status


def set_retention(key, version_id, mode, until, bypass=None):
    return client.put_object_retention(oss.PutObjectRetentionRequest(
        bucket=BUCKET, key=key, version_id=version_id, bypass_governance_retention=bypass,
        retention=oss.Retention(mode=mode, retain_until_date=until)))


def delete(key, version_id, bypass=None):
    return client.delete_object(oss.DeleteObjectRequest(
        bucket=BUCKET, key=key, version_id=version_id, bypass_governance_retention=bypass))


def refused_version_deletes(key, version_id, what):
    expect_error(lambda: delete(key, version_id), 409, "FileImmutable", what + ": DeleteObject with versionId")
    expect_error(lambda: delete(key, version_id, bypass=True), 409, "FileImmutable",
                 what + ": DeleteObject with bypass")
    expect_error(lambda: client.delete_multiple_objects(oss.DeleteMultipleObjectsRequest(
        bucket=BUCKET, objects=[oss.DeleteObject(key=key, version_id=version_id)])), 409, "FileImmutable",
        what + ": DeleteMultipleObjects with versionId")
    got = client.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key, version_id=version_id))
    check(got.body.read(), what + ": the version is still there")


def write():
    expect_error(lambda: client.get_bucket_object_worm_configuration(
        oss.GetBucketObjectWormConfigurationRequest(bucket=BUCKET)), 404, None, "no ObjectWorm yet")
    expect_error(lambda: set_retention("none", None, "COMPLIANCE", COMPLIANCE_UNTIL), 409, None,
                 "PutObjectRetention before ObjectWorm")
    client.put_bucket_object_worm_configuration(oss.PutBucketObjectWormConfigurationRequest(
        bucket=BUCKET, object_worm_configuration=oss.ObjectWormConfiguration(
            object_worm_enabled="Enabled", rule=oss.ObjectWormConfigurationRule(
                default_retention=oss.ObjectWormConfigurationRuleDefaultRetention(mode="GOVERNANCE", days=1)))))
    got = client.get_bucket_object_worm_configuration(
        oss.GetBucketObjectWormConfigurationRequest(bucket=BUCKET)).object_worm_configuration
    equal((got.object_worm_enabled, got.rule.default_retention.mode, got.rule.default_retention.days,
           got.rule.default_retention.years), ("Enabled", "GOVERNANCE", 1, None), "ObjectWorm configuration")

    gov = put("gov", b"governed")
    r = retention("gov", gov)
    equal(r.mode, "GOVERNANCE", "default retention mode")
    until = datetime.datetime.strptime(r.retain_until_date, "%Y-%m-%dT%H:%M:%S.%fZ")
    ahead = until - datetime.datetime.utcnow()
    check(datetime.timedelta(hours=23) < ahead <= datetime.timedelta(days=1, minutes=1),
          "default retention 1 day ahead: %s" % r.retain_until_date)
    expect_error(lambda: delete("gov", gov), 409, "FileImmutable", "GOVERNANCE version without bypass")

    comp = put("comp", b"complied")
    set_retention("comp", comp, "COMPLIANCE", COMPLIANCE_UNTIL)
    equal((retention("comp", comp).mode, retention("comp", comp).retain_until_date),
          ("COMPLIANCE", COMPLIANCE_UNTIL), "explicit COMPLIANCE retention")
    expect_error(lambda: set_retention("comp", comp, "COMPLIANCE", SHORTER, bypass=True), 403, None,
                 "shortening COMPLIANCE")
    expect_error(lambda: set_retention("comp", comp, "GOVERNANCE", COMPLIANCE_UNTIL, bypass=True), 403, None,
                 "COMPLIANCE to GOVERNANCE")
    expect_error(lambda: set_retention("comp", comp, "COMPLIANCE", "2001-01-01T00:00:00.000Z"), 400,
                 "InvalidArgument", "a date in the past")
    refused_version_deletes("comp", comp, "COMPLIANCE")

    held = put("held", b"held")
    client.put_object_legal_hold(oss.PutObjectLegalHoldRequest(
        bucket=BUCKET, key="held", version_id=held, legal_hold=oss.LegalHold(status="ON")))
    equal(legal_hold("held", held), "ON", "legal hold")
    refused_version_deletes("held", held, "legal hold")

    # A delete without a version id only adds a delete marker: allowed, nothing is lost.
    marker = delete("comp", None)
    check(marker.delete_marker, "a delete marker over a retained version")
    expect_error(lambda: client.append_object(oss.AppendObjectRequest(
        bucket=BUCKET, key="log", position=0, body=b"x")), 409, None, "AppendObject under ObjectWorm")
    print("gov=%s\ncomp=%s\nheld=%s" % (gov, comp, held))


def check_swift():
    versions = client.list_object_versions(oss.ListObjectVersionsRequest(bucket=BUCKET)).version
    ids = {v.key: v.version_id for v in versions}
    comp, held = ids["comp"], ids["held"]
    equal((retention("comp", comp).mode, retention("comp", comp).retain_until_date),
          ("COMPLIANCE", COMPLIANCE_UNTIL), "the Swift SDK's COMPLIANCE retention")
    refused_version_deletes("comp", comp, "Swift COMPLIANCE")
    equal(legal_hold("held", held), "ON", "the Swift SDK's legal hold")
    refused_version_deletes("held", held, "Swift legal hold")
    client.put_object_legal_hold(oss.PutObjectLegalHoldRequest(
        bucket=BUCKET, key="held", version_id=held, legal_hold=oss.LegalHold(status="OFF")))
    equal(legal_hold("held", held), "OFF", "legal hold taken off")
    # `held` carries the bucket's default GOVERNANCE retention too: it gives way to bypass only.
    expect_error(lambda: delete("held", held), 409, "FileImmutable", "GOVERNANCE without bypass")
    delete("held", held, bypass=True)
    expect_error(lambda: client.head_object(oss.HeadObjectRequest(bucket=BUCKET, key="held", version_id=held)),
                 404, None, "the GOVERNANCE version deleted with bypass")


if PHASE == "write":
    run_cases([("ObjectWorm, retention and legal hold", write)])
elif PHASE == "check":
    run_cases([("retention and legal hold the Swift SDK set", check_swift)])
else:
    raise Failure("unknown phase " + PHASE)
