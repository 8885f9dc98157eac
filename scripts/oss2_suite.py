"""Runs oss2's own test modules against a freshly started oss-local-server (see scripts/oss2-suite.sh)."""
import argparse
import concurrent.futures
import importlib
import multiprocessing
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from oss2_suite_standins import AliyunProxy, KMSStandIn, make_certificates, self_check

MODULES = [
    "test_object",
    "test_multipart",
    "test_upload",
    "test_download",
    "test_iterator",
    "test_list_objects_v2",
    "test_put_object_chunked",
    "test_crc64_combine",
    "test_bucket_versioning",
    "test_object_versioning",
]

# The key pair the server is started with and the tests sign with (oss2's KMS provider signs its KMS calls with it too).
ACCESS_KEY_ID = "LTAI5tOss2SuiteKey"
ACCESS_KEY_SECRET = "Oss2SuiteSecret0123456789abcdef"
REGION = "cn-hangzhou"
# The public OSS names tests use instead of OSS_TEST_ENDPOINT (test_multipart_sequential, test_upload_sequenial use
# oss-cn-shanghai); the proxy relays their requests to the local server, which serves <bucket>.<name> virtual-host.
OSS_DOMAINS = ["oss-cn-hangzhou.aliyuncs.com", "oss-cn-shanghai.aliyuncs.com"]


class Outcomes(unittest.TextTestResult):
    """Records every test's outcome ('pass', 'skip', 'fail' or 'error') with the first line of the reason. A test
    whose tearDown fails after its body failed is reported once, with the body's reason."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.outcomes = {}

    def _record(self, test, outcome, reason=""):
        self.outcomes.setdefault(test.id(), (outcome, reason))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "fail", summary(err))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", summary(err))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skip", reason)

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "pass")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._record(test, "fail", "unexpected success")


def summary(err):
    kind, value, _ = err
    text = ("%s: %s" % (kind.__name__, value)).replace("\n", " ")
    return text[:300]


def start_server(binary, data_dir, kms_key_id):
    arguments = [binary, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
                 "--access-key-id", ACCESS_KEY_ID, "--access-key-secret", ACCESS_KEY_SECRET, "--region", REGION,
                 "--kms-key-id", kms_key_id]
    for domain in OSS_DOMAINS:
        arguments += ["--virtual-host-domain", domain]
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline().strip()
    if not line.startswith("listening on "):
        process.kill()
        raise SystemExit("oss-local-server did not start: %r" % line)
    return process, line[len("listening on "):].rstrip("/")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--server", required=True, help="the oss-local-server binary")
    p.add_argument("--tests", required=True, help="the unpacked oss2 sdist (holding tests/)")
    p.add_argument("modules", nargs="*", help="modules to run (default: all eight)")
    args = p.parse_args()
    modules = args.modules or MODULES
    verbose = os.environ.get("OSS2_SUITE_VERBOSE") == "1"
    # test_upload and test_download pick a bucket at random for many tests: a plain one, an RSA crypto bucket or a
    # KMS crypto bucket, whose provider (oss2.AliKMSProvider) calls KMS at https://kms.<region>.aliyuncs.com with
    # the key id the bucket reports for SSE-KMS objects (tests/common.py's setUp). A KMS stand-in serves those calls
    # (scripts/oss2_suite_standins.py), reached through the proxy variables below; the server reports its key.

    work = tempfile.mkdtemp(prefix="oss2-suite-")
    ca, cert, key = make_certificates(work, ["kms.%s.aliyuncs.com" % REGION])
    kms = KMSStandIn(ACCESS_KEY_ID, ACCESS_KEY_SECRET, REGION, cert, key)
    process, endpoint = start_server(os.path.abspath(args.server), os.path.join(work, "data"), kms.key_id)
    server_address = endpoint.split("://", 1)[1].rsplit(":", 1)
    proxy = AliyunProxy((server_address[0], int(server_address[1])), OSS_DOMAINS, kms.address, kms.host_id)
    os.environ.update({
        "OSS_TEST_ENDPOINT": endpoint,
        "OSS_TEST_ACCESS_KEY_ID": ACCESS_KEY_ID,
        "OSS_TEST_ACCESS_KEY_SECRET": ACCESS_KEY_SECRET,
        "OSS_TEST_REGION": REGION,
        # oss2 keeps resumable records under ~/.py-oss-upload and ~/.py-oss-download: a home of the run's own.
        "HOME": work,
        # requests (oss2) and aliyun-python-sdk-core (oss2's KMS client) take these; the local endpoint is direct.
        "HTTP_PROXY": proxy.url, "http_proxy": proxy.url, "HTTPS_PROXY": proxy.url, "https_proxy": proxy.url,
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        # The CA certificates aliyun-python-sdk-core trusts: the run's own CA, which signed the stand-in's.
        "ALIBABA_CLOUD_CA_BUNDLE": ca,
    })
    try:
        self_check(kms, ACCESS_KEY_ID, ACCESS_KEY_SECRET, REGION)
    except BaseException:
        process.terminate()
        raise
    proxy.relayed.update(oss=0, kms=0)
    sys.path.insert(0, os.path.abspath(args.tests))
    # The tests write scratch files into the working directory and read samples from tests/ there. The sdist leaves
    # out tests/example.jpg; test_put_object_with_sign_url only uploads its bytes, so any bytes do.
    scratch = os.path.join(work, "scratch")
    samples = os.path.join(scratch, "tests")
    os.makedirs(samples)
    source = os.path.join(os.path.abspath(args.tests), "tests")
    for name in os.listdir(source):
        os.symlink(os.path.join(source, name), os.path.join(samples, name))
    if not os.path.exists(os.path.join(samples, "example.jpg")):
        with open(os.path.join(samples, "example.jpg"), "wb") as f:
            f.write(os.urandom(20 * 1024))
    os.chdir(scratch)
    log_path = os.path.join(work, "oss2-suite-<module>.log")
    started = time.time()
    results = []
    # Two modules at a time, each in a process of its own (the tests patch oss2's module-level defaults, so they
    # cannot share an interpreter), the longest first: most of the suite's time is the tests' own sleeps and
    # Python, not the server (one at a time, 109 s with the machine a third busy).
    order = sorted(modules, key=lambda name: -EXPECTED_SECONDS.get(name, 1))
    workers = int(os.environ.get("OSS2_SUITE_WORKERS", "2"))
    spawn = multiprocessing.get_context("spawn")
    try:
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers, mp_context=spawn) as pool:
            futures = {pool.submit(run_module_in_worker, name, os.path.abspath(args.tests),
                                   log_path.replace("<module>", name), verbose): name for name in order}
            for future in concurrent.futures.as_completed(futures):
                name = futures[future]
                outcomes, seconds = future.result()
                results.append((name, outcomes))
                passed = sum(1 for o, _ in outcomes.values() if o == "pass")
                print("%-26s %3d/%-3d passed  (%.0f s)" % (name, passed, len(outcomes), seconds), flush=True)
    finally:
        process.terminate()
        process.wait()
        proxy.close()
        kms.close()
        os.chdir(work)
        shutil.rmtree(os.path.join(work, "data"), ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)

    results.sort(key=lambda result: modules.index(result[0]))
    total = sum(len(outcomes) for _, outcomes in results)
    passed = sum(1 for _, outcomes in results for o, _ in outcomes.values() if o == "pass")
    print("%-26s %3d/%-3d passed  (%.0f s)" % ("TOTAL", passed, total, time.time() - started))
    failed = [(test, outcome, reason) for _, outcomes in results for test, (outcome, reason) in sorted(outcomes.items())
              if outcome != "pass"]
    unexplained = 0
    if failed:
        print("Not passed (%d), each with why:" % len(failed))
    for test, outcome, reason in failed:
        why = cause(test, reason)
        unexplained += why == "server"
        print("  %-5s %s [%s]: %s" % (outcome.upper(), test.replace("tests.", "", 1), why, reason[:160]))
    calls = ", ".join("%s %d" % item for item in sorted(kms.calls.items())) or "none"
    print("KMS stand-in calls: %s; proxy: %d OSS connections relayed, %d KMS tunnels%s"
          % (calls, proxy.relayed["oss"], proxy.relayed["kms"],
             "; refused: " + ", ".join(sorted(set(proxy.refused))) if proxy.refused else ""))
    print("(the tests' own output: %s)" % log_path)
    if unexplained:
        print("%d test(s) failed for no known reason: the local server (or a stand-in) is at fault" % unexplained)
    return 1 if unexplained else 0


def cause(test, reason):
    """Why a test cannot pass against a local server, when that is known, else 'server'."""
    name = test.rsplit(".", 1)[-1]
    if name == "test_process_object":
        return ("image processing: image/resize needs an image codec, which the local server does not have (the "
                "sdist also leaves out the sample tests/example.jpg)")
    if name == "test_async_process_object":
        return ("image processing: expects the error of OSS's image service (IMM) for an asynchronous image/resize, "
                "which the local server does not implement")
    if name in ("test_timeout", "test_default_timeout"):
        return ("wall clock: expects no reply within a 1 ms timeout, true of a remote OSS; the local server on "
                "loopback usually answers within it")
    if name == "test_restore_object_with_version":
        return ("not implemented: the test creates an Archive bucket (CreateBucketConfiguration/StorageClass) and "
                "restores objects written without a storage class; the local server does not give objects their "
                "bucket's storage class (restoring a version of an Archive object is tested in VersioningTests)")
    if "'NoneType' object is not subscriptable" in reason and name in ("test_tmp_file_removed", "test_relpath_and_abspath"):
        # oss2's record store rewrites the file in place (open 'w', json.dump) after every part, and its get() reads
        # a half-written file as no record: the test's own read of the record races the download's threads.
        return "race: the test reads oss2's record file while a download thread rewrites it"
    return "server"


# Seconds each module took, measured one at a time here: the longest start first.
EXPECTED_SECONDS = {"test_object_versioning": 32, "test_put_object_chunked": 27, "test_upload": 16,
                    "test_object": 13, "test_download": 10, "test_bucket_versioning": 6}


def run_module_in_worker(name, tests, log_path, verbose):
    """In a worker process: runs one module, its output in `log_path`; its outcomes and how long it took."""
    if tests not in sys.path:
        sys.path.insert(0, tests)
    t0 = time.time()
    with open(log_path, "w") as log:
        outcomes = run_module(name, log, verbose)
    return outcomes, time.time() - t0


def run_module(name, log, verbose):
    """Runs one oss2 test module; its output (oss2 logs every request) goes to `log` unless `verbose`."""
    stream = sys.stderr if verbose else log
    saved = sys.stdout, sys.stderr
    if not verbose:
        sys.stdout = sys.stderr = log
    try:
        module = importlib.import_module("tests." + name)
        # tests/common.py configures DEBUG logging to standard error when imported.
        root = logging.getLogger()
        for handler in list(root.handlers):
            root.removeHandler(handler)
        logging.basicConfig(stream=stream, level=logging.DEBUG if verbose else logging.WARNING)
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
        result = unittest.TextTestRunner(stream=stream, resultclass=Outcomes, verbosity=2).run(suite)
    finally:
        sys.stdout, sys.stderr = saved
    return result.outcomes


if __name__ == "__main__":
    sys.exit(main())
