#!/usr/bin/env python3
"""The seeded fault campaign (issue 25 item 6; driven by scripts/fault-campaign.sh; Python 3 standard library only).

For about --minutes (10 by default) it runs `oss cp` uploads and downloads against one `oss-local-server` (a fixed
port and data directory), each with seeded random sizes (8-96 MiB), part sizes (1-8 MiB), threads (1-4) and its own
checkpoint directory, and draws one fault per transfer:

  client_kill    the `oss cp` process gets SIGKILL at a seeded 10-90% of the bytes (the server's /-/stats counters);
  server_kill    the server gets SIGKILL at that point and is started again on the same port and data directory
                 (the client's retries may carry the transfer across the restart);
  reset          a seeded share of the parts' connections are closed after a seeded number of body bytes (drop=N);
  stall          one or two parts stop moving bytes and their connections are held open (stall=N; the client's
                 stall timeout, 5 s, abandons them);
  throttle       a 503 storm: a seeded share of all requests opens a throttle window of 0.2-2 s (throttle=MS);
  full_disk      downloads only, as root: the destination is a tmpfs just large enough for the object; at the
                 seeded point a filler file takes all the space left; the client must fail clearly (no file at the
                 destination), then the filler is removed and the command run again;
  expired_creds  the client gets STS credentials from /-/sts living 1-3 s (OSS_ACCESS_KEY_ID / _SECRET /
                 OSS_SESSION_TOKEN), parts are slowed so that they expire mid-transfer: the transfer must finish or
                 fail clearly (SecurityTokenExpired); a rerun gets fresh credentials;
  none           no fault (the baseline).

A transfer that did not exit 0 is run again with the same command (faults removed; fresh credentials) up to
--max-reruns times. Then an upload's object is read back with a plain signed GET (not the SDK) and compared byte for
byte with the file, a download's file with the source; ListMultipartUploads must be empty, the checkpoint directory
and the destination directory free of records and temporary files. A transfer that never exited 0 is LOST, one
whose bytes differ CORRUPT.

Re-sent (uploads) = UploadPart + PutObject request bytes the server counted over all attempts - the file size;
re-fetched (downloads) = GetObject bytes the server wrote to the connections - the object size. The counters live
in the server's memory: across a server kill the campaign adds what it last read before the kill, so bytes in
flight at the kill are not counted (a lower bound for that kind).

One `CAMPAIGN transfer=...` line per transfer, one `CAMPAIGN fault=...` line per fault kind, and one
`CAMPAIGN summary ...` line. Exit status 1 when anything was lost or corrupt or a transfer left something behind.
Secrets are never printed: the STS secret and token only go into the child's environment.
"""

import argparse
import errno
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from kill_loop import AK, SK, MIB, Server, files_identical, resumed_bytes, write_random_file

BUCKET = "campaign"
# Fault kinds and their weights (full_disk is dropped when not root; uploads never draw it).
WEIGHTS = {"client_kill": 3, "server_kill": 3, "reset": 2, "stall": 1, "throttle": 2, "full_disk": 2,
           "expired_creds": 2, "none": 1}
POOL = 3  # uploaded objects kept for downloads
DOWNLOAD_PACE = "209715200"  # --traffic-limit of paced downloads, bit/s: 25 MB/s a part (so a fault lands mid-way)


class Campaign:
    def __init__(self, args):
        self.args = args
        self.root_user = os.geteuid() == 0
        self.kinds = {k: w for k, w in WEIGHTS.items() if k != "full_disk" or self.root_user}
        self.rows = []
        self.pool = []  # (key, source path, size)
        self.base_env = {k: v for k, v in os.environ.items()
                         if k not in ("OSS_ACCESS_KEY_ID", "OSS_ACCESS_KEY_SECRET", "OSS_SESSION_TOKEN", "OSS_REGION")}

    # --- environment and counters ------------------------------------------------------------------------------

    def env(self, sts_seconds=None):
        """The child's environment: the server's key pair, or fresh STS credentials living `sts_seconds`."""
        env = dict(self.base_env)
        if sts_seconds is None:
            env.update(OSS_ACCESS_KEY_ID=AK, OSS_ACCESS_KEY_SECRET=SK)
            return env
        status, data = self.server.request("POST", f"/-/sts?seconds={sts_seconds}")
        assert status == 200, status
        issued = json.loads(data)
        env.update(OSS_ACCESS_KEY_ID=issued["AccessKeyId"], OSS_ACCESS_KEY_SECRET=issued["AccessKeySecret"],
                   OSS_SESSION_TOKEN=issued["SecurityToken"])
        return env

    def counter(self, direction):
        """Bytes of this transfer the server counted: request bytes of parts (uploads) or response bytes written
        (downloads), plus what earlier lives of the server counted in this transfer."""
        status, data = self.server.request("GET", "/-/stats")
        assert status == 200, status
        operations = json.loads(data).get("operations", {})
        if direction == "upload":
            now = sum(operations.get(op, {}).get("requestBodyBytes", 0) for op in ("UploadPart", "PutObject"))
        else:
            now = operations.get("GetObject", {}).get("responseBodyBytesWritten", 0)
        return self.carried + now

    def restart_server(self, direction):
        self.carried = self.counter(direction)  # bytes in flight at the kill are not counted
        self.server = self.server.restart()

    def ensure_server(self, problems):
        if self.server.process.poll() is not None:
            problems.append(f"server-died(exit={self.server.process.returncode})")
            self.server.log.close()
            binary, data_dir, log_path, bucket = self.server.argv
            self.server = Server(binary, data_dir, log_path, port=self.server.port, bucket=bucket)

    def oss(self, *arguments):
        return [self.args.oss, *arguments, "--endpoint", self.server.endpoint, "--signature-version", "v1"]

    # --- one attempt -------------------------------------------------------------------------------------------

    def attempt(self, command, env, log_path, direction=None, at=None, action=None):
        """Runs `command`; when `at` is given, calls `action(process)` once the transfer's counter reaches `at`.
        Returns (exit status, whether the action ran, the attempt's output)."""
        fired = False
        with open(log_path, "ab") as log:
            log.write(b"$ " + " ".join(command).encode() + b"\n")
            log.flush()
            process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
            deadline = time.monotonic() + self.args.timeout
            while process.poll() is None and time.monotonic() < deadline:
                try:
                    if at is not None and not fired and self.counter(direction) >= at:
                        action(process)
                        fired = True
                except (OSError, http.client.HTTPException):
                    pass  # the server died on its own: ensure_server reports and restarts it
                time.sleep(0.002)
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait()
                log.write(b"campaign: attempt timed out, killed\n")
                status = "hung"
            else:
                status = process.returncode
        with open(log_path, "rb") as log:
            output = log.read().decode(errors="replace")
        return status, fired, output

    # --- the transfers -----------------------------------------------------------------------------------------

    def draw(self, rng, direction):
        kinds = [k for k in self.kinds if not (direction == "upload" and k == "full_disk")]
        return rng.choices(kinds, weights=[self.kinds[k] for k in kinds])[0]

    def fault_setup(self, rng, kind, direction, size, part, threads):
        """The first attempt's fault: (server rule or None, STS lifetime or None, kill fraction or None)."""
        op = "UploadPart" if direction == "upload" else "GetObject"
        fraction = rng.uniform(0.10, 0.90)
        if kind in ("client_kill", "server_kill", "full_disk"):
            return f"{op}:delay={rng.randint(10, 40)}", None, fraction
        if kind == "reset":
            return (f"{op}:random={rng.uniform(0.1, 0.4):.2f}:seed={rng.randrange(1000)}:"
                    f"drop={rng.randrange(1, part)}:times={rng.randint(1, 4)}"), None, None
        if kind == "stall":
            return f"{op}:random=0.2:seed={rng.randrange(1000)}:stall={rng.randrange(0, part)}:times={rng.randint(1, 2)}", \
                None, None
        if kind == "throttle":
            return (f"*:random={rng.uniform(0.03, 0.2):.2f}:seed={rng.randrange(1000)}:"
                    f"throttle={rng.randrange(200, 2001)}:times={rng.randint(1, 5)}"), None, None
        if kind == "expired_creds":
            # Slow the parts so that the transfer lasts 1.5-3 times the credentials' lifetime.
            lifetime = rng.randint(1, 3)
            parts = -(-size // part)
            rounds = -(-parts // threads)
            delay = int(lifetime * 1000 * rng.uniform(1.5, 3) / rounds)
            return f"{op}:delay={min(2000, max(20, delay))}", lifetime, None
        return None, None, None

    def run(self, n, rng):
        direction = "upload" if not self.pool or rng.random() < 0.5 else "download"
        kind = self.draw(rng, direction)
        work = os.path.join(self.root, f"t-{n}")
        os.makedirs(work)
        records = os.path.join(work, "records")
        part = rng.randrange(256, 2049) * 4096
        threads = rng.randint(1, 4)
        if direction == "upload":
            size = rng.randrange(8 * MIB, 96 * MIB + 1)
            source = os.path.join(self.root, f"src-{n}.bin")
            write_random_file(source, size, rng)
            key = f"campaign/{n}.bin"
            out_dir = target = None
            command = self.oss("cp", source, f"oss://{BUCKET}/{key}", "--part-size", str(part),
                               "--threads", str(threads), "--checkpoint-dir", records)
        else:
            key, source, size = rng.choice(self.pool)
            out_dir = os.path.join(work, "out")
            os.makedirs(out_dir)
            target = os.path.join(out_dir, "object.bin")
            command = self.oss("cp", f"oss://{BUCKET}/{key}", target, "--part-size", str(part),
                               "--threads", str(threads), "--checkpoint-dir", records)
            if kind in ("client_kill", "server_kill", "full_disk"):
                command += ["--traffic-limit", DOWNLOAD_PACE]
        rule, sts, fraction = self.fault_setup(rng, kind, direction, size, part, threads)
        problems, notes = [], []
        mounted = False
        started = time.monotonic()
        self.server.reset_stats()
        self.carried = 0
        log_path = os.path.join(work, "cp.log")
        try:
            if kind == "full_disk":
                # A tmpfs just large enough for the object (the temporary file is sparse; records live elsewhere).
                tmpfs_size = (size + MIB + 4095) // 4096 * 4096
                subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={tmpfs_size}", "tmpfs", out_dir], check=True)
                mounted = True
            if rule:
                self.server.add_fault(rule)
            filler = os.path.join(out_dir, "filler") if out_dir else None

            def kill_client(process):
                process.send_signal(signal.SIGKILL)

            def kill_server(process):
                self.restart_server(direction)

            def fill(process):
                fill_volume(filler)

            action = {"client_kill": kill_client, "server_kill": kill_server, "full_disk": fill}.get(kind)
            exits, fired = [], False
            status, fired, output = self.attempt(command, self.env(sts), log_path, direction,
                                                 int(fraction * size) if fraction else None, action)
            exits.append(status)
            injected = 0
            if self.server.process.poll() is None:
                injected = json.loads(self.server.request("GET", "/-/stats")[1]).get("faultsInjected", 0)
                self.server.clear_faults()
            self.ensure_server(problems)
            if action and not fired:
                notes.append("fault-not-fired(finished-first)")
            for note in self.judge_first(kind, status, output, target):
                (problems if note.isupper() or note.startswith("UNCLEAR") else notes).append(note)
            if status != 0:
                # A failed first attempt must leave its record, so that the rerun resumes.
                kept = os.path.isdir(records) and bool(os.listdir(records))
                notes.append("record-kept" if kept else "record-dropped")
            # Whether the fault really hit this transfer (a seeded share may miss a short one).
            hit = fired if action else injected > 0 if kind in ("reset", "stall", "throttle") else \
                "token-expired-error" in notes
            if filler and os.path.exists(filler):
                os.remove(filler)
            while exits[-1] != 0 and len(exits) <= self.args.max_reruns:
                status, _, output = self.attempt(command, self.env(3600 if sts else None), log_path)
                exits.append(status)
                self.ensure_server(problems)
            resent = self.counter(direction) - size
            lost = exits[-1] != 0
            if direction == "upload":
                identical, why = (False, "not finished") if lost else self.server.same_as_file(key, source)
                uploads = self.server.multipart_uploads()
                if uploads:
                    problems.append(f"multipart-uploads-left={len(uploads)}")
            else:
                identical = not lost and os.path.exists(target) and files_identical(target, source)
                left = sorted(name for name in os.listdir(out_dir) if name not in ("object.bin", "lost+found"))
                if left:
                    problems.append("temp-left:" + "|".join(left))
            record_left = os.listdir(records) if os.path.isdir(records) else []
            if record_left and not lost:
                problems.append("record-left:" + "|".join(sorted(record_left)))
            result = "LOST" if lost else "identical" if identical else "CORRUPT"
            row = dict(n=n, direction=direction, fault=kind, size=size, part=part, threads=threads,
                       record_dropped="record-dropped" in notes, hit=bool(hit),
                       attempts=len(exits), exits=exits, resent=resent, result=result, problems=problems,
                       seconds=time.monotonic() - started)
            self.rows.append(row)
            fault_text = f"rule={rule}" if rule else "rule=-"
            if sts:
                fault_text += f" sts={sts}s"
            if fraction:
                fault_text += f" at={100 * fraction:.0f}%"
            print(f"CAMPAIGN transfer={n} dir={direction} fault={kind} {fault_text} size={size} part={part} "
                  f"threads={threads} hit={'yes' if hit else 'no'} injected={injected} attempts={len(exits)} exits={','.join(map(str, exits))} "
                  f"resumed={resumed_bytes(output)} {'resent' if direction == 'upload' else 'refetched'}={resent} "
                  f"result={result} seconds={row['seconds']:.1f}"
                  + (f" notes={','.join(notes)}" if notes else "")
                  + (f" problems={','.join(problems)}" if problems else ""), flush=True)
            if result != "identical" or problems:
                self.keep = True
                for name in ("cp.log",):
                    if os.path.exists(os.path.join(work, name)):
                        shutil.copy(os.path.join(work, name), os.path.join(self.root, f"failed-{n}-{name}"))
        finally:
            if mounted:
                subprocess.run(["umount", out_dir], check=False)
            shutil.rmtree(work, ignore_errors=True)
        if direction == "upload":
            if result == "identical":
                self.pool.append((key, source, size))
            else:
                os.remove(source)
            while len(self.pool) > POOL:
                old_key, old_source, _ = self.pool.pop(0)
                self.server.delete(old_key)
                os.remove(old_source)

    def judge_first(self, kind, status, output, target):
        """What the first attempt's failure looked like: failures must be clear (an exit status and a message)."""
        notes = []
        if status == 0:
            return ["first-attempt-finished"]
        lower = output.lower()
        if kind == "full_disk":
            if target and os.path.exists(target):
                notes.append("DESTINATION-EXISTS-AFTER-FULL-DISK")
            notes.append("no-space-error" if "space" in lower else f"UNCLEAR-FULL-DISK-ERROR(exit={status})")
        if kind == "expired_creds":
            notes.append("token-expired-error" if "expired" in lower else f"UNCLEAR-EXPIRED-ERROR(exit={status})")
        if status == "hung":
            notes.append("HUNG")
        return notes

    def main(self):
        args = self.args
        self.root = tempfile.mkdtemp(prefix="oss-fault-campaign.", dir=args.tmpdir)
        self.keep = False
        try:
            self.server = Server(args.server, os.path.join(self.root, "data"), os.path.join(self.root, "server.log"),
                                 bucket=BUCKET)
            print(f"CAMPAIGN config seed={args.seed} minutes={args.minutes} sizes=8-96MiB parts=1-8MiB threads=1-4 "
                  f"max_reruns={args.max_reruns} kinds={','.join(self.kinds)} port={self.server.port} work={self.root}"
                  + ("" if self.root_user else " note=full_disk-skipped(not-root:no-tmpfs)"), flush=True)
            start = time.monotonic()
            n = 0
            while time.monotonic() - start < args.minutes * 60:
                n += 1
                self.run(n, random.Random(args.seed * 1_000_003 + n))
            self.summary(time.monotonic() - start)
        finally:
            if getattr(self, "server", None):
                self.server.stop()
            if self.keep and args.keep_failed:
                print(f"CAMPAIGN kept {self.root}", flush=True)
            else:
                shutil.rmtree(self.root, ignore_errors=True)
        bad = [r for r in self.rows if r["result"] != "identical" or r["problems"]]
        return 1 if bad else 0

    def summary(self, seconds):
        rows = self.rows
        for kind in self.kinds:
            mine = [r for r in rows if r["fault"] == kind]
            ups = [r for r in mine if r["direction"] == "upload"]
            downs = [r for r in mine if r["direction"] == "download"]
            print(f"CAMPAIGN fault={kind} transfers={len(mine)} uploads={len(ups)} downloads={len(downs)} "
                  f"hit={sum(r['hit'] for r in mine)} identical={sum(r['result'] == 'identical' for r in mine)} "
                  f"first_try={sum(r['attempts'] == 1 for r in mine)} reruns={sum(r['attempts'] - 1 for r in mine)} "
                  f"resent={sum(r['resent'] for r in ups)} refetched={sum(r['resent'] for r in downs)} "
                  f"records_dropped={sum(r['record_dropped'] for r in mine)} "
                  f"lost={sum(r['result'] == 'LOST' for r in mine)} corrupt={sum(r['result'] == 'CORRUPT' for r in mine)}",
                  flush=True)
        ups = [r for r in rows if r["direction"] == "upload"]
        downs = [r for r in rows if r["direction"] == "download"]
        by_kind = ",".join(f"{k}:{sum(r['fault'] == k for r in rows)}" for k in self.kinds)
        print(f"CAMPAIGN summary seed={self.args.seed} started={len(rows)} "
              f"finished={sum(r['result'] != 'LOST' for r in rows)} "
              f"identical={sum(r['result'] == 'identical' for r in rows)} uploads={len(ups)} downloads={len(downs)} "
              f"bytes={sum(r['size'] for r in rows)} reruns={sum(r['attempts'] - 1 for r in rows)} "
              f"resent={sum(r['resent'] for r in ups)} refetched={sum(r['resent'] for r in downs)} "
              f"lost={sum(r['result'] == 'LOST' for r in rows)} corrupt={sum(r['result'] == 'CORRUPT' for r in rows)} "
              f"leftovers={sum(bool(r['problems']) for r in rows)} records_dropped={sum(r['record_dropped'] for r in rows)} faults={by_kind} seconds={seconds:.0f}", flush=True)


def fill_volume(path):
    """Writes zeros to `path` until the volume is full (smaller and smaller writes at the end)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    chunk = MIB
    try:
        while chunk >= 512:
            try:
                os.write(fd, bytes(chunk))
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                chunk //= 2
    finally:
        os.close(fd)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oss", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--seed", type=int, default=20261125)
    parser.add_argument("--minutes", type=float, default=10, help="how long new transfers are started (default 10)")
    parser.add_argument("--max-reruns", type=int, default=3, help="reruns of a transfer that did not exit 0")
    parser.add_argument("--timeout", type=float, default=300, help="seconds one attempt may take")
    parser.add_argument("--tmpdir", default=None)
    parser.add_argument("--keep-failed", action="store_true")
    return Campaign(parser.parse_args()).main()


if __name__ == "__main__":
    sys.exit(main())
