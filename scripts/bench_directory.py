#!/usr/bin/env python3
"""Directory transfers against the local server: this SDK's `oss cp -r` / `oss sync` beside oss2 (issue 24).

Not a test: it prints figures (medians of alternating runs) and checks the issue's goals, exiting 1 when one fails.

  1. tree: N small files (default 2,000 of 16 KiB) plus L large ones (default 8 of 16 MiB) in nested directories.
     Upload the tree with `oss cp -r TREE oss://bench/sdk/ --jobs 16` and with oss2 (a 16-thread pool, put_object for
     a small file, resumable_upload for a large one); download the prefix back the same two ways. Wall time, client
     CPU and peak RSS each; every download compared byte for byte with the tree. Goal: SDK / oss2 <= 0.5 each way.
  2. second sync: `oss sync TREE oss://bench/sdk/` of the unchanged tree: the server counts no object bytes
     (PutObject / UploadPart request bodies) and it takes <= 0.2x the first upload.
  3. memory: 8 files of 256 MiB uploaded at once with `--memory-budget 64 MiB`: peak RSS <= budget + 48 MiB.
  4. file count: peak RSS of `oss cp -r` for 20,000 small files within 1.2x of 2,000.
  5. kill: `oss cp -r` of the tree SIGKILLed once the server stored half the small files, then run again: the
     PutObject requests of both runs exceed the file count by at most the files in flight at the kill (--jobs), and
     the second run's requests are about the half left (the server's counters).
"""
import argparse
import hashlib
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kill_loop import AK, SK, MIB, Server  # noqa: E402  (the local server's admin client, shared)

BUCKET = "bench"


def make_tree(root, small, small_size, large, large_size, seed):
    """Writes the tree: small files spread over nested directories, large ones at the top. Returns the files."""
    rng = random.Random(seed)
    files = []
    for i in range(small):
        rel = f"d{i % 20:02d}/e{(i // 20) % 10}/f{i:05d}.bin"
        files.append((rel, small_size))
    for i in range(large):
        files.append((f"large/L{i}.bin", large_size))
    for rel, size in files:
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            left = size
            while left:
                n = min(left, MIB)
                f.write(rng.randbytes(n))
                left -= n
    return files


def digest_tree(root):
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = hashlib.md5(f.read()).hexdigest()
    return out


def timed(argv, env=None):
    """Runs argv under GNU time: (wall s, cpu s, peak RSS MiB, exit status, stderr tail)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        start = time.monotonic()
        proc = subprocess.run(["/usr/bin/time", "-o", tf.name, "-f", "%U %S %M"] + argv, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall = time.monotonic() - start
        user, system, rss = tf.read().split()[-3:]
    return wall, float(user) + float(system), int(rss) / 1024, proc.returncode, proc.stderr.decode()[-2000:]


class Bench:
    def __init__(self, args):
        self.args = args
        self.work = tempfile.mkdtemp(prefix="oss-bench-dir.", dir=args.tmpdir)
        self.server = Server(args.server, os.path.join(self.work, "data"), os.path.join(self.work, "server.log"),
                             bucket=BUCKET)
        self.env = dict(os.environ, OSS_ACCESS_KEY_ID=AK, OSS_ACCESS_KEY_SECRET=SK, OSS_ENDPOINT=self.server.endpoint)
        self.failures = []

    def oss(self, *argv):
        return [self.args.oss, *argv]

    def peer(self, mode, tree, prefix):
        """oss2 with a 16-thread pool, as a separate process so its CPU and RSS are its own."""
        return [self.args.python, os.path.abspath(__file__), "--peer", mode, "--endpoint", self.server.endpoint,
                "--tree", tree, "--prefix", prefix, "--threads", str(self.args.jobs)]

    def check(self, ok, what):
        print(f"BENCH check {'PASS' if ok else 'FAIL'}: {what}", flush=True)
        if not ok:
            self.failures.append(what)

    def object_bytes(self):
        return sum(self.server.stats(op)[1] for op in ("PutObject", "UploadPart"))

    def run(self):
        a = self.args
        tree = os.path.join(self.work, "tree")
        files = make_tree(tree, a.small, a.small_size, a.large, a.large_size, 1)
        total = sum(size for _, size in files)
        print(f"BENCH tree files={len(files)} bytes={total} ({a.small} x {a.small_size} B + {a.large} x "
              f"{a.large_size} B)", flush=True)
        expected = digest_tree(tree)
        results = {}
        for rep in range(a.reps):
            order = [("sdk", "peer"), ("peer", "sdk")][rep % 2]
            for who in order:
                prefix = f"{who}{rep}/"
                ck = os.path.join(self.work, f"ck-{who}{rep}")
                up = (self.oss("cp", "-r", tree, f"oss://{BUCKET}/{prefix}", "--jobs", str(a.jobs),
                               "--checkpoint-dir", ck) if who == "sdk" else self.peer("upload", tree, prefix))
                wall, cpu, rss, status, err = timed(up, self.env)
                self.check(status == 0, f"{who} upload exits 0 ({err.strip()[-300:]})")
                results.setdefault((who, "upload"), []).append((wall, cpu, rss))
                dst = os.path.join(self.work, f"down-{who}{rep}")
                down = (self.oss("cp", "-r", f"oss://{BUCKET}/{prefix}", dst, "--jobs", str(a.jobs),
                                 "--checkpoint-dir", ck) if who == "sdk" else self.peer("download", dst, prefix))
                wall, cpu, rss, status, err = timed(down, self.env)
                self.check(status == 0, f"{who} download exits 0 ({err.strip()[-300:]})")
                self.check(digest_tree(dst) == expected, f"{who} download identical to the tree")
                shutil.rmtree(dst, ignore_errors=True)
                results.setdefault((who, "download"), []).append((wall, cpu, rss))
        for direction in ("upload", "download"):
            sdk = [statistics.median(x[i] for x in results[("sdk", direction)]) for i in range(3)]
            peer = [statistics.median(x[i] for x in results[("peer", direction)]) for i in range(3)]
            ratio = sdk[0] / peer[0]
            print(f"BENCH {direction}: sdk wall={sdk[0]:.2f}s cpu={sdk[1]:.2f}s rss={sdk[2]:.0f}MiB | oss2 "
                  f"wall={peer[0]:.2f}s cpu={peer[1]:.2f}s rss={peer[2]:.0f}MiB | wall ratio {ratio:.2f}x", flush=True)
            self.check(ratio <= 0.5, f"{direction} wall <= 0.5x oss2 ({ratio:.2f}x)")
        first_upload = statistics.median(x[0] for x in results[("sdk", "upload")])

        # 2. A second sync of the unchanged tree.
        self.server.reset_stats()
        wall, cpu, rss, status, err = timed(self.oss("sync", tree, f"oss://{BUCKET}/sdk0/", "--jobs", str(a.jobs)),
                                            self.env)
        moved = self.object_bytes()
        print(f"BENCH second sync: wall={wall:.2f}s cpu={cpu:.2f}s object bytes sent={moved} "
              f"({wall / first_upload:.2f}x the first upload)", flush=True)
        self.check(status == 0, f"second sync exits 0 ({err.strip()[-300:]})")
        self.check(moved == 0, "second sync sends no object bytes")
        self.check(wall <= 0.2 * first_upload, f"second sync <= 0.2x the first upload ({wall / first_upload:.2f}x)")

        # 3. Memory: 8 files of 256 MiB at once under a 64 MiB budget.
        if a.big_mib:
            big = os.path.join(self.work, "big")
            make_tree(big, 0, 0, 8, a.big_mib * MIB, 2)
            budget = 64 * MIB
            wall, cpu, rss, status, err = timed(
                self.oss("cp", "-r", big, f"oss://{BUCKET}/big/", "--jobs", "8", "--memory-budget", str(budget),
                         "--checkpoint-dir", os.path.join(self.work, "ck-big")), self.env)
            print(f"BENCH memory: 8 x {a.big_mib} MiB, budget 64 MiB: wall={wall:.2f}s peak RSS={rss:.0f} MiB",
                  flush=True)
            self.check(status == 0, f"big upload exits 0 ({err.strip()[-300:]})")
            self.check(rss <= 64 + 48, f"peak RSS <= budget + 48 MiB ({rss:.0f} MiB)")
            shutil.rmtree(big, ignore_errors=True)

        # 4. File count: 2,000 against 20,000 small files.
        if a.many:
            rss_of = {}
            for count in (a.many // 10, a.many):
                many = os.path.join(self.work, f"many{count}")
                make_tree(many, count, 1024, 0, 0, 3)
                wall, cpu, rss, status, err = timed(
                    self.oss("cp", "-r", many, f"oss://{BUCKET}/many{count}/", "--jobs", str(a.jobs),
                             "--checkpoint-dir", os.path.join(self.work, f"ck-many{count}")), self.env)
                self.check(status == 0, f"{count} files exit 0 ({err.strip()[-300:]})")
                rss_of[count] = rss
                print(f"BENCH file count {count}: wall={wall:.2f}s peak RSS={rss:.0f} MiB", flush=True)
                shutil.rmtree(many, ignore_errors=True)
            ratio = rss_of[a.many] / rss_of[a.many // 10]
            self.check(ratio <= 1.2, f"peak RSS at {a.many} files within 1.2x of {a.many // 10} ({ratio:.2f}x)")

        # 5. Killed midway and run again.
        self.server.reset_stats()
        ck = os.path.join(self.work, "ck-kill")
        argv = self.oss("cp", "-r", tree, f"oss://{BUCKET}/kill/", "--jobs", str(a.jobs), "--checkpoint-dir", ck)
        proc = subprocess.Popen(argv, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while proc.poll() is None and self.server.stats("PutObject")[0] < a.small // 2:
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        time.sleep(0.5)
        first = self.server.stats("PutObject")[0]
        self.server.reset_stats()
        wall, cpu, rss, status, err = timed(argv, self.env)
        second = self.server.stats("PutObject")[0]
        again = first + second - a.small
        print(f"BENCH kill: PutObject first run={first} second run={second} small files={a.small} sent again={again}",
              flush=True)
        self.check(status == 0, f"rerun after the kill exits 0 ({err.strip()[-300:]})")
        self.check(0 <= again <= a.jobs, f"files sent again after the kill <= --jobs ({again})")

        self.server.stop()
        shutil.rmtree(self.work, ignore_errors=True)
        print(f"BENCH summary: {len(self.failures)} goal(s) missed" + (": " + "; ".join(self.failures)
                                                                       if self.failures else ""), flush=True)
        return 1 if self.failures else 0


def peer_main(args):
    import oss2
    bucket = oss2.Bucket(oss2.Auth(AK, SK), args.endpoint, BUCKET)
    threshold = 8 * MIB
    store = oss2.ResumableStore(root=tempfile.mkdtemp(prefix="oss2-peer."))
    store_dl = oss2.ResumableDownloadStore(root=tempfile.mkdtemp(prefix="oss2-peer."))
    if args.peer == "upload":
        jobs = []
        for dirpath, _, names in os.walk(args.tree):
            for name in names:
                path = os.path.join(dirpath, name)
                jobs.append((path, args.prefix + os.path.relpath(path, args.tree)))

        def put(job):
            path, key = job
            if os.path.getsize(path) < threshold:
                bucket.put_object_from_file(key, path)
            else:
                oss2.resumable_upload(bucket, key, path, store=store, multipart_threshold=threshold,
                                      part_size=8 * MIB, num_threads=4)
        with ThreadPoolExecutor(args.threads) as pool:
            list(pool.map(put, jobs))
    else:
        def get(obj):
            rel = obj.key[len(args.prefix):]
            path = os.path.join(args.tree, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if obj.size < threshold:
                bucket.get_object_to_file(obj.key, path)
            else:
                oss2.resumable_download(bucket, obj.key, path, store=store_dl, multiget_threshold=threshold,
                                        part_size=8 * MIB, num_threads=4)
        with ThreadPoolExecutor(args.threads) as pool:
            list(pool.map(get, oss2.ObjectIteratorV2(bucket, prefix=args.prefix)))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oss")
    parser.add_argument("--server")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--small", type=int, default=2000)
    parser.add_argument("--small-size", type=int, default=16 * 1024)
    parser.add_argument("--large", type=int, default=8)
    parser.add_argument("--large-size", type=int, default=16 * MIB)
    parser.add_argument("--big-mib", type=int, default=256, help="size of each of the 8 memory-budget files; 0 skips")
    parser.add_argument("--many", type=int, default=20000, help="the file-count comparison (against a tenth); 0 skips")
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--reps", type=int, default=2, help="alternating runs per client (median)")
    parser.add_argument("--tmpdir", default=None)
    parser.add_argument("--peer", choices=["upload", "download"])
    parser.add_argument("--endpoint")
    parser.add_argument("--tree")
    parser.add_argument("--prefix")
    parser.add_argument("--threads", type=int, default=16)
    args = parser.parse_args()
    if args.peer:
        return peer_main(args)
    return Bench(args).run()


if __name__ == "__main__":
    sys.exit(main())
