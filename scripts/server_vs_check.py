#!/usr/bin/env python3
"""Does `apicompat server` tell each file what `check` tells it?

Usage: scripts/server_vs_check.py BINARY PROJECT_DIR [--files N]

Runs `check PROJECT_DIR` (a tree whose sub-directories declare other bounds is checked as
`check` splits it, and so does the server), then starts the server rooted at PROJECT_DIR and opens, one at a time, every file with a finding
and up to N others (default 20, the largest first), each closed before the next is opened.
Compares each file's diagnostics (code, line, column, message) with check's findings for that
file, and prints every difference and a count. Exit status 1 when some file differs.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_server import send, start_server, wait  # noqa: E402


def main():
    argv = sys.argv[1:]
    extra = 20
    if "--files" in argv:
        i = argv.index("--files")
        extra = int(argv[i + 1])
        del argv[i:i + 2]
    binary, root = argv[0], os.path.abspath(argv[1])
    out = subprocess.run([binary, "--no-cache", "check", root, "--output-format", "json"],
                         capture_output=True, text=True)
    report = json.loads(out.stdout)
    expected = {}
    for f in report["findings"]:
        path = os.path.abspath(os.path.join(root, f["path"])) if not os.path.isabs(f["path"]) else f["path"]
        expected.setdefault(path, set()).add((f["code"], f["line"], f["column"], f["message"]))
    files = [p for p in expected if p.endswith(".py")]
    others = []
    for d, _, names in os.walk(root):
        others += [os.path.join(d, n) for n in names if n.endswith(".py")]
    others = [p for p in sorted(others, key=os.path.getsize, reverse=True) if p not in expected]
    files += others[:extra]

    p = start_server(binary, root)
    differ = 0
    for path in files:
        uri = "file://" + path
        text = open(path, encoding="utf-8", errors="replace").read()
        send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
        m = wait(p, lambda m: m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"]["uri"] == uri)
        lines = text.split("\n")
        got = set()
        for d in m["params"]["diagnostics"]:
            line = d["range"]["start"]["line"]
            # UTF-16 units back to a 1-based character column.
            units, col = d["range"]["start"]["character"], 0
            for ch in lines[line] if line < len(lines) else "":
                if units <= 0:
                    break
                units -= 2 if ord(ch) > 0xFFFF else 1
                col += 1
            got.add((d["code"], line + 1, col + 1, d["message"]))
        want = expected.get(path, set())
        if got != want:
            differ += 1
            rel = os.path.relpath(path, root)
            for x in sorted(want - got):
                print("%s: only check: %s" % (rel, x))
            for x in sorted(got - want):
                print("%s: only server: %s" % (rel, x))
        send(p, {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {
            "textDocument": {"uri": uri}}})
        wait(p, lambda m: m.get("method") == "textDocument/publishDiagnostics"
             and m["params"]["uri"] == uri)
    send(p, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    wait(p, lambda m: m.get("id") == 2)
    send(p, {"jsonrpc": "2.0", "method": "exit", "params": None})
    p.wait(timeout=60)
    print("%s: %d files compared, %d differ (%d findings in check)" % (
        os.path.basename(root), len(files), differ, len(report["findings"])))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
