#!/usr/bin/env python3
"""Micro benchmarks of the official Python OSS SDKs, printed beside ours by scripts/bench-micro.sh.

Times per operation (best of 5 rounds): oss2 V1/V4 header signing and V4 presign, alibabacloud-oss-v2 V4 signing,
oss2's CRC64 (crcmod, C extension when installed) and hashlib MD5 throughput.
"""
import hashlib
import os
import time

import oss2
import oss2.http
import oss2.utils

AK, SK = "LTAI5tExampleAccessKeyId", "ExampleAccessKeySecret0123456789"
ENDPOINT = "https://oss-cn-hangzhou.aliyuncs.com"


def best(fn, n, rounds=5):
    t = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        t = min(t, (time.perf_counter() - start) / n)
    return t


def request(region=None):
    r = oss2.http.Request("PUT", "https://examplebucket.oss-cn-hangzhou.aliyuncs.com/photos/2024/cat.jpg",
                             params={"partNumber": "3", "uploadId": "0004B9894A22E5B1888A1E29F8236E2D"},
                             headers={"Content-Type": "image/jpeg", "Content-MD5": "XrY7u+Ae7tCTyyK7j1rNww==",
                                      "x-oss-meta-author": "alice"})
    r.region = region
    r.product = "oss"
    return r


def row(name, value):
    print(f"{name:<44}{value}")


v1 = oss2.Auth(AK, SK)
v4 = oss2.AuthV4(AK, SK)
row("oss2 V1 header sign (per request)", "%.2f µs" % (best(lambda: v1._sign_request(request(), "examplebucket", "photos/2024/cat.jpg"), 5000) * 1e6))
row("oss2 V4 header sign (per request)", "%.2f µs" % (best(lambda: v4._sign_request(request("cn-hangzhou"), "examplebucket", "photos/2024/cat.jpg", in_additional_headers=None), 5000) * 1e6))
bucket = oss2.Bucket(v4, ENDPOINT, "examplebucket", region="cn-hangzhou")
row("oss2 V4 presign (per URL)", "%.2f µs" % (best(lambda: bucket.sign_url("GET", "photos/2024/cat.jpg", 3600), 5000) * 1e6))

data = os.urandom(64 << 20)
def crc():
    c = oss2.utils.Crc64(0)
    c.update(data)
    return c.crc
row("oss2 CRC64 (crcmod)", "%.2f GB/s" % (len(data) / best(crc, 1, 3) / 1e9))
row("hashlib MD5 (OpenSSL)", "%.2f GB/s" % (len(data) / best(lambda: hashlib.md5(data).digest(), 1, 3) / 1e9))
