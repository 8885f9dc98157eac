#!/usr/bin/env python3
"""Benchmark (not a test): CompleteMultipartUpload latency at two object sizes with the same part count, and GET
of a multipart (manifest) object against a single-PUT object of the same size, on a running local server.

Usage: bench_multipart.py ENDPOINT BUCKET --sizes-mib 8,512 --parts 64
Needs oss2 (the repository's .venv has it). Prints one line per figure.
"""
import argparse
import os
import time

import oss2

AK = "LTAILocalDevAccessKeyId"
SK = "LocalDevAccessKeySecret0123456789"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("endpoint")
    parser.add_argument("bucket")
    parser.add_argument("--sizes-mib", default="8,512")
    parser.add_argument("--parts", type=int, default=64)
    args = parser.parse_args()
    bucket = oss2.Bucket(oss2.Auth(AK, SK), args.endpoint, args.bucket)
    for size_mib in [int(s) for s in args.sizes_mib.split(",")]:
        size = size_mib << 20
        part_size = size // args.parts
        chunk = os.urandom(part_size)
        key = f"multipart-{size_mib}.bin"
        upload_id = bucket.init_multipart_upload(key).upload_id
        parts = []
        for n in range(1, args.parts + 1):
            result = bucket.upload_part(key, upload_id, n, chunk)
            parts.append(oss2.models.PartInfo(n, result.etag))
        start = time.perf_counter()
        bucket.complete_multipart_upload(key, upload_id, parts)
        complete = time.perf_counter() - start
        print(f"complete {size_mib} MiB with {args.parts} parts: {complete * 1000:.1f} ms")
        single = f"single-{size_mib}.bin"
        bucket.put_object(single, chunk * args.parts)
        for name, k in (("single-PUT", single), ("multipart", key)):
            start = time.perf_counter()
            stream = bucket.get_object(k)
            total = 0
            while True:
                block = stream.read(1 << 20)
                if not block:
                    break
                total += len(block)
            elapsed = time.perf_counter() - start
            assert total == size, (name, total, size)
            print(f"GET {size_mib} MiB {name} object: {elapsed:.3f} s ({size / elapsed / 1e6:.0f} MB/s)")


if __name__ == "__main__":
    main()
