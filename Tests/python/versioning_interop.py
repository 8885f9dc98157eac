#!/usr/bin/env python3
"""The official oss2 client on one side of a versioned bucket, the Swift SDK on the other
(Tests/AliyunOSSTests/Versioning/VersioningOfficialClientTests.swift runs it).

  write: enables versioning on --bucket, writes doc.txt three times (b"version 1" ... b"version 3") and deletes it
         (a delete marker); prints {"versions": [v1, v2, v3], "marker": id} as JSON.
  check: --expect-version ID: the bucket holds exactly that version of doc.txt, the latest, with b"version 1"
         (what the Swift SDK restored and kept); prints "ok".
Exits non-zero on any failure.
"""
import common  # noqa: F401  (its loopback guard: look-ups of other names are refused)
import argparse
import json
import sys

import oss2
from oss2.credentials import StaticCredentialsProvider

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("phase", choices=["write", "check"])
p.add_argument("--endpoint", required=True)
p.add_argument("--access-key-id", required=True)
p.add_argument("--access-key-secret", required=True)
p.add_argument("--bucket", required=True)
p.add_argument("--region", default="cn-hangzhou")
p.add_argument("--expect-version")
args = p.parse_args()

bucket = oss2.Bucket(
    oss2.ProviderAuthV4(StaticCredentialsProvider(args.access_key_id, args.access_key_secret)), args.endpoint,
    args.bucket, region=args.region)


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


if args.phase == "write":
    bucket.put_bucket_versioning(oss2.models.BucketVersioningConfig("Enabled"))
    ids = [bucket.put_object("doc.txt", b"version %d" % n).versionid for n in (1, 2, 3)]
    deleted = bucket.delete_object("doc.txt")
    if not deleted.delete_marker:
        fail("oss2: the delete added no delete marker")
    print(json.dumps({"versions": ids, "marker": deleted.versionid}))
else:
    listing = bucket.list_object_versions()
    versions = [(v.key, v.versionid, v.is_latest) for v in listing.versions]
    if listing.delete_marker:
        fail("oss2 still sees delete markers: %r" % [(m.key, m.versionid) for m in listing.delete_marker])
    if versions != [("doc.txt", args.expect_version, True)]:
        fail("oss2 sees %r, expected only %s as the latest" % (versions, args.expect_version))
    body = bucket.get_object("doc.txt").read()
    if body != b"version 1":
        fail("oss2 reads %r" % body)
    if bucket.get_object("doc.txt", params={"versionId": args.expect_version}).read() != b"version 1":
        fail("oss2 reads another body for the version")
    print("ok")
