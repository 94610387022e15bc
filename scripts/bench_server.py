#!/usr/bin/env python3
"""Latency of `apicompat server`: time from a didChange to its publishDiagnostics.

Usage: scripts/bench_server.py BINARY PROJECT_DIR [FILE] [--changes N] [--open OTHER]...

Opens FILE (relative to PROJECT_DIR; default: the largest .py file of the project) in a server rooted at PROJECT_DIR,
then sends N full-text changes (a comment line appended, then removed) and prints the first
analysis (didOpen) and the median, p95 and max latency of the changes, in milliseconds, with
--open OTHER (relative to PROJECT_DIR, repeatable) opens other documents first: those
linked to FILE by names are re-checked and published with it on every change (the time
is until the last of them). The server's CPU time (user + system, all threads) per change, which a loaded machine inflates
less than the wall times, its peak memory, and the load average.
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


def start_server(binary, root):
    """`BINARY --no-cache server`, initialized with the workspace root `root`."""
    p = subprocess.Popen([binary, "--no-cache", "server"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"processId": None, "rootUri": "file://" + root, "capabilities": {}}})
    wait(p, lambda m: m.get("id") == 1)
    send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    return p


def sync(p, n):
    """Sends a request the server does not know and reads up to its (error) answer: the server
    handles messages in order, so every publication of what was sent before comes first.
    Returns how many publications there were."""
    send(p, {"jsonrpc": "2.0", "id": n, "method": "bench/sync", "params": None})
    count = 0
    while True:
        m = recv(p)
        if m.get("id") == n:
            return count
        if m.get("method") == "textDocument/publishDiagnostics":
            count += 1


def cpu_ms(pid):
    """User + system CPU time of a process (every thread, the finished ones too), in ms."""
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid):
    """The server's peak resident memory (VmHWM), in MB."""
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def main():
    argv = sys.argv[1:]
    changes = 50
    others = []
    args = []
    i = 0
    while i < len(argv):
        if argv[i] == "--changes":
            changes = int(argv[i + 1])
            i += 2
        elif argv[i] == "--open":
            others.append(argv[i + 1])
            i += 2
        else:
            args.append(argv[i])
            i += 1
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
    p = start_server(binary, root)
    is_diag = lambda m: m.get("method") == "textDocument/publishDiagnostics"
    for other in others:
        o = os.path.join(root, other)
        send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": "file://" + o, "languageId": "python", "version": 1,
                             "text": open(o, encoding="utf-8", errors="replace").read()}}})
        wait(p, lambda m: is_diag(m) and m["params"]["uri"] == "file://" + o)
    published = lambda m: is_diag(m) and m["params"]["uri"] == uri
    t = time.perf_counter()
    send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
    first = wait(p, published)
    # How many documents a change publishes: FILE and those linked to it.
    group = 1 + sync(p, 10)
    open_ms = (time.perf_counter() - t) * 1000
    cpu0 = cpu_ms(p.pid)
    times = []
    for i in range(changes):
        new = text + ("\n# edit %d\n" % i if i % 2 == 0 else "")
        t = time.perf_counter()
        send(p, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": i + 2}, "contentChanges": [{"text": new}]}})
        group = sync(p, 100 + i)
        times.append((time.perf_counter() - t) * 1000)
    cpu = (cpu_ms(p.pid) - cpu0) / changes
    peak_mb = peak_rss_mb(p.pid)
    send(p, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
    wait(p, lambda m: m.get("id") == 2)
    send(p, {"jsonrpc": "2.0", "method": "exit", "params": None})
    p.wait(timeout=30)
    times.sort()
    lines = text.count("\n") + 1
    print("%s: %s (%d lines, %d diagnostics, %d documents re-checked): open %.1f ms; change median %.1f ms, p95 %.1f ms, max %.1f ms (%d changes); CPU %.1f ms per change; peak memory %.0f MB; load %.1f" % (
        os.path.basename(root), os.path.relpath(path, root), lines,
        len(first["params"]["diagnostics"]), group, open_ms, times[len(times) // 2],
        times[int(len(times) * 0.95) - 1], times[-1], changes, cpu, peak_mb, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
