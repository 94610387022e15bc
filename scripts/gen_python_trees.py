#!/usr/bin/env python3
"""Writes one directory of standard-library stubs per Python version (3.8 - 3.14), from the
typeshed copy inside the mypy wheel, for `apicompat index build --package python`.

A module is in a version's tree when typeshed's `stdlib/VERSIONS` says that version has it (the
most specific entry of a module or its parent package decides). `_typeshed` (not present at run
time) and `typing_extensions` / `mypy_extensions` (packages of their own) are left out.
Files are copied unchanged: the extractor decides their `sys.version_info` branches for the
version it indexes (`crates/apicompat_extract/src/py_version.rs`).

    python3 scripts/gen_python_trees.py TYPESHED_STDLIB_DIR OUT_DIR
"""
import os
import shutil
import sys

VERSIONS = [(3, minor) for minor in range(8, 15)]
SKIP = {"_typeshed", "typing_extensions", "mypy_extensions"}


def parse_version(text):
    major, minor = text.strip().split(".")
    return int(major), int(minor)


def read_versions(path):
    table = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, span = line.split(":", 1)
            low, high = span.strip().split("-", 1)
            table[name.strip()] = (parse_version(low), parse_version(high) if high.strip() else None)
    return table


def available(module, version, table):
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        span = table.get(".".join(parts[:i]))
        if span is not None:
            low, high = span
            return low <= version and (high is None or version <= high)
    return False


def main():
    stdlib, out = sys.argv[1], sys.argv[2]
    table = read_versions(os.path.join(stdlib, "VERSIONS"))
    files = []
    for root, dirs, names in os.walk(stdlib):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(".pyi"):
                continue
            rel = os.path.relpath(os.path.join(root, name), stdlib)
            parts = rel[: -len(".pyi")].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            module = ".".join(parts)
            if parts[0] in SKIP:
                continue
            files.append((rel, module))
    for version in VERSIONS:
        dest = os.path.join(out, "%d.%d" % version)
        if os.path.exists(dest):
            shutil.rmtree(dest)
        count = 0
        for rel, module in files:
            if available(module, version, table):
                target = os.path.join(dest, rel)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(os.path.join(stdlib, rel), target)
                count += 1
        print("python %d.%d: %d stub files" % (version[0], version[1], count), file=sys.stderr)


if __name__ == "__main__":
    main()
