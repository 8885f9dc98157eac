#!/usr/bin/env python3
"""A trivial HTTP sink for scripts/bench-server.sh: PUT bodies are read and discarded, GET returns
N zero bytes (N from the path, e.g. GET /1073741824). Raw sockets, 1 MiB buffers, a thread per connection."""
import socket
import sys
import threading

CHUNK = 1 << 20
ZEROS = bytes(CHUNK)


def serve(conn):
    buf = bytearray(CHUNK)
    view = memoryview(buf)
    with conn:
        data = b""
        while b"\r\n\r\n" not in data:
            more = conn.recv(65536)
            if not more:
                return
            data += more
        head, rest = data.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, path = lines[0].split(" ")[:2]
        headers = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
        if method == "PUT":
            if headers.get("expect", "").lower() == "100-continue":
                conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            remaining = int(headers.get("content-length", "0")) - len(rest)
            while remaining > 0:
                n = conn.recv_into(view, min(CHUNK, remaining))
                if n == 0:
                    return
                remaining -= n
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        else:
            size = int(path.strip("/") or "0")
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size)
            while size > 0:
                n = min(CHUNK, size)
                conn.sendall(ZEROS[:n])
                size -= n


def main():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    print("listening on http://127.0.0.1:%d" % s.getsockname()[1], flush=True)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
