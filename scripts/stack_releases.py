#!/usr/bin/env python3
"""Print the releases of the training stack that the embedded index holds, as `NAME==V` lines.

For each package: the newest patch release of every minor series from its first release on
(pre-releases, yanked releases and releases without a wheel left out), read from the package index's JSON API.

    python3 scripts/stack_releases.py > scripts/stack-releases.txt
"""
import json
import re
import sys
import urllib.request

# Package, first release (chosen by what current training projects pin: README, "Embedded").
FIRST = [
    ("transformers", "4.30.0"),
    ("accelerate", "0.16.0"),
    ("diffusers", "0.20.0"),
    ("peft", "0.5.0"),
    ("safetensors", "0.3.1"),
    ("huggingface_hub", "0.20.0"),
    ("einops", "0.6.0"),
    ("timm", "0.9.0"),
]


def key(version):
    return tuple(int(p) for p in version.split("."))


def main():
    only = set(sys.argv[1:])
    for name, first in FIRST:
        if only and name not in only:
            continue
        with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=60) as r:
            releases = json.load(r)["releases"]
        newest = {}
        for version, files in releases.items():
            if not re.fullmatch(r"\d+(\.\d+)*", version) or not files:
                continue
            wheels = [f for f in files if f["filename"].endswith(".whl") and not f.get("yanked")]
            if not wheels or key(version) < key(first):
                continue
            minor = key(version)[:2]
            if minor not in newest or key(version) > key(newest[minor]):
                newest[minor] = version
        for minor in sorted(newest):
            print(f"{name}=={newest[minor]}")


if __name__ == "__main__":
    main()
