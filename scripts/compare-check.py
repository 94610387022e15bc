#!/usr/bin/env python3
"""Errors that appear or vanish between two `apicompat check --output-format json` runs.

Usage: compare-check.py BEFORE.json AFTER.json
Each error is keyed by (code, file, line, column, symbol); a changed set of releases where it
breaks is listed too.
"""
import json
import sys


def errors(path):
    with open(path) as f:
        findings = json.load(f)["findings"]
    out = {}
    for x in findings:
        if x.get("severity") != "error":
            continue
        key = (x["code"], x["path"], x["line"], x["column"], x.get("symbol", ""))
        out[key] = ", ".join(x.get("missing_ranges", []))
    return out


def main():
    before, after = errors(sys.argv[1]), errors(sys.argv[2])
    for key in sorted(before.keys() - after.keys()):
        print("vanished", *key[:1], f"{key[1]}:{key[2]}:{key[3]}", key[4], "|", before[key])
    for key in sorted(after.keys() - before.keys()):
        print("new     ", *key[:1], f"{key[1]}:{key[2]}:{key[3]}", key[4], "|", after[key])
    for key in sorted(before.keys() & after.keys()):
        if before[key] != after[key]:
            print("changed ", *key[:1], f"{key[1]}:{key[2]}:{key[3]}", key[4], "|", before[key], "->", after[key])
    print(f"{len(before)} errors before, {len(after)} after", file=sys.stderr)


if __name__ == "__main__":
    main()
