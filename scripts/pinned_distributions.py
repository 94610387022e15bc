#!/usr/bin/env python3
"""Counts, over a directory of project trees, the distributions each project declares with a
version (`name==1.2`, `name>=1.2`, ... in requirements*.txt, setup.py, setup.cfg,
pyproject.toml and conda environment files; a line reader, not a full parser), and prints
`trees-declaring trees-pinning name` for each, most declared first. Packages named in
--exclude (those with a surface) are left out.

    python3 scripts/pinned_distributions.py /tmp/trees --exclude "$(apicompat index list --output-format json | ...)"

`scripts/requirements-table.txt` lists the distributions declared by at least 12 trees.
"""
import argparse
import collections
import os
import re

LINE = re.compile(
    r"""^[\s'"-]*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(==|>=|<=|~=|<|>|!=)\s*([0-9][^\s'",;#]*)"""
)


def wanted(name):
    low = name.lower()
    return (
        (low.endswith(".txt") and "req" in low)
        or name in ("setup.py", "pyproject.toml", "setup.cfg")
        or (low.endswith((".yml", ".yaml")) and ("env" in low or "conda" in low))
    )


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(tree):
    names, pins = set(), set()
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for f in files:
            if not wanted(f):
                continue
            try:
                text = open(os.path.join(root, f), errors="replace").read()
            except OSError:
                continue
            for line in text.splitlines():
                for piece in re.split(r"""["']\s*,\s*["']|^\s*["']""", line):
                    m = LINE.match(piece)
                    if m:
                        n = normalize(m.group(1))
                        names.add(n)
                        if m.group(2) in ("==", "<", "<=", "~="):
                            pins.add(n)
    return names, pins


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trees")
    ap.add_argument("--exclude", default="", help="whitespace-separated names")
    args = ap.parse_args()
    exclude = {normalize(n) for n in args.exclude.split()}
    count, pinned = collections.Counter(), collections.Counter()
    trees = {os.path.realpath(os.path.join(args.trees, t)) for t in os.listdir(args.trees)}
    for t in sorted(trees):
        names, pins = declared(t)
        for n in names - exclude:
            if n != "python" and not n.startswith("python-"):
                count[n] += 1
        for n in pins - exclude:
            pinned[n] += 1
    print(f"# {len(trees)} trees")
    for n, c in sorted(count.items(), key=lambda kv: (-kv[1], kv[0])):
        print(c, pinned[n], n)


if __name__ == "__main__":
    main()
