#!/usr/bin/env python3
"""Writes the names `from M import *` binds for each public standard-library module.

The extractor needs them to resolve star imports of the standard library in package sources
(`from typing import *`). Run with the oldest CPython the tool supports; the output is sorted
and byte-identical across runs:

    python3 scripts/gen_stdlib_names.py > crates/apicompat_extract/data/stdlib.txt
"""
import importlib
import sys
import warnings

SKIP_PREFIXES = ("test", "idlelib", "tkinter", "turtle", "lib2to3", "ensurepip", "this", "antigravity")


def star_names(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    return sorted({n for n in names if isinstance(n, str) and n.isidentifier()})


def main():
    out = []
    for name in sorted(sys.stdlib_module_names):
        if name.startswith("_") or name.startswith(SKIP_PREFIXES):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                mod = importlib.import_module(name)
            except Exception:
                continue
        out.append(name + " " + " ".join(star_names(mod)))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
