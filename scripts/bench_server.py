#!/usr/bin/env python3
"""Latency of `apicompat server`: time from a didChange to its publishDiagnostics.

Usage: scripts/bench_server.py BINARY PROJECT_DIR [FILE] [--changes N]

Opens FILE (relative to PROJECT_DIR; default: the largest .py file of the project) in a server rooted at PROJECT_DIR,
then sends N full-text changes (a comment line appended, then removed) and prints the first
analysis (didOpen) and the median, p95 and max latency of the changes, in milliseconds.
"""
import json
import os
import subprocess
import sys
import time


def send(p, msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def recv(p):
    length = 0
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit("server closed its output")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(p.stdout.read(length))


def wait(p, pick):
    while True:
        m = recv(p)
        if pick(m):
            return m


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    changes = 50
    if "--changes" in sys.argv:
        changes = int(sys.argv[sys.argv.index("--changes") + 1])
        args.remove(str(changes))
    binary, root = args[0], os.path.abspath(args[1])
    if len(args) > 2:
        path = os.path.join(root, args[2])
    else:
        files = []
        for d, _, names in os.walk(root):
            files += [os.path.join(d, n) for n in names if n.endswith(".py")]
        path = max(files, key=os.path.getsize)
    text = open(path, encoding="utf-8", errors="replace").read()
    uri = "file://" + path
    p = subprocess.Popen([binary, "--no-cache", "server"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"processId": None, "rootUri": "file://" + root, "capabilities": {}}})
    wait(p, lambda m: m.get("id") == 1)
    send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    is_diag = lambda m: m.get("method") == "textDocument/publishDiagnostics"
    t = time.perf_counter()
    send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
    first = wait(p, is_diag)
    open_ms = (time.perf_counter() - t) * 1000
    times = []
    for i in range(changes):
        new = text + ("\n# edit %d\n" % i if i % 2 == 0 else "")
        t = time.perf_counter()
        send(p, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": i + 2}, "contentChanges": [{"text": new}]}})
        wait(p, is_diag)
        times.append((time.perf_counter() - t) * 1000)
    send(p, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    wait(p, lambda m: m.get("id") == 2)
    send(p, {"jsonrpc": "2.0", "method": "exit", "params": None})
    p.wait(timeout=30)
    times.sort()
    lines = text.count("\n") + 1
    print("%s: %s (%d lines, %d diagnostics): open %.1f ms; change median %.1f ms, p95 %.1f ms, max %.1f ms (%d changes)" % (
        os.path.basename(root), os.path.relpath(path, root), lines,
        len(first["params"]["diagnostics"]), open_ms, times[len(times) // 2],
        times[int(len(times) * 0.95) - 1], times[-1], changes))


if __name__ == "__main__":
    main()
