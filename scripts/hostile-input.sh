#!/usr/bin/env bash
# Generates the hostile inputs of docs/hostile-input.md and measures an apicompat binary on
# them (wall time, peak memory, exit code) with /usr/bin/time -v.
#
#   scripts/hostile-input.sh [BINARY]     (default: target/release/apicompat)
#
# Inputs are generated under $WORK (default: a temporary directory) and removed afterwards.
# Each run is limited to $TIMEOUT s (default 60) and 6 GB of address space so that a binary without the bounds
# cannot take the machine down; "killed" in the output means it hit one of those limits.
set -euo pipefail
BIN=${1:-target/release/apicompat}
BIN=$(realpath "$BIN")
WORK=${WORK:-$(mktemp -d)}
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

python3 - <<'EOF'
import os, zipfile, zlib

def wheel(name, members, overlap=None):
    """A wheel with the given members; `overlap`: (member, n) adds n central entries that
    all point at that member's bytes."""
    path = f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr(f"{name}/__init__.py", "a = 1\n")
        for n, data in members:
            z.writestr(n, data)
        z.writestr(f"{name}-1.0.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if overlap:
        member, n = overlap
        data = open(path, "rb").read()
        eocd = data.rfind(b"PK\x05\x06")
        cd_size = int.from_bytes(data[eocd + 12:eocd + 16], "little")
        cd_off = int.from_bytes(data[eocd + 16:eocd + 20], "little")
        cd = data[cd_off:cd_off + cd_size]
        # Find the central record of `member`.
        pos, rec = 0, None
        while pos < len(cd):
            nl, el, cl = (int.from_bytes(cd[pos + o:pos + o + 2], "little") for o in (28, 30, 32))
            if cd[pos + 46:pos + 46 + nl].decode() == member:
                rec = cd[pos:pos + 46]
            pos += 46 + nl + el + cl
        extra = b""
        for i in range(n):
            nm = f"{name}/alias{i}.py".encode()
            r = bytearray(rec)
            r[28:30] = len(nm).to_bytes(2, "little")
            r[30:32] = (0).to_bytes(2, "little")
            r[32:34] = (0).to_bytes(2, "little")
            extra += bytes(r) + nm
        cd2 = cd + extra
        count = int.from_bytes(data[eocd + 10:eocd + 12], "little") + n
        end = bytearray(data[eocd:eocd + 22])
        end[8:10] = count.to_bytes(2, "little")
        end[10:12] = count.to_bytes(2, "little")
        end[12:16] = len(cd2).to_bytes(4, "little")
        with open(path, "wb") as f:
            f.write(data[:cd_off] + cd2 + bytes(end))
    print(f"{path}: {os.path.getsize(path)} bytes")

zeros = b"x = 0\n" * (60_000_000 // 6)
wheel("zeros", [("zeros/big.py", zeros)])
wheel("oneline", [("oneline/big.py", b"x = [" + b"0," * 30_000_000 + b"]\n")])
wheel("overlap", [("overlap/big.py", zeros)], overlap=("overlap/big.py", 30))
# Just under the per-file budget, many times: the per-release budget.
under = b"x = 0\n" * (3_900_000 // 6)
wheel("many", [(f"many/m{i}.py", under) for i in range(100)])
os.makedirs("deep/deep", exist_ok=True)
open("deep/deep/__init__.py", "w").write("")
open("deep/deep/nots.py", "w").write("x = " + "not " * 500_000 + "1\n")
open("deep/deep/plus.py", "w").write("x = 1" + "+1" * 2_000_000 + "\n")
open("deep/deep/minus.py", "w").write("x = " + "-" * 4_000_000 + "1\n")

# Projects for `check`.
def project(name, files):
    os.makedirs(name, exist_ok=True)
    for path, text in files.items():
        open(os.path.join(name, path), "w").write(text)
use = "from torch.distributed.pipelining import pipeline\n"
project("p-devzero", {"m.py": use, "requirements.txt": "torch>=2.3\n-r /dev/zero\n"})
doubling = "from setuptools import setup\nx0 = ['torch>=2.3']\n" + "".join(
    f"x{i} = x{i-1} + x{i-1}\n" for i in range(1, 25)) + "setup(name='p', install_requires=x24)\n"
project("p-setup", {"m.py": use, "setup.py": doubling})
project("p-marker", {"m.py": use, "requirements.txt":
    "torch>=2.3; " + "(" * 100_000 + "python_version > '3'" + ")" * 100_000 + "\n"})
project("p-fifo", {"m.py": use})
os.mkfifo("p-fifo/pyproject.toml")
project("p-pipe", {"m.py": use * 2000, "requirements.txt": "torch>=2.3\n"})
project("p-badtoml", {"m.py": use, "pyproject.toml": "[project\ndependencies = ['torch>=2.3']\n"})
EOF

measure() {
  local label=$1; shift
  local out rc
  set +e
  out=$( (ulimit -v 6000000; timeout "${TIMEOUT:-60}" /usr/bin/time -v "$@" >/dev/null 2>"$WORK/err") 2>&1; echo "rc=$?")
  rc=${out##*rc=}
  set -e
  local secs mem
  secs=$(grep "Elapsed (wall clock)" "$WORK/err" | awk '{print $NF}' || true)
  mem=$(grep "Maximum resident set size" "$WORK/err" | awk '{print $NF}' || true)
  local note=""
  [ "$rc" = 124 ] && note=" (killed: timeout)"
  printf '%-10s exit %-3s %8s (m:ss) %6s MB%s\n' "$label" "$rc" "${secs:-?}" "$(( ${mem:-0} / 1024 ))" "$note"
  grep -v "Command being timed" "$WORK/err" | grep -E "^error|not parsed|overlap|too deep|names than" \
    | head -3 | sed 's/^/             /' || true
}

for w in zeros oneline overlap many; do
  measure "$w" "$BIN" index build "$w-1.0-py3-none-any.whl" --package "$w" --version 1.0 \
    --output "$WORK/out.json" --no-cache
done
measure deep "$BIN" index build deep --package deep --version 1.0 --output "$WORK/out.json" --no-cache

for p in p-devzero p-setup p-marker p-fifo p-badtoml; do
  (cd "$p" && measure "$p" "$BIN" --no-cache check -q)
done
# A reader that stops after one line.
(cd p-pipe && set +o pipefail && "$BIN" --no-cache check 2>"$WORK/err" | head -1 >/dev/null;
 printf '%-10s exit %-3s (check | head -1)\n' p-pipe "${PIPESTATUS[0]}"; grep -m1 panicked "$WORK/err" | sed 's/^/             /' || true)
