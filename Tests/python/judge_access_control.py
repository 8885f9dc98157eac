#!/usr/bin/env python3
"""Judge suite for access control on the local server: the official alibabacloud-oss-v2 client puts a bucket
policy, referer rules, a public access block (bucket and account) and requester-pays, and each is shown refusing a
request and letting one through; oss2 checks the policy grammar refusal and an anonymous read. Run by
AccessControlJudgeTests with a second account's keys (--other-access-key-id/--other-access-key-secret, UID
--other-uid) configured on the server.

Usage: judge_access_control.py --bucket B --endpoint http://127.0.0.1:PORT --access-key-id AK --access-key-secret SK
                               --other-access-key-id AK2 --other-access-key-secret SK2 --other-uid UID
"""
import sys
import urllib.error
import urllib.request

import alibabacloud_oss_v2 as oss
import oss2

from common import check, equal, expect_error, run_cases

OTHER = {}
for name in ("--other-access-key-id", "--other-access-key-secret", "--other-uid"):
    i = sys.argv.index(name)
    OTHER[name[len("--other-"):]] = sys.argv[i + 1]
    del sys.argv[i:i + 2]
from common import parse_args  # noqa: E402  (after the extra options are taken out)

args = parse_args(__doc__)
B = args.bucket


def v2(provider):
    cfg = oss.config.load_default()
    cfg.credentials_provider = provider
    cfg.region = args.region
    cfg.endpoint = args.endpoint
    cfg.use_path_style = True
    cfg.retry_max_attempts = 1
    return oss.Client(cfg)


owner = v2(oss.credentials.StaticCredentialsProvider(args.access_key_id, args.access_key_secret))
other = v2(oss.credentials.StaticCredentialsProvider(OTHER["access-key-id"], OTHER["access-key-secret"]))
anonymous = v2(oss.credentials.AnonymousCredentialsProvider())
anonymous2 = oss2.Bucket(oss2.AnonymousAuth(), args.endpoint, B, is_path_style=True)
owner2 = oss2.Bucket(oss2.Auth(args.access_key_id, args.access_key_secret), args.endpoint, B, is_path_style=True)


def policy(*statements):
    return '{"Version":"1","Statement":[%s]}' % ",".join(statements)


def get(client, key, headers=None):
    return client.get_object(oss.GetObjectRequest(bucket=B, key=key, headers=headers or {})).body.read()


def fetch(url, headers=None):
    """A plain HTTP GET of a presigned URL: (status, body)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {})) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def setup():
    owner.put_object(oss.PutObjectRequest(bucket=B, key="pub/a.txt", body=b"public"))
    owner.put_object(oss.PutObjectRequest(bucket=B, key="priv/a.txt", body=b"private"))
    expect_error(lambda: get(anonymous, "pub/a.txt"), 403, "AccessDenied", "anonymous read of a private bucket")


def bucket_policy():
    everyone = policy('{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:%s/pub/*"]}' % B)
    owner.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=B, body=everyone))
    equal(get(anonymous, "pub/a.txt"), b"public", "anonymous read allowed by the policy")
    equal(anonymous2.get_object("pub/a.txt").read(), b"public", "oss2 anonymous read allowed by the policy")
    expect_error(lambda: get(anonymous, "priv/a.txt"), 403, "AccessDenied", "anonymous read outside the policy")
    named = policy(
        '{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["%s"],"Resource":["acs:oss:*:*:%s/*"]}' % (OTHER["uid"], B),
        '{"Effect":"Deny","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:%s/priv/*"]}' % B)
    owner.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=B, body=named))
    equal(get(other, "pub/a.txt"), b"public", "another account reads what the policy grants it")
    expect_error(lambda: get(other, "priv/a.txt"), 403, "AccessDenied", "explicit Deny beats the Allow")
    equal(get(owner, "priv/a.txt"), b"private", "an unconditional '*' Deny spares the bucket owner")
    bad = '{"Version":1,"Statement":[{"Effect":"Allow","Action":["oss:*"],"Principal":["*"],"Resource":["*"]}]}'
    expect_error(lambda: owner.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=B, body=bad)), 400,
                 "InvalidPolicyDocument", "a numeric Version")
    expect_error(lambda: owner2.put_bucket_policy('{"Version":"1","Statement":[{"Effect":"Maybe"}]}'), 400,
                 "InvalidPolicyDocument", "oss2: a bad Effect")
    owner.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=B, body=everyone))


def referer():
    owner.put_bucket_referer(oss.PutBucketRefererRequest(bucket=B, referer_configuration=oss.RefererConfiguration(
        allow_empty_referer=False, allow_truncate_query_string=True,
        referer_list=oss.RefererList(referers=["https://*.example.com"]),
        referer_blacklist=oss.RefererBlacklist(referers=["https://bad.example.com"]))))
    expect_error(lambda: get(anonymous, "pub/a.txt"), 403, "AccessDenied", "anonymous without a Referer")
    expect_error(lambda: get(anonymous, "pub/a.txt", {"Referer": "https://bad.example.com/x"}), 403, "AccessDenied",
                 "a blacklisted Referer")
    equal(get(anonymous, "pub/a.txt", {"Referer": "https://www.example.com/page?q=1"}), b"public", "a listed Referer")
    url = owner.presign(oss.GetObjectRequest(bucket=B, key="priv/a.txt")).url
    status, body = fetch(url)
    check(status == 403 and b"referer" in body, "a presigned URL without a Referer: %s %s" % (status, body[:200]))
    equal(fetch(url, {"Referer": "https://cdn.example.com/"}), (200, b"private"), "a presigned URL with a listed Referer")
    equal(get(owner, "priv/a.txt"), b"private", "a header-signed request is not subject to referer rules")
    owner.put_bucket_referer(oss.PutBucketRefererRequest(bucket=B, referer_configuration=oss.RefererConfiguration(
        allow_empty_referer=True, referer_list=oss.RefererList(referers=[]))))


def public_access_block():
    result = owner.get_bucket_public_access_block(oss.GetBucketPublicAccessBlockRequest(bucket=B))
    equal(result.public_access_block_configuration.block_public_access, False, "unset block")
    owner.put_bucket_public_access_block(oss.PutBucketPublicAccessBlockRequest(
        bucket=B, public_access_block_configuration=oss.PublicAccessBlockConfiguration(block_public_access=True)))
    result = owner.get_bucket_public_access_block(oss.GetBucketPublicAccessBlockRequest(bucket=B))
    equal(result.public_access_block_configuration.block_public_access, True, "block read back")
    expect_error(lambda: get(anonymous, "pub/a.txt"), 403, "AccessDenied", "the public policy is ignored")
    expect_error(lambda: owner.put_bucket_acl(oss.PutBucketAclRequest(bucket=B, acl="public-read")), 403, "AccessDenied",
                 "a public ACL is refused")
    equal(get(owner, "pub/a.txt"), b"public", "the owner still reads")
    owner.delete_bucket_public_access_block(oss.DeleteBucketPublicAccessBlockRequest(bucket=B))
    equal(get(anonymous, "pub/a.txt"), b"public", "the public policy counts again")
    owner.put_public_access_block(oss.PutPublicAccessBlockRequest(
        public_access_block_configuration=oss.PublicAccessBlockConfiguration(block_public_access=True)))
    result = owner.get_public_access_block(oss.GetPublicAccessBlockRequest())
    equal(result.public_access_block_configuration.block_public_access, True, "account block read back")
    expect_error(lambda: get(anonymous, "pub/a.txt"), 403, "AccessDenied", "the account's block covers the bucket")
    owner.delete_public_access_block(oss.DeletePublicAccessBlockRequest())
    equal(get(anonymous, "pub/a.txt"), b"public", "the account's block removed")


def request_payment():
    owner.put_bucket_request_payment(oss.PutBucketRequestPaymentRequest(
        bucket=B, request_payment_configuration=oss.RequestPaymentConfiguration(payer="Requester")))
    expect_error(lambda: get(other, "pub/a.txt"), 403, "AccessDenied", "a requester that does not pay")
    result = other.get_object(oss.GetObjectRequest(bucket=B, key="pub/a.txt", request_payer="requester"))
    equal(result.body.read(), b"public", "a requester that pays")
    expect_error(lambda: get(anonymous, "pub/a.txt"), 403, "AccessDenied", "anonymous on a requester-pays bucket")
    equal(get(owner, "pub/a.txt"), b"public", "the owner pays nothing extra")
    owner.put_bucket_request_payment(oss.PutBucketRequestPaymentRequest(
        bucket=B, request_payment_configuration=oss.RequestPaymentConfiguration(payer="BucketOwner")))


run_cases([
    ("setup", setup),
    ("bucket policy", bucket_policy),
    ("referer", referer),
    ("public access block", public_access_block),
    ("request payment", request_payment),
])
