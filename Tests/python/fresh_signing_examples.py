#!/usr/bin/env python3
"""Signs fresh requests with the official OSS Python SDKs and prints them as JSON.

The Swift test `FreshVectorTests` runs this with the project's .venv interpreter, then signs the same
requests with OSSSigning at the same instant and compares the signatures byte for byte. Nothing is sent:
oss2's session and alibabacloud-oss-v2's HTTP client are replaced by stubs that keep the signed request.

Usage: fresh_signing_examples.py > examples.json
"""
import json
import sys
import urllib.parse

import oss2
import oss2.http
import alibabacloud_oss_v2 as oss

AK, SK, TOKEN = "LTAIFreshExampleKey", "FreshExampleSecret+/=0123456789", "STS.Fresh+Token/With=Specials"
REGION, ENDPOINT, BUCKET = "cn-hangzhou", "https://oss-cn-hangzhou.aliyuncs.com", "fresh-bucket"
EXPIRES = 1800

KEYS = [
    "plain.txt",
    "dir/sub dir/file name with spaces.bin",
    "unicode/ünïcödé/文件名/ファイル.dat",
    "plus+sign/a+b+c.txt",
    "percent%/100%25 literal %2F.txt",
    "tilde~/~user/x~y.txt",
    "slashes//double//and/trailing/",
    "mixed !'()*&=;:@$,?#[] chars.txt",
    " leading and trailing spaces ",
]

AUTH_HEADERS = {"authorization", "date", "x-oss-date", "x-oss-content-sha256", "x-oss-security-token",
                "security-token"}
UNSIGNED = {"user-agent", "accept-encoding", "content-length", "host", "connection", "accept"}


class Captured(Exception):
    pass


class CaptureSession(oss2.http.Session):
    def __init__(self):
        super().__init__()
        self.last = None

    def do_request(self, req, timeout):
        self.last = req
        raise Captured()


class CaptureHttpClient(oss.HttpClient):
    def __init__(self):
        self.last = None

    def send(self, request, **kwargs):
        self.last = request
        raise Captured()

    def open(self):
        pass

    def close(self):
        pass


def split_headers(headers):
    wire = {k.lower(): v for k, v in headers.items() if v is not None and k.lower() not in UNSIGNED}
    user = {k: v for k, v in wire.items() if k not in AUTH_HEADERS}
    return wire, user


def query_of(url):
    q = urllib.parse.urlsplit(url).query
    return dict(urllib.parse.parse_qsl(q, keep_blank_values=True))


def oss2_auth(version, sts):
    if version == "v1":
        return oss2.StsAuth(AK, SK, TOKEN) if sts else oss2.Auth(AK, SK)
    return oss2.StsAuth(AK, SK, TOKEN, auth_version=oss2.AUTH_VERSION_4) if sts else oss2.AuthV4(AK, SK)


def oss2_examples(key, version, sts):
    out = []
    session = CaptureSession()
    bucket = oss2.Bucket(oss2_auth(version, sts), ENDPOINT, BUCKET, session=session, region=REGION)
    calls = [
        ("GET", lambda: bucket.get_object(key, byte_range=(0, 9),
                                          params={"response-content-disposition": 'attachment; filename="a b.txt"'})),
        ("PUT", lambda: bucket.put_object(key, b"hello", headers={"Content-Type": "text/plain",
                                                                  "x-oss-meta-Note": "two  spaces"})),
        ("POST", lambda: bucket.init_multipart_upload(key)),
        ("GET", lambda: bucket.list_parts(key, "UPLOADID0123", marker="3", max_parts=7)),
    ]
    for method, call in calls:
        session.last = None
        try:
            call()
        except Captured:
            pass
        req = session.last
        wire, user = split_headers(req.headers)
        out.append({"sdk": "oss2", "variant": version + "_header", "sts": sts, "method": req.method,
                    "key": key, "query": {k: str(v) for k, v in (req.params or {}).items()},
                    "wire_headers": wire, "user_headers": user, "authorization": req.headers["authorization"]})
    for method, headers, params in [("GET", None, {"response-content-type": "text/plain"}),
                                    ("PUT", {"Content-Type": "application/octet-stream"}, None),
                                    ("PUT", None, {"partNumber": "2", "uploadId": "UPLOADID0123"})]:
        url = bucket.sign_url(method, key, EXPIRES, headers=headers, params=params)
        out.append({"sdk": "oss2", "variant": version + "_presign", "sts": sts, "method": method, "key": key,
                    "query": params or {}, "user_headers": {k.lower(): v for k, v in (headers or {}).items()},
                    "url": url, "url_query": query_of(url)})
    return out


def v2_examples(key, version, sts):
    out = []
    http = CaptureHttpClient()
    cfg = oss.Config(region=REGION, endpoint=ENDPOINT, signature_version=version, http_client=http,
                     retry_max_attempts=1,
                     credentials_provider=oss.credentials.StaticCredentialsProvider(AK, SK, TOKEN if sts else None))
    client = oss.Client(cfg)
    calls = [
        lambda: client.get_object(oss.GetObjectRequest(bucket=BUCKET, key=key, range_header="bytes=0-9",
                                                       response_content_disposition='attachment; filename="a b.txt"')),
        lambda: client.put_object(oss.PutObjectRequest(bucket=BUCKET, key=key, body=b"hello", content_type="text/plain",
                                                       metadata={"Note": "two  spaces"})),
        lambda: client.list_parts(oss.ListPartsRequest(bucket=BUCKET, key=key, upload_id="UPLOADID0123",
                                                       max_parts=7, part_number_marker=3)),
    ]
    if not (version == "v1" and sts):  # v2 sends the V1 STS token unsigned; we sign it (as oss2 does)
        for call in calls:
            http.last = None
            try:
                call()
            except Exception:
                pass
            req = http.last
            wire, user = split_headers(req.headers)
            out.append({"sdk": "v2", "variant": version + "_header", "sts": sts, "method": req.method, "key": key,
                        "query": {k: v for k, v in query_of(req.url).items()}, "wire_headers": wire,
                        "user_headers": user, "authorization": req.headers["Authorization"]})
    for request in [oss.GetObjectRequest(bucket=BUCKET, key=key, response_content_type="text/plain"),
                    oss.PutObjectRequest(bucket=BUCKET, key=key, content_type="application/octet-stream")]:
        import datetime
        res = client.presign(request, expires=datetime.timedelta(seconds=EXPIRES))
        q = query_of(res.url)
        user_query = {k: v for k, v in q.items() if k in ("response-content-type",)}
        out.append({"sdk": "v2", "variant": version + "_presign", "sts": sts, "method": res.method, "key": key,
                    "query": user_query,
                    "user_headers": {k.lower(): v for k, v in (res.signed_headers or {}).items()},
                    "url": res.url, "url_query": q})
    return out


def main():
    examples = []
    for key in KEYS:
        for version in ("v1", "v4"):
            for sts in (False, True):
                examples += oss2_examples(key, version, sts)
                examples += v2_examples(key, version, sts)
    json.dump({"access_key_id": AK, "access_key_secret": SK, "security_token": TOKEN, "region": REGION,
               "bucket": BUCKET, "expires": EXPIRES, "examples": examples}, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
