"""Issue #35: the official v2 encryption client (RSA master key) and `oss cp --encryption-key` read each other's
objects byte for byte: single and multipart, ranged reads at odd offsets, and a wrong key or a damaged envelope
refused with no plaintext file left behind."""
import base64
import json
import os
import signal
import subprocess
import time

import requests

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from common import BIN_DIR, Failed, Report, expect, expect_eq, new_bucket, oss, scratch_dir, url, v2_client

client = v2_client()
report = Report(35)
BUCKET = new_bucket(client, "cse")
WORK = scratch_dir("indep-cse-")
OSS = os.path.join(BIN_DIR, "oss")
MATDESC = {"key": "indep"}
PART = 256 * 1024


def make_key(name, fmt):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    priv = key.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption())
    pub = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    paths = {}
    for suffix, pem in (("priv", priv), ("pub", pub)):
        paths[suffix] = os.path.join(WORK, f"{name}-{suffix}.pem")
        with open(paths[suffix], "wb") as f:
            f.write(pem)
    return priv.decode(), pub.decode(), paths


PRIV, PUB, KEY = make_key("main", serialization.PrivateFormat.TraditionalOpenSSL)  # PKCS#1
PRIV8, PUB8, KEY8 = make_key("p8", serialization.PrivateFormat.PKCS8)
_, _, OTHER = make_key("other", serialization.PrivateFormat.PKCS8)


def eclient(priv=PRIV, pub=PUB, matdesc=MATDESC):
    return oss.EncryptionClient(client, oss.crypto.MasterRsaCipher(mat_desc=matdesc, public_key=pub, private_key=priv))


def cli(*args, ok=True):
    p = subprocess.run([OSS, *args, "--checkpoint-dir", os.path.join(WORK, "ckpt")] if args[0] == "cp" else
                       [OSS, *args], capture_output=True, text=True, timeout=300)
    if ok and p.returncode != 0:
        raise Failed(f"oss {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[-400:]}")
    return p


def read(path):
    with open(path, "rb") as f:
        return f.read()


def v2_put(key, data, ec=None):
    (ec or eclient()).put_object(oss.PutObjectRequest(bucket=BUCKET, key=key, body=data))


def v2_multipart(key, data, ec=None):
    ec = ec or eclient()
    init = ec.initiate_multipart_upload(oss.InitiateMultipartUploadRequest(
        bucket=BUCKET, key=key, cse_part_size=PART, cse_data_size=len(data)))
    parts = []
    for n, off in enumerate(range(0, len(data), PART), 1):
        r = ec.upload_part(oss.UploadPartRequest(bucket=BUCKET, key=key, upload_id=init.upload_id, part_number=n,
                                                 body=data[off:off + PART], cse_multipart_context=init.cse_multipart_context))
        parts.append(oss.UploadPart(part_number=n, etag=r.etag))
    listed = ec.list_parts(oss.ListPartsRequest(bucket=BUCKET, key=key, upload_id=init.upload_id))
    expect_eq([p.part_number for p in listed.parts], [p.part_number for p in parts], "ListParts through the client")
    expect_eq((listed.client_encryption_part_size, listed.client_encryption_data_size), (PART, len(data)),
              "ListParts envelope sizes")
    ec.complete_multipart_upload(oss.CompleteMultipartUploadRequest(
        bucket=BUCKET, key=key, upload_id=init.upload_id,
        complete_multipart_upload=oss.CompleteMultipartUpload(parts=parts)))


def v2_get(key, range_header=None, ec=None):
    return (ec or eclient()).get_object(oss.GetObjectRequest(bucket=BUCKET, key=key, range_header=range_header)).body.read()


def raw_get(key):
    return client.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key)).body.read()


def check_v2_writes_cli_reads():
    for key, data, writer in (("v2/single.bin", os.urandom(1_000_003), v2_put),
                              ("v2/multi.bin", os.urandom(PART * 3 + 1001), v2_multipart)):
        writer(key, data)
        expect(raw_get(key) != data, f"{key} is stored in plaintext")
        for keyfile in (KEY["priv"],):
            out = os.path.join(WORK, key.replace("/", "_"))
            cli("cp", "--encryption-key", keyfile, f"oss://{BUCKET}/{key}", out)
            expect(read(out) == data, f"oss cp of {key} differs from what v2 wrote")
    # A PKCS#8 key, and a large download through the CLI's multipart download path.
    data = os.urandom(PART * 5 + 7)
    v2_multipart("v2/p8.bin", data, eclient(PRIV8, PUB8))
    out = os.path.join(WORK, "p8.out")
    cli("cp", "--encryption-key", KEY8["priv"], "--multipart-threshold", str(PART), "--part-size", str(PART),
        f"oss://{BUCKET}/v2/p8.bin", out)
    expect(read(out) == data, "PKCS#8 multipart download differs")


def check_cli_writes_v2_reads():
    src = os.path.join(WORK, "small.src")
    data = os.urandom(300_001)
    with open(src, "wb") as f:
        f.write(data)
    cli("cp", "--encryption-key", KEY["priv"], "--encryption-description", json.dumps(MATDESC), src,
        f"oss://{BUCKET}/cli/small.bin")
    expect(raw_get("cli/small.bin") != data, "CLI single upload stored plaintext")
    expect(v2_get("cli/small.bin") == data, "v2 decrypt of the CLI's single upload differs")
    h = client.head_object(oss.HeadObjectRequest(bucket=BUCKET, key="cli/small.bin"))
    md = {k.lower(): v for k, v in h.headers.items()}
    expect_eq(json.loads(md.get("x-oss-meta-client-side-encryption-matdesc", "null")), MATDESC, "matdesc header")
    expect_eq(md.get("x-oss-meta-client-side-encryption-wrap-alg"), "RSA/NONE/PKCS1Padding", "wrap-alg header")
    expect_eq(md.get("x-oss-meta-client-side-encryption-unencrypted-content-length"), str(len(data)),
              "unencrypted length header")
    big = os.path.join(WORK, "big.src")
    bdata = os.urandom(PART * 6 + 12345)
    with open(big, "wb") as f:
        f.write(bdata)
    cli("cp", "--encryption-key", KEY["pub"], "--multipart-threshold", str(PART), "--part-size", str(PART), big,
        f"oss://{BUCKET}/cli/big.bin")
    h = client.head_object(oss.HeadObjectRequest(bucket=BUCKET, key="cli/big.bin"))
    md = {k.lower(): v for k, v in h.headers.items()}
    expect_eq((md.get("x-oss-meta-client-side-encryption-part-size"), md.get("x-oss-meta-client-side-encryption-data-size")),
              (str(PART), str(len(bdata))), "multipart envelope sizes")
    expect(v2_get("cli/big.bin") == bdata, "v2 decrypt of the CLI's multipart upload (public-key only) differs")
    stat = cli("stat", f"oss://{BUCKET}/cli/big.bin").stdout
    expect("encrypt" in stat.lower() and "RSA" in stat, f"oss stat does not show the envelope: {stat[-300:]!r}")


def check_cli_recursive():
    d = os.path.join(WORK, "tree")
    os.makedirs(os.path.join(d, "sub"), exist_ok=True)
    files = {"a.txt": os.urandom(100), "sub/b.bin": os.urandom(PART * 2 + 3), "sub/empty": b""}
    for rel, data in files.items():
        with open(os.path.join(d, rel), "wb") as f:
            f.write(data)
    cli("cp", "-r", "--encryption-key", KEY["priv"], d, f"oss://{BUCKET}/tree")
    for rel, data in files.items():
        expect(v2_get(f"tree/{rel}") == data, f"v2 decrypt of tree/{rel} (cp -r upload) differs")
    out = os.path.join(WORK, "tree-out")
    cli("cp", "-r", "--encryption-key", KEY["priv"], f"oss://{BUCKET}/tree", out)
    for rel, data in files.items():
        expect(read(os.path.join(out, rel)) == data, f"cp -r download of {rel} differs")


def check_ranges():
    data = os.urandom(PART * 3 + 999)
    v2_multipart("range/v2.bin", data)
    src = os.path.join(WORK, "range.src")
    with open(src, "wb") as f:
        f.write(data)
    cli("cp", "--encryption-key", KEY["priv"], "--multipart-threshold", str(PART), "--part-size", str(PART), src,
        f"oss://{BUCKET}/range/cli.bin")
    n = len(data)
    ranges = [(0, 0), (1, 1), (15, 16), (17, 1000), (PART - 3, PART + 29), (PART * 2 + 1, n - 1), (n - 5, n - 1)]
    for key in ("range/v2.bin", "range/cli.bin"):
        for a, b in ranges:
            got = v2_get(key, f"bytes={a}-{b}")
            expect(got == data[a:b + 1], f"{key} bytes={a}-{b}: {len(got)} bytes, differ")
        got = v2_get(key, f"bytes={n - 33}-")
        expect(got == data[n - 33:], f"{key} open range differs")


def check_wrong_key():
    v2_put("wrong/k.bin", os.urandom(5000))
    d = os.path.join(WORK, "wrong")
    os.makedirs(d, exist_ok=True)
    out = os.path.join(d, "k.bin")
    for keyfile, what in ((OTHER["priv"], "another private key"), (KEY["pub"], "the public key only")):
        p = cli("cp", "--encryption-key", keyfile, f"oss://{BUCKET}/wrong/k.bin", out, ok=False)
        expect(p.returncode != 0, f"download with {what} succeeded")
        expect(any(w in p.stderr.lower() for w in ("key", "decrypt", "unwrap")),
               f"download with {what}: the error does not name the key ({p.stderr.strip()[-300:]!r})")
        expect_eq(os.listdir(d), [], f"files left behind after a download with {what}")


def check_wrong_key_large_and_recursive():
    data = os.urandom(PART * 4 + 9)
    v2_multipart("wrong/big.bin", data)
    d = os.path.join(WORK, "wrong-big")
    os.makedirs(d, exist_ok=True)
    p = cli("cp", "--encryption-key", OTHER["priv"], "--multipart-threshold", str(PART), "--part-size", str(PART),
            f"oss://{BUCKET}/wrong/big.bin", os.path.join(d, "big.bin"), ok=False)
    expect(p.returncode != 0, "multipart download with another key succeeded")
    expect_eq(os.listdir(d), [], "files left behind by a multipart download with another key")
    out = os.path.join(WORK, "wrong-tree")
    p = cli("cp", "-r", "--encryption-key", OTHER["priv"], f"oss://{BUCKET}/wrong", out, ok=False)
    expect(p.returncode != 0, "cp -r download with another key succeeded")
    left = [os.path.join(r, f) for r, _, fs in os.walk(out) for f in fs] if os.path.isdir(out) else []
    expect_eq(left, [], f"cp -r with another key left files (exit {p.returncode})")


def check_damaged_envelope():
    v2_put("env/ok.bin", os.urandom(4000))
    d = os.path.join(WORK, "env")
    os.makedirs(d, exist_ok=True)
    head = client.head_object(oss.HeadObjectRequest(bucket=BUCKET, key="env/ok.bin"))
    meta = dict(head.metadata)
    for what, change in (("unknown content algorithm", {"client-side-encryption-cek-alg": "AES/GCM/NoPadding"}),
                         ("damaged wrapped key", {"client-side-encryption-key": "AAAA" + meta[
                             "client-side-encryption-key"][4:]})):
        key = "env/" + what.replace(" ", "-")
        client.copy_object(oss.CopyObjectRequest(bucket=BUCKET, key=key, source_bucket=BUCKET, source_key="env/ok.bin",
                                                 metadata_directive="REPLACE", metadata={**meta, **change}))
        out = os.path.join(d, "out.bin")
        p = cli("cp", "--encryption-key", KEY["priv"], f"oss://{BUCKET}/{key}", out, ok=False)
        expect(p.returncode != 0, f"{what}: download succeeded")
        expect_eq(os.listdir(d), [], f"{what}: files left behind")
    # An IV (start) changed on an object whose envelope carries the plaintext MD5 (the CLI writes it): CTR decrypts
    # to other bytes without complaint, so only the MD5 check stands between the user and wrong plaintext.
    src = os.path.join(WORK, "md5.src")
    with open(src, "wb") as f:
        f.write(os.urandom(3000))
    cli("cp", "--encryption-key", KEY["priv"], src, f"oss://{BUCKET}/env/md5.bin")
    meta = dict(client.head_object(oss.HeadObjectRequest(bucket=BUCKET, key="env/md5.bin")).metadata)
    expect("client-side-encryption-unencrypted-content-md5" in meta, f"no plaintext MD5 in the CLI's envelope {meta}")
    pub = oss.crypto.MasterRsaCipher(public_key=PUB, private_key=PRIV)
    meta["client-side-encryption-start"] = base64.b64encode(pub.encrypt(os.urandom(16))).decode()
    client.copy_object(oss.CopyObjectRequest(bucket=BUCKET, key="env/iv.bin", source_bucket=BUCKET,
                                             source_key="env/md5.bin", metadata_directive="REPLACE", metadata=meta))
    out = os.path.join(d, "iv.bin")
    p = cli("cp", "--encryption-key", KEY["priv"], f"oss://{BUCKET}/env/iv.bin", out, ok=False)
    expect(p.returncode != 0, "a changed IV decrypted to a file (the plaintext MD5 was not checked)")
    expect_eq(os.listdir(d), [], "changed IV: files left behind")
    bad = os.path.join(WORK, "unaligned.src")
    with open(bad, "wb") as f:
        f.write(os.urandom(PART * 2))
    p = cli("cp", "--encryption-key", KEY["priv"], "--multipart-threshold", str(PART), "--part-size",
            str(PART + 8), bad, f"oss://{BUCKET}/env/unaligned.bin", ok=False)
    if p.returncode == 0:
        expect(v2_get("env/unaligned.bin") == read(bad), "an upload with a part size not a multiple of 16 is wrong")
    else:
        expect(p.returncode in (2, 64) and "16" in p.stderr, f"part size not a multiple of 16: {p.returncode} "
                                                            f"{p.stderr.strip()[-300:]!r}")


def check_resume_after_kill():
    """oss cp --encryption-key killed with SIGKILL mid-upload, run again: the same upload continues (parts already
    sent are not sent again) and the object decrypts with v2 to the file."""
    src = os.path.join(WORK, "resume.src")
    data = os.urandom(PART * 8 + 5)
    with open(src, "wb") as f:
        f.write(data)
    args = ["cp", "--encryption-key", KEY["priv"], "--multipart-threshold", str(PART), "--part-size", str(PART),
            "--threads", "1", src, f"oss://{BUCKET}/resume/r.bin"]

    def parts_sent():
        return requests.get(url("/-/stats")).json()["operations"].get("UploadPart", {}).get("requests", 0)

    before = parts_sent()
    requests.post(url("/-/faults"), data="UploadPart:always:delay=300")
    try:
        proc = subprocess.Popen([OSS, *args, "--checkpoint-dir", os.path.join(WORK, "ckpt")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while parts_sent() - before < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finally:
        requests.delete(url("/-/faults"))
    first = parts_sent() - before
    expect(first < 9, f"the upload finished before the kill ({first} parts)")
    ups = client.list_multipart_uploads(oss.ListMultipartUploadsRequest(bucket=BUCKET, prefix="resume/")).uploads
    expect(ups, "no upload left after the kill")
    cli(*args)
    second = parts_sent() - before - first
    expect(second <= 9 - first + 1, f"the rerun sent {second} parts after {first} before the kill: not resumed")
    expect(v2_get("resume/r.bin") == data, "v2 decrypt of the resumed encrypted upload differs")
    print(f"  note: encrypted upload of 9 parts killed after {first} UploadPart requests; the rerun sent {second}",
          flush=True)


for name, fn in [("v2 encryption client writes, oss cp reads", check_v2_writes_cli_reads),
                 ("oss cp writes, v2 encryption client reads", check_cli_writes_v2_reads),
                 ("oss cp -r with encryption both ways", check_cli_recursive),
                 ("ranged reads at odd offsets (v2)", check_ranges), ("wrong key", check_wrong_key),
                 ("wrong key, multipart and -r downloads", check_wrong_key_large_and_recursive),
                 ("damaged envelope and unaligned part size", check_damaged_envelope),
                 ("resumed after SIGKILL, read by v2", check_resume_after_kill)]:
    report.run(name, fn)
report.exit()
