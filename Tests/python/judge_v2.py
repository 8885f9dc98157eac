#!/usr/bin/env python3
"""Judge suite: the official alibabacloud-oss-v2 client (V1 and V4, plain and STS) against an OSS endpoint.

Usage: judge_v2.py --endpoint http://127.0.0.1:PORT --access-key-id AK --access-key-secret SK
                   [--sts-access-key-id .. --sts-access-key-secret .. --sts-security-token ..]
Uses path-style addressing (v2 would otherwise turn 127.0.0.1 into a virtual host only for names, and
`localhost` into bucket.localhost). Exits non-zero on any failure.
"""
import datetime
import os
import time

import alibabacloud_oss_v2 as oss
import requests

from common import (Failure, check, equal, file_md5, md5, parse_args, random_file, run_cases, workdir)
from objects_v2 import object_cases

args = parse_args(__doc__)
BUCKET = args.bucket
WORK = workdir()


def make_client(mode, secret=None):
    """mode: v1, v4, sts-v1, sts-v4."""
    if mode.startswith("sts"):
        provider = oss.credentials.StaticCredentialsProvider(
            args.sts_access_key_id, secret or args.sts_access_key_secret, args.sts_security_token)
    else:
        provider = oss.credentials.StaticCredentialsProvider(args.access_key_id, secret or args.access_key_secret)
    cfg = oss.config.load_default()
    cfg.credentials_provider = provider
    cfg.region = args.region
    cfg.endpoint = args.endpoint
    cfg.use_path_style = True
    cfg.signature_version = "v1" if mode.endswith("v1") else "v4"
    cfg.retry_max_attempts = 1
    return oss.Client(cfg)


def expect_error(fn, status, code, what):
    try:
        fn()
    except Exception as e:
        inner = e.unwrap() if hasattr(e, "unwrap") else e
        got_status = getattr(inner, "status_code", None)
        got_code = getattr(inner, "code", None)
        if got_status != status or (code is not None and got_code != code):
            raise Failure("%s: expected %s %s, got %s %s (%s)" % (what, status, code, got_status, got_code, e))
        return inner
    raise Failure("%s: expected %s %s, but the call succeeded" % (what, status, code))


admin = make_client("v4")
modes = ["v1", "v4"] + (["sts-v1", "sts-v4"] if args.sts_security_token else [])


def setup():
    admin.put_bucket(oss.PutBucketRequest(bucket=BUCKET))
    names = []
    for page in admin.list_buckets_paginator().iter_page(oss.ListBucketsRequest()):
        names += [b.name for b in page.buckets]
    check(BUCKET in names, "ListBuckets does not list %s: %s" % (BUCKET, names))


def get(c, key, **kw):
    return c.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key, **kw))


def basic(mode):
    def run():
        c = make_client(mode)
        key = "dir/%s/ünï cödé+a=b&c~%%.txt" % mode
        data = os.urandom(5000)
        r = c.put_object(oss.PutObjectRequest(bucket=BUCKET, key=key, body=data, metadata={"color": "Blue"},
                                              content_type="text/plain"))
        equal(r.status_code, 200, "put status")
        equal(r.etag, '"%s"' % md5(data).upper(), "put etag")
        g = get(c, key)
        equal(g.body.content, data, "get body")
        equal(g.metadata.get("color"), "Blue", "metadata")
        equal(g.content_type, "text/plain", "content type")
        h = c.head_object(oss.HeadObjectRequest(bucket=BUCKET, key=key))
        equal(h.content_length, 5000, "head length")
        equal(h.object_type, "Normal", "object type")
        equal(h.hash_crc64, g.hash_crc64, "crc header")
        # ranges: legacy and standard
        equal(get(c, key, range_header="bytes=10-19").body.content, data[10:20], "range")
        legacy = get(c, key, range_header="bytes=4000-9999")
        equal(legacy.status_code, 200, "legacy out-of-bounds status")
        equal(legacy.body.content, data, "legacy out-of-bounds body")
        std = get(c, key, range_header="bytes=4000-9999", range_behavior="standard")
        equal(std.status_code, 206, "standard truncated status")
        equal(std.content_range, "bytes 4000-4999/5000", "standard Content-Range")
        equal(std.body.content, data[4000:], "standard truncated body")
        expect_error(lambda: get(c, key, range_header="bytes=6000-", range_behavior="standard"), 416, "InvalidRange",
                     "standard start past end")
        # conditionals
        etag = h.etag
        equal(get(c, key, if_match=etag).body.content, data, "If-Match")
        expect_error(lambda: get(c, key, if_match='"00"'), 412, "PreconditionFailed", "If-Match wrong")
        expect_error(lambda: get(c, key, if_none_match=etag), 304, None, "If-None-Match")
        past = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)).strftime(
            "%a, %d %b %Y %H:%M:%S GMT")
        expect_error(lambda: get(c, key, if_unmodified_since=past), 412, "PreconditionFailed", "If-Unmodified-Since")
        expect_error(lambda: c.head_object(oss.HeadObjectRequest(bucket=BUCKET, key=key, if_match='"00"')), 412,
                     "PreconditionFailed", "HEAD If-Match wrong (x-oss-err)")
        # listing
        keys = []
        for page in c.list_objects_v2_paginator().iter_page(oss.ListObjectsV2Request(bucket=BUCKET,
                                                                                       prefix="dir/%s/" % mode)):
            keys += [o.key for o in (page.contents or [])]
        equal(keys, [key], "ListObjectsV2 keys")
        lo = c.list_objects(oss.ListObjectsRequest(bucket=BUCKET, prefix="dir/", delimiter="/"))
        check("dir/%s/" % mode in [p.prefix for p in (lo.common_prefixes or [])], "common prefixes")
        c.delete_object(oss.DeleteObjectRequest(bucket=BUCKET, key=key))
        expect_error(lambda: c.head_object(oss.HeadObjectRequest(bucket=BUCKET, key=key)), 404, "NoSuchKey",
                     "head after delete")
    return run


def multipart(mode):
    def run():
        c = make_client(mode)
        key = "mp/%s/archive.bin" % mode
        parts_data = [os.urandom(102400), os.urandom(120000), os.urandom(777)]
        init = c.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=BUCKET, key=key))
        upload_id = init.upload_id
        equal(init.key, key, "initiate key (url-decoded)")
        parts = []
        for n, data in enumerate(parts_data, 1):
            r = c.upload_part(oss.UploadPartRequest(bucket=BUCKET, key=key, upload_id=upload_id, part_number=n,
                                                    body=data))
            parts.append(oss.UploadPart(part_number=n, etag=r.etag))
        lp = c.list_parts(oss.ListPartsRequest(bucket=BUCKET, key=key, upload_id=upload_id))
        equal([p.part_number for p in lp.parts], [1, 2, 3], "ListParts")
        check(all(p.hash_crc64 for p in lp.parts), "HashCrc64ecma per part")
        lu = c.list_multipart_uploads(oss.ListMultipartUploadsRequest(bucket=BUCKET, prefix="mp/%s/" % mode))
        check(upload_id in [u.upload_id for u in (lu.uploads or [])], "ListMultipartUploads")
        expect_error(lambda: c.complete_multipart_upload(oss.CompleteMultipartUploadRequest(
            bucket=BUCKET, key=key, upload_id=upload_id,
            complete_multipart_upload=oss.CompleteMultipartUpload(parts=[parts[1], parts[0]]))),
            400, "InvalidPartOrder", "InvalidPartOrder")
        done = c.complete_multipart_upload(oss.CompleteMultipartUploadRequest(
            bucket=BUCKET, key=key, upload_id=upload_id,
            complete_multipart_upload=oss.CompleteMultipartUpload(parts=parts)))
        equal(done.status_code, 200, "complete status")
        equal(get(c, key).body.content, b"".join(parts_data), "multipart object")
        expect_error(lambda: c.list_parts(oss.ListPartsRequest(bucket=BUCKET, key=key, upload_id=upload_id)), 404,
                     "NoSuchUpload", "ListParts after complete")
        # complete-all
        init2 = c.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=BUCKET, key=key + ".all"))
        for n, data in enumerate(parts_data, 1):
            c.upload_part(oss.UploadPartRequest(bucket=BUCKET, key=key + ".all", upload_id=init2.upload_id,
                                                part_number=n, body=data))
        c.complete_multipart_upload(oss.CompleteMultipartUploadRequest(bucket=BUCKET, key=key + ".all",
                                                                       upload_id=init2.upload_id, complete_all="yes"))
        equal(get(c, key + ".all").body.content, b"".join(parts_data), "complete-all object")
        c.delete_object(oss.DeleteObjectRequest(bucket=BUCKET, key=key))
        c.delete_object(oss.DeleteObjectRequest(bucket=BUCKET, key=key + ".all"))
    return run


def list_parts_paging():
    c = make_client("v4")
    key = "paging/many parts"
    upload_id = c.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(bucket=BUCKET, key=key)).upload_id
    for n in range(1, 1002):
        c.upload_part(oss.UploadPartRequest(bucket=BUCKET, key=key, upload_id=upload_id, part_number=n, body=b"z"))
    first = c.list_parts(oss.ListPartsRequest(bucket=BUCKET, key=key, upload_id=upload_id))
    equal(len(first.parts), 1000, "first page")
    check(first.is_truncated, "first page truncated")
    numbers = []
    for page in c.list_parts_paginator().iter_page(oss.ListPartsRequest(bucket=BUCKET, key=key, upload_id=upload_id)):
        numbers += [p.part_number for p in page.parts]
    equal(numbers, list(range(1, 1002)), "paginator over 1001 parts")
    c.abort_multipart_upload(oss.AbortMultipartUploadRequest(bucket=BUCKET, key=key, upload_id=upload_id))


def resumable(mode):
    def run():
        c = make_client(mode)
        src = random_file(3 * 1024 * 1024 + 4321, WORK)
        key = "resumable/%s/file.bin" % mode
        up = c.uploader(part_size=256 * 1024, parallel_num=4, enable_checkpoint=True, checkpoint_dir=WORK)
        up.upload_file(oss.PutObjectRequest(bucket=BUCKET, key=key), filepath=src)
        h = c.head_object(oss.HeadObjectRequest(bucket=BUCKET, key=key))
        equal(h.object_type, "Multipart", "uploader used multipart")
        dst = os.path.join(WORK, "v2-download-%s.bin" % mode)
        down = c.downloader(part_size=300 * 1024, parallel_num=4, enable_checkpoint=True, checkpoint_dir=WORK)
        down.download_file(oss.GetObjectRequest(bucket=BUCKET, key=key), filepath=dst)
        equal(file_md5(dst), file_md5(src), "downloaded content")
        c.delete_object(oss.DeleteObjectRequest(bucket=BUCKET, key=key))
    return run


def presigned(mode):
    def run():
        c = make_client(mode)
        key = "presigned/%s/a b+c.txt" % mode
        data = os.urandom(999)
        put = c.presign(oss.PutObjectRequest(bucket=BUCKET, key=key))
        r = requests.put(put.url, data=data, headers=dict(put.signed_headers or {}))
        equal(r.status_code, 200, "presigned PUT: %s" % r.text)
        got = c.presign(oss.GetObjectRequest(bucket=BUCKET, key=key))
        r = requests.get(got.url, headers=dict(got.signed_headers or {}))
        equal(r.status_code, 200, "presigned GET: %s" % r.text)
        equal(r.content, data, "presigned GET body")
        c.delete_object(oss.DeleteObjectRequest(bucket=BUCKET, key=key))
    return run


def expired_url():
    c = make_client("v4")
    c.put_object(oss.PutObjectRequest(bucket=BUCKET, key="expired.txt", body=b"x"))
    p = c.presign(oss.GetObjectRequest(bucket=BUCKET, key="expired.txt"), expires=datetime.timedelta(seconds=1))
    time.sleep(2.2)
    r = requests.get(p.url)
    equal(r.status_code, 403, "expired V4 URL")
    check(b"AccessDenied" in r.content, "expired V4 URL code: %s" % r.content)


def wrong_secret():
    for mode in modes:
        c = make_client(mode, secret="wrong-secret")
        expect_error(lambda: c.put_object(oss.PutObjectRequest(bucket=BUCKET, key="never", body=b"x")), 403,
                     "SignatureDoesNotMatch", "wrong secret [%s]" % mode)


def teardown():
    for page in admin.list_objects_v2_paginator().iter_page(oss.ListObjectsV2Request(bucket=BUCKET)):
        for o in page.contents or []:
            admin.delete_object(oss.DeleteObjectRequest(bucket=BUCKET, key=o.key))
    lu = admin.list_multipart_uploads(oss.ListMultipartUploadsRequest(bucket=BUCKET))
    for u in lu.uploads or []:
        admin.abort_multipart_upload(oss.AbortMultipartUploadRequest(bucket=BUCKET, key=u.key, upload_id=u.upload_id))
    admin.delete_bucket(oss.DeleteBucketRequest(bucket=BUCKET))


cases = [("setup", setup)]
for m in modes:
    cases += [("basic[%s]" % m, basic(m)), ("multipart[%s]" % m, multipart(m)),
              ("resumable[%s]" % m, resumable(m)), ("presigned[%s]" % m, presigned(m))]
cases += object_cases(make_client, expect_error, BUCKET, args.endpoint, modes)
cases += [("list_parts_paging", list_parts_paging), ("expired_url", expired_url), ("wrong_secret", wrong_secret),
          ("teardown", teardown)]
run_cases(cases)
