"""Shared pieces of the independent checks: the loopback guard, clients, results.

Importing this module installs the loopback guard first: any name look-up except localhost, 127.0.0.1 and ::1
raises, so an official client's default endpoint (for example sts.aliyuncs.com) is never reached.
"""
import socket

_ALLOWED = {"localhost", "127.0.0.1", "::1"}
_real_getaddrinfo = socket.getaddrinfo


def _loopback_only(host, *args, **kwargs):
    name = host.decode() if isinstance(host, bytes) else host
    if name is None or name.lower() not in _ALLOWED:
        raise OSError(f"loopback guard: refusing to resolve {name!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = _loopback_only

import atexit  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import traceback  # noqa: E402
import urllib.parse  # noqa: E402
import uuid  # noqa: E402

import alibabacloud_oss_v2 as oss  # noqa: E402
import oss2  # noqa: E402

ENDPOINT = os.environ.get("OSS_ENDPOINT", "")
AK = os.environ.get("OSS_ACCESS_KEY_ID", "LTAILocalDevAccessKeyId")
SK = os.environ.get("OSS_ACCESS_KEY_SECRET", "LocalDevAccessKeySecret0123456789")
REGION = os.environ.get("OSS_REGION", "cn-hangzhou")
BIN_DIR = os.environ.get("OSS_BIN_DIR", ".build/debug")

_parsed = urllib.parse.urlsplit(ENDPOINT)
if _parsed.hostname not in _ALLOWED:
    sys.exit(f"refusing endpoint {ENDPOINT!r}: the checks run against loopback only")
HOST_PORT = _parsed.netloc


def v2_client(signature_version="v4", ak=AK, sk=SK, token=None):
    cfg = oss.config.load_default()
    cfg.credentials_provider = oss.credentials.StaticCredentialsProvider(ak, sk, token)
    cfg.region = REGION
    cfg.endpoint = ENDPOINT
    cfg.use_path_style = True
    cfg.signature_version = signature_version
    cfg.retry_max_attempts = 1
    return oss.Client(cfg)


def oss2_bucket(name):
    return oss2.Bucket(oss2.Auth(AK, SK), ENDPOINT, name, is_cname=False)


def oss2_service():
    return oss2.Service(oss2.Auth(AK, SK), ENDPOINT)


def scratch_dir(prefix):
    """A temporary directory removed when the script ends."""
    path = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def new_bucket(client, prefix="indep"):
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    client.put_bucket(oss.PutBucketRequest(bucket=name))
    return name


def deny_everywhere(client, bucket, action, prefix):
    """Puts a policy denying `action` on bucket/prefix* to everyone, the owner included: a Principal-* statement
    binds the owner only when it has a condition, here a source address outside 10.0.0.0/8 (so 127.0.0.1)."""
    policy = {"Version": "1", "Statement": [
        {"Effect": "Deny", "Action": [action], "Principal": ["*"], "Resource": [f"acs:oss:*:*:{bucket}/{prefix}*"],
         "Condition": {"NotIpAddress": {"acs:SourceIp": ["10.0.0.0/8"]}}}]}
    client.put_bucket_policy(oss.PutBucketPolicyRequest(bucket=bucket, body=json.dumps(policy)))


def url(path, query=""):
    return f"{ENDPOINT}{path}" + (f"?{query}" if query else "")


class Failed(Exception):
    pass


def expect(cond, reason):
    if not cond:
        raise Failed(reason)


def expect_eq(actual, expected, what):
    if actual != expected:
        raise Failed(f"{what}: expected {expected!r}, got {actual!r}")


def v2_error(fn):
    """Runs fn, which must fail with an OSS service error; returns (status, code, message)."""
    try:
        fn()
    except oss.exceptions.OperationError as e:
        inner = e.unwrap()
        if isinstance(inner, oss.exceptions.ServiceError):
            return inner.status_code, inner.code, inner.message
        raise Failed(f"expected a service error, got {inner!r}")
    except oss.exceptions.ServiceError as e:
        return e.status_code, e.code, e.message
    raise Failed("expected a service error, the request succeeded")


def expect_code(fn, status, code, what):
    got_status, got_code, message = v2_error(fn)
    if (got_status, got_code) != (status, code):
        raise Failed(f"{what}: expected {status} {code}, got {got_status} {got_code} ({message})")
    return message


class Report:
    """Collects one line per check; each check is a function run in isolation."""

    def __init__(self, issue):
        self.issue = issue
        self.failures = 0

    def run(self, name, fn):
        label = f"#{self.issue} {name}"
        try:
            fn()
        except Failed as e:
            self.failures += 1
            print(f"FAIL {label}: {e}", flush=True)
        except Exception as e:  # a crash in a check is a failure with its cause
            self.failures += 1
            last = traceback.format_exception_only(type(e), e)[-1].strip()
            print(f"FAIL {label}: unexpected {last}", flush=True)
            if os.environ.get("INDEP_VERBOSE"):
                traceback.print_exc()
        else:
            print(f"PASS {label}", flush=True)

    def exit(self):
        sys.exit(1 if self.failures else 0)
