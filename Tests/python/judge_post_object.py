#!/usr/bin/env python3
"""PostObject judged by the official Python clients (PostObjectJudgeTests runs it against a live local server).

--phase official: forms built here, V1 and V4 (and with STS), policies written with json.dumps and signed with
    alibabacloud-oss-v2's own signing primitives (neither SDK has a POST helper; their samples do the same),
    posted with `requests` (the file last); oss2 reads each object back byte for byte.
--phase sdk: the forms the Swift SDK signed (a JSON file): each policy document is checked byte for byte against
    json.dumps of itself, each signature recomputed with v2's primitives, and each form posted with `requests`;
    oss2 reads the objects back.
"""
import argparse
import base64
import json
import os
import sys
from datetime import datetime, timedelta, timezone

import oss2
import requests
from alibabacloud_oss_v2.signer.v1 import SignerV1
from alibabacloud_oss_v2.signer.v4 import SignerV4

from common import Failure, check, equal

p = argparse.ArgumentParser()
p.add_argument("--phase", choices=["official", "sdk"], required=True)
p.add_argument("--endpoint", required=True)
p.add_argument("--bucket", required=True)
p.add_argument("--access-key-id", required=True)
p.add_argument("--access-key-secret", required=True)
p.add_argument("--security-token")
p.add_argument("--region", default="cn-hangzhou")
p.add_argument("--forms", help="the SDK's forms (phase sdk)")
args = p.parse_args()

if args.security_token:
    auth = oss2.StsAuth(args.access_key_id, args.access_key_secret, args.security_token)
else:
    auth = oss2.Auth(args.access_key_id, args.access_key_secret)
bucket = oss2.Bucket(auth, args.endpoint, args.bucket)
url = "%s/%s/" % (args.endpoint.rstrip("/"), args.bucket)


def post(fields, key_hint, content, content_type="application/octet-stream"):
    # requests writes data fields first and files after them: the file is the last field, as OSS requires.
    return requests.post(url, data=fields, files={"file": (key_hint, content, content_type)}, timeout=30)


def official():
    now = datetime.now(timezone.utc)
    expiration = (now + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    for version in ("v1", "v4"):
        key = "official/%s/${filename}" % version
        content = os.urandom(3000)
        conditions = [{"bucket": args.bucket}, ["starts-with", "$key", "official/%s/" % version],
                      ["content-length-range", 1, 4096], ["eq", "$success_action_status", "201"],
                      ["in", "$content-type", ["application/pdf", "image/png"]]]
        fields = {"key": key, "success_action_status": "201", "Content-Type": "application/pdf",
                  "x-oss-meta-judge": "official"}
        if version == "v1":
            document = json.dumps({"expiration": expiration, "conditions": conditions})
            policy = base64.b64encode(document.encode()).decode()
            fields.update({"OSSAccessKeyId": args.access_key_id, "policy": policy,
                           "Signature": SignerV1()._calc_signature(args.access_key_secret, policy)})
            if args.security_token:
                fields["x-oss-security-token"] = args.security_token
        else:
            day = now.strftime("%Y%m%d")
            signing = {"x-oss-signature-version": "OSS4-HMAC-SHA256",
                       "x-oss-credential": "%s/%s/%s/oss/aliyun_v4_request" % (args.access_key_id, day, args.region),
                       "x-oss-date": now.strftime("%Y%m%dT%H%M%SZ")}
            if args.security_token:
                signing["x-oss-security-token"] = args.security_token
            document = json.dumps({"expiration": expiration,
                                   "conditions": conditions + [{k: v} for k, v in signing.items()]})
            policy = base64.b64encode(document.encode()).decode()
            fields.update(signing)
            fields["policy"] = policy
            fields["x-oss-signature"] = SignerV4()._calc_signature(args.access_key_secret, day, args.region, "oss",
                                                                   policy)
        reply = post(fields, "report.pdf", content, "application/pdf")
        equal(reply.status_code, 201, "%s POST status (%s)" % (version, reply.text[:300]))
        stored_key = "official/%s/report.pdf" % version
        check("<Key>%s</Key>" % stored_key in reply.text, "%s PostResponse names the key: %s" % (version, reply.text))
        obj = bucket.get_object(stored_key)
        equal(obj.read(), content, "%s object bytes" % version)
        equal(obj.headers.get("Content-Type"), "application/pdf", "%s content type" % version)
        equal(obj.headers.get("x-oss-meta-judge"), "official", "%s metadata" % version)
        # The same form for a key outside the policy's prefix is refused.
        fields["key"] = "elsewhere/report.pdf"
        refused = post(fields, "report.pdf", content, "application/pdf")
        equal(refused.status_code, 403, "%s outside the prefix" % version)
        check(not bucket.object_exists("elsewhere/report.pdf"), "%s stored nothing outside the prefix" % version)
        print("official %s: accepted, read back, and refused outside the prefix" % version)


def sdk():
    with open(args.forms) as f:
        forms = json.load(f)
    for form in forms:
        label = form["label"]
        fields = dict(form["fields"])
        document = form["policyDocument"]
        reparsed = json.dumps(json.loads(document), separators=(",", ":"), ensure_ascii=False)
        equal(document, reparsed, "%s: the policy document is json.dumps of itself" % label)
        policy = base64.b64encode(document.encode("utf-8")).decode("ascii")
        equal(fields["policy"], policy, "%s: policy field" % label)
        if "x-oss-signature" in fields:
            credential = fields["x-oss-credential"].split("/")
            expected = SignerV4()._calc_signature(args.access_key_secret, credential[1], credential[2], credential[3],
                                                  policy)
            equal(fields["x-oss-signature"], expected, "%s: V4 signature" % label)
            for name in ("x-oss-signature-version", "x-oss-credential", "x-oss-date"):
                check({name: fields[name]} in json.loads(document)["conditions"], "%s: the policy binds %s" % (label, name))
        else:
            expected = SignerV1()._calc_signature(args.access_key_secret, policy)
            equal(fields["Signature"], expected, "%s: V1 signature" % label)
        content = base64.b64decode(form["content"])
        reply = requests.post(form["url"], data=form["fields"], files={"file": ("upload.bin", content)}, timeout=30)
        check(200 <= reply.status_code < 300, "%s: POST answered %s %s" % (label, reply.status_code, reply.text[:300]))
        equal(bucket.get_object(form["key"]).read(), content, "%s: object bytes" % label)
        print("sdk %s: same policy bytes and signature as Python; accepted and read back" % label)


try:
    official() if args.phase == "official" else sdk()
except Failure as e:
    print("FAIL: %s" % e)
    sys.exit(1)
