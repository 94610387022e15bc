#!/usr/bin/env bash
# Proves the Python packaging works: `pip install .` from this checkout into a fresh venv
# (maturin builds the binary; the first build compiles everything in release mode), then the
# installed command runs: --version, a query on the embedded index, `check` on a fixture
# project, `env` on the venv itself. Then the wheel file itself is checked (the binary, no
# OpenSSL) and installed offline into a second fresh venv.
#
# Usage: scripts/test-wheel.sh [PYTHON]        (default: python3; needs the package index for
#                                               maturin, and a Rust toolchain)
# Prints the time of each step and closes with `wheel: N passed, N failed`; exits non-zero on
# the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
PYTHON=${1:-${PYTHON:-python3}}
work=$(mktemp -d "${TMPDIR:-/tmp}/apicompat-wheel.XXXXXX")
export PIP_DISABLE_PIP_VERSION_CHECK=1

t0=$(date +%s)
passed=0
step() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
ok() { passed=$((passed + 1)); }
fail() {
    echo "error: $*" >&2
    echo "wheel: $passed passed, 1 failed"
    reported=1
    exit 1
}
trap 'rc=$?; rm -rf "$work"; if [ $rc -ne 0 ] && [ "${reported:-}" != 1 ]; then echo "wheel: $passed passed, 1 failed"; fi' EXIT

step "fresh venv with $("$PYTHON" --version 2>&1)"
"$PYTHON" -m venv "$work/venv"
venv="$work/venv"

step "pip install . (builds the wheel with maturin)"
t_install=$(date +%s)
"$venv/bin/pip" install --quiet "$root"
install_s=$(( $(date +%s) - t_install ))
step "installed in ${install_s} s"

app="$venv/bin/apicompat"
[ -x "$app" ] || fail "no apicompat command in $venv/bin"
ok
if command -v ldd >/dev/null && ldd "$app" | grep -Ei 'libssl|libcrypto'; then
    fail "the binary links OpenSSL"
fi
ok

step "apicompat --version"
"$app" --version | grep -E '^apicompat [0-9]' || fail "--version"
ok

step "apicompat query"
"$app" --no-cache query torch.distributed.pipelining | tee "$work/query.txt"
grep -q "module in 2.4.0" "$work/query.txt" || fail "query answered something else"
ok

step "apicompat check on a fixture project"
mkdir -p "$work/project"
printf 'torch>=2.3\n' > "$work/project/requirements.txt"
printf 'from torch.distributed.pipelining import pipeline\n' > "$work/project/train.py"
set +e
(cd "$work/project" && "$app" --no-cache check)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "check exited $rc, expected 1 (pipelining is missing in torch 2.3)"
ok

step "the data file beside the binary (deepspeed, triton, ... read from it)"
[ -f "$venv/bin/apicompat-stack.apid" ] || fail "no apicompat-stack.apid in $venv/bin"
"$app" --no-cache index list | tee "$work/list.txt" | grep -E '^(deepspeed|triton): .*data file' \
    || fail "index list shows no package of the data file"
ok

step "apicompat env on the venv"
"$app" --no-cache env --python "$venv/bin/python" --no-check || fail "env"
ok

step "the wheel file, installed offline into a second venv"
"$venv/bin/pip" wheel --quiet --no-deps --wheel-dir "$work/dist" "$root"
wheel=$(ls "$work"/dist/apicompat-*.whl)
echo "$(basename "$wheel"): $(du -h "$wheel" | cut -f1)"
"$PYTHON" -m zipfile -l "$wheel"
"$PYTHON" -m venv "$work/venv2"
"$work/venv2/bin/pip" install --quiet --no-index "$wheel"
"$work/venv2/bin/apicompat" --version || fail "the wheel installed offline does not run"
ok

step "done; pip install . took ${install_s} s"
reported=1
echo "wheel: $passed passed, 0 failed"
