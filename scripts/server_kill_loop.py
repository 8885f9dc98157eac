#!/usr/bin/env python3
"""The seeded server kill -9 loop (driven by scripts/server-kill-loop.sh; Python 3 standard library only).

One `oss-local-server` process on a fixed port and data directory. Each run SIGKILLs it in the middle of one
write and starts it again on the same port and directory, then checks what a client can see. The kinds take turns:

  put       a PutObject whose body the server reads at 4 MB/s (x-oss-traffic-limit), killed at a seeded point of
            it: the key must hold the old object or the new one, whole (bytes and CRC-64), never a prefix;
  part      an UploadPart paced the same way: ListParts shows the part whole (size, MD5 ETag) or not at all; a
            missing part is sent again, and the completed object is the bytes;
  complete  a CompleteMultipartUpload killed 0-40 ms after it was sent: the old object or the new one; when old,
            the upload is still there and completing it again gives the new one;
  append    an AppendObject paced and killed: the object before or after the append, appendable at its length;
  upload    `oss cp FILE oss://...` (the SDK's resumable upload, its own retries) with the server killed once it
            received a seeded share of the file: the client's retries carry it across the restart, or the same
            command is run again and resumes; the object must equal the file, no upload may be left;
  download  `oss cp oss://... OUT`, the server killed at a seeded share of the bytes it sent: the same.

One `SKILL kind=... run=...` line per run; at the end `SKILL summary runs=... objects_checked=... lost=...
corrupt=... client_failures=...`. Exit status 1 when anything was lost or corrupt or a client never finished.
"""

import argparse
import base64
import email.utils
import hashlib
import hmac
import http.client
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from kill_loop import AK, SK, MIB, Server, write_random_file

BUCKET = "serverkill"
PACE = "33554432"  # x-oss-traffic-limit, bit/s: 4 MB/s, so a body of a few hundred KB takes ~100 ms


def crc64(data, _table=[]):
    """CRC-64/XZ (ECMA-182 polynomial, reflected), as OSS's x-oss-hash-crc64ecma."""
    if not _table:
        for i in range(256):
            c = i
            for _ in range(8):
                c = (c >> 1) ^ 0xC96C5795D7870F42 if c & 1 else c >> 1
            _table.append(c)
    crc = 0xFFFFFFFFFFFFFFFF
    for b in data:
        crc = _table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFFFFFFFFFF


class Raw:
    """Signed V1 requests with x-oss-* headers and subresources (independent of the SDK under test)."""

    def __init__(self, port):
        self.port = port

    def send(self, method, key, query=None, body=b"", headers=None, timeout=30):
        query = query or {}
        headers = dict(headers or {})
        date = email.utils.formatdate(usegmt=True)
        oss = "".join(f"{k.lower()}:{v}\n" for k, v in sorted(headers.items()) if k.lower().startswith("x-oss-"))
        sub = "&".join(k if v == "" else f"{k}={v}" for k, v in sorted(query.items()))
        resource = f"/{BUCKET}/{key}" + (f"?{sub}" if sub else "")
        to_sign = f"{method}\n\n\n{date}\n{oss}{resource}"
        signature = base64.b64encode(hmac.new(SK.encode(), to_sign.encode(), hashlib.sha1).digest()).decode()
        headers.update({"Date": date, "Authorization": f"OSS {AK}:{signature}"})
        qs = "&".join(urllib.parse.quote(k) if v == "" else f"{urllib.parse.quote(k)}={urllib.parse.quote(v)}"
                      for k, v in sorted(query.items()))
        path = f"/{BUCKET}/{urllib.parse.quote(key)}" + (f"?{qs}" if qs else "")
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body if method in ("PUT", "POST") else None, headers=headers)
            response = conn.getresponse()
            return response.status, dict((k.lower(), v) for k, v in response.getheaders()), response.read()
        finally:
            conn.close()

    def in_background(self, *args, **kwargs):
        """Sends a request on a thread whose result nobody waits for (the server dies under it)."""
        def run():
            try:
                self.send(*args, **kwargs)
            except Exception:
                pass
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread


class Loop:
    def __init__(self, args):
        self.args = args
        self.counts = {"runs": 0, "objects_checked": 0, "lost": 0, "corrupt": 0, "client_failures": 0}
        self.outcomes = {}
        self.env = dict(os.environ)
        for name in ("OSS_SESSION_TOKEN", "OSS_REGION"):
            self.env.pop(name, None)
        self.env.update(OSS_ACCESS_KEY_ID=AK, OSS_ACCESS_KEY_SECRET=SK)
        self.objects = {}  # key -> bytes the key must hold

    def restart(self):
        """SIGKILLs the server and starts it again on the same port and data directory."""
        self.server = self.server.restart()

    def check(self, key, allowed, problems, what="object"):
        """GETs `key`: it must be one of `allowed` (bytes) with a matching CRC-64 header. Returns the index."""
        self.counts["objects_checked"] += 1
        status, headers, body = self.raw.send("GET", key)
        if status == 404:
            self.counts["lost"] += 1
            problems.append(f"{what}-lost")
            return None
        if status != 200:
            problems.append(f"{what}-get-{status}")
            return None
        if headers.get("x-oss-hash-crc64ecma") != str(crc64(body)):
            self.counts["corrupt"] += 1
            problems.append(f"{what}-crc-mismatch")
        for index, candidate in enumerate(allowed):
            if body == candidate:
                return index
        self.counts["corrupt"] += 1
        problems.append(f"{what}-neither-old-nor-new(len={len(body)})")
        return None

    def outcome(self, kind, name):
        self.outcomes.setdefault(kind, {}).setdefault(name, 0)
        self.outcomes[kind][name] += 1

    def kill_after(self, seconds):
        time.sleep(seconds)
        self.restart()

    # --- the kinds -------------------------------------------------------------------------------------------

    def run_put(self, rng, run, problems):
        key = f"put/{run % 3}"
        old = self.objects.get(key)
        new = rng.randbytes(rng.randrange(200_000, 600_000))
        body_seconds = len(new) / 4e6
        self.raw.in_background("PUT", key, body=new, headers={"x-oss-traffic-limit": PACE})
        self.kill_after(rng.uniform(0, body_seconds * 1.3))
        allowed = [new] + ([old] if old is not None else [])
        if old is None:
            status, _, _ = self.raw.send("HEAD", key)
            if status == 404:
                self.counts["objects_checked"] += 1
                self.outcome("put", "absent(never existed)")
                return
        index = self.check(key, allowed, problems)
        if index is not None:
            self.objects[key] = allowed[index]
            self.outcome("put", "new" if index == 0 else "old")

    def initiate(self, key):
        status, _, body = self.raw.send("POST", key, query={"uploads": ""})
        assert status == 200, (status, body[:200])
        return re.search(rb"<UploadId>([^<]+)</UploadId>", body).group(1).decode()

    def complete_body(self, etags):
        parts = "".join(f"<Part><PartNumber>{n}</PartNumber><ETag>{e}</ETag></Part>" for n, e in etags)
        return f"<CompleteMultipartUpload>{parts}</CompleteMultipartUpload>".encode()

    def run_part(self, rng, run, problems):
        key = f"part/{run}"
        upload = self.initiate(key)
        data = rng.randbytes(rng.randrange(200_000, 500_000))
        etag = '"' + hashlib.md5(data).hexdigest().upper() + '"'
        query = {"partNumber": "1", "uploadId": upload}
        self.raw.in_background("PUT", key, query=query, body=data, headers={"x-oss-traffic-limit": PACE})
        self.kill_after(rng.uniform(0, len(data) / 4e6 * 1.3))
        status, _, listing = self.raw.send("GET", key, query={"uploadId": upload})
        if status != 200:
            problems.append(f"listparts-{status}")
            self.counts["lost"] += 1
            return
        self.counts["objects_checked"] += 1
        if b"<PartNumber>1</PartNumber>" in listing:
            listed_etag = "<ETag>" + etag.replace('"', "&quot;") + "</ETag>"
            if listed_etag.encode() not in listing or f"<Size>{len(data)}</Size>".encode() not in listing:
                self.counts["corrupt"] += 1
                problems.append("part-listed-damaged")
            self.outcome("part", "stored")
        else:
            self.outcome("part", "absent")
            status, headers, _ = self.raw.send("PUT", key, query=query, body=data)
            if status != 200 or headers.get("etag") != etag:
                problems.append(f"part-resend-{status}")
        status, _, body = self.raw.send("POST", key, query={"uploadId": upload}, body=self.complete_body([(1, etag)]))
        if status != 200:
            problems.append(f"complete-{status}")
        self.check(key, [data], problems)
        self.raw.send("DELETE", key)

    def run_complete(self, rng, run, problems):
        key = f"complete/{run % 2}"
        old = self.objects.get(key)
        upload = self.initiate(key)
        parts, new = [], b""
        for n in range(1, rng.randrange(3, 7)):
            data = rng.randbytes(102_400 if n < 5 else rng.randrange(1, 102_400))
            status, headers, _ = self.raw.send("PUT", key, query={"partNumber": str(n), "uploadId": upload}, body=data)
            assert status == 200, status
            parts.append((n, headers["etag"]))
            new += data
        self.raw.in_background("POST", key, query={"uploadId": upload}, body=self.complete_body(parts))
        self.kill_after(rng.uniform(0, 0.04))
        allowed = [new] + ([old] if old is not None else [])
        status, _, _ = self.raw.send("HEAD", key)
        if status == 404 and old is None:
            index = 1  # not completed, and there was no object before
            self.counts["objects_checked"] += 1
        else:
            index = self.check(key, allowed, problems)
        if index == 0:
            self.outcome("complete", "new")
            self.objects[key] = new
        elif index is not None:
            self.outcome("complete", "old")
            # Not completed: the upload is still there, and completing it again gives the new object.
            status, _, _ = self.raw.send("POST", key, query={"uploadId": upload}, body=self.complete_body(parts))
            if status != 200:
                self.counts["lost"] += 1
                problems.append(f"complete-again-{status}")
            elif self.check(key, [new], problems) == 0:
                self.objects[key] = new

    def run_append(self, rng, run, problems):
        key = "append/0"
        before = self.objects.get(key, b"")
        piece = rng.randbytes(rng.randrange(100_000, 400_000))
        query = {"append": "", "position": str(len(before))}
        self.raw.in_background("POST", key, query=query, body=piece, headers={"x-oss-traffic-limit": PACE})
        self.kill_after(rng.uniform(0, len(piece) / 4e6 * 2.5))
        if not before:
            status, _, _ = self.raw.send("HEAD", key)
            if status == 404:
                self.counts["objects_checked"] += 1
                self.outcome("append", "before")
                return
        allowed = [before + piece] + ([before] if before else [])
        index = self.check(key, allowed, problems)
        if index is not None:
            self.objects[key] = allowed[index]
            self.outcome("append", "after" if index == 0 else "before")
            status, headers, _ = self.raw.send("HEAD", key)
            if headers.get("x-oss-next-append-position") != str(len(allowed[index])):
                problems.append("append-position")

    def oss(self, *arguments):
        return [self.args.oss, *arguments, "--endpoint", f"http://127.0.0.1:{self.port}", "--signature-version", "v1"]

    def run_client(self, command, operation, field, target, work, name):
        """Runs `oss cp`, restarts the server once its counter reaches `target`, waits for the command, and runs
        it again (a resume) if it failed. Returns (exit status of the last run, number of runs)."""
        self.server.add_fault(f"{operation}:delay=5")
        log = open(os.path.join(work, f"{name}.log"), "ab")
        process = subprocess.Popen(command, env=self.env, stdout=log, stderr=log)
        deadline = time.monotonic() + self.args.timeout
        self.killed = False
        while process.poll() is None and time.monotonic() < deadline:
            if self.server.stats(operation)[field] >= target:
                self.restart()
                self.killed = True
                break
            time.sleep(0.002)
        status = process.wait(timeout=self.args.timeout)
        calls = 1
        if status != 0:
            calls += 1
            status = subprocess.run(command, env=self.env, stdout=log, stderr=log, timeout=self.args.timeout).returncode
        log.close()
        return status, calls

    def run_upload(self, rng, run, problems, work):
        size = rng.randrange(8 * MIB, 32 * MIB)
        # Kept outside the run's directory: the next run downloads the object and compares it with the file.
        source = os.path.join(self.root, f"source-{run}.bin")
        write_random_file(source, size, rng)
        key = f"upload/{run}"
        records = os.path.join(work, "records")
        part = rng.choice([1, 2]) * MIB
        command = self.oss("cp", source, f"oss://{BUCKET}/{key}", "--part-size", str(part),
                           "--threads", str(rng.randint(1, 4)), "--checkpoint-dir", records)
        status, calls = self.run_client(command, "UploadPart", 1, int(rng.uniform(0.1, 0.9) * size), work, "upload")
        self.outcome("upload", f"calls={calls}" + ("" if self.killed else ",not-killed"))
        if status != 0:
            self.counts["client_failures"] += 1
            problems.append(f"cp-exit={status}")
        self.counts["objects_checked"] += 1
        identical, why = self.server.same_as_file(key, source)
        if not identical:
            self.counts["corrupt" if why != "GET answered 404" else "lost"] += 1
            problems.append(f"object:{why}")
        if self.server.multipart_uploads():
            problems.append("multipart-uploads-left")
        self.last_upload = (key, source, size)

    def run_download(self, rng, run, problems, work):
        if not getattr(self, "last_upload", None):
            return
        key, source, size = self.last_upload
        target = os.path.join(work, "copy.bin")
        records = os.path.join(work, "down-records")
        command = self.oss("cp", f"oss://{BUCKET}/{key}", target, "--part-size", str(rng.choice([1, 2]) * MIB),
                           "--threads", str(rng.randint(1, 4)), "--checkpoint-dir", records)
        status, calls = self.run_client(command, "GetObject", 3, int(rng.uniform(0.1, 0.9) * size), work, "download")
        self.outcome("download", f"calls={calls}" + ("" if self.killed else ",not-killed"))
        if status != 0:
            self.counts["client_failures"] += 1
            problems.append(f"cp-exit={status}")
        self.counts["objects_checked"] += 1
        if not (os.path.exists(target) and open(target, "rb").read() == open(source, "rb").read()):
            self.counts["corrupt"] += 1
            problems.append("file-differs")
        self.server.delete(key)
        os.remove(source)
        self.last_upload = None

    def main(self):
        args = self.args
        root = self.root = tempfile.mkdtemp(prefix="oss-server-kill-loop.", dir=args.tmpdir)
        self.data = os.path.join(root, "data")
        self.log = os.path.join(root, "server.log")
        failed = False
        try:
            self.server = Server(args.server, self.data, self.log, port=0, bucket=BUCKET)
            self.port = self.server.port
            self.raw = Raw(self.port)
            kinds = ["put", "part", "complete", "append"] + ([] if args.no_client else ["upload", "download"])
            print(f"SKILL config seed={args.seed} runs={args.runs} kinds={','.join(kinds)} port={self.port} "
                  f"work={root}", flush=True)
            start = time.monotonic()
            for run in range(1, args.runs + 1):
                rng = random.Random(args.seed * 1_000_003 + run)
                kind = kinds[(run - 1) % len(kinds)]
                work = os.path.join(root, f"run-{run}")
                os.makedirs(work)
                problems = []
                before = dict(self.counts)
                if kind in ("upload", "download"):
                    getattr(self, f"run_{kind}")(rng, run, problems, work)
                else:
                    getattr(self, f"run_{kind}")(rng, run, problems)
                self.counts["runs"] += 1
                checked = self.counts["objects_checked"] - before["objects_checked"]
                print(f"SKILL kind={kind} run={run} checked={checked}"
                      + (f" problems={','.join(problems)}" if problems else ""), flush=True)
                failed = failed or bool(problems)
                shutil.rmtree(work, ignore_errors=True)
            summary = " ".join(f"{k}={v}" for k, v in self.counts.items())
            outcomes = " ".join(f"{k}:{'/'.join(f'{n}={c}' for n, c in sorted(v.items()))}"
                                for k, v in sorted(self.outcomes.items()))
            print(f"SKILL summary seed={args.seed} {summary} seconds={time.monotonic() - start:.0f}", flush=True)
            print(f"SKILL outcomes {outcomes}", flush=True)
        finally:
            if getattr(self, "server", None):
                self.server.stop()
            if failed and args.keep_failed:
                print(f"SKILL kept {root}", flush=True)
            else:
                shutil.rmtree(root, ignore_errors=True)
        bad = self.counts["lost"] + self.counts["corrupt"] + self.counts["client_failures"]
        return 1 if bad or failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oss", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--no-client", action="store_true", help="only the raw kinds (put, part, complete, append)")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--tmpdir", default=None)
    parser.add_argument("--keep-failed", action="store_true")
    return Loop(parser.parse_args()).main()


if __name__ == "__main__":
    sys.exit(main())
