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
    # Not embedded: in the data file beside the binary (README, "The data file").
    ("deepspeed", "0.9.3"),
    ("datasets", "2.16.0"),
    ("triton", "2.0.0"),
    ("xformers", "0.0.23"),
    ("lightning", "2.0.0"),
    ("pytorch-lightning", "1.9.0"),
    ("megatron-core", "0.5.0"),
]

# Packages whose releases are all 0.0.N: each N is a series of its own.
PATCH_SERIES = {"xformers"}
# Packages that publish API changes in patch releases (timm 1.0.x adds and moves models and
# layers in patches; deepspeed ships features in its weekly 0.x.y releases; einops has few
# releases): every final release is indexed. triton too: torch pins exact triton releases
# (`triton==3.3.0` for torch 2.7.0), which `range`'s joint answer must find.
EVERY_RELEASE = {"timm", "einops", "deepspeed", "triton"}
# Packages published as sdists only (deepspeed): an sdist counts as a release file.
SDIST_ONLY = {"deepspeed"}


def key(version):
    """Release numbers, then the post-release number (-1 for none)."""
    base, _, post = version.partition(".post")
    return tuple(int(p) for p in base.split(".")), int(post) if post else -1


def main():
    only = set(sys.argv[1:])
    for name, first in FIRST:
        if only and name not in only:
            continue
        with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/json", timeout=60) as r:
            releases = json.load(r)["releases"]
        newest = {}
        for version, files in releases.items():
            if not re.fullmatch(r"\d+(\.\d+)*(\.post\d+)?", version) or not files:
                continue
            kinds = (".whl", ".tar.gz") if name in SDIST_ONLY else (".whl",)
            wheels = [f for f in files if f["filename"].endswith(kinds) and not f.get("yanked")]
            if not wheels or key(version) < key(first):
                continue
            minor = key(version)[0][: 3 if name in PATCH_SERIES else 2]
            if name in EVERY_RELEASE:
                minor = key(version)
            if minor not in newest or key(version) > key(newest[minor]):
                newest[minor] = version
        for minor in sorted(newest):
            print(f"{name}=={newest[minor]}")


if __name__ == "__main__":
    main()
