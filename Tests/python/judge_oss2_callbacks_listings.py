#!/usr/bin/env python3
"""Judge suite (parity): the official oss2 client's upload callbacks (including 203 CallbackFailed), ListObjects V1
with markers, delimiters and url encoding, ListMultipartUploads ordering, bucket info and response-* overrides, gzip GETs,
against an OSS endpoint whose callbacks can reach 127.0.0.1.

Usage: judge_oss2_callbacks_listings.py --endpoint http://127.0.0.1:PORT --access-key-id AK --access-key-secret SK
Exits non-zero on any failure.
"""
import base64
import json
import threading
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, HTTPServer

import oss2
import requests

from common import (check, equal, expect_error, md5, parse_args, run_cases)

args = parse_args(__doc__)
EP = args.endpoint
BUCKET = args.bucket
auth = oss2.Auth(args.access_key_id, args.access_key_secret)
bucket = oss2.Bucket(auth, EP, BUCKET)


class Receiver(BaseHTTPRequestHandler):
    """The callback server: records each POST and answers per the path (/ok, /fail, /text)."""
    calls = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        Receiver.calls.append({"path": self.path, "type": self.headers.get("Content-Type"),
                               "host": self.headers.get("Host"), "body": body})
        if self.path.startswith("/fail"):
            status, reply, ctype = 500, b"boom", "text/plain"
        elif self.path.startswith("/text"):
            status, reply, ctype = 200, b"plain text", "text/plain"
        else:
            status, reply, ctype = 200, json.dumps({"received": True, "n": len(Receiver.calls)}).encode(), "application/json"
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *a):
        pass


server = HTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
CB = "http://127.0.0.1:%d" % server.server_address[1]


def b64(obj):
    return base64.b64encode(json.dumps(obj).encode()).decode()


def callback_headers(path, body, body_type=None, variables=None):
    params = {"callbackUrl": CB + path, "callbackBody": body}
    if body_type:
        params["callbackBodyType"] = body_type
    headers = {"x-oss-callback": b64(params)}
    if variables:
        headers["x-oss-callback-var"] = b64(variables)
    return headers


def setup():
    bucket.create_bucket()


def callback_json():
    # OSS replaces the variables of a JSON body "in JSON format": each value comes as a JSON value (a quoted, escaped
    # string; the size a number), so the template leaves them unquoted (the OSS callback documentation's example).
    Receiver.calls.clear()
    data = b"callback data" * 10
    template = '{"bucket":${bucket},"object":${object},"etag":${etag},"size":${size},"mime":${mimeType},"v":${x:var1}}'
    r = bucket.put_object("cb/photo.jpg", data, headers=callback_headers(
        "/ok", template, "application/json", {"x:var1": 'value "1"\\'}))
    answer = r.resp.read()
    equal(r.status, 200, "callback put status (answer %r)" % answer[:300])
    reply = json.loads(answer)
    equal(reply["received"], True, "relayed callback reply")
    equal(len(Receiver.calls), 1, "callback calls")
    call = Receiver.calls[0]
    equal(call["type"], "application/json", "callback content type")
    sent = json.loads(call["body"])
    equal(sent, {"bucket": BUCKET, "object": "cb/photo.jpg", "etag": md5(data).upper(), "size": len(data),
                 "mime": "image/jpeg", "v": 'value "1"\\'}, "callback body")


def callback_json_not_json():
    # A variable in quotes gives a body that is not JSON once replaced: OSS refuses the upload before storing it.
    template = '{"object":"${object}"}'
    e = expect_error(lambda: bucket.put_object("cb/quoted", b"x", headers=callback_headers(
        "/ok", template, "application/json")), 400, "InvalidArgument", "quoted variable in a JSON callback body")
    check("json format" in str(e), "the refusal says the body is not JSON: %s" % e)
    expect_error(lambda: bucket.get_object_meta("cb/quoted"), 404, None, "refused upload stores nothing")


def callback_form_multipart():
    Receiver.calls.clear()
    key = "cb/a b&c.bin"
    upload_id = bucket.init_multipart_upload(key).upload_id
    part = bucket.upload_part(key, upload_id, 1, b"x" * 1000)
    headers = callback_headers("/ok?src=mp", "object=${object}&size=${size}&v=${x:var1}", None, {"x:var1": "a&b"})
    r = bucket.complete_multipart_upload(key, upload_id, [oss2.models.PartInfo(1, part.etag)], headers=headers)
    equal(r.status, 200, "complete with callback")
    check(b"received" in r.resp.read(), "complete relays the callback reply")
    call = Receiver.calls[0]
    equal(call["path"], "/ok?src=mp", "callback path and query")
    equal(call["type"], "application/x-www-form-urlencoded", "form callback type")
    fields = dict(urllib.parse.parse_qsl(call["body"].decode()))
    equal(fields, {"object": key, "size": "1000", "v": "a&b"}, "form callback fields")


def callback_failed_203():
    for path in ("/fail", "/text"):
        Receiver.calls.clear()
        key = "cb/failed%s.bin" % path.replace("/", "-")
        data = b"stored anyway"
        r = bucket.put_object(key, data, headers=callback_headers(path, "object=${object}"))
        equal(r.status, 203, "callback failure status (%s)" % path)
        body = r.resp.read()
        check(b"CallbackFailed" in body, "203 body names CallbackFailed: %s" % body)
        equal(r.etag, md5(data).upper(), "203 carries the ETag")
        check(r.request_id, "203 carries a request id")
        equal(bucket.get_object(key).read(), data, "object stored despite the failed callback")


def callback_unreachable_203():
    # The local server calls only loopback http URLs; any other callback fails as an unreachable one fails on OSS:
    # the object is stored and the reply is 203 CallbackFailed, saying why.
    for url in ("http://192.0.2.1/cb", "https://127.0.0.1/cb"):
        key = "cb/remote-%s" % url.split(":")[0]
        r = bucket.put_object(key, b"x", headers={"x-oss-callback": b64({"callbackUrl": url, "callbackBody": "a=b"})})
        equal(r.status, 203, "callback to %s" % url)
        body = r.resp.read()
        check(b"CallbackFailed" in body and b"local server calls back only" in body, "203 explains: %s" % body)
        equal(bucket.get_object(key).read(), b"x", "object stored despite the refused callback")
    expect_error(lambda: bucket.put_object("cb/bad", b"x", headers={"x-oss-callback": "%%%"}), 400, "InvalidArgument",
                 "malformed callback")
    expect_error(lambda: bucket.get_object_meta("cb/bad"), 404, None, "malformed callback stores nothing")


def presigned_callback():
    # A presigned URL carries the callback in its query (callback, callback-var), signed with it.
    Receiver.calls.clear()
    # Names without the x: prefix in callback-var are ignored, as OSS ignores them.
    params = {"callback": b64({"callbackUrl": CB + "/ok", "callbackBody": "object=${object}&v=${x:v}"}),
              "callback-var": b64({"x:v": "presigned", "callbackUrl": "ignored"})}
    r = requests.put(bucket.sign_url("PUT", "cb/presigned", 60, params=params), data=b"abc")
    equal(r.status_code, 200, "presigned upload with a callback (answer %r)" % r.content[:300])
    check(b"received" in r.content, "the callback reply is relayed: %s" % r.content)
    equal(dict(urllib.parse.parse_qsl(Receiver.calls[0]["body"].decode())), {"object": "cb/presigned", "v": "presigned"},
          "presigned callback fields")
    params = {"callback": b64({"callbackUrl": CB + "/fail", "callbackBody": "object=${object}"})}
    r = requests.put(bucket.sign_url("PUT", "cb/presigned-failed", 60, params=params), data=b"abc")
    equal(r.status_code, 203, "presigned upload whose callback fails")
    check(b"CallbackFailed" in r.content, "203 body names CallbackFailed: %s" % r.content)
    equal(bucket.get_object("cb/presigned-failed").read(), b"abc", "stored despite the failed callback")


KEYS = ["a b.txt", "a+b", "a/1", "a/2", "a/3/x", "b", "c/d/e", "ü/1", "zz%41", "~t"]


def list_objects_v1():
    for k in KEYS:
        bucket.put_object("l/" + k, k.encode())
    # oss2's ObjectIterator pages with marker and decodes encoding-type=url.
    listed = [o.key for o in oss2.ObjectIterator(bucket, prefix="l/", max_keys=3)]
    expected = sorted(("l/" + k for k in KEYS), key=lambda s: s.encode())
    equal(listed, expected, "ObjectIterator (ListObjects V1) order")
    entries = [(o.key, o.is_prefix()) for o in oss2.ObjectIterator(bucket, prefix="l/", delimiter="/", max_keys=1)]
    equal([k for k, p in entries if p], ["l/a/", "l/c/", "l/ü/"], "common prefixes once, across pages")
    equal([k for k, p in entries if not p], ["l/a b.txt", "l/a+b", "l/b", "l/zz%41", "l/~t"], "keys beside prefixes")
    r = bucket.list_objects(prefix="l/a/", marker="l/a/1", delimiter="/")
    equal([o.key for o in r.object_list], ["l/a/2"], "marker excludes itself")
    equal(r.prefix_list, ["l/a/3/"], "prefix under marker")
    equal(r.is_truncated, False, "not truncated")
    r = bucket.list_objects(prefix="l/", max_keys=2)
    equal(r.is_truncated, True, "truncated page")
    equal(r.next_marker, "l/a+b", "NextMarker decoded")


def list_uploads():
    ids = [bucket.init_multipart_upload("u/same").upload_id for _ in range(3)]
    for k in ("u/dir/a", "u/dir/b", "u/a b"):
        bucket.init_multipart_upload(k)
    seen = [(u.key, u.upload_id) for u in oss2.MultipartUploadIterator(bucket, prefix="u/", max_uploads=1)]
    equal([k for k, _ in seen], ["u/a b", "u/dir/a", "u/dir/b", "u/same", "u/same", "u/same"], "uploads by key")
    equal([i for k, i in seen if k == "u/same"], sorted(ids), "uploads of one key by upload id")
    entries = [(u.key, u.is_prefix()) for u in
               oss2.MultipartUploadIterator(bucket, prefix="u/", delimiter="/", max_uploads=1)]
    equal([k for k, p in entries if p], ["u/dir/"], "upload common prefix once")
    for k, i in seen:
        bucket.abort_multipart_upload(k, i)


def bucket_info():
    info = bucket.get_bucket_info()
    host = EP.split("://", 1)[1]
    equal(info.extranet_endpoint, host, "extranet endpoint is the server's own address")
    equal(info.name, BUCKET, "bucket name")
    equal(bucket.get_bucket_location().location, "oss-" + args.region, "location")


def response_overrides():
    bucket.put_object("o/file.bin", b"override me")
    params = {"response-content-type": "text/csv", "response-content-disposition": 'attachment; filename="x.csv"',
              "response-cache-control": "no-cache"}
    r = bucket.get_object("o/file.bin", params=params)
    equal(r.read(), b"override me", "override body")
    equal(r.headers.get("Content-Type"), "text/csv", "response-content-type")
    equal(r.headers.get("Content-Disposition"), 'attachment; filename="x.csv"', "response-content-disposition")
    equal(r.headers.get("Cache-Control"), "no-cache", "response-cache-control")
    url = bucket.sign_url("GET", "o/file.bin", 60, params=params)
    r = requests.get(url, timeout=10)
    equal(r.status_code, 200, "presigned override URL: %s" % r.text)
    equal(r.headers.get("Content-Type"), "text/csv", "presigned response-content-type")


def traffic_limit():
    data = bytes(range(256)) * 800
    bucket.put_object("t/limited.bin", data)
    before = requests.get(EP + "/-/stats", timeout=10).json().get("trafficLimitedResponses", 0)
    limit = str(10 * 8 * 1024 * 1024)
    r = bucket.get_object("t/limited.bin", headers={"x-oss-traffic-limit": limit})
    equal(r.read(), data, "paced GET body")
    url = bucket.sign_url("GET", "t/limited.bin", 60, params={"x-oss-traffic-limit": limit})
    r = requests.get(url, timeout=30)
    equal(r.status_code, 200, "presigned traffic-limited GET: %s" % r.text)
    equal(r.content, data, "presigned paced body")
    after = requests.get(EP + "/-/stats", timeout=10).json().get("trafficLimitedResponses", 0)
    equal(after - before, 2, "paced responses counted by the server")
    expect_error(lambda: bucket.get_object("t/limited.bin", headers={"x-oss-traffic-limit": "100"}), 400,
                 "InvalidArgument", "traffic limit below range")


def gzip_get():
    # OSS compresses a whole-object GET of a web text type of at least 1 KB when the client accepts gzip: the reply
    # is gzip-encoded and chunked, with no ETag, Content-Length or Accept-Ranges (oss2's test_gzip_get).
    data = b"line of text\n" * 4000
    bucket.put_object("z/page.txt", data)  # oss2 sends text/plain for .txt
    r = bucket.get_object("z/page.txt", headers={"Accept-Encoding": "gzip"})
    equal(r.read(), data, "gzip body as oss2 reads it")
    equal(r.headers.get("Content-Encoding"), "gzip", "Content-Encoding")
    equal(r.headers.get("Transfer-Encoding"), "chunked", "Transfer-Encoding")
    equal(r.content_length, None, "no Content-Length")
    equal(r.headers.get("ETag"), None, "no ETag")
    equal(r.headers.get("x-oss-hash-crc64ecma"), bucket.head_object("z/page.txt").headers.get("x-oss-hash-crc64ecma"), "CRC of the object")
    raw = requests.get(bucket.sign_url("GET", "z/page.txt", 60), headers={"Accept-Encoding": "gzip"}, stream=True,
                       timeout=10).raw.read(decode_content=False)
    equal(zlib.decompress(raw, 16 + zlib.MAX_WBITS), data, "the raw body is gzip (decoded by zlib)")
    h = requests.head(bucket.sign_url("HEAD", "z/page.txt", 60), headers={"Accept-Encoding": "gzip"}, timeout=10)
    equal((h.status_code, h.headers.get("Content-Encoding"), h.headers.get("ETag")), (200, "gzip", None), "gzip HEAD")
    for key, content, headers in [("z/photo.jpg", data, {"Accept-Encoding": "gzip"}),
                                  ("z/small.txt", b"x" * 1023, {"Accept-Encoding": "gzip"}),
                                  ("z/page.txt", data, {"Accept-Encoding": "gzip", "Range": "bytes=0-99"}),
                                  ("z/page.txt", data, {"Accept-Encoding": "gzip;q=0, identity"})]:
        if key != "z/page.txt":
            bucket.put_object(key, content)
        r = bucket.get_object(key, headers=headers)
        equal(r.headers.get("Content-Encoding"), None, "not compressed: %s %s" % (key, headers))
        check(r.headers.get("Content-Length") is not None, "Content-Length: %s %s" % (key, headers))
        r.read()


def teardown():
    for o in oss2.ObjectIterator(bucket):
        bucket.delete_object(o.key)
    for u in oss2.MultipartUploadIterator(bucket):
        bucket.abort_multipart_upload(u.key, u.upload_id)
    bucket.delete_bucket()
    server.shutdown()


run_cases([("setup", setup), ("callback_json", callback_json), ("callback_form_multipart", callback_form_multipart),
           ("callback_json_not_json", callback_json_not_json),
           ("callback_failed_203", callback_failed_203), ("callback_unreachable_203", callback_unreachable_203),
           ("presigned_callback", presigned_callback),
           ("list_objects_v1", list_objects_v1), ("list_uploads", list_uploads), ("bucket_info", bucket_info),
           ("response_overrides", response_overrides), ("traffic_limit", traffic_limit), ("gzip_get", gzip_get),
           ("teardown", teardown)])
