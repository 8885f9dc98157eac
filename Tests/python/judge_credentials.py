"""The official alibabacloud-credentials package resolving credentials from the environment it is started with
(HOME, ALIBABA_CLOUD_* variables): prints {"provider": ..., "access_key_id": ...} for one provider, or the error.

Usage: judge_credentials.py default|profile|cli
The secret and token are never printed; the caller compares access key ids and the provider's name only.
"""
import json
import sys

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


def main() -> int:
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
