#!/usr/bin/env python3
"""The SDK's privacy manifest declares every required-reason API category its app-side modules use.

Apple rejects an upload whose binary calls a required-reason API (file timestamps, disk space, boot time, user
defaults, active keyboards) without a declared reason. This scans the modules an app links (AliyunOSS and its pure
modules) for the calls of each category and checks Sources/AliyunOSS/PrivacyInfo.xcprivacy declares the category
with at least one reason; it also fails on a declared category that nothing uses any more.
"""
import os
import plistlib
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = ["AliyunOSS", "OSSResumable", "OSSCRC64", "OSSSigning", "OSSXML"]
CATEGORIES = {
    "NSPrivacyAccessedAPICategoryFileTimestamp":
        r"\b(?:f?stat|lstat|getattrlist|fgetattrlist)\(|attributesOfItem|modificationDate|creationDate|contentModificationDateKey",
    "NSPrivacyAccessedAPICategoryDiskSpace":
        r"\bf?statv?fs\(|volumeAvailableCapacity|systemFreeSize|NSFileSystemFreeSize",
    "NSPrivacyAccessedAPICategorySystemBootTime": r"systemUptime|mach_absolute_time|kern\.boottime",
    "NSPrivacyAccessedAPICategoryUserDefaults": r"\bUserDefaults\b",
    "NSPrivacyAccessedAPICategoryActiveKeyboards": r"activeInputModes",
}


def main():
    manifest = plistlib.load(open(os.path.join(ROOT, "Sources/AliyunOSS/PrivacyInfo.xcprivacy"), "rb"))
    declared = {entry["NSPrivacyAccessedAPIType"]: entry.get("NSPrivacyAccessedAPITypeReasons", [])
                for entry in manifest.get("NSPrivacyAccessedAPITypes", [])}
    used = {}
    for module in MODULES:
        for folder, _, files in os.walk(os.path.join(ROOT, "Sources", module)):
            for name in files:
                if not name.endswith((".swift", ".c", ".h")):
                    continue
                path = os.path.join(folder, name)
                text = re.sub(r"//[^\n]*", "", open(path, encoding="utf-8").read())
                for category, pattern in CATEGORIES.items():
                    if re.search(pattern, text):
                        used.setdefault(category, os.path.relpath(path, ROOT))
    problems = []
    for category, example in sorted(used.items()):
        if not declared.get(category):
            problems.append(f"{example} uses a {category} API, which the privacy manifest does not declare with a reason")
    for category in sorted(declared):
        if category not in used:
            problems.append(f"the privacy manifest declares {category}, which no app-side module uses")
    for problem in problems:
        print(f"check-privacy-manifest: {problem}")
    if problems:
        return 1
    print("check-privacy-manifest: " + ", ".join(f"{c.replace('NSPrivacyAccessedAPICategory', '')} "
                                                  f"({', '.join(declared[c])}; e.g. {used[c]})" for c in sorted(used)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
