"""The official alibabacloud-credentials package resolving credentials from the environment it is started with
(HOME, ALIBABA_CLOUD_* variables): prints {"provider": ..., "access_key_id": ...} for one provider, or the error.

Usage: judge_credentials.py default|profile|cli
The secret and token are never printed; the caller compares access key ids and the provider's name only.

JUDGE_STS_ENDPOINT (e.g. http://127.0.0.1:8123): the library's STS calls (AssumeRole, AssumeRoleWithOIDC), which it
always sends to https://sts[.<region>].aliyuncs.com, go to this loopback STS stand-in instead; nothing else changes
(the library still builds, signs and parses them itself).
"""
import common  # noqa: F401  (its loopback guard: look-ups of other names are refused)
import json
import os
import sys

from Tea.core import TeaCore

from alibabacloud_credentials.provider import (
    CLIProfileCredentialsProvider,
    DefaultCredentialsProvider,
    ProfileCredentialsProvider,
)

PROVIDERS = {
    "default": DefaultCredentialsProvider,
    "profile": ProfileCredentialsProvider,
    "cli": CLIProfileCredentialsProvider,
}


def redirect_sts() -> None:
    endpoint = os.environ.get("JUDGE_STS_ENDPOINT")
    if not endpoint:
        return
    send = TeaCore.do_action

    def to_stand_in(request, runtime_option=None):
        if request.headers.get("host", "").endswith("aliyuncs.com"):
            request.headers["host"] = endpoint
        return send(request, runtime_option)

    TeaCore.do_action = staticmethod(to_stand_in)


def main() -> int:
    redirect_sts()
    provider = PROVIDERS[sys.argv[1]]()
    try:
        credentials = provider.get_credentials()
    except Exception as error:  # the library's own exception types vary by provider
        print(json.dumps({"error": type(error).__name__}))
        return 0
    print(json.dumps({
        "provider": credentials.get_provider_name(),
        "access_key_id": credentials.get_access_key_id(),
        "has_token": bool(credentials.get_security_token()),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
