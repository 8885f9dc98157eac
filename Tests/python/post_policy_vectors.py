#!/usr/bin/env python3
"""PostObject policy vectors, computed independently of the Swift code with the official SDK's signing primitives.

The policy documents are written with Python's json.dumps (compact separators, UTF-8 kept), the signatures with
alibabacloud-oss-v2's own HMAC code: SignerV1._calc_signature (Base64 HMAC-SHA1) and SignerV4._calc_signature (the
aliyun_v4 signing-key chain, hex HMAC-SHA256). The fixed inputs are those of the signing vectors (§0 of
oss-protocol.md). OSSSigningTests/PostPolicyVectorTests and AliyunOSSTests/PostPolicyTests read the output.

Usage: .venv/bin/python Tests/python/post_policy_vectors.py > Tests/OSSSigningTests/Fixtures/post-policy-vectors.json
"""
import base64
import json
from datetime import datetime, timezone

from alibabacloud_oss_v2.signer.v1 import SignerV1
from alibabacloud_oss_v2.signer.v4 import SignerV4

AK, SK, TOKEN = "LTAI5tExampleAccessKeyId", "ExampleAccessKeySecret0123456789", "CAIS+Example/STS=Token"
REGION, BUCKET = "cn-hangzhou", "examplebucket"
SIGN_TIME = datetime(2024, 1, 15, 8, 30, 45, tzinfo=timezone.utc)
EXPIRATION = "2024-01-15T09:30:45.000Z"

# Each policy's conditions after {"bucket": BUCKET}, as the Swift tests build them with OSSPostPolicy.Condition.
POLICIES = {
    "key_prefix_and_size": [
        ["starts-with", "$key", "users/alice/"],
        ["content-length-range", 1, 10485760],
    ],
    "every_condition": [
        ["eq", "$key", "users/alice/photo 1.jpg"],
        ["content-length-range", 0, 1048576],
        ["eq", "$content-type", "image/jpeg"],
        ["starts-with", "$content-type", "image/"],
        ["in", "$content-type", ["image/jpeg", "image/png"]],
        ["not-in", "$content-type", ["text/html", "application/x-msdownload"]],
        ["eq", "$success_action_status", "201"],
        ["starts-with", "$success_action_redirect", "https://app.example.com/done"],
        ["eq", "$x-oss-meta-owner", "alice"],
        {"callback": "eyJjYWxsYmFja1VybCI6Imh0dHBzOi8vYXBwLmV4YW1wbGUuY29tL2NiIn0="},
        {"x:user": "alice"},
    ],
    "unicode_and_escapes": [
        ["eq", "$key", "文件/ünïcödé \"quoted\" back\\slash\ttab/x.txt"],
        ["starts-with", "$x-oss-meta-note", "line1\nline2 / slash"],
    ],
}


def document(conditions, extra):
    body = {"expiration": EXPIRATION, "conditions": [{"bucket": BUCKET}] + conditions + extra}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def main():
    v1, v4 = SignerV1(), SignerV4()
    day, stamp = SIGN_TIME.strftime("%Y%m%d"), SIGN_TIME.strftime("%Y%m%dT%H%M%SZ")
    credential = f"{AK}/{day}/{REGION}/oss/aliyun_v4_request"
    vectors = []
    for name, conditions in POLICIES.items():
        for mode in ("plain", "sts"):
            # V1: the policy as written; the STS token travels as the x-oss-security-token field.
            doc1 = document(conditions, [])
            policy1 = base64.b64encode(doc1.encode("utf-8")).decode("ascii")
            # V4: the policy also requires the signing fields exactly, in this order.
            fields = [("x-oss-signature-version", "OSS4-HMAC-SHA256"), ("x-oss-credential", credential),
                      ("x-oss-date", stamp)]
            if mode == "sts":
                fields.append(("x-oss-security-token", TOKEN))
            doc4 = document(conditions, [{k: v} for k, v in fields])
            policy4 = base64.b64encode(doc4.encode("utf-8")).decode("ascii")
            vectors.append({
                "name": name, "mode": mode,
                "v1": {"document": doc1, "policy": policy1, "signature": v1._calc_signature(SK, policy1)},
                "v4": {"document": doc4, "policy": policy4, "fields": dict(fields),
                       "signature": v4._calc_signature(SK, day, REGION, "oss", policy4)},
            })
    out = {
        "inputs": {"access_key_id": AK, "access_key_secret": SK, "security_token": TOKEN, "region": REGION,
                   "bucket": BUCKET, "sign_time_unix": int(SIGN_TIME.timestamp()), "expiration": EXPIRATION},
        "vectors": vectors,
    }
    json.dump(out, __import__("sys").stdout, indent=1, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
