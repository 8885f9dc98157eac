"""Issue #31: bucket configuration written and read back by official clients, and enforced as OSS does."""
import datetime
import json

import requests

from common import (AK, ENDPOINT, REGION, SK, Report, deny_everywhere, expect, expect_code, expect_eq,
                    new_bucket, oss, oss2, oss2_bucket, url, v2_client, v2_error)

client = v2_client()
report = Report(31)
ORIGIN = "https://app.example.com"


def put(bucket, key, data=b"x", **kw):
    return client.put_object(oss.PutObjectRequest(bucket=bucket, key=key, body=data, **kw))


def body_of(bucket, key, version_id=None):
    return client.get_object(oss.GetObjectRequest(bucket=bucket, key=key, version_id=version_id)).body.read()


def raw_put_config(bucket, sub, body):
    """PUT ?sub with a signed raw body through v2's invoke_operation; returns the v2 service error tuple."""
    return v2_error(lambda: client.invoke_operation(oss.OperationInput(
        op_name="RawPut", method="PUT", bucket=bucket, parameters={sub: ""}, body=body,
        headers={"Content-Type": "application/xml"})))


def multipart_onto(bucket, key, data=b"m" * 10):
    init = client.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=bucket, key=key))
    part = client.upload_part(oss.UploadPartRequest(bucket=bucket, key=key, upload_id=init.upload_id,
                                                    part_number=1, body=data))
    return lambda: client.complete_multipart_upload(oss.CompleteMultipartUploadRequest(
        bucket=bucket, key=key, upload_id=init.upload_id,
        complete_multipart_upload=oss.CompleteMultipartUpload(parts=[oss.UploadPart(part_number=1,
                                                                                    etag=part.etag)])))


def delete_multiple(bucket, key, version_id=None):
    """DeleteMultipleObjects naming one protected key: OSS may refuse the request or report the key; returns which."""
    try:
        res = client.delete_multiple_objects(oss.DeleteMultipleObjectsRequest(
            bucket=bucket, objects=[oss.DeleteObject(key=key, version_id=version_id)], quiet=False))
    except oss.exceptions.OperationError as e:
        inner = e.unwrap()
        return f"refused {getattr(inner, 'status_code', '?')} {getattr(inner, 'code', inner)}"
    return f"deleted {[d.key for d in res.deleted_objects or []]}"


def copy_onto(bucket, src, dst):
    return lambda: client.copy_object(oss.CopyObjectRequest(bucket=bucket, key=dst, source_bucket=bucket,
                                                           source_key=src))


def check_cors():
    b = new_bucket(client)
    rule = oss.CORSRule(allowed_origins=[ORIGIN], allowed_methods=["GET", "PUT", "POST"],
                        allowed_headers=["content-type", "x-oss-meta-*"], expose_headers=["ETag", "x-oss-request-id"],
                        max_age_seconds=600)
    client.put_bucket_cors(oss.PutBucketCorsRequest(bucket=b, cors_configuration=oss.CORSConfiguration(
        cors_rules=[rule], response_vary=True)))
    got = client.get_bucket_cors(oss.GetBucketCorsRequest(bucket=b)).cors_configuration
    r = got.cors_rules[0]
    expect_eq((r.allowed_origins, sorted(r.allowed_methods), r.allowed_headers, r.expose_headers, r.max_age_seconds,
               got.response_vary),
              ([ORIGIN], ["GET", "POST", "PUT"], ["content-type", "x-oss-meta-*"], ["ETag", "x-oss-request-id"], 600,
               True), "v2 read-back")
    o = oss2_bucket(b).get_bucket_cors().rules[0]
    expect_eq((o.allowed_origins, sorted(o.allowed_methods), o.allowed_headers, o.expose_headers, o.max_age_seconds),
              ([ORIGIN], ["GET", "POST", "PUT"], ["content-type", "x-oss-meta-*"], ["ETag", "x-oss-request-id"], 600),
              "oss2 read-back")
    put(b, "k.txt", b"hello")
    pre = requests.options(url(f"/{b}/k.txt"), headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "Content-Type, x-oss-meta-owner"})
    expect_eq(pre.status_code, 200, f"preflight status ({pre.text[:200]})")
    expect_eq(pre.headers.get("Access-Control-Allow-Origin"), ORIGIN, "preflight Allow-Origin")
    expect("PUT" in pre.headers.get("Access-Control-Allow-Methods", ""), f"Allow-Methods {pre.headers}")
    expect("x-oss-meta-owner" in pre.headers.get("Access-Control-Allow-Headers", "").lower(),
           f"Allow-Headers {pre.headers.get('Access-Control-Allow-Headers')}")
    expect_eq(pre.headers.get("Access-Control-Max-Age"), "600", "preflight Max-Age")
    for headers, what in (({"Origin": "https://evil.example.net", "Access-Control-Request-Method": "PUT"}, "origin"),
                          ({"Origin": ORIGIN, "Access-Control-Request-Method": "DELETE"}, "method"),
                          ({"Origin": ORIGIN, "Access-Control-Request-Method": "PUT",
                            "Access-Control-Request-Headers": "x-not-allowed"}, "header")):
        bad = requests.options(url(f"/{b}/k.txt"), headers=headers)
        expect_eq(bad.status_code, 403, f"preflight with a disallowed {what}")
        expect("AccessForbidden" in bad.text, f"preflight with a disallowed {what}: code in {bad.text[:200]!r}")
        expect("Access-Control-Allow-Origin" not in bad.headers, f"disallowed {what} still gets Allow-Origin")
    v2pre = client.option_object(oss.OptionObjectRequest(bucket=b, key="k.txt", origin=ORIGIN,
                                                         access_control_request_method="GET"))
    expect_eq(v2pre.access_control_allow_origin, ORIGIN, "v2 OptionObject Allow-Origin")
    # An actual request from the origin carries the headers; one from elsewhere does not.
    g = client.get_object(oss.GetObjectRequest(bucket=b, key="k.txt", headers={"Origin": ORIGIN}))
    hdrs = g.headers
    expect_eq(hdrs.get("Access-Control-Allow-Origin"), ORIGIN, "GET with Origin: Allow-Origin")
    expect("etag" in hdrs.get("Access-Control-Expose-Headers", "").lower(), "GET with Origin: Expose-Headers")
    g2 = client.get_object(oss.GetObjectRequest(bucket=b, key="k.txt", headers={"Origin": "https://x.net"}))
    expect("Access-Control-Allow-Origin" not in g2.headers, "GET from another origin got Allow-Origin")
    client.delete_bucket_cors(oss.DeleteBucketCorsRequest(bucket=b))
    expect_code(lambda: client.get_bucket_cors(oss.GetBucketCorsRequest(bucket=b)), 404,
                "NoSuchCORSConfiguration", "after delete")


def check_lifecycle():
    b = new_bucket(client)
    rules = [
        oss.LifecycleRule(id="scratch", prefix="tmp/", status="Enabled",
                          expiration=oss.LifecycleRuleExpiration(days=7)),
        oss.LifecycleRule(id="uploads", prefix="", status="Enabled",
                          abort_multipart_upload=oss.LifecycleRuleAbortMultipartUpload(days=3)),
        oss.LifecycleRule(id="cold", prefix="logs/", status="Disabled",
                          transitions=[oss.LifecycleRuleTransition(days=30, storage_class="IA")]),
    ]
    client.put_bucket_lifecycle(oss.PutBucketLifecycleRequest(
        bucket=b, lifecycle_configuration=oss.LifecycleConfiguration(rules=rules)))
    got = client.get_bucket_lifecycle(oss.GetBucketLifecycleRequest(bucket=b)).lifecycle_configuration.rules
    seen = [(r.id, r.prefix or "", r.status, r.expiration and r.expiration.days,
             r.abort_multipart_upload and r.abort_multipart_upload.days,
             r.transitions and [(t.days, t.storage_class) for t in r.transitions]) for r in got]
    expect_eq(seen, [("scratch", "tmp/", "Enabled", 7, None, None), ("uploads", "", "Enabled", None, 3, None),
                     ("cold", "logs/", "Disabled", None, None, [(30, "IA")])], "v2 read-back")
    o = oss2_bucket(b).get_bucket_lifecycle().rules
    seen2 = [(r.id, r.prefix or "", r.status, r.expiration and r.expiration.days,
              r.abort_multipart_upload and r.abort_multipart_upload.days,
              [(t.days, t.storage_class) for t in r.storage_transitions] or None) for r in o]
    expect_eq(seen2, seen, "oss2 read-back")
    put(b, "tmp/a", b"1")
    put(b, "keep/a", b"2")
    init = client.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=b, key="big"))
    early = requests.post(url("/-/lifecycle/run", "now=" + _iso(days=2)))
    expect(early.status_code in (200, 204), f"lifecycle run: {early.status_code} {early.text[:200]}")
    expect(_exists(b, "tmp/a"), "tmp/a expired after 2 days of a 7-day rule")
    run = requests.post(url("/-/lifecycle/run", "now=" + _iso(days=8)))
    expect(run.status_code in (200, 204), f"lifecycle run: {run.status_code} {run.text[:200]}")
    expect(not _exists(b, "tmp/a"), "tmp/a not expired by the run 8 days later")
    expect(_exists(b, "keep/a"), "keep/a (no rule) removed")
    ups = client.list_multipart_uploads(oss.ListMultipartUploadsRequest(bucket=b)).uploads or []
    expect(all(u.upload_id != init.upload_id for u in ups), "the 8-day-old multipart upload was not aborted")


def check_lifecycle_invalid():
    b = new_bucket(client)
    cases = [
        ("malformed", "<LifecycleConfiguration><Rule><ID>x</ID>", 400, "MalformedXML"),
        ("days 0", "<LifecycleConfiguration><Rule><ID>x</ID><Prefix>a/</Prefix><Status>Enabled</Status>"
                   "<Expiration><Days>0</Days></Expiration></Rule></LifecycleConfiguration>", 400, "InvalidArgument"),
        ("bad status", "<LifecycleConfiguration><Rule><ID>x</ID><Prefix>a/</Prefix><Status>On</Status>"
                       "<Expiration><Days>1</Days></Expiration></Rule></LifecycleConfiguration>", 400, None),
        ("duplicate id", "<LifecycleConfiguration>" + "<Rule><ID>x</ID><Prefix>a/</Prefix><Status>Enabled</Status>"
                         "<Expiration><Days>1</Days></Expiration></Rule>" * 2 + "</LifecycleConfiguration>", 400, None),
    ]
    for what, xml, status, code in cases:
        got = raw_put_config(b, "lifecycle", xml)
        expect(got[0] == status and (code is None or got[1] == code), f"{what}: expected {status} {code}, got {got}")
        expect_code(lambda: client.get_bucket_lifecycle(oss.GetBucketLifecycleRequest(bucket=b)), 404,
                    "NoSuchLifecycle", f"{what}: stored anyway")


def check_malformed_xml_families():
    b = new_bucket(client)
    for sub, get_code in (("cors", "NoSuchCORSConfiguration"), ("referer", None), ("encryption",
                          "NoSuchServerSideEncryptionRule"), ("overwriteConfig", None), ("publicAccessBlock", None)):
        got = raw_put_config(b, sub, "<Config><Broken>")
        expect(got[0] == 400 and got[1] == "MalformedXML", f"?{sub} with cut XML: {got}")
    expect_code(lambda: client.get_bucket_cors(oss.GetBucketCorsRequest(bucket=b)), 404, "NoSuchCORSConfiguration",
                "malformed CORS stored")
    expect_code(lambda: client.get_bucket_encryption(oss.GetBucketEncryptionRequest(bucket=b)), 404,
                "NoSuchServerSideEncryptionRule", "malformed encryption stored")
    ref = client.get_bucket_referer(oss.GetBucketRefererRequest(bucket=b)).referer_configuration
    expect(ref.allow_empty_referer is True and not (ref.referer_list and ref.referer_list.referers),
           "malformed referer changed the default")
    # A bad put leaves the configuration already stored as it was.
    client.put_bucket_cors(oss.PutBucketCorsRequest(bucket=b, cors_configuration=oss.CORSConfiguration(cors_rules=[
        oss.CORSRule(allowed_origins=["https://keep.example.com"], allowed_methods=["GET"])])))
    got = raw_put_config(b, "cors", "<CORSConfiguration><CORSRule><AllowedOrigin>")
    expect_eq(got[:2], (400, "MalformedXML"), "cut CORS over a stored one")
    kept = client.get_bucket_cors(oss.GetBucketCorsRequest(bucket=b)).cors_configuration.cors_rules
    expect_eq([r.allowed_origins for r in kept], [["https://keep.example.com"]], "stored CORS after a bad put")
    got = raw_put_config(b, "cors", "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin>"
                                    "<AllowedMethod>FETCH</AllowedMethod></CORSRule></CORSConfiguration>")
    expect(got[0] == 400, f"CORS with method FETCH accepted: {got}")
    got = raw_put_config(b, "encryption", "<ServerSideEncryptionRule><ApplyServerSideEncryptionByDefault>"
                                          "<SSEAlgorithm>ROT13</SSEAlgorithm></ApplyServerSideEncryptionByDefault>"
                                          "</ServerSideEncryptionRule>")
    expect(got[0] == 400, f"encryption ROT13 accepted: {got}")
    got = v2_error(lambda: client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=b, body="{not json")))
    expect_eq(got[:2], (400, "InvalidPolicyDocument"), "malformed policy")
    expect_code(lambda: client.get_bucket_policy(oss.GetBucketPolicyRequest(bucket=b)), 404, "NoSuchBucketPolicy",
                "malformed policy stored")


def _iso(days):
    return (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=days)).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def _exists(bucket, key):
    return client.is_object_exist(bucket, key)


def check_policy():
    b = new_bucket(client)
    policy = {"Version": "1", "Statement": [
        {"Effect": "Allow", "Action": ["oss:GetObject"], "Principal": ["*"], "Resource": [f"acs:oss:*:*:{b}/public/*"]},
        {"Effect": "Deny", "Action": ["oss:GetObject"], "Principal": ["*"],
         "Resource": [f"acs:oss:*:*:{b}/public/secret*"]},
    ]}
    client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=b, body=json.dumps(policy)))
    back = json.loads(client.get_bucket_policy(oss.GetBucketPolicyRequest(bucket=b)).body)
    expect_eq(back, policy, "v2 read-back")
    expect_eq(json.loads(oss2_bucket(b).get_bucket_policy().policy), policy, "oss2 read-back")
    put(b, "public/a.txt", b"pub")
    put(b, "public/secret.txt", b"no")
    put(b, "private/b.txt", b"priv")
    a = requests.get(url(f"/{b}/public/a.txt"))
    expect_eq((a.status_code, a.content), (200, b"pub"), "anonymous GET allowed by the policy")
    for key in ("public/secret.txt", "private/b.txt"):
        r = requests.get(url(f"/{b}/{key}"))
        expect(r.status_code == 403 and "AccessDenied" in r.text, f"anonymous GET {key}: {r.status_code} {r.text[:150]}")
    r = requests.put(url(f"/{b}/public/new.txt"), data=b"w")
    expect_eq(r.status_code, 403, "anonymous PUT under public/")
    expect(not _exists(b, "public/new.txt"), "anonymous PUT stored an object")
    # A Principal-* statement without a condition does not bind the bucket owner (OSS's rule, AccessControl.md):
    # the owner's presigned URLs still read the denied key.
    for version in ("v1", "v4"):
        pre = v2_client(version).presign(oss.GetObjectRequest(bucket=b, key="public/secret.txt"))
        r = requests.get(pre.url)
        expect_eq(r.status_code, 200, f"owner's {version} presigned GET of a key denied to *")
    pre = v2_client("v4").presign(oss.GetObjectRequest(bucket=b, key="public/a.txt"))
    expect_eq(requests.get(pre.url).status_code, 200, "presigned GET of an allowed key")


def check_policy_status():
    b = new_bucket(client)
    policy = {"Version": "1", "Statement": [
        {"Effect": "Allow", "Action": ["oss:GetObject"], "Principal": ["*"], "Resource": [f"acs:oss:*:*:{b}/*"]}]}
    client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=b, body=json.dumps(policy)))
    status = client.get_bucket_policy_status(oss.GetBucketPolicyStatusRequest(bucket=b)).policy_status
    expect_eq(status.is_public, True, "GetBucketPolicyStatus of a policy granting * read")


def check_policy_condition_binds_owner():
    """The docs: a Principal * statement with a condition binds the bucket owner too."""
    b = new_bucket(client)
    put(b, "archive/x", b"keep")
    deny_everywhere(client, b, "oss:DeleteObject", "archive/")
    expect_code(lambda: client.delete_object(oss.DeleteObjectRequest(bucket=b, key="archive/x")), 403, "AccessDenied",
                "owner DELETE from 127.0.0.1 under a SourceIp deny")
    expect(_exists(b, "archive/x"), "denied object deleted")
    said = delete_multiple(b, "archive/x")
    expect(_exists(b, "archive/x"), f"DeleteMultipleObjects bypassed the deny ({said})")
    for version, auth in (("v1", oss2.Auth(AK, SK)), ("v4", oss2.AuthV4(AK, SK))):
        signer = oss2.Bucket(auth, ENDPOINT, b, region=REGION)
        r = requests.delete(signer.sign_url("DELETE", "archive/x", 600))
        expect(r.status_code == 403 and "AccessDenied" in r.text, f"{version} presigned DELETE: {r.status_code}")
    expect(_exists(b, "archive/x"), "denied object deleted by a presigned URL")


def check_referer():
    b = new_bucket(client)
    client.put_bucket_acl(oss.PutBucketAclRequest(bucket=b, acl="public-read"))
    cfg = oss.RefererConfiguration(allow_empty_referer=False, allow_truncate_query_string=True, truncate_path=False,
                                   referer_list=oss.RefererList(referers=["https://*.example.com"]),
                                   referer_blacklist=oss.RefererBlacklist(referers=["https://ads.example.com"]))
    client.put_bucket_referer(oss.PutBucketRefererRequest(bucket=b, referer_configuration=cfg))
    got = client.get_bucket_referer(oss.GetBucketRefererRequest(bucket=b)).referer_configuration
    expect_eq((got.allow_empty_referer, got.allow_truncate_query_string, got.truncate_path,
               got.referer_list.referers, got.referer_blacklist.referers),
              (False, True, False, ["https://*.example.com"], ["https://ads.example.com"]), "v2 read-back")
    o = oss2_bucket(b).get_bucket_referer()
    expect_eq((o.allow_empty_referer, o.referers, o.black_referers),
              (False, ["https://*.example.com"], ["https://ads.example.com"]), "oss2 read-back")
    put(b, "img.png", b"png")
    ok = requests.get(url(f"/{b}/img.png"), headers={"Referer": "https://www.example.com/page"})
    expect_eq(ok.status_code, 200, "anonymous GET from a listed referer")
    for ref in (None, "https://ads.example.com/x", "https://evil.net/"):
        r = requests.get(url(f"/{b}/img.png"), headers={"Referer": ref} if ref else {})
        expect(r.status_code == 403 and "AccessDenied" in r.text, f"anonymous GET with referer {ref}: {r.status_code}")
    for version in ("v1", "v4"):
        pre = v2_client(version).presign(oss.GetObjectRequest(bucket=b, key="img.png"))
        r = requests.get(pre.url, headers={"Referer": "https://evil.net/"})
        expect_eq(r.status_code, 403, f"{version} presigned GET with a foreign referer")
        r = requests.get(pre.url, headers={"Referer": "https://cdn.example.com/"})
        expect_eq(r.status_code, 200, f"{version} presigned GET with a listed referer")
    body = client.get_object(oss.GetObjectRequest(bucket=b, key="img.png", headers={"Referer": "https://evil.net/"}))
    expect_eq(body.body.read(), b"png", "a header-signed GET is not subject to referer rules")


def check_public_access_block():
    b = new_bucket(client)
    client.put_bucket_acl(oss.PutBucketAclRequest(bucket=b, acl="public-read"))
    put(b, "p.txt", b"p")
    expect_eq(requests.get(url(f"/{b}/p.txt")).status_code, 200, "anonymous GET of a public-read bucket")
    put(b, "q.txt", b"q")
    client.put_bucket_acl(oss.PutBucketAclRequest(bucket=b, acl="private"))
    open_policy = {"Version": "1", "Statement": [{"Effect": "Allow", "Action": ["oss:GetObject"], "Principal": ["*"],
                                                  "Resource": [f"acs:oss:*:*:{b}/q.txt"]}]}
    client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=b, body=json.dumps(open_policy)))
    client.put_object_acl(oss.PutObjectAclRequest(bucket=b, key="p.txt", acl="public-read"))
    expect_eq(requests.get(url(f"/{b}/q.txt")).status_code, 200, "anonymous GET allowed by a public policy")
    expect_eq(requests.get(url(f"/{b}/p.txt")).status_code, 200, "anonymous GET allowed by a public object ACL")
    client.put_bucket_public_access_block(oss.PutBucketPublicAccessBlockRequest(
        bucket=b, public_access_block_configuration=oss.PublicAccessBlockConfiguration(block_public_access=True)))
    for key in ("q.txt", "p.txt"):
        r = requests.get(url(f"/{b}/{key}"))
        expect_eq(r.status_code, 403, f"anonymous GET of {key} (public before the block) under the block")
    got = client.get_bucket_public_access_block(oss.GetBucketPublicAccessBlockRequest(bucket=b))
    expect_eq(got.public_access_block_configuration.block_public_access, True, "v2 read-back")
    expect_eq(oss2_bucket(b).get_bucket_public_access_block().block_public_access, True, "oss2 read-back")
    r = requests.get(url(f"/{b}/p.txt"))
    expect(r.status_code == 403 and "AccessDenied" in r.text, f"anonymous GET under the block: {r.status_code}")
    expect_code(lambda: client.put_object_acl(oss.PutObjectAclRequest(bucket=b, key="p.txt", acl="public-read")),
                403, "AccessDenied", "public object ACL under the block")
    public_policy = {"Version": "1", "Statement": [{"Effect": "Allow", "Action": ["oss:GetObject"],
                                                    "Principal": ["*"], "Resource": [f"acs:oss:*:*:{b}/*"]}]}
    expect_code(lambda: client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=b, body=json.dumps(public_policy))),
                403, "AccessDenied", "public policy under the block")
    r = requests.put(url(f"/{b}/anon.txt"), data=b"a")
    expect_eq(r.status_code, 403, "anonymous PUT under the block")
    pre = client.presign(oss.GetObjectRequest(bucket=b, key="p.txt"))
    expect_eq(requests.get(pre.url).status_code, 200, "the owner's presigned GET under the block")
    client.delete_bucket_public_access_block(oss.DeleteBucketPublicAccessBlockRequest(bucket=b))
    expect_eq(requests.get(url(f"/{b}/q.txt")).status_code, 200, "anonymous GET after the block is removed")


def check_bucket_worm():
    b = new_bucket(client)
    put(b, "a.txt", b"original")
    client.append_object(oss.AppendObjectRequest(bucket=b, key="log", position=0, body=b"line1\n"))
    put(b, "src.txt", b"replacement")
    wid = client.initiate_bucket_worm(oss.InitiateBucketWormRequest(
        bucket=b, initiate_worm_configuration=oss.InitiateWormConfiguration(retention_period_in_days=2))).worm_id
    cfg = client.get_bucket_worm(oss.GetBucketWormRequest(bucket=b)).worm_configuration
    expect_eq((cfg.worm_id, cfg.state, cfg.retention_period_in_days), (wid, "InProgress", 2), "v2 read-back")
    client.complete_bucket_worm(oss.CompleteBucketWormRequest(bucket=b, worm_id=wid))
    o = oss2_bucket(b).get_bucket_worm()
    expect_eq((o.worm_id, o.state, o.retention_period_days), (wid, "Locked", 2), "oss2 read-back")
    attempts = {
        "DeleteObject": lambda: client.delete_object(oss.DeleteObjectRequest(bucket=b, key="a.txt")),
        "PutObject": lambda: put(b, "a.txt", b"changed"),
        "CopyObject": copy_onto(b, "src.txt", "a.txt"),
        "CompleteMultipartUpload": multipart_onto(b, "a.txt"),
        "AppendObject": lambda: client.append_object(oss.AppendObjectRequest(bucket=b, key="log", position=6,
                                                                             body=b"line2\n")),
        "PutSymlink": lambda: client.put_symlink(oss.PutSymlinkRequest(bucket=b, key="a.txt", target="src.txt")),
    }
    for name, fn in attempts.items():
        expect_code(fn, 409, "FileImmutable", f"{name} onto a retained object")
    said = delete_multiple(b, "a.txt")
    expect_eq(body_of(b, "a.txt"), b"original", f"after every attempt (DeleteMultipleObjects: {said})")
    expect_eq(body_of(b, "log"), b"line1\n", "appendable object after the append attempt")
    put(b, "new.txt", b"new")  # a new key is fine
    expect_code(lambda: client.abort_bucket_worm(oss.AbortBucketWormRequest(bucket=b)), 409, "WORMConfigurationLocked",
                "abort a locked WORM")
    got = v2_error(lambda: client.extend_bucket_worm(oss.ExtendBucketWormRequest(
        bucket=b, worm_id=wid, extend_worm_configuration=oss.ExtendWormConfiguration(retention_period_in_days=1))))
    expect_eq(got[:2], (400, "InvalidWORMConfiguration"), "shorten a locked WORM")
    client.extend_bucket_worm(oss.ExtendBucketWormRequest(
        bucket=b, worm_id=wid, extend_worm_configuration=oss.ExtendWormConfiguration(retention_period_in_days=3)))
    expect_eq(client.get_bucket_worm(oss.GetBucketWormRequest(bucket=b)).worm_configuration.retention_period_in_days,
              3, "extended retention")
    got = v2_error(lambda: client.delete_bucket(oss.DeleteBucketRequest(bucket=b)))
    expect_eq(got[0], 409, f"delete a bucket holding retained objects: {got}")


def check_object_retention():
    b = new_bucket(client)
    client.put_bucket_versioning(oss.PutBucketVersioningRequest(
        bucket=b, versioning_configuration=oss.VersioningConfiguration(status="Enabled")))
    client.put_bucket_object_worm_configuration(oss.PutBucketObjectWormConfigurationRequest(
        bucket=b, object_worm_configuration=oss.ObjectWormConfiguration(object_worm_enabled="Enabled")))
    got = client.get_bucket_object_worm_configuration(oss.GetBucketObjectWormConfigurationRequest(bucket=b))
    expect_eq(got.object_worm_configuration.object_worm_enabled, "Enabled", "v2 read-back of ObjectWorm")
    v1 = put(b, "r.txt", b"v1").version_id
    until = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")
    client.put_object_retention(oss.PutObjectRetentionRequest(
        bucket=b, key="r.txt", version_id=v1, retention=oss.Retention(mode="COMPLIANCE", retain_until_date=until)))
    r = client.get_object_retention(oss.GetObjectRetentionRequest(bucket=b, key="r.txt", version_id=v1)).retention
    expect_eq((r.mode, r.retain_until_date[:19]), ("COMPLIANCE", until[:19]), "retention read-back")
    expect_code(lambda: client.delete_object(oss.DeleteObjectRequest(bucket=b, key="r.txt", version_id=v1)), 409,
                "FileImmutable", "delete a COMPLIANCE version")
    said = delete_multiple(b, "r.txt", v1)
    expect_eq(body_of(b, "r.txt", v1), b"v1", f"COMPLIANCE version after DeleteMultipleObjects ({said})")
    sooner = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=2)).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")
    got = v2_error(lambda: client.put_object_retention(oss.PutObjectRetentionRequest(
        bucket=b, key="r.txt", version_id=v1, bypass_governance_retention=True,
        retention=oss.Retention(mode="COMPLIANCE", retain_until_date=sooner))))
    expect(400 <= got[0] < 500, f"shortening COMPLIANCE: {got}")
    # Overwrite and a plain delete leave the protected version in place.
    put(b, "r.txt", b"v2")
    client.delete_object(oss.DeleteObjectRequest(bucket=b, key="r.txt"))
    expect_eq(body_of(b, "r.txt", v1), b"v1", "protected version after overwrite + delete marker")
    # Legal hold.
    h = put(b, "h.txt", b"held").version_id
    client.put_object_legal_hold(oss.PutObjectLegalHoldRequest(bucket=b, key="h.txt", version_id=h,
                                                              legal_hold=oss.LegalHold(status="ON")))
    lh = client.get_object_legal_hold(oss.GetObjectLegalHoldRequest(bucket=b, key="h.txt", version_id=h))
    expect_eq(lh.legal_hold.status, "ON", "legal hold read-back")
    expect_code(lambda: client.delete_object(oss.DeleteObjectRequest(bucket=b, key="h.txt", version_id=h)), 409,
                "FileImmutable", "delete a version under legal hold")
    client.put_object_legal_hold(oss.PutObjectLegalHoldRequest(bucket=b, key="h.txt", version_id=h,
                                                              legal_hold=oss.LegalHold(status="OFF")))
    client.delete_object(oss.DeleteObjectRequest(bucket=b, key="h.txt", version_id=h))
    # GOVERNANCE gives way to the bypass header only.
    g = put(b, "g.txt", b"gov").version_id
    client.put_object_retention(oss.PutObjectRetentionRequest(
        bucket=b, key="g.txt", version_id=g, retention=oss.Retention(mode="GOVERNANCE", retain_until_date=until)))
    expect_code(lambda: client.delete_object(oss.DeleteObjectRequest(bucket=b, key="g.txt", version_id=g)), 409,
                "FileImmutable", "delete a GOVERNANCE version without bypass")
    client.delete_object(oss.DeleteObjectRequest(bucket=b, key="g.txt", version_id=g,
                                                 headers={"x-oss-bypass-governance-retention": "true"}))
    expect_code(lambda: client.get_object(oss.GetObjectRequest(bucket=b, key="g.txt", version_id=g)), 404,
                "NoSuchVersion", "GOVERNANCE version after a bypass delete")
    # ObjectWorm disables AppendObject.
    got = v2_error(lambda: client.append_object(oss.AppendObjectRequest(bucket=b, key="ap", position=0, body=b"a")))
    expect(got[0] in (400, 403, 409), f"AppendObject in an ObjectWorm bucket: {got}")


def check_overwrite_config():
    b = new_bucket(client)
    cfg = oss.OverwriteConfiguration(rules=[oss.OverwriteRule(id="configs", action="forbid", prefix="config/",
                                                              suffix=".json")])
    client.put_bucket_overwrite_config(oss.PutBucketOverwriteConfigRequest(bucket=b, overwrite_configuration=cfg))
    got = client.get_bucket_overwrite_config(oss.GetBucketOverwriteConfigRequest(bucket=b))
    r = got.overwrite_configuration.rules[0]
    expect_eq((r.id, r.action, r.prefix, r.suffix), ("configs", "forbid", "config/", ".json"), "v2 read-back")
    put(b, "config/a.json", b"first")
    put(b, "src", b"other")
    for name, fn in (("PutObject", lambda: put(b, "config/a.json", b"second")),
                     ("CopyObject", copy_onto(b, "src", "config/a.json")),
                     ("CompleteMultipartUpload", multipart_onto(b, "config/a.json"))):
        expect_code(fn, 409, "FileAlreadyExists", f"{name} overwriting a forbidden key")
    expect_code(lambda: client.put_symlink(oss.PutSymlinkRequest(bucket=b, key="config/a.json", target="src")), 409,
                "FileAlreadyExists", "PutSymlink overwriting a forbidden key")
    client.append_object(oss.AppendObjectRequest(bucket=b, key="config/log.json", position=0, body=b"1"))
    expect_code(lambda: client.append_object(oss.AppendObjectRequest(bucket=b, key="config/log.json", position=1,
                                                                     body=b"2")),
                409, "FileAlreadyExists", "AppendObject onto a forbidden existing key")
    expect_eq(body_of(b, "config/a.json"), b"first", "forbidden key after overwrite attempts")
    put(b, "config/a.txt", b"1")
    put(b, "config/a.txt", b"2")
    expect_eq(body_of(b, "config/a.txt"), b"2", "a key outside the rule is overwritten")
    expect_code(lambda: put(b, "src", b"x", forbid_overwrite=True), 409, "FileAlreadyExists",
                "x-oss-forbid-overwrite: true")


def check_default_encryption():
    b = new_bucket(client)
    rule = oss.ServerSideEncryptionRule(apply_server_side_encryption_by_default=oss.ApplyServerSideEncryptionByDefault(
        sse_algorithm="KMS", kms_master_key_id="my-key"))
    client.put_bucket_encryption(oss.PutBucketEncryptionRequest(bucket=b, server_side_encryption_rule=rule))
    got = client.get_bucket_encryption(oss.GetBucketEncryptionRequest(bucket=b)).server_side_encryption_rule
    d = got.apply_server_side_encryption_by_default
    expect_eq((d.sse_algorithm, d.kms_master_key_id), ("KMS", "my-key"), "v2 read-back")
    o = oss2_bucket(b).get_bucket_encryption()
    expect_eq((o.sse_algorithm, o.kms_master_keyid), ("KMS", "my-key"), "oss2 read-back")
    p = put(b, "e.txt", b"secret")
    expect_eq((p.headers.get("x-oss-server-side-encryption"), p.headers.get("x-oss-server-side-encryption-key-id")),
              ("KMS", "my-key"), "PutObject headers")
    h = client.head_object(oss.HeadObjectRequest(bucket=b, key="e.txt"))
    expect_eq((h.server_side_encryption, h.server_side_encryption_key_id), ("KMS", "my-key"), "HeadObject")
    own = put(b, "own.txt", b"x", server_side_encryption="AES256")
    expect_eq(own.headers.get("x-oss-server-side-encryption"), "AES256", "a request's own encryption wins")
    init = client.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=b, key="mp"))
    expect_eq(init.headers.get("x-oss-server-side-encryption"), "KMS", "InitiateMultipartUpload header")
    client.put_bucket_encryption(oss.PutBucketEncryptionRequest(bucket=b, server_side_encryption_rule=oss.ServerSideEncryptionRule(
        apply_server_side_encryption_by_default=oss.ApplyServerSideEncryptionByDefault(sse_algorithm="AES256"))))
    expect_eq(client.head_object(oss.HeadObjectRequest(bucket=b, key="e.txt")).server_side_encryption, "KMS",
              "an object written before the change keeps its encryption")
    n = put(b, "n.txt", b"x")
    expect_eq(n.headers.get("x-oss-server-side-encryption"), "AES256", "new object after the change")


def check_policy_copy_paths():
    """A deny that binds the owner (it has a condition) is not bypassed by reading through CopyObject or
    UploadPartCopy, whose source read is a GetObject."""
    b = new_bucket(client)
    put(b, "secret/x", b"classified")
    deny_everywhere(client, b, "oss:GetObject", "secret/")
    expect_code(lambda: client.get_object(oss.GetObjectRequest(bucket=b, key="secret/x")), 403, "AccessDenied",
                "direct GET under the deny")
    got = v2_error(copy_onto(b, "secret/x", "open/x"))
    expect_eq(got[:2], (403, "AccessDenied"), "CopyObject out of the denied prefix")
    init = client.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=b, key="open/y"))
    got = v2_error(lambda: client.upload_part_copy(oss.UploadPartCopyRequest(
        bucket=b, key="open/y", upload_id=init.upload_id, part_number=1, source_bucket=b, source_key="secret/x")))
    expect_eq(got[:2], (403, "AccessDenied"), "UploadPartCopy out of the denied prefix")
    expect(not _exists(b, "open/x"), "copy stored an object")
    client.put_symlink(oss.PutSymlinkRequest(bucket=b, key="open/link", target="secret/x"))
    got = v2_error(lambda: client.get_object(oss.GetObjectRequest(bucket=b, key="open/link")))
    expect_eq(got[:2], (403, "AccessDenied"), "GET of a symlink outside the deny pointing into it")


def check_lifecycle_respects_worm_and_versions():
    b = new_bucket(client)
    put(b, "tmp/kept", b"k")
    wid = client.initiate_bucket_worm(oss.InitiateBucketWormRequest(
        bucket=b, initiate_worm_configuration=oss.InitiateWormConfiguration(retention_period_in_days=30))).worm_id
    client.complete_bucket_worm(oss.CompleteBucketWormRequest(bucket=b, worm_id=wid))
    client.put_bucket_lifecycle(oss.PutBucketLifecycleRequest(bucket=b, lifecycle_configuration=oss.LifecycleConfiguration(
        rules=[oss.LifecycleRule(id="tmp", prefix="tmp/", status="Enabled",
                                 expiration=oss.LifecycleRuleExpiration(days=7))])))
    r = requests.post(url("/-/lifecycle/run", "now=" + _iso(days=8)))
    expect(r.status_code in (200, 204), f"lifecycle run {r.status_code}")
    expect(_exists(b, "tmp/kept"), "lifecycle deleted an object under a 30-day WORM after 8 days")
    requests.post(url("/-/lifecycle/run", "now=" + _iso(days=31)))
    expect(not _exists(b, "tmp/kept"), "lifecycle did not delete the object once its retention was over")
    v = new_bucket(client)
    client.put_bucket_versioning(oss.PutBucketVersioningRequest(
        bucket=v, versioning_configuration=oss.VersioningConfiguration(status="Enabled")))
    first = put(v, "logs/a", b"1").version_id
    put(v, "logs/a", b"2")
    client.put_bucket_lifecycle(oss.PutBucketLifecycleRequest(bucket=v, lifecycle_configuration=oss.LifecycleConfiguration(
        rules=[oss.LifecycleRule(id="logs", prefix="logs/", status="Enabled",
                                 expiration=oss.LifecycleRuleExpiration(days=7),
                                 noncurrent_version_expiration=oss.NoncurrentVersionExpiration(noncurrent_days=3))])))
    requests.post(url("/-/lifecycle/run", "now=" + _iso(days=8)))
    vers = client.list_object_versions(oss.ListObjectVersionsRequest(bucket=v))
    markers = [m.key for m in vers.delete_marker or []]
    versions = [(o.key, o.version_id) for o in vers.version or []]
    expect_eq(markers, ["logs/a"], "a versioned expiration adds a delete marker")
    expect(("logs/a", first) not in versions, f"the noncurrent version outlived NoncurrentDays 3: {versions}")
    expect(len(versions) == 1, f"the current data was lost or kept wrongly: {versions}")


def check_lifecycle_versioned_clock():
    """On a versioned bucket, a version that the run itself made noncurrent (at the simulated date) counts its
    NoncurrentDays from that date; a delete marker left alone is removed by ExpiredObjectDeleteMarker."""
    v = new_bucket(client)
    client.put_bucket_versioning(oss.PutBucketVersioningRequest(
        bucket=v, versioning_configuration=oss.VersioningConfiguration(status="Enabled")))
    data = put(v, "logs/a", b"data").version_id
    client.put_bucket_lifecycle(oss.PutBucketLifecycleRequest(bucket=v, lifecycle_configuration=oss.LifecycleConfiguration(
        rules=[oss.LifecycleRule(id="logs", prefix="logs/", status="Enabled",
                                 expiration=oss.LifecycleRuleExpiration(days=7)),
               oss.LifecycleRule(id="old", prefix="logs/", status="Enabled",
                                 noncurrent_version_expiration=oss.NoncurrentVersionExpiration(noncurrent_days=3))])))
    for days in (8, 8):
        requests.post(url("/-/lifecycle/run", f"now={_iso(days=days)}&bucket={v}"))
    vers = client.list_object_versions(oss.ListObjectVersionsRequest(bucket=v))
    expect([o.version_id for o in vers.version or []] == [data],
           "a version made noncurrent by the day-8 run was removed by another day-8 run (NoncurrentDays 3)")
    m = new_bucket(client)
    client.put_bucket_versioning(oss.PutBucketVersioningRequest(
        bucket=m, versioning_configuration=oss.VersioningConfiguration(status="Enabled")))
    only = put(m, "gone", b"x").version_id
    client.delete_object(oss.DeleteObjectRequest(bucket=m, key="gone"))
    client.delete_object(oss.DeleteObjectRequest(bucket=m, key="gone", version_id=only))
    client.put_bucket_lifecycle(oss.PutBucketLifecycleRequest(bucket=m, lifecycle_configuration=oss.LifecycleConfiguration(
        rules=[oss.LifecycleRule(id="markers", prefix="", status="Enabled",
                                 expiration=oss.LifecycleRuleExpiration(expired_object_delete_marker=True))])))
    requests.post(url("/-/lifecycle/run", f"now={_iso(days=1)}&bucket={m}"))
    vers = client.list_object_versions(oss.ListObjectVersionsRequest(bucket=m))
    expect(not (vers.delete_marker or []), "a delete marker hiding nothing survived ExpiredObjectDeleteMarker")


def check_website():
    b = new_bucket(client)
    client.put_bucket_acl(oss.PutBucketAclRequest(bucket=b, acl="public-read"))
    client.put_bucket_website(oss.PutBucketWebsiteRequest(bucket=b, website_configuration=oss.WebsiteConfiguration(
        index_document=oss.IndexDocument(suffix="index.html", support_sub_dir=True, type=0),
        error_document=oss.ErrorDocument(key="404.html", http_status=404))))
    w = client.get_bucket_website(oss.GetBucketWebsiteRequest(bucket=b)).website_configuration
    expect_eq((w.index_document.suffix, w.index_document.support_sub_dir, w.error_document.key,
               w.error_document.http_status), ("index.html", True, "404.html", 404), "v2 read-back")
    o = oss2_bucket(b).get_bucket_website()
    expect_eq((o.index_file, o.error_file), ("index.html", "404.html"), "oss2 read-back")
    put(b, "index.html", b"<h1>home</h1>", content_type="text/html")
    put(b, "docs/index.html", b"<h1>docs</h1>", content_type="text/html")
    put(b, "404.html", b"<h1>missing</h1>", content_type="text/html")
    r = requests.get(url(f"/{b}/docs/"))
    expect_eq((r.status_code, r.content), (200, b"<h1>docs</h1>"), "anonymous GET of a folder")
    r = requests.get(url(f"/{b}/nothing-here.html"))
    expect_eq((r.status_code, r.content), (404, b"<h1>missing</h1>"), "anonymous GET of a missing key")


def check_bucket_stat_and_tags():
    b = new_bucket(client)
    for k, size in (("a", 10), ("b", 2000), ("c/d", 123)):
        put(b, k, b"s" * size)
    client.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=b, key="pending"))
    st = client.get_bucket_stat(oss.GetBucketStatRequest(bucket=b))
    expect_eq((st.storage, st.object_count, st.multi_part_upload_count), (2133, 3, 1), "v2 GetBucketStat")
    o = oss2_bucket(b).get_bucket_stat()
    expect_eq((o.storage_size_in_bytes, o.object_count, o.multi_part_upload_count), (2133, 3, 1), "oss2 GetBucketStat")
    client.put_bucket_tags(oss.PutBucketTagsRequest(bucket=b, tagging=oss.Tagging(tag_set=oss.TagSet(
        tags=[oss.Tag(key="team", value=b)]))))
    listed = client.list_buckets(oss.ListBucketsRequest(tag_key="team", tag_value=b))
    expect_eq([x.name for x in listed.buckets or []], [b], "ListBuckets filtered by tag")


def check_stored_families():
    """Families whose effect lives outside OSS: written by v2, read back by v2 and oss2 field for field."""
    b = new_bucket(client)
    target = new_bucket(client)
    client.put_bucket_logging(oss.PutBucketLoggingRequest(bucket=b, bucket_logging_status=oss.BucketLoggingStatus(
        logging_enabled=oss.LoggingEnabled(target_bucket=target, target_prefix="log/"))))
    got = client.get_bucket_logging(oss.GetBucketLoggingRequest(bucket=b)).bucket_logging_status.logging_enabled
    expect_eq((got.target_bucket, got.target_prefix), (target, "log/"), "logging v2")
    o = oss2_bucket(b).get_bucket_logging()
    expect_eq((o.target_bucket, o.target_prefix), (target, "log/"), "logging oss2")
    client.put_bucket_request_payment(oss.PutBucketRequestPaymentRequest(
        bucket=b, request_payment_configuration=oss.RequestPaymentConfiguration(payer="Requester")))
    expect_eq(client.get_bucket_request_payment(oss.GetBucketRequestPaymentRequest(bucket=b)).request_payment_configuration.payer,
              "Requester",
              "request payment v2")
    expect_eq(oss2_bucket(b).get_bucket_request_payment().payer, "Requester", "request payment oss2")
    client.put_bucket_transfer_acceleration(oss.PutBucketTransferAccelerationRequest(
        bucket=b, transfer_acceleration_configuration=oss.TransferAccelerationConfiguration(enabled=True)))
    got = client.get_bucket_transfer_acceleration(oss.GetBucketTransferAccelerationRequest(bucket=b))
    expect_eq(got.transfer_acceleration_configuration.enabled, True, "transfer acceleration v2")
    expect_eq(oss2_bucket(b).get_bucket_transfer_acceleration().enabled, "true", "transfer acceleration oss2")
    client.put_bucket_access_monitor(oss.PutBucketAccessMonitorRequest(
        bucket=b, access_monitor_configuration=oss.AccessMonitorConfiguration(status="Enabled")))
    got = client.get_bucket_access_monitor(oss.GetBucketAccessMonitorRequest(bucket=b))
    expect_eq(got.access_monitor_configuration.status, "Enabled", "access monitor v2")
    expect_eq(oss2_bucket(b).get_bucket_access_monitor().access_monitor.status, "Enabled", "access monitor oss2")
    client.put_bucket_https_config(oss.PutBucketHttpsConfigRequest(bucket=b, https_configuration=oss.HttpsConfiguration(
        tls=oss.TLS(enable=True, tls_versions=["TLSv1.2", "TLSv1.3"]))))
    got = client.get_bucket_https_config(oss.GetBucketHttpsConfigRequest(bucket=b)).https_configuration.tls
    expect_eq((got.enable, sorted(got.tls_versions)), (True, ["TLSv1.2", "TLSv1.3"]), "HTTPS config v2")
    o = oss2_bucket(b).get_bucket_https_config()
    expect_eq((o.tls_enabled, sorted(o.tls_version)), (True, ["TLSv1.2", "TLSv1.3"]), "HTTPS config oss2")
    client.put_bucket_acl(oss.PutBucketAclRequest(bucket=b, acl="public-read"))
    put(b, "paid.txt", b"p")
    r = requests.get(url(f"/{b}/paid.txt"))
    expect_eq(r.status_code, 403, "anonymous GET of a requester-pays bucket (AccessControl.md: refused)")
    expect_eq(body_of(b, "paid.txt"), b"p", "the owner's GET of a requester-pays bucket")
    got = raw_put_config(b, "requestPayment", "<RequestPaymentConfiguration><Payer>Nobody</Payer>"
                                              "</RequestPaymentConfiguration>")
    expect_eq(got[0], 400, f"request payment with payer Nobody: {got}")
    got = raw_put_config(b, "logging", "<BucketLoggingStatus><LoggingEnabled><TargetBucket>no-such-bucket-zz"
                                       "</TargetBucket></LoggingEnabled></BucketLoggingStatus>")
    expect(got[0] in (400, 404), f"logging into a bucket that does not exist: {got}")


for name, fn in [("CORS read-back and preflight", check_cors), ("lifecycle read-back and admin run", check_lifecycle),
                 ("lifecycle validation", check_lifecycle_invalid), ("malformed XML per family", check_malformed_xml_families),
                 ("policy Deny over Allow, anonymous and presigned", check_policy),
                 ("GetBucketPolicyStatus", check_policy_status),
                 ("policy condition binds the owner", check_policy_condition_binds_owner),
                 ("policy deny not bypassed by copy paths", check_policy_copy_paths),
                 ("lifecycle respects WORM, versions", check_lifecycle_respects_worm_and_versions),
                 ("lifecycle clock on versioned buckets", check_lifecycle_versioned_clock),
                 ("website index and error documents", check_website),
                 ("GetBucketStat and ListBuckets by tag", check_bucket_stat_and_tags),
                 ("stored-only families (logging, payment, acceleration, monitor, HTTPS)", check_stored_families),
                 ("referer rules", check_referer), ("public access block", check_public_access_block),
                 ("bucket WORM lock and bypass attempts", check_bucket_worm),
                 ("object retention and legal hold", check_object_retention),
                 ("overwrite config", check_overwrite_config), ("default encryption", check_default_encryption)]:
    report.run(name, fn)
report.exit()
