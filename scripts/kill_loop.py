#!/usr/bin/env python3
"""The seeded kill -9 loop (driven by scripts/kill-loop.sh; Python 3 standard library only).

For each run: a seeded random file is uploaded with `oss cp`, the process is killed with SIGKILL once the local
server has received a seeded fraction of the file (the server's /-/stats counters, not wall time), the same
command is run again to resume, and then the object is compared byte for byte with the file (a plain signed GET,
not the SDK), ListMultipartUploads must be empty and the record directory clean. The bytes the server received
over both runs, less the file size, are the bytes sent twice; they must stay within threads x partSize. Then the
same object is downloaded with `oss cp`, killed at a seeded fraction of the bytes the server sent, resumed and
compared with the source; no temporary file or record may be left behind, and the bytes sent twice must stay
within the download bound (threads x 128 KiB, the checkpoint interval, plus 1.5 MiB: 2 MiB with 4 threads), whatever the part size: a download
resumes at the byte.

Why threads x partSize: the server counts a request's body bytes when the request ends (a killed part counts the
bytes that reached the server before the connection died; a download counts the whole planned response body when
the reply starts). The SDK records a part before it starts the next one, so at the kill each of the `threads`
slots holds at most one part that is counted but not recorded (partly or wholly received, or wholly sent but not
yet written to the record); the resume sends each such part again and nothing else.

Downloads are measured with the bytes the server actually wrote to the connections (responseBodyBytesWritten):
each part in flight records its written prefix every 128 KiB, so what is fetched twice is, per part in flight, at
most one checkpoint interval plus what was in the socket buffers or arrived while the last record was being saved.
"""

import argparse
import base64
import email.utils
import hashlib
import hmac
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

MIB = 1024 * 1024
AK = "LTAILocalDevAccessKeyId"
SK = "LocalDevAccessKeySecret0123456789"
BUCKET = "killloop"


class Server:
    """One oss-local-server process with its admin endpoints."""

    def __init__(self, binary, data_dir, log_path, port=0, bucket=BUCKET):
        self.argv = (binary, data_dir, log_path, bucket)
        self.log = open(log_path, "ab")
        self.process = subprocess.Popen(
            [binary, "--port", str(port), "--data-dir", data_dir, "--bucket", bucket, "--access-key-id", AK,
             "--access-key-secret", SK, "--admin"],
            stdout=subprocess.PIPE, stderr=self.log)
        self.bucket = bucket
        line = self.process.stdout.readline().decode()
        match = re.match(r"listening on (http://[^\s]+)", line)
        if not match:
            self.stop()
            raise SystemExit(f"kill-loop: the server did not start: {line!r} (log {log_path})")
        self.endpoint = match.group(1).rstrip("/")
        parsed = urllib.parse.urlparse(self.endpoint)
        self.host, self.port = parsed.hostname, parsed.port
        self.conn = None

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def restart(self):
        """SIGKILLs the server and starts a new one on the same port and data directory (returned)."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.log.close()
        binary, data_dir, log_path, bucket = self.argv
        return Server(binary, data_dir, log_path, port=self.port, bucket=bucket)

    def request(self, method, path, body=None, headers=None):
        """One request on a kept-alive connection (reconnects once if the server closed it)."""
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                response = self.conn.getresponse()
                data = response.read()
                return response.status, data
            except (http.client.HTTPException, ConnectionError, OSError):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise

    # Admin endpoints (enabled with --admin; no signature).
    def stats(self, operation):
        status, data = self.request("GET", "/-/stats")
        assert status == 200, (status, data)
        counters = json.loads(data).get("operations", {}).get(operation, {})
        return (counters.get("requests", 0), counters.get("requestBodyBytes", 0), counters.get("responseBodyBytes", 0),
                counters.get("responseBodyBytesWritten", 0))

    def reset_stats(self):
        status, _ = self.request("POST", "/-/stats/reset")
        assert status == 204, status

    def add_fault(self, rule):
        status, data = self.request("POST", "/-/faults", body=rule.encode())
        assert status == 200, (status, data)

    def clear_faults(self):
        status, _ = self.request("DELETE", "/-/faults")
        assert status == 204, status

    # Signed requests (V1 header signature, path-style), independent of the SDK under test.
    def signed(self, method, key, subresource=""):
        date = email.utils.formatdate(usegmt=True)
        resource = f"/{self.bucket}/{key}" + (f"?{subresource}" if subresource else "")
        to_sign = f"{method}\n\n\n{date}\n{resource}"
        signature = base64.b64encode(hmac.new(SK.encode(), to_sign.encode(), hashlib.sha1).digest()).decode()
        path = f"/{self.bucket}/{urllib.parse.quote(key)}" + (f"?{subresource}" if subresource else "")
        return path, {"Date": date, "Authorization": f"OSS {AK}:{signature}"}

    def same_as_file(self, key, file_path):
        """GETs the object (streamed) and compares it byte for byte with the file."""
        path, headers = self.signed("GET", key)
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            if response.status != 200:
                response.read()
                return False, f"GET answered {response.status}"
            with open(file_path, "rb") as f:
                while True:
                    chunk = response.read(MIB)
                    if not chunk:
                        break
                    if f.read(len(chunk)) != chunk:
                        return False, "bytes differ"
                if f.read(1):
                    return False, "object shorter than the file"
            return True, "identical"
        finally:
            conn.close()

    def multipart_uploads(self):
        """The upload ids ListMultipartUploads reports for the bucket."""
        path, headers = self.signed("GET", "", "uploads")
        status, data = self.request("GET", path, headers=headers)
        assert status == 200, (status, data[:300])
        return re.findall(rb"<UploadId>([^<]*)</UploadId>", data)

    def delete(self, key):
        path, headers = self.signed("DELETE", key)
        status, data = self.request("DELETE", path, headers=headers)
        assert status == 204, (status, data[:300])


def write_random_file(path, size, rng):
    with open(path, "wb") as f:
        left = size
        while left > 0:
            n = min(left, 8 * MIB)
            f.write(rng.randbytes(n))
            left -= n


def pick_part_size(rng, size):
    """A seeded part size between 1 and 4 MiB (a multiple of 4 KiB) that does not divide the size."""
    while True:
        part = rng.randrange(256, 1025) * 4096
        if size % part != 0:
            return part


class Loop:
    def __init__(self, args):
        self.args = args
        self.failures = 0
        self.figures = {"upload": [], "download": []}
        self.env = dict(os.environ)
        for name in ("OSS_SESSION_TOKEN", "OSS_REGION"):
            self.env.pop(name, None)
        self.env.update(OSS_ACCESS_KEY_ID=AK, OSS_ACCESS_KEY_SECRET=SK)

    def settings(self, rng, size):
        """Part size, threads and kill fraction: seeded, unless fixed on the command line."""
        part = pick_part_size(rng, size)
        threads = rng.randint(1, 4)
        fraction = rng.uniform(0.10, 0.90)
        if self.args.part_size:
            part = self.args.part_size
        if self.args.threads:
            threads = self.args.threads
        if self.args.fraction:
            fraction = self.args.fraction
        return part, threads, fraction

    def oss(self, *arguments):
        return [self.args.oss, *arguments, "--endpoint", self.server.endpoint, "--signature-version", "v1"]

    def kill_at(self, command, operation, field, target, log_path):
        """Starts `command`, SIGKILLs it once the server's counter `field` of `operation` reaches `target`.
        Returns the counter value read just before the kill, or None if the process ended first."""
        with open(log_path, "wb") as log:
            process = subprocess.Popen(command, env=self.env, stdout=log, stderr=log)
            seen = 0
            deadline = time.monotonic() + self.args.timeout
            while process.poll() is None and time.monotonic() < deadline:
                seen = self.server.stats(operation)[field]
                if seen >= target:
                    process.send_signal(signal.SIGKILL)
                    break
                time.sleep(0.002)
            process.wait()
        if process.returncode != -signal.SIGKILL:
            return None, process.returncode
        return seen, process.returncode

    def settled(self, operation, field):
        """Waits until the server has settled the requests the killed process left (their counters stop moving)."""
        last = None
        stable_since = time.monotonic()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            now = self.server.stats(operation)
            if now != last:
                last, stable_since = now, time.monotonic()
            elif time.monotonic() - stable_since >= 0.3:
                break
            time.sleep(0.02)
        return last[field]

    def resume(self, command, log_path):
        with open(log_path, "wb") as log:
            result = subprocess.run(command, env=self.env, stdout=log, stderr=log, timeout=self.args.timeout)
        with open(log_path, "rb") as log:
            output = log.read().decode(errors="replace")
        return result.returncode, output

    def report(self, kind, run, ok, problems, **fields):
        figures = " ".join(f"{k}={v}" for k, v in fields.items())
        line = f"KILL kind={kind} run={run} {figures}"
        if problems:
            line += " problems=" + ",".join(problems)
        print(line, flush=True)
        self.figures[kind].append(dict(fields, ok=ok, problems=problems))
        if not ok:
            self.failures += 1

    def run_upload(self, run, rng, work):
        size = rng.randrange(self.args.min_mib * MIB, self.args.max_mib * MIB + 1)
        part, threads, fraction = self.settings(rng, size)
        source = os.path.join(work, f"src-{run}.bin")
        write_random_file(source, size, rng)
        records = os.path.join(work, f"up-records-{run}")
        key = f"kill/{run}.bin"
        command = self.oss("cp", source, f"oss://{BUCKET}/{key}", "--part-size", str(part), "--threads", str(threads),
                           "--checkpoint-dir", records)
        problems = []

        self.server.reset_stats()
        self.server.add_fault(f"UploadPart:delay={self.args.delay_ms}")
        seen, status = self.kill_at(command, "UploadPart", 1, int(fraction * size), os.path.join(work, f"up-{run}-1.log"))
        self.server.clear_faults()
        if seen is None:
            problems.append(f"not-killed(exit={status})")
            seen = 0
        before = self.settled("UploadPart", 1)
        had_record = bool(os.listdir(records)) if os.path.isdir(records) else False
        code, output = self.resume(command, os.path.join(work, f"up-{run}-2.log"))
        if code != 0:
            problems.append(f"resume-exit={code}")
        resumed = resumed_bytes(output)
        total = self.server.stats("UploadPart")[1]
        resent = total - size
        bound = threads * part
        identical, why = self.server.same_as_file(key, source)
        if not identical:
            problems.append(f"object:{why}")
        uploads = self.server.multipart_uploads()
        if uploads:
            problems.append(f"multipart-uploads-left={len(uploads)}")
        leftovers = os.listdir(records) if os.path.isdir(records) else []
        if leftovers:
            problems.append("record-dir-not-empty:" + "|".join(sorted(leftovers)))
        within = 0 <= resent <= bound
        if not within:
            problems.append("resent-out-of-bound")
        ok = not problems
        self.report("upload", run, ok, problems, size=size, part=part, threads=threads,
                    target=f"{100 * fraction:.1f}%", killed_at=f"{100 * seen / size:.1f}%",
                    settled_at=f"{100 * before / size:.1f}%", received_before_resume=before, record_after_kill="yes" if had_record else "no",
                    resume_reported=resumed, received_total=total, resent=resent, bound=bound,
                    identical="yes" if identical else "no", within_bound="yes" if within else "no",
                    uploads_left=len(uploads))
        shutil.rmtree(records, ignore_errors=True)
        return key, source, size

    def run_download(self, run, rng, work, key, source, size):
        part, threads, fraction = self.settings(rng, size)
        out_dir = os.path.join(work, f"down-{run}")
        os.makedirs(out_dir)
        target = os.path.join(out_dir, "object.bin")
        records = os.path.join(work, f"down-records-{run}")
        command = self.oss("cp", f"oss://{BUCKET}/{key}", target, "--part-size", str(part), "--threads", str(threads),
                           "--checkpoint-dir", records)
        if self.args.download_traffic_limit:
            command += ["--traffic-limit", str(self.args.download_traffic_limit)]
        problems = []

        self.server.reset_stats()
        self.server.add_fault(f"GetObject:delay={self.args.delay_ms}")
        seen, status = self.kill_at(command, "GetObject", 3, int(fraction * size), os.path.join(work, f"down-{run}-1.log"))
        self.server.clear_faults()
        if seen is None:
            problems.append(f"not-killed(exit={status})")
            seen = 0
        before = self.settled("GetObject", 3)
        if os.path.exists(target):
            problems.append("destination-exists-after-kill")
        temps = [n for n in os.listdir(out_dir) if n != "object.bin"]
        held = held_bytes([os.path.join(out_dir, n) for n in temps], source, part)
        code, output = self.resume(command, os.path.join(work, f"down-{run}-2.log"))
        if code != 0:
            problems.append(f"resume-exit={code}")
        resumed = resumed_bytes(output)
        total = self.server.stats("GetObject")[3]
        resent = total - size
        # What the resume kept is what it did not fetch; what the client had written and did not keep is lost.
        kept = size - (total - before)
        lost = held - kept
        bound = download_bound(threads)
        identical = os.path.exists(target) and files_identical(target, source)
        if not identical:
            problems.append("file-differs")
        left = [n for n in os.listdir(out_dir) if n != "object.bin"]
        if left:
            problems.append("temp-left:" + "|".join(sorted(left)))
        record_left = os.listdir(records) if os.path.isdir(records) else []
        if record_left:
            problems.append("record-dir-not-empty:" + "|".join(sorted(record_left)))
        # Paced, the server's count is the measure. Unpaced, most of what the server wrote twice sat in the kernel's
        # socket buffers when the client died and never reached it; the client's own loss is the measure.
        measured = resent if self.args.download_traffic_limit else lost
        within = 0 <= measured <= bound
        if not within:
            problems.append("resent-out-of-bound" if self.args.download_traffic_limit else "lost-out-of-bound")
        ok = not problems
        self.report("download", run, ok, problems, size=size, part=part, threads=threads,
                    target=f"{100 * fraction:.1f}%", killed_at=f"{100 * seen / size:.1f}%",
                    sent_before_resume=before, temp_after_kill="yes" if temps else "no", resume_reported=resumed,
                    held=held, kept=kept, lost=lost, sent_total=total, resent=resent, bound=bound,
                    identical="yes" if identical else "no", within_bound="yes" if within else "no")
        shutil.rmtree(out_dir, ignore_errors=True)
        shutil.rmtree(records, ignore_errors=True)

    def main(self):
        args = self.args
        root = tempfile.mkdtemp(prefix="oss-kill-loop.", dir=args.tmpdir)
        keep = False
        try:
            self.server = Server(args.server, os.path.join(root, "data"), os.path.join(root, "server.log"))
            print(f"KILL config seed={args.seed} runs={args.runs} sizes={args.min_mib}-{args.max_mib}MiB "
                  f"parts={args.part_size or '1-4MiB'} threads={args.threads or '1-4'} "
                  f"kill={f'{100 * args.fraction:g}%' if args.fraction else '10-90%'} delay={args.delay_ms}ms download_traffic_limit={args.download_traffic_limit} "
                  f"endpoint={self.server.endpoint} "
                  f"work={root}", flush=True)
            start = time.monotonic()
            for run in range(1, args.runs + 1):
                rng = random.Random(args.seed * 1_000_003 + run)
                work = os.path.join(root, f"run-{run}")
                os.makedirs(work)
                key, source, size = self.run_upload(run, rng, work)
                self.run_download(run, rng, work, key, source, size)
                self.server.delete(key)
                if self.failures and args.keep_failed:
                    keep = True
                    # Keep the logs of a failing run; drop the big files.
                    for name in os.listdir(work):
                        if name.endswith(".bin"):
                            os.remove(os.path.join(work, name))
                else:
                    shutil.rmtree(work, ignore_errors=True)
            for kind in ("upload", "download"):
                rows = self.figures[kind]
                worst = max(rows, key=lambda r: r["resent"] / r["bound"]) if rows else None
                print(f"KILL summary {kind} runs={len(rows)} "
                      f"identical={sum(r['identical'] == 'yes' for r in rows)} "
                      f"within_bound={sum(r['within_bound'] == 'yes' for r in rows)} "
                      f"clean={sum(r['ok'] for r in rows)} "
                      f"leftovers={sum(any(p.startswith(('record-dir-not-empty', 'temp-left')) for p in r['problems']) for r in rows)} "
                      f"at_bound={sum(r['resent'] == r['bound'] for r in rows)} "
                      f"max_resent={max((r['resent'] for r in rows), default=0)} "
                      f"max_resent_over_bound={worst['resent'] / worst['bound'] if worst else 0:.3f}"
                      + (f" (resent={worst['resent']} bound={worst['bound']} in that run)" if worst else "")
                      + f" total_resent={sum(r['resent'] for r in rows)}"
                      + (f" max_lost={max(r['lost'] for r in rows)} total_lost={sum(r['lost'] for r in rows)}"
                         if rows and "lost" in rows[0] else ""), flush=True)
            print(f"KILL done seed={args.seed} failures={self.failures} seconds={time.monotonic() - start:.0f}",
                  flush=True)
        finally:
            if getattr(self, "server", None):
                self.server.stop()
            if keep:
                print(f"KILL kept logs of the failing runs in {root}", flush=True)
            else:
                shutil.rmtree(root, ignore_errors=True)
        return 1 if self.failures else 0


def download_bound(threads):
    """The most a resumed download may fetch twice: a checkpoint interval per part in flight, plus 1.5 MiB (what
    arrives while a record is saved, and the socket buffers)."""
    return threads * 128 * 1024 + 1536 * 1024


def held_bytes(paths, source, part):
    """What the temporary file a killed download left holds of the object at its place: for each part, the length
    of its longest prefix equal to the source's bytes (what a resume could keep)."""
    if not paths:
        return 0
    with open(paths[0], "rb") as left, open(source, "rb") as right:
        held = 0
        while True:
            a, b = left.read(part), right.read(part)
            if not b:
                return held
            n = min(len(a), len(b))
            if a[:n] == b[:n]:
                held += n
                continue
            low, high = 0, n  # a[:low] matches, a[:high] does not
            while high - low > 1:
                middle = (low + high) // 2
                if a[:middle] == b[:middle]:
                    low = middle
                else:
                    high = middle
            held += low


def resumed_bytes(output):
    """What `oss cp` reported as already done when it resumed ("(resumed after 12.0 MiB)"), or "-"."""
    match = re.search(r"resumed after ([0-9.]+ [KMG]?i?B)", output)
    return match.group(1).replace(" ", "") if match else "-"


def files_identical(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(MIB), fb.read(MIB)
            if x != y:
                return False
            if not x:
                return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oss", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--min-mib", type=int, default=64)
    parser.add_argument("--max-mib", type=int, default=256)
    parser.add_argument("--delay-ms", type=int, default=10,
                        help="delay the server adds to each UploadPart / GetObject until the kill (so it lands)")
    parser.add_argument("--part-size", type=int, default=0, help="fix the part size (default: seeded, 1-4 MiB)")
    parser.add_argument("--threads", type=int, default=0, help="fix the threads (default: seeded, 1-4)")
    parser.add_argument("--fraction", type=float, default=0, help="fix the kill point (default: seeded, 0.1-0.9)")
    parser.add_argument("--download-traffic-limit", type=int, default=209715200,
                        help="x-oss-traffic-limit of each download part, bit/s (default 200 Mbit/s, 25 MB/s a part: "
                             "a fast network; at loopback speed what arrives during one record save dominates); 0: none")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--tmpdir", default=None)
    parser.add_argument("--keep-failed", action="store_true")
    return Loop(parser.parse_args()).main()


if __name__ == "__main__":
    sys.exit(main())
