"""Issue #32: the local server's STS stand-in (POST /-/sts, --admin) with the official clients and the `oss` CLI;
secrets kept out of the CLI's output; and the issue's CLI default chain, checked against what the official
alibabacloud-credentials package resolves from the same files and environment.

alibabacloud-credentials cannot be pointed at the local server's STS: its AssumeRole/AssumeRoleWithOIDC providers
fix the protocol to https (provider/ram_role_arn.py, oidc.py: tea_request.protocol = 'https') and the local server
speaks HTTP and has no AssumeRole endpoint (POST /?Action=AssumeRole answers 501 NotImplemented)."""
import hashlib
import os
import subprocess
import sys
import time

import requests

from common import AK, BIN_DIR, ENDPOINT, REGION, SK, Failed, Report, expect, expect_eq, new_bucket, oss, oss2, \
    scratch_dir, url, v2_client, v2_error

client = v2_client()
report = Report(32)
BUCKET = new_bucket(client, "sts")
OSS = os.path.join(BIN_DIR, "oss")
WORK = scratch_dir("indep-sts-")


def sts(seconds):
    r = requests.post(url("/-/sts", f"seconds={seconds}"))
    expect_eq(r.status_code, 200, f"POST /-/sts ({r.text[:200]})")
    return r.json()


def cli(args, env_extra, home=None, timeout=120):
    """Runs oss with a clean environment: only PATH, HOME, the endpoint and what the check gives. The ECS metadata
    step of a credentials chain is disabled so that nothing leaves loopback."""
    env = {"PATH": os.environ["PATH"], "HOME": home or WORK, "OSS_ENDPOINT": ENDPOINT, "OSS_REGION": REGION,
           "ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true", **env_extra}
    if args[0] == "cp":
        args = args + ["--checkpoint-dir", os.path.join(WORK, "ckpt")]
    return subprocess.run([OSS, *args], capture_output=True, text=True, env=env, timeout=timeout)


def sts_env(c):
    return {"OSS_ACCESS_KEY_ID": c["AccessKeyId"], "OSS_ACCESS_KEY_SECRET": c["AccessKeySecret"],
            "OSS_SESSION_TOKEN": c["SecurityToken"]}


def no_secret_in(p, c, what):
    for name in ("AccessKeySecret", "SecurityToken"):
        expect(c[name] not in p.stdout + p.stderr, f"{what}: the {name} appears in the CLI's output")


def check_sts_official_clients():
    c = sts(900)
    expect(c["AccessKeyId"].startswith("STS."), f"temporary AccessKeyId {c['AccessKeyId']!r}")
    for version in ("v1", "v4"):
        v = v2_client(version, c["AccessKeyId"], c["AccessKeySecret"], c["SecurityToken"])
        v.put_object(oss.PutObjectRequest(bucket=BUCKET, key=f"sts-{version}", body=b"sts"))
        expect_eq(v.get_object(oss.GetObjectRequest(bucket=BUCKET, key=f"sts-{version}")).body.read(), b"sts",
                  f"v2 {version} with STS credentials")
        pre = v.presign(oss.GetObjectRequest(bucket=BUCKET, key=f"sts-{version}"))
        expect("security-token" in pre.url.lower(), f"{version} presigned URL without the token")
        expect_eq(requests.get(pre.url).content, b"sts", f"{version} presigned GET with STS credentials")
    b = oss2.Bucket(oss2.StsAuth(c["AccessKeyId"], c["AccessKeySecret"], c["SecurityToken"]), ENDPOINT, BUCKET)
    b.put_object("sts-oss2", b"two")
    expect_eq(b.get_object("sts-oss2").read(), b"two", "oss2 StsAuth")


def check_sts_refusals():
    c = sts(900)
    for what, ak, sk, token in (
            ("tampered token", c["AccessKeyId"], c["AccessKeySecret"], c["SecurityToken"][:-4] + "AAAA"),
            ("no token", c["AccessKeyId"], c["AccessKeySecret"], None),
            ("wrong secret", c["AccessKeyId"], "x" * 30, c["SecurityToken"])):
        v = v2_client("v4", ak, sk, token)
        got = v2_error(lambda: v.put_object(oss.PutObjectRequest(bucket=BUCKET, key="refused", body=b"r")))
        expect_eq(got[0], 403, f"{what}: {got}")
        expect(not client.is_object_exist(BUCKET, "refused"), f"{what}: stored")
    short = sts(1)
    time.sleep(2.5)
    v = v2_client("v4", short["AccessKeyId"], short["AccessKeySecret"], short["SecurityToken"])
    got = v2_error(lambda: v.get_object(oss.GetObjectRequest(bucket=BUCKET, key="sts-v4")))
    expect_eq(got[:2], (403, "SecurityTokenExpired"), "expired STS credentials")
    got = v2_error(lambda: v2_client("v4", AK[:-1] + "Z", SK).list_objects(oss.ListObjectsRequest(bucket=BUCKET)))
    expect_eq(got[:2], (403, "InvalidAccessKeyId"), "unknown access key id")


def check_cli_with_sts():
    c = sts(900)
    src = os.path.join(WORK, "small.txt")
    with open(src, "wb") as f:
        f.write(b"cli over sts\n")
    p = cli(["cp", src, f"oss://{BUCKET}/cli.txt", "--trace"], sts_env(c))
    expect_eq(p.returncode, 0, f"oss cp up with STS ({p.stderr[-300:]})")
    no_secret_in(p, c, "cp --trace")
    p = cli(["cp", f"oss://{BUCKET}/cli.txt", "-"], sts_env(c))
    expect_eq(p.stdout, "cli over sts\n", "oss cp down with STS")
    p = cli(["presign", f"oss://{BUCKET}/cli.txt"], sts_env(c))
    expect_eq(requests.get(p.stdout.strip()).content, b"cli over sts\n", "oss presign with STS")
    short = sts(1)
    time.sleep(2.5)
    p = cli(["ls", f"oss://{BUCKET}"], sts_env(short))
    expect_eq(p.returncode, 1, f"oss ls with expired STS credentials (stderr {p.stderr[-200:]!r})")
    expect("SecurityTokenExpired" in p.stderr, f"expired credentials: unclear error {p.stderr[-300:]!r}")
    no_secret_in(p, short, "expired credentials error")


def check_cli_expiry_mid_upload():
    """RELIABILITY.md: credentials expiring mid-transfer give a clear failure (SecurityTokenExpired) or a finished
    transfer, the record kept, and the rerun resumes."""
    part = 128 * 1024
    data = os.urandom(part * 10 + 3)
    src = os.path.join(WORK, "mid.bin")
    with open(src, "wb") as f:
        f.write(data)
    args = ["cp", src, f"oss://{BUCKET}/mid.bin", "--multipart-threshold", str(part), "--part-size", str(part),
            "--threads", "1"]

    def parts():
        return requests.get(url("/-/stats")).json()["operations"].get("UploadPart", {}).get("requests", 0)

    before = parts()
    requests.post(url("/-/faults"), data="UploadPart:always:delay=400")
    try:
        short = sts(2)
        p = cli(args, sts_env(short))
    finally:
        requests.delete(url("/-/faults"))
    first = parts() - before
    if p.returncode == 0:
        raise Failed(f"the upload of 11 parts at 0.4 s each finished on 2-second credentials ({first} parts)")
    expect_eq(p.returncode, 1, f"exit status after the expiry ({p.stderr[-200:]!r})")
    expect("SecurityTokenExpired" in p.stderr, f"expiry mid-upload: unclear error {p.stderr[-300:]!r}")
    no_secret_in(p, short, "expiry mid-upload")
    p = cli(args, sts_env(sts(900)))
    expect_eq(p.returncode, 0, f"rerun with fresh credentials ({p.stderr[-300:]})")
    second = parts() - before - first
    got = client.get_object(oss.GetObjectRequest(bucket=BUCKET, key="mid.bin")).body.read()
    expect(hashlib.md5(got).digest() == hashlib.md5(data).digest(), "resumed object differs")
    expect(second < 11, f"the rerun sent {second} parts of 11 after {first}: not resumed")
    print(f"  note: 2-second credentials ended the upload after {first} UploadPart requests; the rerun sent {second}",
          flush=True)


def check_cli_default_chain():
    """Issue #32, What to build 4: with no flag or variable naming credentials, `oss` uses the default chain (as the
    Alibaba Cloud Credentials libraries do); `oss whoami` shows which provider answered. The official
    alibabacloud-credentials package resolves the same files and variables here, on loopback only."""
    home = scratch_dir("indep-home-")
    os.makedirs(os.path.join(home, ".alibabacloud"))
    ini = os.path.join(home, ".alibabacloud", "credentials.ini")
    with open(ini, "w") as f:
        f.write(f"[default]\nenable = true\ntype = access_key\naccess_key_id = {AK}\naccess_key_secret = {SK}\n")
    # The credentials library reads its environment when imported: resolve in a fresh interpreter, guard first.
    resolve = ("import common\nfrom alibabacloud_credentials.client import Client\n"
               "print(Client().get_credential().access_key_id)")
    env = {"PATH": os.environ["PATH"], "HOME": home, "OSS_ENDPOINT": ENDPOINT,
           "ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true", "ALIBABA_CLOUD_CREDENTIALS_FILE": ini}
    p = subprocess.run([sys.executable, "-c", resolve], capture_output=True, text=True, env=env, timeout=60,
                       cwd=os.path.dirname(os.path.abspath(__file__)))
    expect_eq(p.stdout.strip(), AK, f"alibabacloud-credentials from credentials.ini ({p.stderr.strip()[-200:]})")
    failures = []
    for what, env in (("credentials.ini", {"ALIBABA_CLOUD_CREDENTIALS_FILE": ini}),
                      ("ALIBABA_CLOUD_ACCESS_KEY_ID/SECRET", {"ALIBABA_CLOUD_ACCESS_KEY_ID": AK,
                                                             "ALIBABA_CLOUD_ACCESS_KEY_SECRET": SK})):
        p = cli(["ls", f"oss://{BUCKET}"], env, home=home)
        if p.returncode != 0:
            failures.append(f"{what}: exit {p.returncode} ({p.stderr.strip()[-120:]})")
    p = cli(["whoami"], {"ALIBABA_CLOUD_CREDENTIALS_FILE": ini}, home=home)
    if p.returncode != 0:
        failures.append(f"oss whoami: exit {p.returncode}")
    expect(not failures, "oss does not resolve credentials as alibabacloud-credentials does: " + "; ".join(failures))


for name, fn in [("STS stand-in with v2 (V1, V4, presign) and oss2", check_sts_official_clients),
                 ("STS refusals (tampered, missing, expired, unknown key)", check_sts_refusals),
                 ("oss CLI with STS credentials, no secret in output", check_cli_with_sts),
                 ("oss CLI credentials expiring mid-upload, then resumed", check_cli_expiry_mid_upload),
                 ("oss CLI default credential chain (issue item 4)", check_cli_default_chain)]:
    report.run(name, fn)
report.exit()
