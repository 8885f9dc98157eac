#!/usr/bin/env python3
"""Judge suite for client-side encryption: the official alibabacloud-oss-v2 EncryptionClient (RSA master key,
AES-256-CTR content, the x-oss-meta-client-side-encryption-* envelope) against an OSS endpoint, in two phases run by
EncryptionJudgeTests around the Swift SDK's OSSEncryptionClient:

  write: the official client writes py/single (one PutObject) and py/multi (InitiateMultipartUpload, UploadPart,
         CompleteMultipartUpload with cse_part_size/cse_data_size; ListParts must repeat the envelope), each with its
         plaintext beside it unencrypted (NAME.plain) for the Swift SDK to compare, whole and ranged;
  check: the official client decrypts every object NAME the Swift SDK wrote (listed by --objects) and compares it,
         whole and in ranges at odd offsets, with NAME.plain byte for byte.

Usage: judge_encryption.py --phase write|check --bucket B --endpoint http://127.0.0.1:PORT
                           --access-key-id AK --access-key-secret SK --public-key PEM-FILE --private-key PEM-FILE
                           [--matdesc JSON] [--objects a,b,c]
"""
import json
import os
import sys

import alibabacloud_oss_v2 as oss
from alibabacloud_oss_v2.crypto import MasterRsaCipher

from common import check, equal, run_cases, v2_client


def take(flag, default=None):
    if flag not in sys.argv:
        return default
    i = sys.argv.index(flag)
    value = sys.argv[i + 1]
    del sys.argv[i:i + 2]
    return value


PHASE = take("--phase", "write")
PUBLIC = open(take("--public-key")).read()
PRIVATE = open(take("--private-key")).read()
MATDESC = json.loads(take("--matdesc", "{}"))
OBJECTS = [o for o in take("--objects", "").split(",") if o]
from common import parse_args  # noqa: E402  (after the flags above are taken out)

args = parse_args(__doc__)
BUCKET = args.bucket
PART_SIZE = 102400  # OSS's smallest part, a multiple of 16

client = v2_client(args)
master = MasterRsaCipher(mat_desc=MATDESC or None, public_key=PUBLIC, private_key=PRIVATE)
eclient = oss.EncryptionClient(client, master)

# Odd offsets across block (16) and part (102400) boundaries.
RANGES = [(0, 0), (1, 16), (15, 17), (17, 4095), (12345, 12345 + 999), (102399, 102401), (102395, 204805),
          (204799, None), (7, None)]


def put_plain(key, data):
    client.put_object(oss.PutObjectRequest(bucket=BUCKET, key=key + ".plain", body=data))


def get_plain(key):
    return client.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key + ".plain")).body.read()


def write_single():
    data = os.urandom(100003)
    eclient.put_object(oss.PutObjectRequest(bucket=BUCKET, key="py/single", body=data))
    put_plain("py/single", data)
    raw = client.get_object(oss.GetObjectRequest(bucket=BUCKET, key="py/single"))
    check(raw.body.read() != data, "the stored object is the plaintext")
    check(raw.headers.get("x-oss-meta-client-side-encryption-key"), "no envelope on py/single")


def write_multi():
    data = os.urandom(2 * PART_SIZE + 4097)
    init = eclient.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(
        bucket=BUCKET, key="py/multi", cse_part_size=PART_SIZE, cse_data_size=len(data)))
    parts = []
    for n, start in enumerate(range(0, len(data), PART_SIZE), 1):
        r = eclient.upload_part(oss.UploadPartRequest(
            bucket=BUCKET, key="py/multi", upload_id=init.upload_id, part_number=n,
            cse_multipart_context=init.cse_multipart_context, body=data[start:start + PART_SIZE]))
        parts.append(oss.UploadPart(part_number=n, etag=r.etag))
    listed = client.list_parts(oss.ListPartsRequest(bucket=BUCKET, key="py/multi", upload_id=init.upload_id))
    check(listed.client_encryption_key, "ListParts lacks ClientEncryptionKey")
    check(listed.client_encryption_start, "ListParts lacks ClientEncryptionStart")
    equal(listed.client_encryption_cek_alg, "AES/CTR/NoPadding", "ListParts ClientEncryptionCekAlg")
    equal(listed.client_encryption_wrap_alg, "RSA/NONE/PKCS1Padding", "ListParts ClientEncryptionWrapAlg")
    equal(listed.client_encryption_part_size, PART_SIZE, "ListParts ClientEncryptionPartSize")
    equal(listed.client_encryption_data_size, len(data), "ListParts ClientEncryptionDataSize")
    eclient.complete_multipart_upload(oss.CompleteMultipartUploadRequest(
        bucket=BUCKET, key="py/multi", upload_id=init.upload_id,
        complete_multipart_upload=oss.CompleteMultipartUpload(parts=parts)))
    put_plain("py/multi", data)
    head = client.head_object(oss.HeadObjectRequest(bucket=BUCKET, key="py/multi"))
    equal(head.headers.get("x-oss-meta-client-side-encryption-part-size"), str(PART_SIZE), "the object's part size")


def check_object(key):
    def run():
        plain = get_plain(key)
        whole = eclient.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key)).body.read()
        check(whole == plain, "%s: the whole object differs (%d vs %d bytes)" % (key, len(whole), len(plain)))
        for start, end in RANGES:
            if start >= len(plain):
                continue
            last = len(plain) - 1 if end is None or end >= len(plain) else end
            header = "bytes=%d-%s" % (start, "" if end is None else str(last))
            got = eclient.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key, range_header=header)).body.read()
            check(got == plain[start:last + 1], "%s: range %s differs" % (key, header))
    return run


if PHASE == "write":
    run_cases([("python writes one PutObject", write_single), ("python writes a multipart upload", write_multi)])
else:
    run_cases([("python reads " + key, check_object(key)) for key in OBJECTS])
