#!/usr/bin/env python3
"""Judge suite for bucket configuration families: the official alibabacloud-oss-v2 client (and oss2 where it has
the call) against an OSS endpoint, in two phases run by BucketConfigurationJudgeTests around the Swift SDK:

  write: writes the fixture below to --bucket (for the Swift SDK to read back field for field), checks OSS's
         refusals and a CORS preflight;
  check: reads the configurations the Swift SDK wrote to --bucket and compares them field for field with the
         same fixture.

Usage: judge_bucket_config.py --phase write|check --bucket B --endpoint http://127.0.0.1:PORT
                              --access-key-id AK --access-key-secret SK
"""
import datetime
import json
import sys

import alibabacloud_oss_v2 as oss
import oss2

from common import Failure, check, equal, parse_args, run_cases, take_phase, v2_client
from common import expect_error  # noqa: E402  (unwraps v2 errors)

PHASE = take_phase()
args = parse_args(__doc__)
BUCKET = args.bucket
MIDNIGHT = datetime.datetime(2024, 1, 15, tzinfo=datetime.timezone.utc)
POLICY = ('{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],'
          '"Resource":["acs:oss:*:*:%s/*"]}]}' % BUCKET)

client = v2_client(args)
bucket2 = oss2.Bucket(oss2.Auth(args.access_key_id, args.access_key_secret), args.endpoint, BUCKET)


# The fixture: the same values BucketConfigurationJudgeTests.swift writes and expects.
def cors():
    return oss.CORSConfiguration(
        cors_rules=[
            oss.CORSRule(allowed_origins=["https://*.example.com", "http://localhost:8080"],
                         allowed_methods=["GET", "PUT", "POST"], allowed_headers=["x-oss-*", "content-type"],
                         expose_headers=["ETag", "x-oss-request-id"], max_age_seconds=600),
            oss.CORSRule(allowed_origins=["*"], allowed_methods=["HEAD"]),
        ],
        response_vary=True)


def lifecycle():
    return oss.LifecycleConfiguration(rules=[
        oss.LifecycleRule(
            id="tmp", prefix="tmp/", status="Enabled",
            expiration=oss.LifecycleRuleExpiration(days=30),
            transitions=[oss.LifecycleRuleTransition(days=7, storage_class="IA"),
                         oss.LifecycleRuleTransition(days=14, storage_class="Archive")],
            tags=[oss.Tag(key="kind", value="scratch")],
            filter=oss.LifecycleRuleFilter(object_size_greater_than=1024, object_size_less_than=1 << 30,
                                           nots=[oss.LifecycleRuleNot(prefix="tmp/keep/")])),
        oss.LifecycleRule(
            id="uploads", prefix="", status="Disabled",
            abort_multipart_upload=oss.LifecycleRuleAbortMultipartUpload(created_before_date=MIDNIGHT),
            noncurrent_version_expiration=oss.NoncurrentVersionExpiration(noncurrent_days=10),
            noncurrent_version_transitions=[oss.NoncurrentVersionTransition(noncurrent_days=5,
                                                                            storage_class="ColdArchive")]),
    ])


def referer():
    return oss.RefererConfiguration(
        allow_empty_referer=False, allow_truncate_query_string=True, truncate_path=True,
        referer_list=oss.RefererList(referers=["https://*.example.com", "http://www.?.org"]),
        referer_blacklist=oss.RefererBlacklist(referers=["https://bad.example.com"]))


TAGS = [("team", "storage"), ("cost-center", "42")]


def website():
    return oss.WebsiteConfiguration(
        index_document=oss.IndexDocument(suffix="index.html", support_sub_dir=True, type=0),
        error_document=oss.ErrorDocument(key="404.html", http_status=404),
        routing_rules=oss.RoutingRules(routing_rules=[oss.RoutingRule(
            rule_number=1,
            condition=oss.RoutingRuleCondition(key_prefix_equals="old/", http_error_code_returned_equals=404),
            redirect=oss.RoutingRuleRedirect(redirect_type="External", pass_query_string=True,
                                             replace_key_prefix_with="new/", protocol="https",
                                             host_name="example.com", http_redirect_code=301))]))



def write_all():
    b = BUCKET
    client.put_bucket_cors(oss.PutBucketCorsRequest(bucket=b, cors_configuration=cors()))
    client.put_bucket_lifecycle(oss.PutBucketLifecycleRequest(bucket=b, lifecycle_configuration=lifecycle()))
    client.put_bucket_referer(oss.PutBucketRefererRequest(bucket=b, referer_configuration=referer()))
    client.put_bucket_tags(oss.PutBucketTagsRequest(bucket=b, tagging=oss.Tagging(
        tag_set=oss.TagSet(tags=[oss.Tag(key=k, value=v) for k, v in TAGS]))))
    client.put_bucket_encryption(oss.PutBucketEncryptionRequest(bucket=b, server_side_encryption_rule=oss.ServerSideEncryptionRule(
        apply_server_side_encryption_by_default=oss.ApplyServerSideEncryptionByDefault(
            sse_algorithm="KMS", kms_data_encryption="SM4", kms_master_key_id="key-1"))))
    client.put_bucket_logging(oss.PutBucketLoggingRequest(bucket=b, bucket_logging_status=oss.BucketLoggingStatus(
        logging_enabled=oss.LoggingEnabled(target_bucket="judge-logs", target_prefix="cfg/"))))
    client.put_bucket_website(oss.PutBucketWebsiteRequest(bucket=b, website_configuration=website()))
    client.put_bucket_request_payment(oss.PutBucketRequestPaymentRequest(
        bucket=b, request_payment_configuration=oss.RequestPaymentConfiguration(payer="Requester")))
    client.put_bucket_transfer_acceleration(oss.PutBucketTransferAccelerationRequest(
        bucket=b, transfer_acceleration_configuration=oss.TransferAccelerationConfiguration(enabled=True)))
    client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=b, body=POLICY))


def check_cors(c):
    equal(c.response_vary, True, "ResponseVary")
    equal(len(c.cors_rules), 2, "CORS rules")
    r = c.cors_rules[0]
    equal(r.allowed_origins, ["https://*.example.com", "http://localhost:8080"], "AllowedOrigin")
    equal(r.allowed_methods, ["GET", "PUT", "POST"], "AllowedMethod")
    equal(r.allowed_headers, ["x-oss-*", "content-type"], "AllowedHeader")
    equal(r.expose_headers, ["ETag", "x-oss-request-id"], "ExposeHeader")
    equal(r.max_age_seconds, 600, "MaxAgeSeconds")
    equal((c.cors_rules[1].allowed_origins, c.cors_rules[1].allowed_methods, c.cors_rules[1].max_age_seconds),
          (["*"], ["HEAD"], None), "second rule")


def check_all():
    b = BUCKET
    check_cors(client.get_bucket_cors(oss.GetBucketCorsRequest(bucket=b)).cors_configuration)
    rules = client.get_bucket_lifecycle(oss.GetBucketLifecycleRequest(bucket=b)).lifecycle_configuration.rules
    equal([r.id for r in rules], ["tmp", "uploads"], "rule IDs")
    t = rules[0]
    equal((t.prefix, t.status, t.expiration.days), ("tmp/", "Enabled", 30), "rule tmp")
    equal([(x.days, x.storage_class) for x in t.transitions], [(7, "IA"), (14, "Archive")], "transitions")
    equal([(x.key, x.value) for x in t.tags], [("kind", "scratch")], "rule tags")
    equal((t.filter.object_size_greater_than, t.filter.object_size_less_than, [n.prefix for n in t.filter.nots]),
          (1024, 1 << 30, ["tmp/keep/"]), "filter")
    u = rules[1]
    equal((u.status, u.abort_multipart_upload.created_before_date), ("Disabled", MIDNIGHT), "abort multipart")
    equal(u.noncurrent_version_expiration.noncurrent_days, 10, "NoncurrentVersionExpiration")
    equal([(x.noncurrent_days, x.storage_class) for x in u.noncurrent_version_transitions], [(5, "ColdArchive")],
          "NoncurrentVersionTransition")
    r = client.get_bucket_referer(oss.GetBucketRefererRequest(bucket=b)).referer_configuration
    equal((r.allow_empty_referer, r.allow_truncate_query_string, r.truncate_path), (False, True, True), "referer flags")
    equal(r.referer_list.referers, ["https://*.example.com", "http://www.?.org"], "RefererList")
    equal(r.referer_blacklist.referers, ["https://bad.example.com"], "RefererBlacklist")
    tags = client.get_bucket_tags(oss.GetBucketTagsRequest(bucket=b)).tagging.tag_set.tags
    equal([(x.key, x.value) for x in tags], TAGS, "bucket tags")
    e = client.get_bucket_encryption(oss.GetBucketEncryptionRequest(bucket=b)).server_side_encryption_rule
    d = e.apply_server_side_encryption_by_default
    equal((d.sse_algorithm, d.kms_data_encryption, d.kms_master_key_id), ("KMS", "SM4", "key-1"), "encryption")
    lg = client.get_bucket_logging(oss.GetBucketLoggingRequest(bucket=b)).bucket_logging_status.logging_enabled
    equal((lg.target_bucket, lg.target_prefix), ("judge-logs", "cfg/"), "logging")
    w = client.get_bucket_website(oss.GetBucketWebsiteRequest(bucket=b)).website_configuration
    equal((w.index_document.suffix, w.index_document.support_sub_dir, w.index_document.type), ("index.html", True, 0),
          "IndexDocument")
    equal((w.error_document.key, w.error_document.http_status), ("404.html", 404), "ErrorDocument")
    rule = w.routing_rules.routing_rules[0]
    equal((rule.rule_number, rule.condition.key_prefix_equals, rule.condition.http_error_code_returned_equals),
          (1, "old/", 404), "routing condition")
    rd = rule.redirect
    equal((rd.redirect_type, rd.pass_query_string, rd.replace_key_prefix_with, rd.protocol, rd.host_name,
           rd.http_redirect_code), ("External", True, "new/", "https", "example.com", 301), "redirect")
    equal(client.get_bucket_request_payment(oss.GetBucketRequestPaymentRequest(bucket=b))
          .request_payment_configuration.payer, "Requester", "payer")
    equal(client.get_bucket_transfer_acceleration(oss.GetBucketTransferAccelerationRequest(bucket=b))
          .transfer_acceleration_configuration.enabled, True, "transfer acceleration")
    equal(json.loads(client.get_bucket_policy(oss.GetBucketPolicyRequest(bucket=b)).body), json.loads(POLICY), "policy")


def check_oss2():
    """oss2 reads what was written, through its own parser."""
    c = bucket2.get_bucket_cors()
    equal([r.allowed_origins for r in c.rules], [["https://*.example.com", "http://localhost:8080"], ["*"]], "oss2 cors")
    equal(c.rules[0].max_age_seconds, 600, "oss2 MaxAgeSeconds")
    lc = bucket2.get_bucket_lifecycle()
    equal([r.id for r in lc.rules], ["tmp", "uploads"], "oss2 lifecycle IDs")
    equal(lc.rules[0].expiration.days, 30, "oss2 expiration")
    equal(bucket2.get_bucket_referer().allow_empty_referer, False, "oss2 referer")
    equal(bucket2.get_bucket_tagging().tag_set.tagging_rule, dict(TAGS), "oss2 tags")
    equal(bucket2.get_bucket_encryption().sse_algorithm, "KMS", "oss2 encryption")
    equal(bucket2.get_bucket_website().index_file, "index.html", "oss2 website")
    equal(bucket2.get_bucket_logging().target_bucket, "judge-logs", "oss2 logging")
    equal(bucket2.get_bucket_request_payment().payer, "Requester", "oss2 request payment")
    equal(json.loads(bucket2.get_bucket_policy().policy), json.loads(POLICY), "oss2 policy")


def refusals():
    b = BUCKET
    bad = oss.CORSConfiguration(cors_rules=[oss.CORSRule(allowed_origins=["*"], allowed_methods=["PATCH"])])
    expect_error(lambda: client.put_bucket_cors(oss.PutBucketCorsRequest(bucket=b, cors_configuration=bad)),
                 400, "InvalidArgument", "CORS method PATCH")
    late = oss.LifecycleConfiguration(rules=[oss.LifecycleRule(
        prefix="x/", status="Enabled", expiration=oss.LifecycleRuleExpiration(days=3),
        transitions=[oss.LifecycleRuleTransition(days=9, storage_class="IA")])])
    expect_error(lambda: client.put_bucket_lifecycle(oss.PutBucketLifecycleRequest(bucket=b, lifecycle_configuration=late)),
                 400, "InvalidArgument", "transition after expiration")
    expect_error(lambda: client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=b, body="{")),
                 400, "InvalidPolicyDocument", "policy that is not JSON")
    expect_error(lambda: client.get_bucket_website(oss.GetBucketWebsiteRequest(bucket="judge-logs")),
                 404, "NoSuchWebsiteConfiguration", "unset website")
    expect_error(lambda: client.get_bucket_cors(oss.GetBucketCorsRequest(bucket="judge-logs")),
                 404, "NoSuchCORSConfiguration", "unset CORS")
    try:
        oss2.Bucket(bucket2.auth, args.endpoint, "judge-logs").get_bucket_lifecycle()
        raise Failure("oss2: unset lifecycle did not fail")
    except oss2.exceptions.NoSuchLifecycle:
        pass


def preflight():
    ok = client.option_object(oss.OptionObjectRequest(
        bucket=BUCKET, key="up/a.txt", origin="https://app.example.com", access_control_request_method="PUT",
        access_control_request_headers="x-oss-meta-a"))
    equal(ok.access_control_allow_origin, "https://app.example.com", "preflight origin")
    equal(ok.access_control_allow_methods, "GET, PUT, POST", "preflight methods")
    equal(ok.access_control_allow_headers, "x-oss-meta-a", "preflight headers")
    equal(ok.access_control_max_age, 600, "preflight max age")
    expect_error(lambda: client.option_object(oss.OptionObjectRequest(
        bucket=BUCKET, key="up/a.txt", origin="https://evil.com", access_control_request_method="PUT")),
        403, "AccessForbidden", "preflight from another origin")


def partial_tag_delete():
    """oss2's DeleteBucketTagging with keys (?tagging=k1,k2) removes those tags only."""
    b2 = oss2.Bucket(bucket2.auth, args.endpoint, "judge-logs")
    rule = oss2.models.TaggingRule()
    for k, v in (("a", "1"), ("b", "2"), ("c", "3")):
        rule.add(k, v)
    b2.put_bucket_tagging(oss2.models.Tagging(rule))
    b2.delete_bucket_tagging(params={"tagging": "a,c"})
    equal(b2.get_bucket_tagging().tag_set.tagging_rule, {"b": "2"}, "tags left after a partial delete")
    b2.delete_bucket_tagging()
    equal(b2.get_bucket_tagging().tag_set.tagging_rule, {}, "tags left after a full delete")


def stat_and_existence():
    for key, size in (("s/a", 100), ("s/b", 23)):
        client.put_object(oss.PutObjectRequest(bucket="judge-logs", key=key, body=b"x" * size))
    stat = client.get_bucket_stat(oss.GetBucketStatRequest(bucket="judge-logs"))
    equal((stat.storage, stat.object_count, stat.multi_part_upload_count), (123, 2, 0), "v2 GetBucketStat")
    equal(stat.standard_object_count, 2, "v2 StandardObjectCount")
    s2 = oss2.Bucket(bucket2.auth, args.endpoint, "judge-logs").get_bucket_stat()
    equal((s2.storage_size_in_bytes, s2.object_count), (123, 2), "oss2 GetBucketStat")
    equal((client.is_bucket_exist(BUCKET), client.is_bucket_exist("judge-missing")), (True, False), "IsBucketExist")


if PHASE == "write":
    run_cases([("write every family (v2)", write_all), ("v2 reads its own writes", check_all),
               ("oss2 reads them", check_oss2), ("refusals", refusals), ("CORS preflight", preflight),
               ("bucket stat and existence", stat_and_existence), ("partial tag delete (oss2)", partial_tag_delete)])
else:
    run_cases([("v2 reads what the Swift SDK wrote", check_all), ("oss2 reads it", check_oss2),
               ("CORS preflight", preflight)])
