#!/usr/bin/env python3
"""Headless Chromium uploads through the BrowserUpload sample's page to the local OSS server (scripts/test-browser.sh).

Starts `oss-local-server` (admin endpoints on, every UploadPart delayed so a reload lands mid-upload) and the sample
backend `browser-upload` on another port of 127.0.0.1, so the page (one origin) uploads to the bucket (another origin)
through CORS. Then, in the browser:
  1. signs in as alice; from the page's own context asks for a form for bob's prefix, a form and a plan over the
     limits (all refused by the backend), and posts a real signed form with the key or the size changed (refused by
     the server);
  2. chooses two small files (POST forms) and a 64 MiB file (presigned multipart, parts in parallel); once the page
     shows PARTS_BEFORE_RELOAD finished parts, stalls every further UploadPart on the server and reloads the page;
  3. after the reload the page lists the unfinished upload; the faults and counters are reset and the 64 MiB file is
     chosen again: the page asks ListParts (presigned) and sends only the missing parts;
  4. checks with the official oss2 client that each object is the file byte for byte, that the server's CRC-64 is
     the file's, that the resumed upload sent exactly the missing parts (the server's UploadPart count) and that no
     multipart upload is left; saves a screenshot.
Chromium is kept on loopback: every host name but 127.0.0.1 resolves to nothing, and background networking,
component updates, sync and the first-run flow are off.
"""
import argparse
import json
import os
import random
import socket
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

_getaddrinfo = socket.getaddrinfo


def _loopback_only(host, *args, **kwargs):
    name = host.decode() if isinstance(host, bytes) else host
    if name not in ("127.0.0.1", "localhost"):
        raise OSError("the browser test reaches 127.0.0.1 only; refused a look-up of %r" % (name,))
    return _getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = _loopback_only

import oss2  # noqa: E402  (after the loopback guard)
from oss2.utils import Crc64  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

ACCESS_KEY_ID = "LTAILocalDevAccessKeyId"
ACCESS_KEY_SECRET = "LocalDevAccessKeySecret0123456789"
BUCKET = "uploads"
BIG = 64 << 20
PART_SIZE = 5 << 20
PARTS = (BIG + PART_SIZE - 1) // PART_SIZE
PARTS_BEFORE_RELOAD = 3
FORM_LIMIT = 5 << 20
MULTIPART_LIMIT = 1 << 30


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def log(message):
    print("browser_upload: " + message, flush=True)


def start(command, ready, env=None):
    """Starts a process and waits (at most 60 s) for a line of its standard output that starts with `ready`."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=sys.stderr, text=True, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise Failure("%s exited before it was ready (status %s)" % (command[0], process.wait()))
        if line.startswith(ready):
            return process, line[len(ready):].strip()
    raise Failure("%s was not ready within 60 s" % command[0])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def admin(endpoint, method, path, body=None):
    request = urllib.request.Request(endpoint + path, method=method, data=body.encode() if body else None)
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
        return json.loads(text) if text else None


def upload_part_requests(endpoint):
    return admin(endpoint, "GET", "/-/stats")["operations"].get("UploadPart", {}).get("requests", 0)


def browser(screenshot_dir):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in [
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1000,700",
        # Loopback only: no name resolves but 127.0.0.1, and nothing is fetched in the background.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--no-default-browser-check", "--disable-default-apps", "--disable-extensions", "--no-pings",
        "--disable-domain-reliability", "--disable-client-side-phishing-detection", "--disable-breakpad",
        "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication",
        "--user-data-dir=" + os.path.join(screenshot_dir, "chromium-profile"),
    ]:
        options.add_argument(flag)
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(30)
    return driver


def wait_for(driver, script, what, timeout=60, interval=0.05):
    """Polls a JavaScript expression until it is truthy; returns its value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script("return " + script)
        if value:
            return value
        time.sleep(interval)
    raise Failure("timed out waiting for " + what)


def fetch_status(driver, path, body):
    """Status of a backend call made by the page itself (its origin, its session cookie)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {method: 'POST', headers: {'Content-Type': 'application/json'}, body: arguments[1]})"
        ".then(r => done(r.status), e => done(String(e)));", path, json.dumps(body))


def hostile(driver, bucket):
    """Attempts from the page's context that the backend or the server must refuse."""
    refused = {
        "a form for bob's prefix": fetch_status(driver, "/uploads/form", {"key": "users/bob/evil.txt", "size": 5}),
        "a form over the size limit": fetch_status(driver, "/uploads/form", {"key": "users/alice/a", "size": FORM_LIMIT + 1}),
        "a plan for bob's prefix": fetch_status(driver, "/uploads/multipart", {"key": "users/bob/evil.bin", "size": BIG}),
        "a plan over the size limit": fetch_status(
            driver, "/uploads/multipart", {"key": "users/alice/huge.bin", "size": MULTIPART_LIMIT + 1}),
    }
    expected = {"a form for bob's prefix": 403, "a form over the size limit": 413, "a plan for bob's prefix": 403,
                "a plan over the size limit": 413}
    for what, status in refused.items():
        check(status == expected[what], "the backend answered %s to %s, expected %s" % (status, what, expected[what]))
    # A real form for alice's 5-byte probe, posted to the bucket with another key, then with 6 bytes.
    statuses = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        (async () => {
            const r = await fetch('/uploads/form', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                  body: JSON.stringify({key: 'users/alice/probe.txt', size: 5})});
            const form = await r.json();
            const post = async (key, text) => {
                const data = new FormData();
                for (const f of form.fields) data.append(f.name, f.name === 'key' ? key : f.value);
                data.append('file', new Blob([text]));
                try { return (await fetch(form.url, {method: 'POST', body: data})).status; }
                catch (e) { return String(e); }
            };
            done([await post('users/bob/probe.txt', 'hello'), await post('users/alice/probe.txt', 'hello!')]);
        })().catch(e => done(String(e)));
    """)
    log("hostile attempts: backend %s, bucket %s" % (sorted(refused.values()), statuses))
    check(statuses[0] == 403, "the bucket answered %s to alice's form with bob's key, expected 403" % statuses[0])
    check(statuses[1] == 400, "the bucket answered %s to a 6-byte file on a 5-byte policy, expected 400" % statuses[1])
    for key in ["users/bob/probe.txt", "users/alice/probe.txt", "users/bob/evil.txt"]:
        check(not bucket.object_exists(key), "%s exists after a refused upload" % key)


def verify(bucket, path, key):
    with open(path, "rb") as f:
        data = f.read()
    result = bucket.get_object(key)
    stored = result.read()
    check(stored == data, "%s differs from %s (%d bytes stored, %d sent)" % (key, path, len(stored), len(data)))
    crc = Crc64(0)
    crc.update(data)
    server_crc = int(result.headers["x-oss-hash-crc64ecma"])
    check(server_crc == crc.crc, "%s: the server's CRC-64 %d is not the file's %d" % (key, server_crc, crc.crc))
    return len(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", required=True, help="the oss-local-server executable")
    parser.add_argument("--backend", required=True, help="the sample's browser-upload executable")
    parser.add_argument("--screenshot", required=True, help="where to save the page's screenshot (PNG)")
    args = parser.parse_args()

    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="browser-upload-")
    rng = random.Random(33)
    files = {"notes.txt": 37 * 1024 + 5, "photo.jpg": (1 << 20) + 333, "video.bin": BIG}
    paths = {}
    for name, size in files.items():
        paths[name] = os.path.join(work, name)
        with open(paths[name], "wb") as f:
            f.write(rng.randbytes(size))

    processes = []
    driver = None
    try:
        server, endpoint = start(
            [args.server, "--port", "0", "--admin", "--bucket", BUCKET, "--fault", "UploadPart:delay=300"], "listening on ")
        processes.append(server)
        endpoint = endpoint.rstrip("/")
        port = free_port()
        env = dict(os.environ, OSS_ACCESS_KEY_ID=ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET=ACCESS_KEY_SECRET,
                   OSS_REGION="cn-hangzhou")
        backend, _ = start(
            [args.backend, "--endpoint", endpoint, "--bucket", BUCKET, "--port", str(port), "--part-size", str(PART_SIZE),
             "--form-limit", str(FORM_LIMIT), "--multipart-limit", str(MULTIPART_LIMIT), "--parallel-parts", "3"],
            "Serving the upload page at ", env=env)
        processes.append(backend)
        page = "http://127.0.0.1:%d/" % port
        log("bucket at %s, page at %s (another origin)" % (endpoint, page))
        bucket = oss2.Bucket(oss2.Auth(ACCESS_KEY_ID, ACCESS_KEY_SECRET), endpoint, BUCKET)

        driver = browser(work)
        driver.get(page)
        wait_for(driver, "!document.getElementById('signin').hidden", "the sign-in form")
        driver.find_element(By.ID, "user").send_keys("alice")
        driver.find_element(By.CSS_SELECTOR, "#signin-form button").click()
        wait_for(driver, "document.body.dataset.ready === 'yes'", "the signed-in page")
        hostile(driver, bucket)

        # Two small files by POST form, the 64 MiB file by presigned multipart.
        driver.find_element(By.ID, "files").send_keys("\n".join(paths.values()))
        video = "document.querySelector('#uploads li[data-key=\"users/alice/video.bin\"]')"
        done = wait_for(driver, "%s && Number(%s.dataset.doneParts) >= %d && Number(%s.dataset.doneParts)"
                        % (video, video, PARTS_BEFORE_RELOAD, video), "%d finished parts" % PARTS_BEFORE_RELOAD)
        # Every further part is held by the server, so the page cannot finish before the reload.
        admin(endpoint, "POST", "/-/faults", "UploadPart:always:stall=0")
        state = driver.execute_script("return %s.dataset.state" % video)
        remembered = driver.execute_script(
            "return Object.values(JSON.parse(localStorage.getItem('browser-upload:alice')))[0].done.length")
        check(state == "uploading" and remembered < PARTS,
              "the upload was not midway when the page was reloaded (%s, %d of %d parts)" % (state, remembered, PARTS))
        log("reloading with %d of %d parts finished (%d seen before the stall)" % (remembered, PARTS, done))
        driver.refresh()
        wait_for(driver, "document.body.dataset.ready === 'yes'", "the page after the reload")
        admin(endpoint, "DELETE", "/-/faults")
        admin(endpoint, "POST", "/-/stats/reset")
        unfinished = driver.execute_script(
            "const li = document.querySelector('#unfinished li[data-key=\"users/alice/video.bin\"]');"
            "return li ? Number(li.dataset.doneParts) : -1")
        check(unfinished == remembered, "after the reload the page lists %d finished parts, expected %d" % (unfinished, remembered))

        # The same file again: resumed from the parts in the bucket.
        driver.find_element(By.ID, "files").send_keys(paths["video.bin"])
        final = wait_for(driver, "document.body.dataset.busy === 'no' && %s && %s.dataset.state !== 'uploading' && "
                         "Object.assign({}, %s.dataset)" % (video, video, video), "the resumed upload")
        check(final["state"] == "done", "the resumed upload ended %s: %s" % (
            final["state"], driver.find_element(By.ID, "error").text))
        resumed_from, sent = int(final["resumedFrom"]), int(final["sentParts"])
        requests = upload_part_requests(endpoint)
        log("resumed with %d of %d parts in the bucket; sent %d parts, the server counted %d UploadPart requests"
            % (resumed_from, PARTS, sent, requests))
        check(resumed_from >= remembered, "ListParts found %d parts, the page had finished %d" % (resumed_from, remembered))
        check(sent == PARTS - resumed_from, "the page sent %d parts, expected %d" % (sent, PARTS - resumed_from))
        check(requests == sent, "the server counted %d UploadPart requests after the reload, expected %d" % (requests, sent))
        check(driver.execute_script("return localStorage.getItem('browser-upload:alice')") == "{}",
              "the finished upload is still remembered")

        wait_for(driver, "document.querySelectorAll('#objects li').length === 3", "the object list")
        for name, path in paths.items():
            size = verify(bucket, path, "users/alice/" + name)
            log("users/alice/%s: %d bytes, identical, CRC-64 matches" % (name, size))
        uploads = list(oss2.MultipartUploadIterator(bucket))
        check(not uploads, "multipart uploads left behind: %s" % [u.key for u in uploads])

        driver.execute_script("window.scrollTo(0, 0)")
        os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
        driver.save_screenshot(args.screenshot)
        log("screenshot: %s; passed in %.1f s" % (args.screenshot, time.monotonic() - started))
        return 0
    except Failure as failure:
        log("FAILED: %s" % failure)
        if driver is not None:
            try:
                driver.save_screenshot(args.screenshot)
                log("the page at the failure: %s" % args.screenshot)
            except Exception:
                pass
        return 1
    finally:
        if driver is not None:
            driver.quit()
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
