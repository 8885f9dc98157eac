#!/usr/bin/env python3
"""A download killed at full speed: the bytes delivered again beyond what the kernel held (driven by
scripts/bench-kill-redelivery.sh; Python 3 standard library only).

Each run downloads one object with `oss cp` through a counting proxy on 127.0.0.1 (a thread per direction and
connection; it counts the response body bytes the kernel accepted on the client's side, framing the responses by
their Content-Length, so response heads are left out). Once the proxy has delivered a seeded fraction of the object
(30-70%, the download running at full speed), the client is stopped (SIGSTOP); after half a second (the proxy fills
whatever room the socket buffers have left) the kernel's share is read with `ss`: the client's unread receive queues
plus the proxy's unsent send queues towards it. Then the client gets SIGKILL and the same command is run again; it
resumes from its checkpoints. Then the download is compared byte for byte with the source.

    delivered again = body bytes delivered over both runs - object size
    beyond the kernel = delivered again - kernel-held bytes at the kill

What is beyond the kernel is what the client process held and lost: bytes read from its sockets but not yet written
to the temporary file and checkpointed (the transport's buffers, the stall detector's read-ahead, the chunks between
two checkpoints). Run inside a network namespace with the socket buffers capped (the .sh wrapper), the kernel's share
is small and bounded; without one it is measured just the same but is larger.
"""

import argparse
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kill_loop import AK, MIB, SK, Server, files_identical, write_random_file  # noqa: E402

BUCKET = "redelivery"


class HTTPFramer:
    """Splits one direction of an HTTP/1.1 connection into heads and bodies (Content-Length framing only, which is
    what the local server and `oss cp` send). `feed` returns how many of the given bytes were body bytes."""

    def __init__(self, on_head):
        self.on_head = on_head
        self.head = b""
        self.body_left = 0

    def feed(self, data):
        body = 0
        view = memoryview(data)
        while view:
            if self.body_left:
                n = min(self.body_left, len(view))
                self.body_left -= n
                body += n
                view = view[n:]
                continue
            self.head += bytes(view)
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return body
            rest = self.head[end + 4:]
            self.body_left = self.on_head(self.head[:end].decode("latin-1"))
            self.head = b""
            view = memoryview(rest)
        return body


def content_length(head):
    match = re.search(r"^content-length:\s*(\d+)\s*$", head, re.IGNORECASE | re.MULTILINE)
    return int(match.group(1)) if match else 0


class CountingProxy:
    """Forwards 127.0.0.1:port to the server; counts the response body bytes the kernel took on the client's side."""

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.delivered = 0
        self.connections = 0
        threading.Thread(target=self.accept_loop, daemon=True).start()

    def reset(self):
        with self.lock:
            self.delivered = 0
            self.connections = 0

    def body_bytes(self):
        with self.lock:
            return self.delivered

    def accept_loop(self):
        while True:
            client, _ = self.listener.accept()
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            with self.lock:
                self.connections += 1
            methods = []
            requests = HTTPFramer(lambda head: (methods.append(head.split(" ", 1)[0]), content_length(head))[1])

            def response_body_length(head):
                method = methods.pop(0) if methods else "GET"
                status = int(head.split(" ", 2)[1])
                if method == "HEAD" or status in (204, 304) or status < 200:
                    return 0
                return content_length(head)

            responses = HTTPFramer(response_body_length)
            threading.Thread(target=self.pump_up, args=(client, upstream, requests), daemon=True).start()
            threading.Thread(target=self.pump_down, args=(upstream, client, responses), daemon=True).start()

    @staticmethod
    def pump_up(client, upstream, framer):
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                framer.feed(data)  # the method is known before the server can answer
                upstream.sendall(data)
        except OSError:
            pass
        finally:
            for s in (client, upstream):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def pump_down(self, upstream, client, framer):
        try:
            while True:
                data = upstream.recv(65536)
                if not data:
                    break
                view = memoryview(data)
                while view:
                    sent = client.send(view)  # what the kernel accepted, exactly
                    body = framer.feed(view[:sent])
                    with self.lock:
                        self.delivered += body
                    view = view[sent:]
        except OSError:
            pass
        finally:
            for s in (client, upstream):
                try:
                    s.close()
                except OSError:
                    pass


def kernel_held(proxy_port):
    """Bytes on their way from the proxy to the client that the kernel holds: the client's receive queues (peer is
    the proxy) and the proxy's send queues (local is the proxy)."""
    output = subprocess.run(["ss", "-tnH", "state", "established"], capture_output=True, text=True, check=True).stdout
    held = 0
    for line in output.splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        recv_q, send_q, local, peer = int(fields[0]), int(fields[1]), fields[2], fields[3]
        if peer.endswith(f":{proxy_port}"):
            held += recv_q
        elif local.endswith(f":{proxy_port}"):
            held += send_q
    return held


def socket_caps():
    def read(name):
        try:
            with open(f"/proc/sys/net/{name}") as f:
                return f.read().split()
        except OSError:
            return ["?"]
    return f"tcp_rmem max {read('ipv4/tcp_rmem')[-1]}, tcp_wmem max {read('ipv4/tcp_wmem')[-1]}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oss", required=True)
    parser.add_argument("--server", required=True)
    parser.add_argument("--size-mib", type=int, default=256)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=20261127)
    parser.add_argument("--part-size", type=int, default=8 * MIB)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--goal-mib", type=float, default=2.5)
    parser.add_argument("--tmpdir", default=None)
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()

    root = tempfile.mkdtemp(prefix="oss-kill-redelivery.", dir=args.tmpdir)
    env = dict(os.environ)
    for name in ("OSS_SESSION_TOKEN", "OSS_REGION"):
        env.pop(name, None)
    env.update(OSS_ACCESS_KEY_ID=AK, OSS_ACCESS_KEY_SECRET=SK)
    server = Server(args.server, os.path.join(root, "data"), os.path.join(root, "server.log"), bucket=BUCKET)
    failures = 0
    rows = []
    try:
        size = args.size_mib * MIB
        source = os.path.join(root, "source.bin")
        write_random_file(source, size, random.Random(args.seed))
        upload = [args.oss, "cp", source, f"oss://{BUCKET}/object.bin", "--endpoint", server.endpoint,
                  "--signature-version", "v1", "--path-style"]
        subprocess.run(upload, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=args.timeout)
        proxy = CountingProxy(server.port)
        print(f"REDELIVERY config size={args.size_mib}MiB part={args.part_size} threads={args.threads} "
              f"runs={args.runs} seed={args.seed} sockets: {socket_caps()} "
              f"load={' '.join(open('/proc/loadavg').read().split()[:3])}", flush=True)
        rng = random.Random(args.seed)
        for run in range(1, args.runs + 1):
            fraction = rng.uniform(0.3, 0.7)
            work = os.path.join(root, f"run-{run}")
            os.makedirs(work)
            target = os.path.join(work, "object.bin")
            command = [args.oss, "cp", f"oss://{BUCKET}/object.bin", target, "--endpoint",
                       f"http://127.0.0.1:{proxy.port}", "--signature-version", "v1", "--path-style",
                       "--part-size", str(args.part_size), "--threads", str(args.threads),
                       "--checkpoint-dir", os.path.join(work, "records")]
            proxy.reset()
            problems = []
            with open(os.path.join(work, "first.log"), "wb") as log:
                process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
                deadline = time.monotonic() + args.timeout
                while process.poll() is None and time.monotonic() < deadline:
                    if proxy.body_bytes() >= fraction * size:
                        break
                    time.sleep(0.001)
                held = 0
                if process.poll() is None:
                    process.send_signal(signal.SIGSTOP)
                    time.sleep(0.5)
                    held = kernel_held(proxy.port)
                    process.send_signal(signal.SIGKILL)
                process.wait()
            if process.returncode != -signal.SIGKILL:
                problems.append(f"not-killed(exit={process.returncode})")
            time.sleep(0.3)  # the proxy's threads see the connections die
            first = proxy.body_bytes()
            proxy.reset()
            with open(os.path.join(work, "second.log"), "wb") as log:
                code = subprocess.run(command, env=env, stdout=log, stderr=log, timeout=args.timeout).returncode
            if code != 0:
                problems.append(f"resume-exit={code}")
            second = proxy.body_bytes()
            identical = os.path.exists(target) and files_identical(target, source)
            if not identical:
                problems.append("file-differs")
            with open(os.path.join(work, "second.log"), "rb") as log:
                resumed = re.search(rb"resumed after ([0-9.]+ [KMG]?i?B)", log.read())
            again = first + second - size
            beyond = again - held
            rows.append((again, held, beyond))
            if problems:
                failures += 1
            print(f"REDELIVERY run={run} killed_at={100 * first / size:.1f}% delivered_first={first} "
                  f"delivered_resume={second} delivered_again={again} kernel_held={held} beyond_kernel={beyond} "
                  f"({beyond / MIB:.2f} MiB) resumed_after={resumed.group(1).decode() if resumed else '-'} "
                  f"identical={'yes' if identical else 'no'}"
                  + (f" problems={','.join(problems)}" if problems else ""), flush=True)
            shutil.rmtree(work, ignore_errors=True)
        beyond = [r[2] for r in rows]
        held = [r[1] for r in rows]
        again = [r[0] for r in rows]
        worst = max(beyond) if beyond else 0
        print(f"REDELIVERY summary runs={len(rows)} delivered_again median={statistics.median(again) / MIB:.2f} MiB "
              f"max={max(again) / MIB:.2f} MiB; kernel_held median={statistics.median(held) / MIB:.2f} MiB; "
              f"beyond_kernel median={statistics.median(beyond) / MIB:.2f} MiB max={worst / MIB:.2f} MiB "
              f"(goal <= {args.goal_mib} MiB: {'met' if worst <= args.goal_mib * MIB else 'MISSED'}) "
              f"failures={failures}", flush=True)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
