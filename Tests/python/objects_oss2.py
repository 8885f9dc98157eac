"""Object operations judged by the official oss2 client: copy, part copy, append with CRC, multi-delete,
object meta and existence, ACLs with anonymous reads, tagging, symlinks, storage class and restore.

Used by judge_oss2.py: object_cases(make_bucket, modes, endpoint, bucket_name) returns (name, fn) pairs.
"""
import os
import time

import oss2
import requests

from common import check, equal, expect_error


def crc64(data):
    c = oss2.utils.Crc64()
    c.update(data)
    return c.crc


def copy(make_bucket, mode):
    def run():
        b = make_bucket(mode)
        src = "copy/%s/ünï src+a=b&c~%%.bin" % mode
        data = os.urandom(300000)
        put = b.put_object(src, data, headers={"Content-Type": "text/plain", "x-oss-meta-color": "Blue"})
        r = b.copy_object(b.bucket_name, src, "copy/%s/dst" % mode)
        equal(r.etag, put.etag, "copy etag")
        g = b.get_object("copy/%s/dst" % mode)
        equal(g.read(), data, "copy body")
        equal(g.headers.get("x-oss-meta-color"), "Blue", "COPY keeps metadata")
        equal(g.headers.get("Content-Type"), "text/plain", "COPY keeps content type")
        b.copy_object(b.bucket_name, src, "copy/%s/replaced" % mode,
                      headers={"x-oss-metadata-directive": "REPLACE", "x-oss-meta-shape": "round",
                               "Content-Type": "image/png"})
        h = b.head_object("copy/%s/replaced" % mode)
        equal(h.headers.get("x-oss-meta-shape"), "round", "REPLACE metadata")
        check("x-oss-meta-color" not in h.headers, "REPLACE drops the source metadata")
        equal(h.content_type, "image/png", "REPLACE content type")
        expect_error(lambda: b.copy_object(b.bucket_name, src, "copy/x",
                                           headers={"x-oss-copy-source-if-match": '"0000"'}),
                     412, "PreconditionFailed", "copy If-Match")
        past = oss2.utils.http_date(int(time.time()) - 3600)
        expect_error(lambda: b.copy_object(b.bucket_name, src, "copy/x",
                                           headers={"x-oss-copy-source-if-unmodified-since": past}),
                     412, "PreconditionFailed", "copy If-Unmodified-Since")
        expect_error(lambda: b.copy_object(b.bucket_name, src, "copy/x",
                                           headers={"x-oss-copy-source-if-none-match": put.etag}),
                     304, None, "copy If-None-Match")
        future = oss2.utils.http_date(int(time.time()) + 3600)
        expect_error(lambda: b.copy_object(b.bucket_name, src, "copy/x",
                                           headers={"x-oss-copy-source-if-modified-since": future}),
                     304, None, "copy If-Modified-Since")
        check(not b.object_exists("copy/x"), "a failed copy condition writes nothing")
        for name, value in (("if-match", put.etag), ("if-none-match", '"0000"'), ("if-unmodified-since", future),
                            ("if-modified-since", past)):
            b.copy_object(b.bucket_name, src, "copy/x", headers={"x-oss-copy-source-" + name: value})
            equal(b.get_object("copy/x").read(), data, "copy when %s holds" % name)
            b.delete_object("copy/x")
        expect_error(lambda: b.copy_object(b.bucket_name, "copy/missing", "copy/x"), 404, "NoSuchKey",
                     "copy of a missing source")
        expect_error(lambda: b.copy_object("no-such-bucket-x", "k", "copy/x"), 404, "NoSuchBucket",
                     "copy from a missing bucket")
        # part copy: two ranges reassembled
        key = "copy/%s/parts" % mode
        upload_id = b.init_multipart_upload(key).upload_id
        p1 = b.upload_part_copy(b.bucket_name, src, (0, 199999), key, upload_id, 1)
        p2 = b.upload_part_copy(b.bucket_name, src, (200000, 299999), key, upload_id, 2)
        expect_error(lambda: b.upload_part_copy(b.bucket_name, src, (299999, 300000), key, upload_id, 3),
                     400, "InvalidArgument", "part copy range beyond the object")
        for name, value, status in (("if-match", '"0000"', 412), ("if-unmodified-since", past, 412),
                                    ("if-none-match", put.etag, 304), ("if-modified-since", future, 304)):
            expect_error(lambda: b.upload_part_copy(b.bucket_name, src, (0, 99), key, upload_id, 3,
                                                    headers={"x-oss-copy-source-" + name: value}),
                         status, "PreconditionFailed" if status == 412 else None, "part copy %s" % name)
        equal([p.part_number for p in b.list_parts(key, upload_id).parts], [1, 2], "failed part copies add no part")
        done = b.complete_multipart_upload(key, upload_id, [oss2.models.PartInfo(1, p1.etag),
                                                            oss2.models.PartInfo(2, p2.etag)])
        equal(done.crc, crc64(data), "part copy crc")
        equal(b.get_object(key).read(), data, "part copy body")
        for k in (src, "copy/%s/dst" % mode, "copy/%s/replaced" % mode, key):
            b.delete_object(k)
    return run


def append(make_bucket, mode):
    def run():
        b = make_bucket(mode)
        key = "append/%s/log.txt" % mode
        a, c = os.urandom(1000), os.urandom(2345)
        r1 = b.append_object(key, 0, a)
        equal(r1.next_position, 1000, "next position")
        equal(r1.crc, crc64(a), "first append crc")
        r2 = b.append_object(key, r1.next_position, c, init_crc=r1.crc)  # oss2 checks the combined CRC
        equal(r2.next_position, 3345, "second next position")
        equal(r2.crc, crc64(a + c), "chained crc")
        equal(b.get_object(key).read(), a + c, "appended body")
        equal(b.head_object(key).object_type, "Appendable", "object type")
        e = expect_error(lambda: b.append_object(key, 5, b"x"), 409, "PositionNotEqualToLength", "wrong position")
        equal(e.headers.get("x-oss-next-append-position"), "3345", "current length on a wrong position")
        b.put_object(key + ".normal", b"n")
        expect_error(lambda: b.append_object(key + ".normal", 1, b"x"), 409, "ObjectNotAppendable",
                     "append to a Normal object")
        # Many appends, each CRC checked by oss2 against the chained one; then ranged reads, HEAD and a copy.
        body, crc = a + c, r2.crc
        for i in range(60):
            piece = os.urandom(1 + (i * 37) % 700)
            r = b.append_object(key, len(body), piece, init_crc=crc)
            body, crc = body + piece, r.crc
            equal(r.next_position, len(body), "next position after append %d" % i)
        equal(crc, crc64(body), "chained crc after many appends")
        equal(b.get_object(key).read(), body, "body after many appends")
        equal(b.get_object(key, byte_range=(999, 4321)).read(), body[999:4322], "ranged read across appends")
        h = b.head_object(key)
        equal(h.content_length, len(body), "HEAD length")
        equal(h.headers.get("x-oss-next-append-position"), str(len(body)), "HEAD next append position")
        equal(int(h.headers.get("x-oss-hash-crc64ecma")), crc64(body), "HEAD crc")
        b.copy_object(b.bucket_name, key, key + ".copy")
        equal(b.get_object(key + ".copy").read(), body, "copy of an appendable object")
        b.delete_object(key)
        equal(b.get_object(key + ".copy").read(), body, "the copy outlives its source")
        b.put_object(key + ".copy", b"over")
        expect_error(lambda: b.append_object(key + ".copy", 4, b"x"), 409, "ObjectNotAppendable",
                     "append to an appendable object overwritten by PUT")
        b.delete_object(key + ".copy")
        b.delete_object(key + ".normal")
    return run


def multi_delete(make_bucket, mode):
    def run():
        b = make_bucket(mode)
        keys = ["mdel/%s/%s" % (mode, k) for k in ("a b", "c+d&e", "ünï", "x%41", "tab\there")]
        for k in keys:
            b.put_object(k, b"1")
        r = b.batch_delete_objects(keys + ["mdel/%s/missing" % mode])
        equal(sorted(r.deleted_keys), sorted(keys + ["mdel/%s/missing" % mode]), "deleted keys")
        for k in keys:
            check(not b.object_exists(k), "%r still exists" % k)
        expect_error(lambda: b.batch_delete_objects(["k%d" % i for i in range(1001)]), 400, "MalformedXML",
                     "more than 1000 keys")
    return run


def meta_and_exists(make_bucket, mode):
    def run():
        b = make_bucket(mode)
        key = "meta/%s/file" % mode
        data = os.urandom(777)
        put = b.put_object(key, data)
        check(b.object_exists(key), "object_exists after put")
        check(not b.object_exists(key + ".missing"), "object_exists of a missing key")
        m = b.get_object_meta(key)
        equal(m.content_length, 777, "object meta length")
        equal(m.etag, put.etag, "object meta etag")
        check(m.last_modified > 0, "object meta last modified")
        b.delete_object(key)
    return run


def acl(make_bucket, mode, endpoint, bucket_name):
    def run():
        b = make_bucket(mode)
        anonymous = oss2.Bucket(oss2.AnonymousAuth(), endpoint, bucket_name)
        key = "acl/%s/object" % mode
        b.put_object(key, b"public bytes")
        equal(b.get_object_acl(key).acl, "default", "default object ACL")
        expect_error(lambda: anonymous.get_object(key), 403, "AccessDenied", "anonymous read of a private object")
        b.put_object_acl(key, oss2.OBJECT_ACL_PUBLIC_READ)
        equal(b.get_object_acl(key).acl, "public-read", "object ACL")
        equal(anonymous.get_object(key).read(), b"public bytes", "anonymous read of a public-read object")
        equal(requests.get("%s/%s/%s" % (endpoint, bucket_name, key)).content, b"public bytes", "plain HTTP GET")
        expect_error(lambda: anonymous.put_object(key, b"x"), 403, "AccessDenied", "anonymous write")
        b.put_object_acl(key, oss2.OBJECT_ACL_PRIVATE)
        expect_error(lambda: anonymous.get_object(key), 403, "AccessDenied", "anonymous read after private")
        # default object ACL follows the bucket
        b.put_object(key + ".default", b"d")
        try:
            b.put_bucket_acl(oss2.BUCKET_ACL_PUBLIC_READ)
            equal(b.get_bucket_acl().acl, "public-read", "bucket ACL")
            equal(anonymous.get_object(key + ".default").read(), b"d", "default ACL in a public-read bucket")
            expect_error(lambda: anonymous.get_object(key), 403, "AccessDenied", "private object in a public bucket")
        finally:
            b.put_bucket_acl(oss2.BUCKET_ACL_PRIVATE)
        equal(b.get_bucket_acl().acl, "private", "bucket ACL back to private")
        expect_error(lambda: b.put_object_acl(key, "everyone"), 400, "InvalidArgument", "unknown ACL")
        b.delete_object(key)
        b.delete_object(key + ".default")
    return run


def tagging(make_bucket, mode):
    def run():
        b = make_bucket(mode)
        key = "tag/%s/object" % mode
        b.put_object(key, b"t", headers={"x-oss-tagging": "project=a%20b&owner=me"})
        equal(b.get_object_tagging(key).tag_set.tagging_rule, {"project": "a b", "owner": "me"}, "tags from put")
        equal(b.head_object(key).headers.get("x-oss-tagging-count"), "2", "tag count")
        rule = oss2.models.TaggingRule()
        rule.add("k", "v")
        b.put_object_tagging(key, oss2.models.Tagging(rule))
        equal(b.get_object_tagging(key).tag_set.tagging_rule, {"k": "v"}, "tags after put_object_tagging")
        b.delete_object_tagging(key)
        equal(b.get_object_tagging(key).tag_set.tagging_rule, {}, "tags after delete")
        hostile = oss2.models.TaggingRule()
        hostile.add("a<b>\x01", "v")
        expect_error(lambda: b.put_object_tagging(key, oss2.models.Tagging(hostile)), 400, None, "hostile tag key")
        many = oss2.models.TaggingRule()
        for i in range(11):
            many.add("k%d" % i, "v")
        expect_error(lambda: b.put_object_tagging(key, oss2.models.Tagging(many)), 400, None, "eleven tags")
        mp = key + ".mp"
        upload_id = b.init_multipart_upload(mp, headers={"x-oss-tagging": "stage=upload"}).upload_id
        part = b.upload_part(mp, upload_id, 1, b"p")
        b.complete_multipart_upload(mp, upload_id, [oss2.models.PartInfo(1, part.etag)])
        equal(b.get_object_tagging(mp).tag_set.tagging_rule, {"stage": "upload"}, "tags from initiate")
        b.delete_object(key)
        b.delete_object(mp)
    return run


def symlink(make_bucket, mode):
    def run():
        b = make_bucket(mode)
        target = "sym/%s/target file+1" % mode
        link = "sym/%s/link" % mode
        data = os.urandom(1234)
        b.put_object(target, data)
        b.put_symlink(target, link)
        equal(b.get_symlink(link).target_key, target, "symlink target")
        equal(b.get_object(link).read(), data, "GET through a symlink")
        equal(b.head_object(link).content_length, 1234, "HEAD through a symlink")
        b.delete_object(target)
        expect_error(lambda: b.get_object(link), 404, "SymlinkTargetNotExist", "dangling symlink")
        b.delete_object(link)
    return run


def restore(make_bucket, mode):
    def run():
        b = make_bucket(mode)
        key = "archive/%s/cold" % mode
        b.put_object(key, b"frozen", headers={"x-oss-storage-class": oss2.BUCKET_STORAGE_CLASS_ARCHIVE})
        equal(b.head_object(key).headers.get("x-oss-storage-class"), "Archive", "storage class")
        expect_error(lambda: b.get_object(key), 403, "InvalidObjectState", "GET of an unrestored Archive object")
        equal(b.restore_object(key).status, 202, "restore accepted")
        state = b.head_object(key).headers.get("x-oss-restore", "")
        if 'ongoing-request="true"' in state:
            expect_error(lambda: b.restore_object(key), 409, "RestoreAlreadyInProgress", "second restore")
        deadline = time.time() + 60
        while 'ongoing-request="true"' in state and time.time() < deadline:
            time.sleep(0.2)
            state = b.head_object(key).headers.get("x-oss-restore", "")
        check('ongoing-request="false"' in state and "expiry-date" in state, "restore state: %r" % state)
        equal(b.get_object(key).read(), b"frozen", "GET after the restore")
        b.put_object(key + ".std", b"s")
        expect_error(lambda: b.restore_object(key + ".std"), 400, "OperationNotSupported", "restore of Standard")
        b.delete_object(key)
        b.delete_object(key + ".std")
    return run


def object_cases(make_bucket, modes, endpoint, bucket_name):
    cases = []
    for m in modes:
        cases += [("copy[%s]" % m, copy(make_bucket, m)), ("append[%s]" % m, append(make_bucket, m)),
                  ("multi_delete[%s]" % m, multi_delete(make_bucket, m)),
                  ("meta_and_exists[%s]" % m, meta_and_exists(make_bucket, m)),
                  ("tagging[%s]" % m, tagging(make_bucket, m)), ("symlink[%s]" % m, symlink(make_bucket, m))]
    cases += [("acl[v1]", acl(make_bucket, "v1", endpoint, bucket_name)),
              ("acl[v4]", acl(make_bucket, "v4", endpoint, bucket_name)),
              ("restore[v4]", restore(make_bucket, "v4"))]
    return cases
