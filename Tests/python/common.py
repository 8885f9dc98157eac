"""Shared helpers for the judge suites: argument parsing, checks, temporary files."""
import argparse
import hashlib
import os
import sys
import tempfile
import socket
import traceback

# The judges talk to the local server and its stand-ins on loopback only: a name other than a loopback one, or a
# connection elsewhere (an SDK's default endpoint, sts.aliyuncs.com), is refused here before it leaves the machine.
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_getaddrinfo = socket.getaddrinfo


def _loopback_only(host, *args, **kwargs):
    name = host.decode() if isinstance(host, bytes) else host
    if name not in _LOOPBACK:
        raise OSError("judges reach 127.0.0.1 only; refused a look-up of %r" % (name,))
    return _getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = _loopback_only


def parse_args(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--endpoint", required=True, help="e.g. http://127.0.0.1:9000")
    p.add_argument("--access-key-id", required=True)
    p.add_argument("--access-key-secret", required=True)
    p.add_argument("--sts-access-key-id")
    p.add_argument("--sts-access-key-secret")
    p.add_argument("--sts-security-token")
    p.add_argument("--region", default="cn-hangzhou")
    p.add_argument("--bucket", default="judge-" + os.urandom(4).hex())
    return p.parse_args()


def take_phase(default="write"):
    """Takes `--phase P` out of sys.argv (before parse_args, which does not know it) and returns P."""
    if "--phase" not in sys.argv:
        return default
    i = sys.argv.index("--phase")
    phase = sys.argv[i + 1]
    del sys.argv[i:i + 2]
    return phase


def v2_client(args):
    """An alibabacloud-oss-v2 client for the judged endpoint: path-style, no retries."""
    import alibabacloud_oss_v2 as oss
    cfg = oss.config.load_default()
    cfg.credentials_provider = oss.credentials.StaticCredentialsProvider(args.access_key_id, args.access_key_secret)
    cfg.region = args.region
    cfg.endpoint = args.endpoint
    cfg.use_path_style = True
    cfg.retry_max_attempts = 1
    return oss.Client(cfg)


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def equal(actual, expected, what):
    if actual != expected:
        a, e = repr(actual), repr(expected)
        raise Failure("%s: expected %s, got %s" % (what, e[:200], a[:200]))


def expect_error(fn, status, code, what):
    """Runs fn and checks it fails with the given HTTP status and OSS error code (any code when None)."""
    try:
        fn()
    except Exception as e:  # both SDKs raise their own types; inspect duck-typed fields
        e = e.unwrap() if hasattr(e, "unwrap") else e  # v2 wraps the service error in an OperationError
        got_status = getattr(e, "status", None) or getattr(e, "status_code", None)
        got_code = getattr(e, "code", None) or getattr(e, "error_code", None)
        if got_status != status or (code is not None and got_code != code):
            raise Failure("%s: expected %s %s, got %s %s (%s)" % (what, status, code, got_status, got_code, e))
        return e
    raise Failure("%s: expected %s %s, but the call succeeded" % (what, status, code))


def md5(data):
    return hashlib.md5(data).hexdigest()


def random_file(size, directory):
    path = os.path.join(directory, "src-%d-%s.bin" % (size, os.urandom(3).hex()))
    with open(path, "wb") as f:
        remaining = size
        while remaining > 0:
            n = min(remaining, 1 << 20)
            f.write(os.urandom(n))
            remaining -= n
    return path


def file_md5(path):
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run_cases(cases):
    """Runs (name, fn) pairs; prints each result; exits 1 if any failed."""
    failed = []
    for name, fn in cases:
        try:
            fn()
            print("PASS %s" % name, flush=True)
        except Exception as e:
            failed.append(name)
            print("FAIL %s: %s" % (name, e), flush=True)
            if not isinstance(e, Failure):
                traceback.print_exc()
    print("%d passed, %d failed" % (len(cases) - len(failed), len(failed)), flush=True)
    if failed:
        print("FAILED: " + ", ".join(failed), flush=True)
        sys.exit(1)


def workdir():
    return tempfile.mkdtemp(prefix="oss-judge-")
