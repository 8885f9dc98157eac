#!/usr/bin/env python3
"""Independent check of issue #30 (versioning), written from OSS's documentation and the official clients only.

Usage: independent_versioning_check.py --endpoint http://127.0.0.1:PORT --access-key-id AK --access-key-secret SK
       [--oss PATH_TO_OSS_CLI]

Starts nothing: it talks to a running server. Every flow runs once with oss2 and once with alibabacloud-oss-v2 (each
in a bucket of its own), through one small adapter per client, so both clients judge the same expectations. With
--oss it also drives the `oss` CLI through the same history and cross-checks what it did with an official client.

The expectations, and where they come from (OSS documentation):
- ListObjectVersions: "objects are returned in alphabetic order, but the versions of each object are returned by
  creation time in descending order"; version-id-marker must come with key-marker (error 0012-00000106).
- Delete marker: a DeleteObject without a version id on a versioned bucket adds a marker as the current version
  and removes nothing; GET of a key whose current version is a marker answers 404 with x-oss-delete-marker: true and
  the marker's x-oss-version-id; "If the version ID specified in the request is the version ID of a delete marker,
  OSS returns 405 Method Not Allowed"; markers accumulate, each with its own id; a DeleteObject naming a version
  removes it for good.
- Suspended: "Every object uploaded to a versioning-suspended bucket is stored as a version with ID null", a second
  upload overwrites the null version, older versions are kept; the version "null" is addressed as versionId=null.
- DeleteMultipleObjects: without version ids it adds markers, with them it removes those versions for good; each
  Deleted entry carries VersionId, and DeleteMarker/DeleteMarkerVersionId when a marker was added or removed.
- CopyObject: x-oss-copy-source: /bucket/key?versionId=ID copies that version; the result carries
  x-oss-copy-source-version-id and the new x-oss-version-id.
"""
import atexit
import concurrent.futures
import os
import shutil
import subprocess
import tempfile
import sys
import urllib.parse
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Failure, check, equal, md5, run_cases  # noqa: E402

import argparse

import alibabacloud_oss_v2 as oss
import oss2

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--endpoint", required=True)
p.add_argument("--access-key-id", required=True)
p.add_argument("--access-key-secret", required=True)
p.add_argument("--region", default="cn-hangzhou")
p.add_argument("--oss", help="path to the oss CLI; runs the CLI flow when given")
args, _ = p.parse_known_args()
check(urllib.parse.urlparse(args.endpoint).hostname == "127.0.0.1", "the check only talks to 127.0.0.1")

SUFFIX = os.urandom(3).hex()


class ServiceFailure(Exception):
    """An error answer, whichever client saw it."""

    def __init__(self, status, code, headers):
        super().__init__("%s %s" % (status, code))
        self.status, self.code = status, code
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}


def failing(fn):
    """Runs fn, which must fail with a service error; returns it as a ServiceFailure."""
    try:
        fn()
    except oss2.exceptions.OssError as e:
        return ServiceFailure(e.status, e.code, e.headers)
    except oss.exceptions.OperationError as e:
        u = e.unwrap()
        if isinstance(u, oss.exceptions.ServiceError):
            return ServiceFailure(u.status_code, u.code, u.headers)
        raise
    raise Failure("expected an error answer, but the call succeeded")


def v2_client():
    cfg = oss.config.load_default()
    cfg.credentials_provider = oss.credentials.StaticCredentialsProvider(args.access_key_id, args.access_key_secret)
    cfg.region = args.region
    cfg.endpoint = args.endpoint
    cfg.use_path_style = True
    return oss.Client(cfg)


V2 = v2_client()


def raw_versions(bucket, **params):
    """ListObjectVersions through v2's invoke_operation: the raw XML, in document order.

    Returns (entries, prefixes, root) where entries are (kind, key, versionId, isLatest) with kind 'V' or 'D'."""
    query = {"versions": ""}
    query.update({k.replace("_", "-"): str(v) for k, v in params.items() if v is not None})
    out = V2.invoke_operation(oss.OperationInput(op_name="ListObjectVersions", method="GET", bucket=bucket,
                                                 parameters=query))
    root = ET.fromstring(out.http_response.content)
    encoded = root.findtext("EncodingType") == "url"
    dec = (lambda s: urllib.parse.unquote(s)) if encoded else (lambda s: s)
    entries = []
    for child in root:
        if child.tag in ("Version", "DeleteMarker"):
            entries.append(("V" if child.tag == "Version" else "D", dec(child.findtext("Key")),
                            child.findtext("VersionId"), child.findtext("IsLatest") == "true"))
    prefixes = [dec(cp.findtext("Prefix")) for cp in root.findall("CommonPrefixes")]
    return entries, prefixes, root


class OSS2:
    name = "oss2"

    def __init__(self, bucket):
        self.bucket_name = bucket
        self.b = oss2.Bucket(oss2.Auth(args.access_key_id, args.access_key_secret), args.endpoint, bucket)

    def create(self):
        self.b.create_bucket()

    def set_versioning(self, status):
        cfg = oss2.models.BucketVersioningConfig()
        cfg.status = status
        self.b.put_bucket_versioning(cfg)

    def versioning(self):
        return self.b.get_bucket_versioning().status

    def info_versioning(self):
        return self.b.get_bucket_info().versioning_status

    def put(self, key, data):
        return self.b.put_object(key, data).versionid

    def get(self, key, vid=None):
        r = self.b.get_object(key, params={"versionId": vid} if vid else None)
        return r.read(), r.versionid

    def head(self, key, vid=None):
        return self.b.head_object(key, params={"versionId": vid} if vid else None).versionid

    def meta(self, key, vid=None):
        r = self.b.get_object_meta(key, params={"versionId": vid} if vid else None)
        return r.versionid, r.etag, r.content_length

    def delete(self, key, vid=None):
        r = self.b.delete_object(key, params={"versionId": vid} if vid else None)
        return r.versionid, r.delete_marker

    def delete_many(self, pairs):
        if all(v is None for _, v in pairs):
            r = self.b.batch_delete_objects([k for k, _ in pairs])
        else:
            lst = oss2.models.BatchDeleteObjectVersionList()
            for k, v in pairs:
                lst.append(oss2.models.BatchDeleteObjectVersion(k, v))
            r = self.b.delete_object_versions(lst)
        return [(d.key, d.versionid or None, bool(d.delete_marker), d.delete_marker_versionid or None)
                for d in r.delete_versions]

    def copy(self, src_key, src_vid, dst_key):
        r = self.b.copy_object(self.bucket_name, src_key, dst_key, params={"versionId": src_vid} if src_vid else None)
        return r.versionid, r.headers.get("x-oss-copy-source-version-id")

    def put_acl(self, key, acl, vid):
        self.b.put_object_acl(key, acl, params={"versionId": vid})

    def get_acl(self, key, vid):
        return self.b.get_object_acl(key, params={"versionId": vid}).acl

    def put_tags(self, key, tags, vid):
        rules = oss2.models.TaggingRule()
        for k, v in tags.items():
            rules.add(k, v)
        self.b.put_object_tagging(key, oss2.models.Tagging(rules), params={"versionId": vid})

    def get_tags(self, key, vid):
        return dict(self.b.get_object_tagging(key, params={"versionId": vid}).tag_set.tagging_rule)

    def delete_tags(self, key, vid):
        self.b.delete_object_tagging(key, params={"versionId": vid})

    def list_page(self, prefix="", delimiter="", key_marker="", vid_marker="", max_keys=1000):
        r = self.b.list_object_versions(prefix=prefix, delimiter=delimiter, key_marker=key_marker,
                                        versionid_marker=vid_marker, max_keys=max_keys)
        versions = [(v.key, v.versionid, v.is_latest, v.size, v.etag) for v in r.versions]
        markers = [(d.key, d.versionid, d.is_latest) for d in r.delete_marker]
        return (versions, markers, r.common_prefix, r.is_truncated,
                getattr(r, "next_key_marker", None), getattr(r, "next_versionid_marker", None))


class V2Client:
    name = "v2"

    def __init__(self, bucket):
        self.bucket_name = bucket
        self.c = V2

    def create(self):
        self.c.put_bucket(oss.PutBucketRequest(bucket=self.bucket_name))

    def set_versioning(self, status):
        self.c.put_bucket_versioning(oss.PutBucketVersioningRequest(
            bucket=self.bucket_name, versioning_configuration=oss.VersioningConfiguration(status=status)))

    def versioning(self):
        cfg = self.c.get_bucket_versioning(oss.GetBucketVersioningRequest(bucket=self.bucket_name))
        return cfg.version_status

    def info_versioning(self):
        return self.c.get_bucket_info(oss.GetBucketInfoRequest(bucket=self.bucket_name)).bucket_info.versioning

    def put(self, key, data):
        return self.c.put_object(oss.PutObjectRequest(bucket=self.bucket_name, key=key, body=data)).version_id

    def get(self, key, vid=None):
        r = self.c.get_object(oss.GetObjectRequest(bucket=self.bucket_name, key=key, version_id=vid))
        return r.body.read(), r.version_id

    def head(self, key, vid=None):
        return self.c.head_object(oss.HeadObjectRequest(bucket=self.bucket_name, key=key, version_id=vid)).version_id

    def meta(self, key, vid=None):
        r = self.c.get_object_meta(oss.GetObjectMetaRequest(bucket=self.bucket_name, key=key, version_id=vid))
        return r.version_id, (r.etag or "").strip('"'), r.content_length

    def delete(self, key, vid=None):
        r = self.c.delete_object(oss.DeleteObjectRequest(bucket=self.bucket_name, key=key, version_id=vid))
        return r.version_id, bool(r.delete_marker)

    def delete_many(self, pairs):
        r = self.c.delete_multiple_objects(oss.DeleteMultipleObjectsRequest(
            bucket=self.bucket_name, delete=oss.Delete(objects=[oss.ObjectIdentifier(key=k, version_id=v)
                                                               for k, v in pairs])))
        return [(d.key, d.version_id, bool(d.delete_marker), d.delete_marker_version_id)
                for d in (r.deleted_objects or [])]

    def copy(self, src_key, src_vid, dst_key):
        r = self.c.copy_object(oss.CopyObjectRequest(bucket=self.bucket_name, key=dst_key,
                                                     source_bucket=self.bucket_name, source_key=src_key,
                                                     source_version_id=src_vid))
        return r.version_id, r.source_version_id

    def put_acl(self, key, acl, vid):
        self.c.put_object_acl(oss.PutObjectAclRequest(bucket=self.bucket_name, key=key, acl=acl, version_id=vid))

    def get_acl(self, key, vid):
        return self.c.get_object_acl(oss.GetObjectAclRequest(bucket=self.bucket_name, key=key,
                                                             version_id=vid)).acl

    def put_tags(self, key, tags, vid):
        self.c.put_object_tagging(oss.PutObjectTaggingRequest(
            bucket=self.bucket_name, key=key, version_id=vid,
            tagging=oss.Tagging(tag_set=oss.TagSet(tags=[oss.Tag(key=k, value=v) for k, v in tags.items()]))))

    def get_tags(self, key, vid):
        r = self.c.get_object_tagging(oss.GetObjectTaggingRequest(bucket=self.bucket_name, key=key, version_id=vid))
        return {t.key: t.value for t in ((r.tag_set.tags if r.tag_set else None) or [])}

    def delete_tags(self, key, vid):
        self.c.delete_object_tagging(oss.DeleteObjectTaggingRequest(bucket=self.bucket_name, key=key, version_id=vid))

    def list_page(self, prefix="", delimiter="", key_marker="", vid_marker="", max_keys=1000):
        r = self.c.list_object_versions(oss.ListObjectVersionsRequest(
            bucket=self.bucket_name, prefix=prefix or None, delimiter=delimiter or None,
            key_marker=key_marker or None, version_id_marker=vid_marker or None, max_keys=max_keys))
        versions = [(v.key, v.version_id, v.is_latest, v.size, (v.etag or "").strip('"')) for v in (r.version or [])]
        markers = [(d.key, d.version_id, d.is_latest) for d in (r.delete_marker or [])]
        prefixes = [cp.prefix for cp in (r.common_prefixes or [])]
        return versions, markers, prefixes, bool(r.is_truncated), r.next_key_marker, r.next_version_id_marker


def history(c, key):
    """The key's versions and markers from the client's own listing: {versionId: ('V'|'D', isLatest)}."""
    versions, markers, _, _, _, _ = c.list_page(prefix=key)
    out = {v[1]: ("V", v[2]) for v in versions if v[0] == key}
    out.update({d[1]: ("D", d[2]) for d in markers if d[0] == key})
    return out


def flow_cases(make):
    """The issue's 'Done when' and Standards as one flow per client; later cases build on earlier ones."""
    c = make("ivc-%s-%s" % (make.name, SUFFIX))
    key = "docs/report.txt"
    bodies = [b"first " * 7, b"second version, longer " * 11, os.urandom(4097)]
    s = {}  # state shared along the flow

    def enable():
        c.create()
        equal(c.versioning(), None, "GetBucketVersioning of a never-versioned bucket (no Status)")
        c.set_versioning("Enabled")
        equal(c.versioning(), "Enabled", "GetBucketVersioning after Enabled")
        equal(c.info_versioning(), "Enabled", "GetBucketInfo Versioning")

    def three_versions_and_marker():
        s["ids"] = [c.put(key, b) for b in bodies]
        check(all(s["ids"]) and len(set(s["ids"])) == 3, "three puts, three distinct x-oss-version-id: %s" % s["ids"])
        check("null" not in s["ids"], "an enabled bucket never writes the null version")
        s["marker"], is_marker = c.delete(key)
        check(is_marker, "DeleteObject without versionId reports x-oss-delete-marker: true")
        check(s["marker"] and s["marker"] not in s["ids"], "the marker has an id of its own: %s" % s["marker"])
        s["all_ids"] = set(s["ids"]) | {s["marker"]}

    def latest_marker_hides_key():
        for what, fn in (("GET", lambda: c.get(key)), ("HEAD", lambda: c.head(key))):
            e = failing(fn)
            equal(e.status, 404, "%s of a key whose latest is a marker" % what)
            equal(e.headers.get("x-oss-delete-marker"), "true", "%s 404 x-oss-delete-marker" % what)
            equal(e.headers.get("x-oss-version-id"), s["marker"], "%s 404 x-oss-version-id (the marker's)" % what)
        e = failing(lambda: c.get(key, s["marker"]))
        equal(e.status, 405, "GET naming a delete marker's version id (OSS: 405 Method Not Allowed)")

    def list_in_order():
        entries, _, _ = raw_versions(c.bucket_name, prefix=key)
        expected = [("D", key, s["marker"], True)] + [("V", key, v, False) for v in reversed(s["ids"])]
        equal(entries, expected, "ListObjectVersions order: newest first, the marker latest")
        versions, markers, _, truncated, _, _ = c.list_page(prefix=key)
        equal([v[1] for v in versions], list(reversed(s["ids"])), "%s: versions newest first" % c.name)
        equal([v[3] for v in versions], [len(b) for b in reversed(bodies)], "%s: version sizes" % c.name)
        equal([v[4].lower() for v in versions], [md5(b) for b in reversed(bodies)], "%s: version ETags" % c.name)
        equal(markers, [(key, s["marker"], True)], "%s: the delete marker entry" % c.name)
        check(not truncated, "one page holds four entries")

    def read_each_version():
        for vid, body in zip(s["ids"], bodies):
            data, got = c.get(key, vid)
            check(data == body, "GET ?versionId=%s byte for byte" % vid)
            equal(got, vid, "GET x-oss-version-id")
            equal(c.head(key, vid), vid, "HEAD ?versionId x-oss-version-id")
            mv, etag, length = c.meta(key, vid)
            equal((mv, etag.lower(), length), (vid, md5(body), len(body)), "GetObjectMeta ?versionId")

    def version_acl_and_tags():
        v1, v2, v3 = s["ids"]
        c.put_acl(key, "public-read", v1)
        equal(c.get_acl(key, v1), "public-read", "GetObjectACL of the version given an ACL")
        equal(c.get_acl(key, v2), "default", "the ACL stays on its version")
        c.put_tags(key, {"state": "old"}, v2)
        equal(c.get_tags(key, v2), {"state": "old"}, "GetObjectTagging of the tagged version")
        equal(c.get_tags(key, v3), {}, "tags stay on their version")
        c.delete_tags(key, v2)
        equal(c.get_tags(key, v2), {}, "DeleteObjectTagging ?versionId")
        e = failing(lambda: c.get_acl(key, s["marker"]))
        check(e.status in (400, 405), "GetObjectACL of a delete marker fails (OSS 0017-00000002), got %s" % e.status)

    def delete_without_version_keeps_data():
        m2, is_marker = c.delete(key)
        check(is_marker and m2 not in s["all_ids"], "a second delete adds a second marker with a new id")
        s["all_ids"].add(m2)
        s["marker2"] = m2
        h = history(c, key)
        equal(sorted(v for v, (k, _) in h.items() if k == "D"), sorted([s["marker"], m2]), "markers accumulate")
        for vid, body in zip(s["ids"], bodies):
            check(c.get(key, vid)[0] == body, "every version still there after deletes without versionId")

    def copy_old_version_back():
        v1 = s["ids"][0]
        new, source = c.copy(key, v1, key)
        equal(source, v1, "x-oss-copy-source-version-id")
        check(new and new not in s["all_ids"], "the restored copy is a new version: %s" % new)
        s["all_ids"].add(new)
        s["restored"] = new
        data, got = c.get(key)
        check(data == bodies[0], "GET of the key returns the restored old bytes")
        equal(got, new, "the restored copy is the latest")
        entries, _, _ = raw_versions(c.bucket_name, prefix=key)
        equal([e[2] for e in entries], [new, s["marker2"], s["marker"]] + list(reversed(s["ids"])),
              "history after the restore keeps everything")
        equal([e[3] for e in entries], [True] + [False] * 5, "only the restored copy is latest")

    def multi_delete_per_version():
        v2 = s["ids"][1]
        got = c.delete_many([(key, s["marker2"]), (key, v2)])
        byv = {g[1]: g for g in got}
        equal(set(byv), {s["marker2"], v2}, "%s: Deleted entries name the versions" % c.name)
        equal(byv[s["marker2"]][2:], (True, s["marker2"]), "removing a marker reports DeleteMarker + its id")
        equal(byv[v2][2], False, "removing a version reports no DeleteMarker")
        other = "docs/other.txt"
        c.put(other, b"x")
        got = c.delete_many([(other, None)])
        equal(len(got), 1, "one Deleted entry for a delete without versionId")
        check(got[0][2] and got[0][3] and got[0][3] not in s["all_ids"],
              "DeleteMultipleObjects without versionId adds a marker (DeleteMarker, DeleteMarkerVersionId): %s" % (got,))
        e = failing(lambda: c.get(other))
        equal(e.status, 404, "the marker hides the key")
        h = history(c, key)
        check(v2 not in h and s["marker2"] not in h, "named versions gone for good")
        equal(failing(lambda: c.get(key, v2)).status, 404, "GET of a removed version")

    def suspended_and_null():
        c.set_versioning("Suspended")
        equal(c.versioning(), "Suspended", "GetBucketVersioning after Suspended")
        e = failing(lambda: c.set_versioning("Disabled"))
        equal(e.status, 400, "a versioned bucket can't go back to unversioned")
        first = c.put(key, b"null one")
        equal(first, "null", "a put on a suspended bucket writes the null version")
        second = c.put(key, b"null two")
        equal(second, "null", "a second put overwrites the null version")
        h = history(c, key)
        equal(list(h).count("null"), 1, "exactly one null version")
        check(s["restored"] in h and s["ids"][0] in h and s["ids"][2] in h, "older versions kept while suspended")
        equal(c.get(key, "null"), (b"null two", "null"), "GET ?versionId=null")
        mid, is_marker = c.delete(key)
        equal((mid, is_marker), ("null", True), "a delete on a suspended bucket adds the null delete marker")
        h = history(c, key)
        equal(h.get("null"), ("D", True), "the null version is now the (latest) marker")
        check(c.get(key, s["ids"][0])[0] == bodies[0], "versions with ids survive a suspended delete")
        c.set_versioning("Enabled")
        v = c.put(key, b"after")
        check(v not in s["all_ids"] and v != "null", "re-enabled: new id")
        s["all_ids"].add(v)

    def racing_writers_all_kept():
        race = "docs/race.txt"
        payloads = [("writer %d " % i).encode() * (i + 1) for i in range(8)]
        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            ids = list(pool.map(lambda body: c.put(race, body), payloads))
        check(len(set(ids)) == 8 and not (set(ids) & s["all_ids"]), "eight racing puts, eight new ids: %s" % ids)
        s["all_ids"].update(ids)
        equal(sorted(history(c, race)), sorted(ids), "every racing write is a version")
        for vid, body in zip(ids, payloads):
            check(c.get(race, vid)[0] == body, "racing version %s reads back its own bytes" % vid)

    def purge_and_no_reuse():
        versions, markers, _, _, _, _ = c.list_page()
        pairs = [(v[0], v[1]) for v in versions] + [(d[0], d[1]) for d in markers]
        got = c.delete_many(pairs)
        equal(len(got), len(pairs), "one Deleted entry per named version")
        versions, markers, prefixes, _, _, _ = c.list_page()
        equal((versions, markers, prefixes), ([], [], []), "nothing left after the purge")
        e = failing(lambda: c.head(key))
        equal(e.status, 404, "HEAD after the purge")
        check("x-oss-delete-marker" not in e.headers, "no marker header once everything is gone")
        fresh = [c.put(key, b"again %d" % i) for i in range(3)]
        check(not (set(fresh) & s["all_ids"]) and len(set(fresh)) == 3, "version ids are never reused")

    return [("%s %s" % (make.name, fn.__name__), fn) for fn in (
        enable, three_versions_and_marker, latest_marker_hides_key, list_in_order, read_each_version,
        version_acl_and_tags, delete_without_version_keeps_data, copy_old_version_back, multi_delete_per_version,
        suspended_and_null, racing_writers_all_kept, purge_and_no_reuse)]


def listing_cases(make):
    """Pages, prefixes, delimiters and encoding on a bucket with a known history."""
    c = make("ivl-%s-%s" % (make.name, SUFFIX))
    keys = ["a/1", "a/2", "b", "c key+%ü", "d/x/y", "e"]
    expected = []  # (kind, key, vid, latest) in OSS order

    def setup():
        c.create()
        c.set_versioning("Enabled")
        for k in keys:
            n = 5 if k == "b" else 2
            ids = [c.put(k, ("%s-%d" % (k, i)).encode()) for i in range(n)]
            entries = [("V", k, v, False) for v in reversed(ids)]
            if k in ("b", "e"):
                mid, _ = c.delete(k)
                entries.insert(0, ("D", k, mid, False))
            entries[0] = entries[0][:3] + (True,)
            expected.extend(entries)
        whole, _, _ = raw_versions(c.bucket_name)
        equal(whole, expected, "the whole listing in OSS order")

    def pages_never_skip_or_repeat():
        for size in (1, 2, 3, 4):
            got, boundary_inside_key, km, vm = [], False, "", ""
            for _ in range(100):
                versions, markers, _, truncated, nkm, nvm = c.list_page(key_marker=km, vid_marker=vm, max_keys=size)
                check(len(versions) + len(markers) <= size, "a page holds at most max-keys entries")
                got += [(k, v) for k, v, *_ in versions] + [(k, v) for k, v, _ in markers]
                if not truncated:
                    break
                check(nkm, "a truncated page names NextKeyMarker")
                if nvm and any(e[1] == nkm for e in expected[len(got):]):
                    boundary_inside_key = True
                km, vm = nkm, nvm or ""
            equal(sorted(got), sorted((e[1], e[2]) for e in expected), "%s pages of %d: every version once" %
                  (c.name, size))
            equal(len(got), len(set(got)), "no version repeated")
            check(boundary_inside_key or size > 4, "a page boundary fell inside one key's versions (size %d)" % size)

    def raw_pages_in_order():
        got, km, vm = [], None, None
        while True:
            entries, _, root = raw_versions(c.bucket_name, max_keys=3, key_marker=km, version_id_marker=vm)
            got += entries
            if root.findtext("IsTruncated") != "true":
                break
            km = urllib.parse.unquote(root.findtext("NextKeyMarker"))
            vm = root.findtext("NextVersionIdMarker")
        equal([e[:3] for e in got], [e[:3] for e in expected], "pages of 3, concatenated, in OSS order")

    def prefix_delimiter_encoding():
        versions, markers, prefixes, _, _, _ = c.list_page(delimiter="/")
        equal(sorted(prefixes), ["a/", "d/"], "%s: CommonPrefixes with delimiter /" % c.name)
        check(all("/" not in v[0] for v in versions + markers), "keys under a prefix roll up")
        versions, markers, prefixes, _, _, _ = c.list_page(prefix="a/", delimiter="/")
        equal(sorted({v[0] for v in versions}), ["a/1", "a/2"], "prefix a/ lists its keys")
        equal(prefixes, [], "no deeper prefix under a/")
        versions, _, prefixes, truncated, nkm, _ = c.list_page(delimiter="/", max_keys=1)
        equal((versions, prefixes, truncated), ([], ["a/"], True), "a common prefix counts against max-keys")
        _, _, plain = raw_versions(c.bucket_name, prefix="c")
        names = [e.findtext("Key") for e in plain.findall("Version")]
        equal(names, ["c key+%ü"] * 2, "without encoding-type keys come back as they are")
        _, _, enc = raw_versions(c.bucket_name, prefix="c", encoding_type="url")
        equal(enc.findtext("EncodingType"), "url", "EncodingType echoed")
        equal(enc.findtext("Prefix"), "c", "Prefix echoed")
        names = [e.findtext("Key") for e in enc.findall("Version")]
        equal([urllib.parse.unquote(n) for n in names], ["c key+%ü"] * 2, "encoded keys decode back")
        check(all("%25" in n and " " not in n for n in names), "encoding-type=url encodes the key: %s" % names)
        versions, _, _, _, _, _ = c.list_page(prefix="c ")
        equal({v[0] for v in versions}, {"c key+%ü"}, "%s decodes url-encoded keys" % c.name)

    def version_marker_needs_key_marker():
        e = failing(lambda: raw_versions(c.bucket_name, version_id_marker=expected[0][2]))
        equal(e.status, 400, "version-id-marker without key-marker (OSS 0012-00000106)")

    return [("%s listing %s" % (make.name, fn.__name__), fn) for fn in (
        setup, pages_never_skip_or_repeat, raw_pages_in_order, prefix_delimiter_encoding,
        version_marker_needs_key_marker)]


def cross_client_cases():
    """What one official client writes, the other reads the same way."""
    name = "ivx-" + SUFFIX
    a, b = OSS2(name), V2Client(name)
    key = "x/shared"

    def written_by_one_read_by_other():
        a.create()
        b.set_versioning("Enabled")
        equal(a.versioning(), "Enabled", "oss2 reads what v2 set")
        ids = [a.put(key, b"oss2 one"), b.put(key, b"v2 two")]
        mid, _ = a.delete(key)
        for c in (a, b):
            h = history(c, key)
            equal(h, {ids[0]: ("V", False), ids[1]: ("V", False), mid: ("D", True)}, "%s sees the history" % c.name)
        equal(b.get(key, ids[0])[0], b"oss2 one", "v2 reads oss2's version")
        equal(a.get(key, ids[1])[0], b"v2 two", "oss2 reads v2's version")

    return [("cross-client written_by_one_read_by_other", written_by_one_read_by_other)]


def cli_cases(oss_path):
    """The same history driven by the oss CLI, cross-checked with oss2."""
    name = "ivc-cli-" + SUFFIX
    a = OSS2(name)
    env = dict(os.environ, OSS_ACCESS_KEY_ID=args.access_key_id, OSS_ACCESS_KEY_SECRET=args.access_key_secret,
               OSS_ENDPOINT=args.endpoint)
    work = tempfile.mkdtemp(prefix="ivc-cli-")
    atexit.register(shutil.rmtree, work, True)
    s = {}

    def cli(*argv, ok=True):
        r = subprocess.run([oss_path] + list(argv), env=env, capture_output=True, text=True, timeout=120)
        if ok and r.returncode != 0:
            raise Failure("oss %s exited %d: %s %s" % (" ".join(argv), r.returncode, r.stdout, r.stderr))
        return r

    def versioning_from_cli():
        a.create()
        cli("bucket-versioning", "oss://" + name, "enable")
        equal(a.versioning(), "Enabled", "oss bucket-versioning enable, read by oss2")
        out = cli("bucket-versioning", "oss://" + name).stdout
        check("Enabled" in out or "enabled" in out, "oss bucket-versioning shows the status: %r" % out)

    def history_from_cli():
        bodies = [b"cli one", b"cli two two", b"cli three three three"]
        for i, body in enumerate(bodies):
            path = os.path.join(work, "in%d" % i)
            with open(path, "wb") as f:
                f.write(body)
            cli("cp", path, "oss://%s/k" % name)
        cli("rm", "oss://%s/k" % name)  # one object named: no question asked (oss rm --help)
        entries, _, _ = raw_versions(name, prefix="k")
        equal([e[0] for e in entries], ["D", "V", "V", "V"], "three CLI uploads and a CLI delete, seen by an "
              "official client")
        s["entries"], s["bodies"] = entries, bodies
        out = cli("ls", "--all-versions", "oss://%s/" % name).stdout
        positions = [out.find(e[2]) for e in entries]
        check(all(p >= 0 for p in positions), "oss ls --all-versions names every version id:\n" + out)
        equal(positions, sorted(positions), "oss ls --all-versions lists them newest first")

    def read_and_stat_versions():
        for (_, _, vid, _), body in zip(s["entries"][1:], reversed(s["bodies"])):
            path = os.path.join(work, "out-" + vid[:8])
            cli("cp", "oss://%s/k" % name, path, "--version-id", vid)
            with open(path, "rb") as f:
                check(f.read() == body, "oss cp --version-id %s byte for byte" % vid)
            out = cli("stat", "oss://%s/k" % name, "--version-id", vid).stdout
            check(vid in out and str(len(body)) in out, "oss stat --version-id shows the version:\n" + out)
        r = cli("stat", "oss://%s/k" % name, ok=False)
        check(r.returncode != 0, "oss stat of a key whose latest is a marker fails")

    def restore_and_remove_from_cli():
        oldest = s["entries"][-1][2]
        cli("cp", "oss://%s/k" % name, "oss://%s/k" % name, "--version-id", oldest)
        data, latest = a.get("k")
        equal(data, s["bodies"][0], "oss cp --version-id restores the old bytes as the latest (read by oss2)")
        check(latest not in [e[2] for e in s["entries"]], "the restore is a new version")
        middle = s["entries"][2][2]
        cli("rm", "oss://%s/k" % name, "--version-id", middle)
        check(middle not in history(a, "k"), "oss rm --version-id removes that version for good")

    def purge_from_cli():
        before = history(a, "k")
        out = cli("rm", "-r", "--all-versions", "--dry-run", "oss://%s/" % name).stdout
        check(all(v in out for v in before), "--dry-run names every version it would remove:\n" + out)
        equal(history(a, "k"), before, "--dry-run removes nothing")
        r = cli("rm", "-r", "--all-versions", "oss://%s/" % name, ok=False)
        equal(r.returncode, 8, "without a terminal and without --force, rm -r refuses (exit 8, oss rm --help)")
        equal(history(a, "k"), before, "a refused rm -r removes nothing")
        cli("rm", "-r", "--all-versions", "--force", "oss://%s/" % name)
        equal(history(a, "k"), {}, "oss rm -r --all-versions purges every version and marker")

    def suspended_delete_from_cli():
        # OSS (versioning-suspended bucket, delete): a delete of an object whose current version is null inserts a
        # null delete marker, and "since an object has only one null version, the old null version is overwritten".
        cli("bucket-versioning", "oss://" + name, "suspend")
        equal(a.versioning(), "Suspended", "oss bucket-versioning suspend, read by oss2")
        path = os.path.join(work, "null-body")
        with open(path, "wb") as f:
            f.write(b"the null version")
        cli("cp", path, "oss://%s/n" % name)
        equal(a.get("n"), (b"the null version", "null"), "a CLI upload to a suspended bucket is the null version")
        out = cli("rm", "oss://%s/n" % name).stdout
        equal(history(a, "n"), {"null": ("D", True)}, "the null marker replaced the null version (oss2)")
        check("versions remain" not in out and "null" in out,
              "oss rm on a suspended bucket must not promise the replaced null version remains: %r" % out)
        r = cli("rm", "-r", "--dry-run", "oss://%s/" % name)
        check("keeps every version" not in r.stderr,
              "the rm -r note on a suspended bucket must not promise every version stays: %r" % r.stderr)
        cli("rm", "oss://%s/n" % name, "--version-id", "null")
        equal(history(a, "n"), {}, "oss rm --version-id null removes the null marker")

    return [("cli %s" % fn.__name__, fn) for fn in (
        versioning_from_cli, history_from_cli, read_and_stat_versions, restore_and_remove_from_cli, purge_from_cli,
        suspended_delete_from_cli)]


cases = []
for make in (OSS2, V2Client):
    cases += flow_cases(make) + listing_cases(make)
cases += cross_client_cases()
if args.oss:
    cases += cli_cases(args.oss)
run_cases(cases)
