#!/usr/bin/env python3
"""Judge suite: versioned buckets, with both official clients (oss2 and alibabacloud-oss-v2, V4 signing).

Each client, on a bucket of its own: enables versioning, writes three versions and a delete marker, lists them
(all at once and page by page), reads each version byte for byte, copies an old version back as the latest,
deletes versions by id and in one multi-delete with a version id per key, and finally purges the bucket.

Usage: judge_versioning.py --endpoint http://127.0.0.1:PORT --access-key-id AK --access-key-secret SK
Exits non-zero on any failure.
"""
import os

import alibabacloud_oss_v2 as oss
import oss2
from oss2.credentials import StaticCredentialsProvider

from common import Failure, check, equal, expect_error, parse_args, run_cases
from common import expect_error as v2_expect_error  # noqa: E402  (unwraps v2 errors)

args = parse_args(__doc__)
BODIES = [os.urandom(1000 + i) for i in range(3)]

# ---- oss2 ----

bucket2 = oss2.Bucket(
    oss2.ProviderAuthV4(StaticCredentialsProvider(args.access_key_id, args.access_key_secret)), args.endpoint,
    args.bucket + "-o", region=args.region)
state2 = {}


def oss2_versions(**kw):
    """Every entry of every page, in listing order: (key, versionid, is_latest, is_marker)."""
    entries, key_marker, vid_marker = [], "", ""
    while True:
        r = bucket2.list_object_versions(key_marker=key_marker, versionid_marker=vid_marker, **kw)
        # oss2 splits a page into versions and markers; rebuild the page's order from each key's newest first.
        page = [(v.key, v.versionid, v.is_latest, False, v.last_modified) for v in r.versions]
        page += [(m.key, m.versionid, m.is_latest, True, m.last_modified) for m in r.delete_marker]
        entries += page
        if not r.is_truncated:
            return entries
        key_marker, vid_marker = r.next_key_marker, r.next_versionid_marker


def oss2_setup():
    bucket2.create_bucket()
    equal(bucket2.get_bucket_versioning().status, None, "fresh bucket versioning")
    bucket2.put_bucket_versioning(oss2.models.BucketVersioningConfig("Enabled"))
    equal(bucket2.get_bucket_versioning().status, "Enabled", "versioning status")
    equal(bucket2.get_bucket_info().versioning_status, "Enabled", "bucket info versioning")


def oss2_write_and_read():
    ids = []
    for body in BODIES:
        r = bucket2.put_object("doc.txt", body)
        check(r.versionid, "put returns a version id")
        ids.append(r.versionid)
    equal(len(set(ids)), 3, "distinct version ids")
    d = bucket2.delete_object("doc.txt")
    check(d.delete_marker, "delete adds a delete marker")
    marker = d.versionid
    state2.update(ids=ids, marker=marker)
    expect_error(lambda: bucket2.get_object("doc.txt"), 404, "NoSuchKey", "GET of a marked key")
    for vid, body in zip(ids, BODIES):
        r = bucket2.get_object("doc.txt", params={"versionId": vid})
        equal(r.read(), body, "version %s bytes" % vid)
        equal(r.versionid, vid, "GET x-oss-version-id")
        equal(bucket2.head_object("doc.txt", params={"versionId": vid}).content_length, len(body), "HEAD size")
    expect_error(lambda: bucket2.get_object("doc.txt", params={"versionId": marker}), 405, "MethodNotAllowed",
                 "GET of a delete marker")
    listed = oss2_versions(max_keys=1000)
    equal(sorted(e[1] for e in listed), sorted(ids + [marker]), "listed ids")
    latest = [e for e in listed if e[2]]
    equal([(e[1], e[3]) for e in latest], [(marker, True)], "the marker is the latest")
    for size in (1, 2, 3):
        equal(sorted(e[1] for e in oss2_versions(max_keys=size)), sorted(ids + [marker]),
              "paged listing, max_keys %d" % size)


def oss2_restore_and_delete():
    ids, marker = state2["ids"], state2["marker"]
    # Restore the first version by copying it over the latest.
    r = bucket2.copy_object(bucket2.bucket_name, "doc.txt", "doc.txt", params={"versionId": ids[0]})
    check(r.versionid and r.versionid not in ids, "copy makes a new version")
    equal(bucket2.get_object("doc.txt").read(), BODIES[0], "restored bytes")
    # Delete one version by id, then the rest with one multi-delete, a version id per key.
    d = bucket2.delete_object("doc.txt", params={"versionId": ids[1]})
    equal(d.versionid, ids[1], "delete by version id")
    expect_error(lambda: bucket2.get_object("doc.txt", params={"versionId": ids[1]}), 404, "NoSuchVersion",
                 "deleted version")
    rest = [e[1] for e in oss2_versions(max_keys=1000)]
    versions = oss2.models.BatchDeleteObjectVersionList(
        [oss2.models.BatchDeleteObjectVersion("doc.txt", vid) for vid in rest])
    result = bucket2.delete_object_versions(versions)
    equal(sorted(v.versionid for v in result.delete_versions), sorted(rest), "multi-delete versions")
    markers = [v for v in result.delete_versions if v.delete_marker]
    equal([(v.versionid, v.delete_marker_versionid) for v in markers], [(marker, marker)], "multi-delete marker")
    equal(oss2_versions(max_keys=1000), [], "purged")
    bucket2.delete_bucket()


# ---- alibabacloud-oss-v2 ----

cfg = oss.config.load_default()
cfg.credentials_provider = oss.credentials.StaticCredentialsProvider(args.access_key_id, args.access_key_secret)
cfg.region = args.region
cfg.endpoint = args.endpoint
cfg.use_path_style = True
cfg.retry_max_attempts = 1
client = oss.Client(cfg)
BUCKET3 = args.bucket + "-v"
state3 = {}



def v2_versions(max_keys=1000):
    """Every version and marker over all pages, with the paginator: (key, version_id, is_latest, is_marker)."""
    entries = []
    for page in client.list_object_versions_paginator().iter_page(
            oss.ListObjectVersionsRequest(bucket=BUCKET3, max_keys=max_keys)):
        entries += [(v.key, v.version_id, v.is_latest, False) for v in page.version or []]
        entries += [(m.key, m.version_id, m.is_latest, True) for m in page.delete_marker or []]
    return entries


def v2_setup():
    client.put_bucket(oss.PutBucketRequest(bucket=BUCKET3))
    equal(client.get_bucket_versioning(oss.GetBucketVersioningRequest(bucket=BUCKET3)).version_status, None,
          "fresh bucket versioning")
    client.put_bucket_versioning(oss.PutBucketVersioningRequest(
        bucket=BUCKET3, versioning_configuration=oss.VersioningConfiguration(status="Enabled")))
    equal(client.get_bucket_versioning(oss.GetBucketVersioningRequest(bucket=BUCKET3)).version_status, "Enabled",
          "versioning status")
    info = client.get_bucket_info(oss.GetBucketInfoRequest(bucket=BUCKET3))
    equal(info.bucket_info.versioning, "Enabled", "bucket info versioning")


def v2_write_and_read():
    ids = []
    for body in BODIES:
        r = client.put_object(oss.PutObjectRequest(bucket=BUCKET3, key="dir/doc é.txt", body=body))
        check(r.version_id, "put returns a version id")
        ids.append(r.version_id)
    d = client.delete_object(oss.DeleteObjectRequest(bucket=BUCKET3, key="dir/doc é.txt"))
    check(d.delete_marker, "delete adds a delete marker")
    marker = d.version_id
    state3.update(ids=ids, marker=marker)
    v2_expect_error(lambda: client.get_object(oss.GetObjectRequest(bucket=BUCKET3, key="dir/doc é.txt")), 404,
                    "NoSuchKey", "GET of a marked key")
    for vid, body in zip(ids, BODIES):
        r = client.get_object(oss.GetObjectRequest(bucket=BUCKET3, key="dir/doc é.txt", version_id=vid))
        equal(r.body.read(), body, "version bytes")
        equal(r.version_id, vid, "GET version id")
        h = client.head_object(oss.HeadObjectRequest(bucket=BUCKET3, key="dir/doc é.txt", version_id=vid))
        equal(h.content_length, len(body), "HEAD size")
    listed = v2_versions()
    # Newest first per key: marker, v3, v2, v1; v2 sends encoding-type=url and decodes the keys.
    equal({e[0] for e in listed}, {"dir/doc é.txt"}, "listed key")
    equal(sorted(e[1] for e in listed), sorted(ids + [marker]), "listed ids")
    equal([(e[1], e[3]) for e in listed if e[2]], [(marker, True)], "the marker is the latest")
    for size in (1, 2, 3):
        equal(sorted(e[1] for e in v2_versions(size)), sorted(ids + [marker]), "paged listing, max_keys %d" % size)


def v2_restore_and_delete():
    ids, marker = state3["ids"], state3["marker"]
    r = client.copy_object(oss.CopyObjectRequest(
        bucket=BUCKET3, key="dir/doc é.txt", source_bucket=BUCKET3, source_key="dir/doc é.txt",
        source_version_id=ids[0]))
    check(r.version_id and r.version_id not in ids, "copy makes a new version")
    equal(r.source_version_id, ids[0], "copy source version id")
    equal(client.get_object(oss.GetObjectRequest(bucket=BUCKET3, key="dir/doc é.txt")).body.read(), BODIES[0],
          "restored bytes")
    d = client.delete_object(oss.DeleteObjectRequest(bucket=BUCKET3, key="dir/doc é.txt", version_id=ids[2]))
    equal(d.version_id, ids[2], "delete by version id")
    d = client.delete_object(oss.DeleteObjectRequest(bucket=BUCKET3, key="dir/doc é.txt", version_id=marker))
    check(d.delete_marker, "deleting a marker by id reports it")
    rest = [e[1] for e in v2_versions()]
    result = client.delete_multiple_objects(oss.DeleteMultipleObjectsRequest(
        bucket=BUCKET3, objects=[oss.DeleteObject(key="dir/doc é.txt", version_id=vid) for vid in rest]))
    equal(sorted(d.version_id for d in result.deleted_objects), sorted(rest), "multi-delete versions")
    equal({d.key for d in result.deleted_objects}, {"dir/doc é.txt"}, "multi-delete keys")
    # A multi-delete without a version id adds a marker and says so.
    client.put_object(oss.PutObjectRequest(bucket=BUCKET3, key="other", body=b"x"))
    result = client.delete_multiple_objects(oss.DeleteMultipleObjectsRequest(
        bucket=BUCKET3, objects=[oss.DeleteObject(key="other")]))
    info = result.deleted_objects[0]
    check(info.delete_marker and info.delete_marker_version_id, "multi-delete marker result")
    for e in v2_versions():
        client.delete_object(oss.DeleteObjectRequest(bucket=BUCKET3, key=e[0], version_id=e[1]))
    equal(v2_versions(), [], "purged")
    client.delete_bucket(oss.DeleteBucketRequest(bucket=BUCKET3))


run_cases([
    ("oss2 setup", oss2_setup), ("oss2 write and read", oss2_write_and_read),
    ("oss2 restore and delete", oss2_restore_and_delete),
    ("v2 setup", v2_setup), ("v2 write and read", v2_write_and_read),
    ("v2 restore and delete", v2_restore_and_delete),
])
