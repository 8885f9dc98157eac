#!/usr/bin/env python3
"""Judge suite for policy status, custom domains (CNAME), data redundancy transition, access points and meta
query: the official alibabacloud-oss-v2 client drives each against the local server, meeting OSS's refusals, in two
phases run by BucketFamiliesJudgeTests around the Swift SDK:

  write: on --bucket, puts a public policy, binds py.example.test (with an uploaded certificate) after a token,
         starts a redundancy transition, creates access point py-ap (internet) with a policy, opens the meta query
         and writes the objects below; checks each answer field for field. The Swift SDK then reads them back.
  check: on --bucket, reads what the Swift SDK wrote (a narrowed policy, swift.example.test bound with a CAS
         certificate id, a transition, access point swift-ap (vpc-swift) with a policy, the meta query over the
         same objects) field for field.

Usage: judge_bucket_families.py --phase write|check --bucket B --endpoint http://127.0.0.1:PORT
                                --access-key-id AK --access-key-secret SK
"""
import json

import alibabacloud_oss_v2 as oss

from common import check, equal, expect_error, parse_args, run_cases, take_phase, v2_client

PHASE = take_phase()
args = parse_args(__doc__)
BUCKET = args.bucket
client = v2_client(args)

CERTIFICATE = "-----BEGIN CERTIFICATE-----\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v\n-----END CERTIFICATE-----\n"
FINGERPRINT = "DF:7F:23:B1:60:E7:5B:9B:AE:5E:A1:E6:2B:43:A5:A3:4A:26:01:27"
PRIVATE_KEY = "-----BEGIN PRIVATE KEY-----\nU2VjcmV0S2V5TWF0ZXJpYWxOZXZlckVjaG9lZA==\n-----END PRIVATE KEY-----\n"
# The objects both writers put (key, size, content type, tagging, user metadata) and the query both sides run.
OBJECTS = [("docs/a.txt", 10, "text/plain", "owner=john", {"location": "hangzhou"}),
           ("docs/b.json", 300, "application/json", "owner=mary", {}),
           ("img/c.png", 2000, "image/png", None, {"location": "beijing"})]
QUERY = '{"Operation":"or","SubQueries":[{"Field":"OSSTagging.owner","Value":"john","Operation":"eq"},' \
        '{"Field":"Size","Value":"1000","Operation":"gt"}]}'


def bucket_policy(narrowed):
    statement = {"Effect": "Allow", "Action": ["oss:GetObject"], "Principal": ["*"],
                 "Resource": ["acs:oss:*:*:%s/*" % BUCKET]}
    if narrowed:
        statement["Condition"] = {"IpAddress": {"acs:SourceIp": ["192.168.0.0/16"]}}
    return json.dumps({"Version": "1", "Statement": [statement]})


def access_point_policy(name):
    return json.dumps({"Version": "1", "Statement": [{
        "Effect": "Allow", "Action": ["oss:GetObject"], "Principal": ["27737962156157"],
        "Resource": ["acs:oss:cn-hangzhou:*:accesspoint/%s/object/*" % name]}]})


def cname_config(domain, certificate=None):
    return oss.BucketCnameConfiguration(cname=oss.Cname(domain=domain, certificate_configuration=certificate))


def policy_status():
    return client.get_bucket_policy_status(oss.GetBucketPolicyStatusRequest(bucket=BUCKET)).policy_status.is_public


def cnames():
    return client.list_cname(oss.ListCnameRequest(bucket=BUCKET)).cnames or []


def transitions():
    result = client.list_bucket_data_redundancy_transition(oss.ListBucketDataRedundancyTransitionRequest(bucket=BUCKET))
    return result.list_bucket_data_redundancy_transition.bucket_data_redundancy_transition or []


def access_point(name):
    return client.get_access_point(oss.GetAccessPointRequest(bucket=BUCKET, access_point_name=name))


def access_point_policy_text(name):
    return client.get_access_point_policy(oss.GetAccessPointPolicyRequest(bucket=BUCKET, access_point_name=name)).body


def meta_query_files():
    result = client.do_meta_query(oss.DoMetaQueryRequest(bucket=BUCKET, meta_query=oss.MetaQuery(
        query=QUERY, sort="Size", order="desc", max_results=10,
        aggregations=oss.MetaQueryAggregations(aggregations=[oss.MetaQueryAggregation(field="Size", operation="sum")]))))
    return result


def check_meta_query():
    result = meta_query_files()
    files = result.files.file
    equal([f.filename for f in files], ["img/c.png", "docs/a.txt"], "files matching the query, by size descending")
    a = files[1]
    equal((a.size, a.content_type, a.oss_tagging_count), (10, "text/plain", 1), "docs/a.txt")
    equal([(t.key, t.value) for t in a.oss_tagging.taggings], [("owner", "john")], "docs/a.txt tags")
    equal([(m.key, m.value) for m in a.oss_user_meta.user_metas], [("x-oss-meta-location", "hangzhou")], "docs/a.txt metadata")
    equal([(g.field, g.operation, g.value) for g in result.aggregations.aggregations], [("Size", "sum", 2010.0)], "sum")
    status = client.get_meta_query_status(oss.GetMetaQueryStatusRequest(bucket=BUCKET)).meta_query_status
    equal((status.state, status.meta_query_mode), ("Running", "basic"), "meta query status")


# --- write ---------------------------------------------------------------------------------------------------

def write_policy():
    equal(policy_status(), False, "no policy yet")
    client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=BUCKET, body=bucket_policy(narrowed=False)))
    equal(policy_status(), True, "an Allow to * without conditions")


def write_cname():
    domain = "py.example.test"
    expect_error(lambda: client.get_cname_token(oss.GetCnameTokenRequest(bucket=BUCKET, cname=domain)),
                 404, "CnameTokenNotFound", "no token yet")
    expect_error(lambda: client.put_cname(oss.PutCnameRequest(bucket=BUCKET, bucket_cname_configuration=cname_config(domain))),
                 409, "NeedVerifyDomainOwnership", "bind before a token")
    expect_error(lambda: client.create_cname_token(oss.CreateCnameTokenRequest(
        bucket=BUCKET, bucket_cname_configuration=cname_config("not a domain"))), 400, "InvalidArgument", "a bad domain")
    token = client.create_cname_token(oss.CreateCnameTokenRequest(
        bucket=BUCKET, bucket_cname_configuration=cname_config(domain))).cname_token
    equal((token.bucket, token.cname, len(token.token)), (BUCKET, domain, 32), "the token")
    again = client.get_cname_token(oss.GetCnameTokenRequest(bucket=BUCKET, cname=domain)).cname_token
    equal((again.token, again.expire_time), (token.token, token.expire_time), "GetCnameToken")
    client.put_cname(oss.PutCnameRequest(bucket=BUCKET, bucket_cname_configuration=cname_config(
        domain, oss.CertificateConfiguration(certificate=CERTIFICATE, private_key=PRIVATE_KEY))))
    (bound,) = cnames()
    equal((bound.domain, bound.status, bound.certificate.type, bound.certificate.fingerprint),
          (domain, "Enabled", "Upload", FINGERPRINT), "the bound domain")


def write_transition():
    expect_error(lambda: client.create_bucket_data_redundancy_transition(
        oss.CreateBucketDataRedundancyTransitionRequest(bucket=BUCKET, target_redundancy_type="LRS")),
        400, "InvalidArgument", "LRS is no target")
    created = client.create_bucket_data_redundancy_transition(
        oss.CreateBucketDataRedundancyTransitionRequest(bucket=BUCKET, target_redundancy_type="ZRS"))
    task_id = created.bucket_data_redundancy_transition.task_id
    check(task_id, "a task id")
    got = client.get_bucket_data_redundancy_transition(oss.GetBucketDataRedundancyTransitionRequest(
        bucket=BUCKET, redundancy_transition_taskid=task_id)).bucket_data_redundancy_transition
    check(got.status in ("Queueing", "Processing"), "a new task is Queueing or Processing, not %s" % got.status)
    expect_error(lambda: client.create_bucket_data_redundancy_transition(
        oss.CreateBucketDataRedundancyTransitionRequest(bucket=BUCKET, target_redundancy_type="ZRS")),
        409, "BucketDataRedundancyTransitionTaskStatusConflict", "a second task while one runs")
    expect_error(lambda: client.get_bucket_data_redundancy_transition(oss.GetBucketDataRedundancyTransitionRequest(
        bucket=BUCKET, redundancy_transition_taskid="nosuchtask")), 404, "BucketDataRedundancyTransitionTaskNotExist",
        "an unknown task")
    equal([t.task_id for t in transitions()], [task_id], "the bucket's tasks")


def write_access_point():
    def create(name, origin="internet", vpc=None):
        return client.create_access_point(oss.CreateAccessPointRequest(
            bucket=BUCKET, create_access_point_configuration=oss.CreateAccessPointConfiguration(
                access_point_name=name, network_origin=origin,
                vpc_configuration=oss.AccessPointVpcConfiguration(vpc_id=vpc) if vpc else None)))
    for bad in ("Bad_Name", "ab", "-ap", "ap-ossalias", "a" * 20):
        expect_error(lambda: create(bad), 400, "InvalidArgument", "the name %r" % bad)
    expect_error(lambda: create("py-vpc", "vpc"), 400, "InvalidArgument", "a vpc access point without its VPC")
    created = create("py-ap")
    check(created.access_point_arn.endswith(":accesspoint/py-ap") and created.alias.endswith("-ossalias"), "arn and alias")
    expect_error(lambda: create("py-ap"), 409, "AccessPointAlreadyExists", "the same name again")
    expect_error(lambda: access_point_policy_text("py-ap"), 404, "NoSuchAccessPointPolicy", "no policy yet")
    client.put_access_point_policy(oss.PutAccessPointPolicyRequest(
        bucket=BUCKET, access_point_name="py-ap", body=access_point_policy("py-ap")))
    equal(access_point_policy_text("py-ap"), access_point_policy("py-ap"), "the access point policy")
    got = access_point("py-ap")
    equal((got.access_point_name, got.bucket, got.network_origin, got.status, got.alias),
          ("py-ap", BUCKET, "internet", "enable", created.alias), "GetAccessPoint")


def write_meta_query():
    expect_error(lambda: meta_query_files(), 404, "MetaQueryNotExist", "a query before the index is open")
    client.open_meta_query(oss.OpenMetaQueryRequest(bucket=BUCKET))
    for key, size, content_type, tagging, meta in OBJECTS:
        client.put_object(oss.PutObjectRequest(bucket=BUCKET, key=key, body=b"x" * size, content_type=content_type,
                                               tagging=tagging, metadata=meta))
    check_meta_query()


# --- check ---------------------------------------------------------------------------------------------------

def check_policy():
    equal(policy_status(), False, "the Swift SDK's policy is narrowed to 192.168.0.0/16")


def check_cname():
    (bound,) = cnames()
    equal((bound.domain, bound.status, bound.certificate.type, bound.certificate.cert_id),
          ("swift.example.test", "Enabled", "CAS", "493-cn-hangzhou"), "the domain the Swift SDK bound")
    token = client.get_cname_token(oss.GetCnameTokenRequest(bucket=BUCKET, cname="swift.example.test")).cname_token
    equal((token.bucket, token.cname, len(token.token)), (BUCKET, "swift.example.test", 32), "its token")


def check_transition():
    (task,) = transitions()
    check(task.status in ("Queueing", "Processing", "Finished") and task.create_time, "the Swift SDK's task: %r" % task.status)
    users = client.list_user_data_redundancy_transition(oss.ListUserDataRedundancyTransitionRequest())
    ids = [t.task_id for t in users.list_bucket_data_redundancy_transition.bucket_data_redundancy_transition]
    check(task.task_id in ids, "the account's tasks include it")


def check_access_point():
    got = access_point("swift-ap")
    equal((got.bucket, got.network_origin, got.vpc_configuration.vpc_id, got.status),
          (BUCKET, "vpc", "vpc-swift", "enable"), "the Swift SDK's access point")
    equal(access_point_policy_text("swift-ap"), access_point_policy("swift-ap"), "its policy")
    listed = client.list_access_points(oss.ListAccessPointsRequest(bucket=BUCKET))
    equal([a.access_point_name for a in listed.access_points], ["swift-ap"], "ListAccessPoints")


if PHASE == "write":
    run_cases([("policy status", write_policy), ("cname", write_cname), ("redundancy transition", write_transition),
               ("access point", write_access_point), ("meta query", write_meta_query)])
else:
    run_cases([("policy status", check_policy), ("cname", check_cname), ("redundancy transition", check_transition),
               ("access point", check_access_point), ("meta query", check_meta_query)])
