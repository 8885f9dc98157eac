"""Issue #33: PostObject forms built here from OSS's PostObject documentation (V1 and V4), the hostile forms of the
issue's Standards, and a multipart upload done entirely through presigned URLs (alibabacloud-oss-v2's presign, and
oss2's sign_url for ListParts, which v2 does not presign)."""
import base64
import datetime
import hashlib
import hmac
import http.server
import json
import os
import socket
import threading
import time
import xml.etree.ElementTree as ET

import requests

from common import (AK, ENDPOINT, HOST_PORT, REGION, SK, Failed, Report, deny_everywhere, expect, expect_eq,
                    new_bucket, oss, oss2, v2_client)

client = v2_client()
report = Report(33)
BUCKET = new_bucket(client, "post")
POST_URL = f"{ENDPOINT}/{BUCKET}/"
FORM_TIMEOUT = float(os.environ.get("INDEP_FORM_TIMEOUT", "120"))


def now():
    return datetime.datetime.now(datetime.timezone.utc)


def policy_doc(conditions, expires_in=600):
    exp = (now() + datetime.timedelta(seconds=expires_in)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return base64.b64encode(json.dumps({"expiration": exp, "conditions": conditions}).encode()).decode()


def v1_fields(conditions, expires_in=600):
    """OSS PostObject V1: policy = base64(JSON); Signature = base64(HMAC-SHA1(secret, policy))."""
    policy = policy_doc(conditions, expires_in)
    sig = base64.b64encode(hmac.new(SK.encode(), policy.encode(), hashlib.sha1).digest()).decode()
    return [("OSSAccessKeyId", AK), ("policy", policy), ("Signature", sig)]


def v4_fields(conditions, expires_in=600, in_policy=("x-oss-signature-version", "x-oss-credential", "x-oss-date")):
    """OSS PostObject V4: the three x-oss fields are policy conditions; x-oss-signature = hex(HMAC-SHA256(
    signing key, policy)) with the signing key derived from aliyun_v4 + secret, date, region, oss, aliyun_v4_request."""
    t = now()
    day = t.strftime("%Y%m%d")
    v4 = {"x-oss-signature-version": "OSS4-HMAC-SHA256",
          "x-oss-credential": f"{AK}/{day}/{REGION}/oss/aliyun_v4_request",
          "x-oss-date": t.strftime("%Y%m%dT%H%M%SZ")}
    policy = policy_doc(conditions + [{k: v4[k]} for k in in_policy], expires_in)
    key = ("aliyun_v4" + SK).encode()
    for part in (day, REGION, "oss", "aliyun_v4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    sig = hmac.new(key, policy.encode(), hashlib.sha256).hexdigest()
    return [("policy", policy)] + list(v4.items()) + [("x-oss-signature", sig)]


def form_body(fields, file_bytes, boundary="----indepBoundary7MA4YWxkTrZu0gW", file_first=False):
    def field(name, value):
        return (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n").encode() + (
            value if isinstance(value, bytes) else value.encode()) + b"\r\n"
    file_part = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\n"
                 f"Content-Type: application/octet-stream\r\n\r\n").encode() + file_bytes + b"\r\n"
    parts = [field(n, v) for n, v in fields]
    body = (file_part + b"".join(parts)) if file_first else (b"".join(parts) + file_part)
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def post(fields, file_bytes=b"hello post", **kw):
    body, ctype = form_body(fields, file_bytes, **kw)
    return requests.post(POST_URL, data=body, headers={"Content-Type": ctype}, timeout=60, allow_redirects=False)


def code_of(resp):
    try:
        root = ET.fromstring(resp.content)
        return root.findtext("Code"), root.findtext("Message")
    except ET.ParseError:
        return None, resp.text[:200]


def stored(key):
    return client.is_object_exist(BUCKET, key)


def refused(resp, status, code, key, what, message_part=None):
    got_code, message = code_of(resp)
    expect(resp.status_code == status and (code is None or got_code == code),
           f"{what}: expected {status} {code}, got {resp.status_code} {got_code} ({message})")
    if message_part:
        expect(message_part in (message or ""), f"{what}: message {message!r} lacks {message_part!r}")
    expect(not stored(key), f"{what}: the object {key} was stored anyway")


BASE = [{"bucket": BUCKET}, ["starts-with", "$key", "users/alice/"], ["content-length-range", 1, 1024]]


def check_v1_accepted():
    key = "users/alice/v1.txt"
    r = post([("key", key), ("success_action_status", "201")] + v1_fields(BASE + [["eq", "$success_action_status",
                                                                                  "201"]]), b"v1 body")
    expect_eq(r.status_code, 201, f"V1 post ({r.text[:200]})")
    root = ET.fromstring(r.content)
    expect_eq((root.tag, root.findtext("Bucket"), root.findtext("Key")), ("PostResponse", BUCKET, key),
              "201 PostResponse")
    expect_eq(client.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key)).body.read(), b"v1 body", "stored bytes")


def check_v4_accepted():
    key = "users/alice/v4.txt"
    conds = BASE + [["starts-with", "$content-type", "text/"], ["eq", "$x-oss-meta-owner", "alice"]]
    r = post([("key", key), ("Content-Type", "text/plain"), ("x-oss-meta-owner", "alice")] + v4_fields(conds),
             b"v4 body")
    expect_eq(r.status_code, 204, f"V4 post, default status ({r.text[:200]})")
    h = client.head_object(oss.HeadObjectRequest(bucket=BUCKET, key=key))
    expect_eq((h.content_type, h.metadata.get("owner")), ("text/plain", "alice"), "content type and metadata")
    expect_eq(client.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key)).body.read(), b"v4 body", "stored bytes")
    redirect = "https://app.example.com/done"
    key2 = "users/alice/redir.txt"
    r = post([("key", key2), ("success_action_redirect", redirect)] +
             v4_fields(BASE + [["eq", "$success_action_redirect", redirect]]))
    expect_eq(r.status_code, 303, "success_action_redirect status")
    loc = r.headers.get("Location", "")
    expect(loc.startswith(redirect + "?") and "etag=" in loc and "bucket=" in loc, f"redirect Location {loc!r}")


def check_cors_for_post():
    """A page on another origin: the preflight for POST on the bucket and the POST's own response carry CORS."""
    origin = "https://app.example.com"
    b = new_bucket(client, "postcors")
    client.put_bucket_cors(oss.PutBucketCorsRequest(bucket=b, cors_configuration=oss.CORSConfiguration(cors_rules=[
        oss.CORSRule(allowed_origins=[origin], allowed_methods=["POST", "PUT"], allowed_headers=["*"],
                     expose_headers=["ETag"], max_age_seconds=60)])))
    pre = requests.options(f"{ENDPOINT}/{b}/", headers={"Origin": origin, "Access-Control-Request-Method": "POST"})
    expect_eq((pre.status_code, pre.headers.get("Access-Control-Allow-Origin")), (200, origin), "POST preflight")
    conds = [{"bucket": b}, ["starts-with", "$key", "u/"]]
    body, ctype = form_body([("key", "u/cors.txt")] + v4_fields(conds), b"from the page")
    r = requests.post(f"{ENDPOINT}/{b}/", data=body, headers={"Content-Type": ctype, "Origin": origin}, timeout=60)
    expect_eq(r.status_code, 204, f"POST from the page ({r.text[:200]})")
    expect_eq(r.headers.get("Access-Control-Allow-Origin"), origin, "Allow-Origin on the POST response")
    expect("etag" in r.headers.get("Access-Control-Expose-Headers", "").lower(), "Expose-Headers on the POST response")
    bad = requests.options(f"{ENDPOINT}/{b}/", headers={"Origin": "https://evil.net",
                                                        "Access-Control-Request-Method": "POST"})
    expect_eq(bad.status_code, 403, "POST preflight from another origin")


def check_callback():
    """OSS calls the form's callback URL after storing the object and returns its answer to the browser."""
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
            body = b'{"status":"recorded"}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        cb = base64.b64encode(json.dumps({
            "callbackUrl": f"http://127.0.0.1:{srv.server_port}/uploaded",
            "callbackBody": "key=${object}&size=${size}&user=${x:user}",
            "callbackBodyType": "application/x-www-form-urlencoded"}).encode()).decode()
        key = "users/alice/cb.txt"
        conds = BASE + [["eq", "$callback", cb], ["eq", "$x:user", "alice"]]
        r = post([("key", key), ("callback", cb), ("x:user", "alice")] + v4_fields(conds), b"twelve bytes")
        expect_eq((r.status_code, r.content), (200, b'{"status":"recorded"}'), "the callback's answer as the response")
        plain, encoded = f"key={key}&size=12&user=alice", f"key={key.replace('/', '%2F')}&size=12&user=alice"
        expect(len(seen) == 1 and seen[0] in (plain, encoded), f"callback bodies {seen}")
        expect(stored(key), "object with a callback not stored")
    finally:
        srv.shutdown()


def post_to(bucket, fields, file_bytes=b"overwrite"):
    body, ctype = form_body(fields, file_bytes)
    return requests.post(f"{ENDPOINT}/{bucket}/", data=body, headers={"Content-Type": ctype}, timeout=60,
                         allow_redirects=False)


def check_post_honours_protection():
    """PostObject and presigned PUTs are write paths too: WORM, overwrite rules, a deny policy and the public access
    block refuse them as they refuse PutObject (issue #31's Standards: no bypass by any path)."""
    def form(bucket, key):
        return [("key", key)] + v4_fields([{"bucket": bucket}, ["eq", "$key", key]])

    worm = new_bucket(client, "postworm")
    client.put_object(oss.PutObjectRequest(bucket=worm, key="kept", body=b"original"))
    wid = client.initiate_bucket_worm(oss.InitiateBucketWormRequest(
        bucket=worm, initiate_worm_configuration=oss.InitiateWormConfiguration(retention_period_in_days=1))).worm_id
    client.complete_bucket_worm(oss.CompleteBucketWormRequest(bucket=worm, worm_id=wid))
    r = post_to(worm, form(worm, "kept"))
    expect(r.status_code == 409 and code_of(r)[0] == "FileImmutable",
           f"PostObject onto a WORM-retained object: {r.status_code} {code_of(r)}")
    for version in ("v1", "v4"):
        pre = v2_client(version).presign(oss.PutObjectRequest(bucket=worm, key="kept"))
        r = requests.put(pre.url, data=b"overwrite", headers=pre.signed_headers)
        expect_eq(r.status_code, 409, f"{version} presigned PUT onto a WORM-retained object")
    expect_eq(client.get_object(oss.GetObjectRequest(bucket=worm, key="kept")).body.read(), b"original",
              "WORM-retained object after PostObject and presigned PUTs")

    ow = new_bucket(client, "postow")
    client.put_bucket_overwrite_config(oss.PutBucketOverwriteConfigRequest(
        bucket=ow, overwrite_configuration=oss.OverwriteConfiguration(rules=[oss.OverwriteRule(
            id="all", action="forbid", prefix="cfg/")])))
    client.put_object(oss.PutObjectRequest(bucket=ow, key="cfg/a", body=b"first"))
    r = post_to(ow, form(ow, "cfg/a"))
    expect(r.status_code == 409 and code_of(r)[0] == "FileAlreadyExists",
           f"PostObject over a forbidden key: {r.status_code} {code_of(r)}")
    expect_eq(client.get_object(oss.GetObjectRequest(bucket=ow, key="cfg/a")).body.read(), b"first",
              "forbidden key after PostObject")

    pol = new_bucket(client, "postpol")
    deny_everywhere(client, pol, "oss:PutObject", "locked/")
    r = post_to(pol, form(pol, "locked/x"))
    expect(r.status_code == 403 and code_of(r)[0] == "AccessDenied",
           f"PostObject under a deny policy: {r.status_code} {code_of(r)}")
    expect(not client.is_object_exist(pol, "locked/x"), "PostObject under a deny policy stored the object")

    pab = new_bucket(client, "postpab")
    client.put_bucket_acl(oss.PutBucketAclRequest(bucket=pab, acl="public-read-write"))
    r = post_to(pab, [("key", "anon-before")])
    expect(r.status_code in (200, 204), f"unsigned PostObject to a public-read-write bucket: {r.status_code} "
                                         f"{code_of(r)}")
    client.put_bucket_public_access_block(oss.PutBucketPublicAccessBlockRequest(
        bucket=pab, public_access_block_configuration=oss.PublicAccessBlockConfiguration(block_public_access=True)))
    r = post_to(pab, [("key", "anon-after")])
    expect_eq(r.status_code, 403, "unsigned PostObject under the public access block")
    expect(not client.is_object_exist(pab, "anon-after"), "unsigned PostObject under the block stored the object")


def check_expired():
    key = "users/alice/expired.txt"
    for version, signer in (("V1", v1_fields), ("V4", v4_fields)):
        r = post([("key", key)] + signer(BASE, expires_in=-60))
        refused(r, 403, "AccessDenied", key, f"{version} expired policy", "Policy expired")


def check_tampered():
    key = "users/alice/tampered.txt"
    for version, signer, sig_name in (("V1", v1_fields, "Signature"), ("V4", v4_fields, "x-oss-signature")):
        fields = signer(BASE)
        bad_sig = [(n, (v[:-2] + ("AA" if not v.endswith("AA") else "BB")) if n == sig_name else v) for n, v in fields]
        refused(post([("key", key)] + bad_sig), 403, "SignatureDoesNotMatch", key, f"{version} tampered signature")
        wider = policy_doc([{"bucket": BUCKET}, ["starts-with", "$key", ""], ["content-length-range", 1, 1 << 30]])
        bad_policy = [(n, wider if n == "policy" else v) for n, v in fields]
        refused(post([("key", key)] + bad_policy), 403, "SignatureDoesNotMatch", key, f"{version} swapped policy")


def check_range_and_conditions():
    key = "users/alice/big.bin"
    for version, signer in (("V1", v1_fields), ("V4", v4_fields)):
        refused(post([("key", key)] + signer(BASE), b"x" * 1025), 400, "EntityTooLarge", key,
                f"{version} file over the range")
        small = [{"bucket": BUCKET}, ["starts-with", "$key", "users/alice/"], ["content-length-range", 10, 1024]]
        refused(post([("key", key)] + signer(small), b"x" * 5), 400, "EntityTooSmall", key,
                f"{version} file under the range")
        out = "users/bob/x.txt"
        refused(post([("key", out)] + signer(BASE)), 403, "AccessDenied", out, f"{version} key outside starts-with",
                "Policy Condition failed")
        ct = BASE + [["in", "$content-type", ["image/png", "image/jpeg"]]]
        refused(post([("key", key), ("Content-Type", "text/html")] + signer(ct)), 403, "AccessDenied", key,
                f"{version} content type not in the list")
        meta = BASE + [["eq", "$x-oss-meta-owner", "alice"]]
        refused(post([("key", key), ("x-oss-meta-owner", "mallory")] + signer(meta)), 403, "AccessDenied", key,
                f"{version} metadata not equal")
        refused(post([("key", key)] + signer(meta)), 403, "AccessDenied", key,
                f"{version} a field the policy requires is missing")
        wrong_bucket = [{"bucket": "another-bucket"}] + BASE[1:]
        refused(post([("key", key)] + signer(wrong_bucket)), 403, "AccessDenied", key, f"{version} policy for another bucket")


def check_unlisted_field():
    key = "users/alice/unlisted.txt"
    r = post([("key", key)] + v4_fields(BASE, in_policy=("x-oss-signature-version", "x-oss-date")))
    refused(r, 403, "AccessDenied", key, "V4 x-oss-credential not in the policy", "Extra input fields")


def check_file_before_policy():
    key = "users/alice/first.txt"
    for version, signer in (("V1", v1_fields), ("V4", v4_fields)):
        r = post([("key", key)] + signer(BASE), file_first=True)
        expect(400 <= r.status_code < 500, f"{version} file before the policy: {r.status_code} {code_of(r)}")
        expect(not stored(key), f"{version} file before the policy: stored")


def check_truncated():
    key = "users/alice/cut.txt"
    body, ctype = form_body([("key", key)] + v4_fields(BASE), b"y" * 500)
    cut = body[: len(body) - 200]
    r = requests.post(POST_URL, data=cut, headers={"Content-Type": ctype}, timeout=60)
    refused(r, 400, "MalformedPOSTRequest", key, "truncated form (whole body sent, closing boundary missing)")


def check_no_boundary():
    key = "users/alice/cut.txt"
    body, _ = form_body([("key", key)] + v4_fields(BASE), b"y" * 500)
    nobound = requests.post(POST_URL, data=body, headers={"Content-Type": "multipart/form-data"}, timeout=60)
    refused(nobound, 400, None, key, "multipart without a boundary")


def check_large_policy_accepted():
    """OSS's limits: a field name at most 8 KB (error 0006-00000110), a field value at most 2 MB
    (help.aliyun.com/document_detail/480528.html), all values before the file at most 8 MB (0006-00000112).
    A 15 KB policy (a long content-type list) is within them."""
    key = "users/alice/bigpolicy.txt"
    types = [f"application/x-type-{i:05d}" for i in range(400)] + ["text/plain"]
    fields = [("key", key), ("Content-Type", "text/plain")] + v4_fields(BASE + [["in", "$content-type", types]])
    r = post(fields, b"long policy")
    expect(r.status_code == 204, f"a {len(dict(fields)['policy'])}-byte policy: {r.status_code} {code_of(r)}")
    expect(stored(key), "a form with a long policy stored nothing")


def check_never_ending():
    """Headers promise more body than ever arrives: the server must answer (OSS: 400 RequestTimeout) or close, not
    hold the connection and a half-written object forever."""
    key = "users/alice/slow.txt"
    body, ctype = form_body([("key", key)] + v4_fields(BASE), b"z" * 800)
    head = (f"POST /{BUCKET}/ HTTP/1.1\r\nHost: {HOST_PORT}\r\nContent-Type: {ctype}\r\n"
            f"Content-Length: {len(body) + 10000}\r\n\r\n").encode()
    host, port = HOST_PORT.split(":")
    s = socket.create_connection((host, int(port)))
    s.settimeout(FORM_TIMEOUT)
    s.sendall(head + body[: len(body) - 100])
    started = time.monotonic()
    try:
        answer = s.recv(65536)
    except socket.timeout:
        raise Failed(f"no answer and no close within {FORM_TIMEOUT:.0f} s")
    finally:
        s.close()
    took = time.monotonic() - started
    expect(not stored(key), "stalled form stored an object")
    if answer:
        status = answer.split(b"\r\n", 1)[0].decode(errors="replace")
        expect(b" 400 " in answer.split(b"\r\n", 1)[0] and b"RequestTimeout" in answer,
               f"answered after {took:.1f} s with {status!r}, expected 400 RequestTimeout")
    print(f"  note: a stalled form ended after {took:.1f} s ({'answer' if answer else 'close'})", flush=True)


def check_huge_field():
    key = "users/alice/huge.txt"
    big = "a" * (3 << 20)
    r = post([("key", key), ("x-oss-meta-junk", big)] + v4_fields(BASE + [["starts-with", "$x-oss-meta-junk", ""]]))
    refused(r, 400, None, key, "a 3 MiB form field (OSS: a value is at most 2 MB)")
    many = [(f"x-ignore-{i}", "b" * (1 << 20)) for i in range(9)]
    r = post([("key", key)] + many + v4_fields(BASE))
    refused(r, 400, None, key, "9 MiB of fields before the file (OSS: at most 8 MB)")


def check_presigned_multipart():
    key = "users/alice/large.bin"
    part_size = 100 * 1024
    data = os.urandom(part_size * 2 + 777)
    parts = [data[i:i + part_size] for i in range(0, len(data), part_size)]
    for version in ("v1", "v4"):
        c = v2_client(version)
        k = f"{key}.{version}"
        pre = c.presign(oss.InitiateMultipartUploadRequest(bucket=BUCKET, key=k))
        r = requests.request(pre.method, pre.url, headers=pre.signed_headers)
        expect_eq(r.status_code, 200, f"{version} presigned initiate ({r.text[:200]})")
        upload_id = ET.fromstring(r.content).findtext("UploadId")
        etags = []
        for n, chunk in enumerate(parts, 1):
            md5 = base64.b64encode(hashlib.md5(chunk).digest()).decode()
            pre = c.presign(oss.UploadPartRequest(bucket=BUCKET, key=k, upload_id=upload_id, part_number=n,
                                                  content_md5=md5))
            r = requests.put(pre.url, data=chunk, headers=pre.signed_headers)
            expect_eq(r.status_code, 200, f"{version} presigned part {n} ({r.text[:200]})")
            etags.append(r.headers["ETag"])
            if n == 1:
                bad = requests.put(pre.url, data=chunk[:-1] + bytes([chunk[-1] ^ 0xFF]), headers=pre.signed_headers)
                expect_eq(bad.status_code, 400, f"{version} part with a signed MD5 and other bytes")
        auth = oss2.Auth(AK, SK) if version == "v1" else oss2.AuthV4(AK, SK)
        signer = oss2.Bucket(auth, ENDPOINT, BUCKET, region=REGION)
        r = requests.get(signer.sign_url("GET", k, 600, params={"uploadId": upload_id}))
        expect_eq(r.status_code, 200, f"{version} presigned ListParts ({r.text[:200]})")
        listed = [int(p.findtext("PartNumber")) for p in ET.fromstring(r.content).iter("Part")]
        expect_eq(listed, [1, 2, 3], f"{version} ListParts")
        xml = "<CompleteMultipartUpload>" + "".join(
            f"<Part><PartNumber>{n}</PartNumber><ETag>{e}</ETag></Part>" for n, e in enumerate(etags, 1)) + \
            "</CompleteMultipartUpload>"
        pre = c.presign(oss.CompleteMultipartUploadRequest(bucket=BUCKET, key=k, upload_id=upload_id))
        r = requests.post(pre.url, data=xml.encode(), headers=pre.signed_headers)
        expect_eq(r.status_code, 200, f"{version} presigned complete ({r.text[:200]})")
        got = client.get_object(oss.GetObjectRequest(bucket=BUCKET, key=k)).body.read()
        expect(got == data, f"{version} completed object differs ({len(got)} bytes)")
        # An abort URL for another upload; a part URL reused for another part number is refused.
        other = client.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=BUCKET, key=k + ".x"))
        pre = c.presign(oss.UploadPartRequest(bucket=BUCKET, key=k + ".x", upload_id=other.upload_id, part_number=1))
        moved = pre.url.replace("partNumber=1", "partNumber=2")
        r = requests.put(moved, data=b"q" * 10, headers=pre.signed_headers)
        expect_eq(r.status_code, 403, f"{version} part URL with its partNumber changed")
        pre = c.presign(oss.AbortMultipartUploadRequest(bucket=BUCKET, key=k + ".x", upload_id=other.upload_id))
        r = requests.delete(pre.url, headers=pre.signed_headers)
        expect_eq(r.status_code, 204, f"{version} presigned abort")
        ups = client.list_multipart_uploads(oss.ListMultipartUploadsRequest(bucket=BUCKET)).uploads or []
        expect(all(u.upload_id != other.upload_id for u in ups), f"{version} aborted upload still listed")
        pre = c.presign(oss.GetObjectRequest(bucket=BUCKET, key=k), expires=datetime.timedelta(seconds=1))
        time.sleep(2)
        expect_eq(requests.get(pre.url).status_code, 403, f"{version} presigned GET after its expiry")


for name, fn in [("V1 form accepted (201 PostResponse)", check_v1_accepted),
                 ("V4 form accepted (204, metadata, redirect)", check_v4_accepted),
                 ("CORS for a POST from another origin", check_cors_for_post),
                 ("callback", check_callback),
                 ("PostObject and presigned PUT honour WORM, overwrite, policy, block", check_post_honours_protection),
                 ("expired policy", check_expired), ("tampered signature and policy", check_tampered),
                 ("range and condition failures", check_range_and_conditions),
                 ("field not listed in a V4 policy", check_unlisted_field),
                 ("file before the policy", check_file_before_policy), ("truncated form", check_truncated),
                 ("multipart/form-data without a boundary", check_no_boundary),
                 ("huge fields", check_huge_field), ("a 15 KB policy within OSS's limits", check_large_policy_accepted), ("form that never ends", check_never_ending),
                 ("presigned multipart, every step", check_presigned_multipart)]:
    report.run(name, fn)
report.exit()
