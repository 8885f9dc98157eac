#!/usr/bin/env python3
"""Judge suite: the official oss2 client (V1 and V4, plain and STS) against an OSS endpoint.

Usage: judge_oss2.py --endpoint http://127.0.0.1:PORT --access-key-id AK --access-key-secret SK
                     [--sts-access-key-id .. --sts-access-key-secret .. --sts-security-token ..]
Exits non-zero on any failure.
"""
import os
import time

import oss2
import requests
from oss2.credentials import StaticCredentialsProvider

from common import (check, equal, expect_error, file_md5, md5, parse_args, random_file, run_cases, workdir)
from objects_oss2 import object_cases

args = parse_args(__doc__)
EP = args.endpoint
REGION = args.region
BUCKET = args.bucket
WORK = workdir()


def make_bucket(mode):
    """mode: v1, v4, sts-v1, sts-v4."""
    if mode.startswith("sts"):
        ak, sk, token = args.sts_access_key_id, args.sts_access_key_secret, args.sts_security_token
    else:
        ak, sk, token = args.access_key_id, args.access_key_secret, None
    if mode.endswith("v4"):
        auth = oss2.ProviderAuthV4(StaticCredentialsProvider(ak, sk, token))
        return oss2.Bucket(auth, EP, BUCKET, region=REGION)
    auth = oss2.StsAuth(ak, sk, token) if token else oss2.Auth(ak, sk)
    return oss2.Bucket(auth, EP, BUCKET)


def crc64(data):
    c = oss2.utils.Crc64()
    c.update(data)
    return c.crc


admin = make_bucket("v1")
modes = ["v1", "v4"] + (["sts-v1", "sts-v4"] if args.sts_security_token else [])


def setup():
    admin.create_bucket()
    names = [b.name for b in oss2.BucketIterator(oss2.Service(oss2.Auth(args.access_key_id, args.access_key_secret), EP))]
    check(BUCKET in names, "ListBuckets does not list %s: %s" % (BUCKET, names))


def basic(mode):
    def run():
        b = make_bucket(mode)
        key = "dir/%s/ünï cödé+a=b&c~%%.txt" % mode
        data = os.urandom(4096)
        r = b.put_object(key, data, headers={"x-oss-meta-color": "Blue", "Content-Type": "text/plain"})
        equal(r.status, 200, "put status")
        equal(r.etag, md5(data).upper(), "put etag")
        equal(r.crc, crc64(data), "put crc")
        g = b.get_object(key)
        equal(g.read(), data, "get body")
        equal(g.headers.get("x-oss-meta-color"), "Blue", "user metadata")
        equal(g.headers.get("Content-Type"), "text/plain", "content type")
        h = b.head_object(key)
        equal(h.content_length, 4096, "head length")
        equal(h.etag, md5(data).upper(), "head etag")
        equal(h.object_type, "Normal", "object type")
        check(h.last_modified > 0, "head last modified")
        m = b.get_object_meta(key)
        equal(m.content_length, 4096, "object meta length")
        # ranged gets (legacy behaviour)
        equal(b.get_object(key, byte_range=(10, 19)).read(), data[10:20], "range 10-19")
        equal(b.get_object(key, byte_range=(None, 100)).read(), data[-100:], "suffix range")
        equal(b.get_object(key, byte_range=(4000, None)).read(), data[4000:], "open range")
        whole = b.get_object(key, byte_range=(0, 10000))
        equal(whole.status, 200, "legacy out-of-bounds range status")
        equal(whole.read(), data, "legacy out-of-bounds range body")
        # conditional gets
        etag = h.etag
        equal(b.get_object(key, headers={"If-Match": etag}).read(), data, "If-Match unquoted")
        equal(b.get_object(key, headers={"If-Match": '"%s"' % etag}).read(), data, "If-Match quoted")
        expect_error(lambda: b.get_object(key, headers={"If-Match": '"0000"'}), 412, "PreconditionFailed", "If-Match wrong")
        expect_error(lambda: b.get_object(key, headers={"If-None-Match": '"%s"' % etag}), 304, None, "If-None-Match")
        future = oss2.utils.http_date(int(time.time()) + 3600)
        past = oss2.utils.http_date(int(time.time()) - 3600)
        expect_error(lambda: b.get_object(key, headers={"If-Modified-Since": future}), 304, None, "If-Modified-Since")
        expect_error(lambda: b.get_object(key, headers={"If-Unmodified-Since": past}), 412, "PreconditionFailed",
                     "If-Unmodified-Since")
        equal(b.get_object(key, headers={"If-Modified-Since": past}).read(), data, "If-Modified-Since passes")
        # Content-MD5 mismatch
        expect_error(lambda: b.put_object(key + ".bad", b"abc", headers={"Content-MD5": "1B2M2Y8AsgTpgAmY7PhCfg=="}),
                     400, "InvalidDigest", "wrong Content-MD5")
        # listing
        keys = [o.key for o in oss2.ObjectIterator(b, prefix="dir/%s/" % mode)]
        equal(keys, [key], "ListObjects keys")
        prefixes = [o.key for o in oss2.ObjectIterator(b, prefix="dir/", delimiter="/") if o.is_prefix()]
        check("dir/%s/" % mode in prefixes, "common prefix missing: %s" % prefixes)
        keys2 = [o.key for o in oss2.ObjectIteratorV2(b, prefix="dir/%s/" % mode)]
        equal(keys2, [key], "ListObjectsV2 keys")
        b.delete_object(key)
        expect_error(lambda: b.head_object(key), 404, "NoSuchKey", "head after delete")
        expect_error(lambda: b.get_object(key), 404, "NoSuchKey", "get after delete")
        b.delete_object(key)  # deleting a missing key is fine
    return run


def multipart(mode):
    def run():
        b = make_bucket(mode)
        key = "mp/%s/archive.bin" % mode
        p1, p2, p3 = os.urandom(102400), os.urandom(150000), os.urandom(1000)
        upload_id = b.init_multipart_upload(key).upload_id
        r1 = b.upload_part(key, upload_id, 1, p1)
        r2 = b.upload_part(key, upload_id, 2, p2)
        r3 = b.upload_part(key, upload_id, 3, p3)
        equal(r1.crc, crc64(p1), "part crc")
        listed = b.list_parts(key, upload_id).parts
        equal([p.part_number for p in listed], [1, 2, 3], "list parts")
        equal([p.size for p in listed], [102400, 150000, 1000], "part sizes")
        uploads = [u.upload_id for u in oss2.MultipartUploadIterator(b, prefix="mp/%s/" % mode)]
        check(upload_id in uploads, "ListMultipartUploads misses the upload")
        parts = [oss2.models.PartInfo(1, r1.etag), oss2.models.PartInfo(2, r2.etag), oss2.models.PartInfo(3, r3.etag)]
        # a non-last part under 100 KB is refused
        small_id = b.init_multipart_upload(key + ".small").upload_id
        s1 = b.upload_part(key + ".small", small_id, 1, b"tiny")
        s2 = b.upload_part(key + ".small", small_id, 2, b"tiny")
        expect_error(lambda: b.complete_multipart_upload(
            key + ".small", small_id, [oss2.models.PartInfo(1, s1.etag), oss2.models.PartInfo(2, s2.etag)]),
            400, "EntityTooSmall", "EntityTooSmall")
        expect_error(lambda: b.complete_multipart_upload(key, upload_id, [oss2.models.PartInfo(1, '"0000"')]),
                     400, "InvalidPart", "InvalidPart")
        b.abort_multipart_upload(key + ".small", small_id)
        expect_error(lambda: b.list_parts(key + ".small", small_id), 404, "NoSuchUpload", "list after abort")
        done = b.complete_multipart_upload(key, upload_id, parts)
        equal(done.crc, crc64(p1 + p2 + p3), "complete crc")
        g = b.get_object(key)
        equal(g.read(), p1 + p2 + p3, "multipart object body")
        equal(b.head_object(key).object_type, "Multipart", "multipart object type")
        expect_error(lambda: b.upload_part(key, upload_id, 4, b"x"), 404, "NoSuchUpload", "upload after complete")
        b.delete_object(key)
    return run


def list_parts_paging():
    b = make_bucket("v1")
    key = "paging/many-parts"
    upload_id = b.init_multipart_upload(key).upload_id
    for n in range(1, 1002):
        b.upload_part(key, upload_id, n, b"%d" % (n % 10))
    first = b.list_parts(key, upload_id)
    equal(len(first.parts), 1000, "first page size")
    check(first.is_truncated, "first page must be truncated")
    equal(first.next_marker, "1000", "NextPartNumberMarker")
    numbers = [p.part_number for p in oss2.PartIterator(b, key, upload_id)]
    equal(numbers, list(range(1, 1002)), "PartIterator over 1001 parts")
    small = b.list_parts(key, upload_id, marker="998", max_parts=2)
    equal([p.part_number for p in small.parts], [999, 1000], "marker paging")
    b.abort_multipart_upload(key, upload_id)


def resumable(mode):
    def run():
        b = make_bucket(mode)
        src = random_file(3 * 1024 * 1024 + 12345, WORK)
        key = "resumable/%s/file.bin" % mode
        store = oss2.ResumableStore(root=WORK)
        oss2.resumable_upload(b, key, src, store=store, multipart_threshold=1024 * 1024, part_size=256 * 1024,
                              num_threads=4)
        h = b.head_object(key)
        equal(h.object_type, "Multipart", "resumable upload used multipart")
        equal(h.content_length, os.path.getsize(src), "resumable upload size")
        dst = os.path.join(WORK, "download-%s.bin" % mode)
        dstore = oss2.ResumableDownloadStore(root=WORK)
        oss2.resumable_download(b, key, dst, store=dstore, multiget_threshold=1024 * 1024, part_size=300 * 1024,
                                num_threads=4)
        equal(file_md5(dst), file_md5(src), "resumable download content")
        b.delete_object(key)
    return run


def presigned(mode):
    def run():
        b = make_bucket(mode)
        key = "presigned/%s/a b+c.txt" % mode
        data = os.urandom(1000)
        put_url = b.sign_url("PUT", key, 300)
        r = requests.put(put_url, data=data)
        equal(r.status_code, 200, "presigned PUT: %s" % r.text)
        get_url = b.sign_url("GET", key, 300)
        r = requests.get(get_url)
        equal(r.status_code, 200, "presigned GET: %s" % r.text)
        equal(r.content, data, "presigned GET body")
        r = requests.get(get_url, headers={"Range": "bytes=0-9"})
        equal(r.status_code, 206, "presigned ranged GET")
        equal(r.content, data[:10], "presigned ranged body")
        tampered = get_url.replace("presigned", "presignex", 1)
        r = requests.get(tampered)
        equal(r.status_code, 403, "tampered URL")
        check(b"SignatureDoesNotMatch" in r.content, "tampered URL code: %s" % r.content)
        b.delete_object(key)
    return run


def expired_url():
    b = make_bucket("v1")
    b.put_object("expired.txt", b"x")
    url = b.sign_url("GET", "expired.txt", 1)
    time.sleep(2.2)
    r = requests.get(url)
    equal(r.status_code, 403, "expired URL status")
    check(b"AccessDenied" in r.content, "expired URL code: %s" % r.content)


def wrong_secret():
    for v4 in (False, True):
        if v4:
            auth = oss2.ProviderAuthV4(StaticCredentialsProvider(args.access_key_id, "wrong-secret"))
            b = oss2.Bucket(auth, EP, BUCKET, region=REGION)
        else:
            b = oss2.Bucket(oss2.Auth(args.access_key_id, "wrong-secret"), EP, BUCKET)
        expect_error(lambda: b.put_object("never", b"x"), 403, "SignatureDoesNotMatch", "wrong secret v4=%s" % v4)
    unknown = oss2.Bucket(oss2.Auth("NoSuchAccessKey", "whatever"), EP, BUCKET)
    expect_error(lambda: unknown.get_object("x"), 403, "InvalidAccessKeyId", "unknown access key")
    r = requests.get(EP + "/" + BUCKET + "/anything")
    equal(r.status_code, 403, "anonymous request")
    if args.sts_security_token:
        bad = oss2.Bucket(oss2.StsAuth(args.sts_access_key_id, args.sts_access_key_secret, "bad-token"), EP, BUCKET)
        expect_error(lambda: bad.get_object("x"), 403, None, "wrong STS token")


def teardown():
    for o in oss2.ObjectIterator(admin):
        admin.delete_object(o.key)
    for u in oss2.MultipartUploadIterator(admin):
        admin.abort_multipart_upload(u.key, u.upload_id)
    admin.delete_bucket()
    expect_error(lambda: admin.get_bucket_info(), 404, "NoSuchBucket", "bucket after delete")


cases = [("setup", setup)]
for m in modes:
    cases += [("basic[%s]" % m, basic(m)), ("multipart[%s]" % m, multipart(m)),
              ("resumable[%s]" % m, resumable(m)), ("presigned[%s]" % m, presigned(m))]
cases += object_cases(make_bucket, modes, EP, BUCKET)
cases += [("list_parts_paging", list_parts_paging), ("expired_url", expired_url),
          ("wrong_secret", wrong_secret), ("teardown", teardown)]
run_cases(cases)
