#!/usr/bin/env bash
# `apicompat check` on the sources of transformers 4.46.3 (1,813 files, ~1.0 M lines) against one
# torch release, with Ruff on the same tree in the same run for a ratio. The figures in
# docs/benchmarks.md ("check") come from here. Rerunnable: the download and the Ruff venv are
# kept in target/bench/check/.
#
#   scripts/bench-check.sh                 # 7 runs of each
#   RUNS=15 scripts/bench-check.sh         # more runs (wall times are noisy on a shared machine)
#   CALLGRIND=1 scripts/bench-check.sh     # also count instructions (valgrind, ~1-2 min; the
#                                          # count does not depend on machine load)
#   TARGET='torch==2.5.0' scripts/bench-check.sh
#   BIN=/path/to/apicompat scripts/bench-check.sh   # another build (no cargo build)
#
# Needs python3 (for pip, the Ruff venv and unzipping) and GNU time (`apt-get install time`);
# without /usr/bin/time the peak memory is read from /proc instead.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
TARGET=${TARGET:-torch==2.5.0}
work=target/bench/check
src=$work/transformers-4.46.3
mkdir -p "$work"

if [ -n "${BIN:-}" ]; then
  bin=$BIN
else
  cargo build --release -q -p apicompat --bin apicompat
  bin=${CARGO_TARGET_DIR:-./target}/release/apicompat
fi

# Ruff in its own venv (pip's own download of the transformers wheel comes from it too).
if [ ! -x "$work/venv/bin/ruff" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q ruff
fi
ruff=$work/venv/bin/ruff

if [ ! -f "$src/.complete" ]; then
  rm -rf "$src" "$work/wheel"
  "$work/venv/bin/pip" download -q --no-deps --only-binary=:all: -d "$work/wheel" transformers==4.46.3
  python3 -m zipfile -e "$work"/wheel/transformers-4.46.3-*.whl "$src"
  # Only the package: the check and Ruff see the same Python files.
  rm -rf "$src"/transformers-4.46.3.dist-info
  touch "$src/.complete"
fi
files=$(find -L "$src" -name '*.py' | wc -l)
lines=$(find -L "$src" -name '*.py' -print0 | xargs -0 cat | wc -l)
bytes=$(find -L "$src" -name '*.py' -print0 | xargs -0 cat | wc -c)

# shellcheck source=scripts/timing.sh
. scripts/timing.sh

# Peak resident memory of a command, in MB.
peak_mb() {
  if [ -x /usr/bin/time ]; then
    { /usr/bin/time -v "$@" 2>&1 >/dev/null || true; } |
      awk -F': ' '/Maximum resident set size/ {printf "%d\n", $2 / 1024}'
  else
    # Without GNU time: poll VmHWM of the process while it runs.
    "$@" >/dev/null 2>&1 &
    local pid=$! hwm=0 v
    while kill -0 "$pid" 2>/dev/null; do
      v=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
      [ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
      sleep 0.01
    done
    wait "$pid" || true
    echo $(( hwm / 1024 ))
  fi
}

check=("$bin" --no-cache check "$src" --target "$TARGET" --output-format json)
ruff_ef=("$ruff" check --isolated --no-cache --exit-zero --select E,F "$src")
ruff_default=("$ruff" check --isolated --no-cache --exit-zero "$src")

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(cargo --version); $("$ruff" --version)"
echo "tree: transformers 4.46.3, $files .py files, $lines lines, $bytes bytes"
"${check[@]}" > "$work/check.json" || true
python3 - "$work/check.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(f"check finds: {s['errors']} errors, {s['warnings']} warnings in {s['files']} files "
      f"(targets {', '.join(t['package'] + ' ' + ','.join(t['releases']) for t in s['targets'])})")
EOF

read -r c_best c_med < <(timeit "$RUNS" "${check[@]}")
c_mem=$(peak_mb "${check[@]}")
# User CPU (all threads), median of 3 runs: less sensitive to the machine's load than wall time.
c_user=n/a
if [ -x /usr/bin/time ]; then
  c_user=$(for _ in 1 2 3; do { /usr/bin/time -f '%U' "${check[@]}" 2>&1 >/dev/null || true; } | tail -1; done | sort -n | sed -n 2p)
fi
read -r r_best r_med < <(timeit "$RUNS" "${ruff_ef[@]}")
r_mem=$(peak_mb "${ruff_ef[@]}")
read -r d_best d_med < <(timeit 3 "${ruff_default[@]}")

echo "apicompat check --target $TARGET: best $c_best ms, median $c_med ms over $RUNS runs; peak RSS $c_mem MB; user CPU $c_user s (median of 3)"
echo "ruff check --select E,F:           best $r_best ms, median $r_med ms over $RUNS runs; peak RSS $r_mem MB"
echo "ruff check (default rules):        best $d_best ms, median $d_med ms over 3 runs"
awk -v c="$c_best" -v r="$r_best" -v d="$d_best" 'BEGIN {
  printf "ratio (best of runs): ruff E,F / apicompat check = %.2f; ruff default / apicompat check = %.2f\n", r / c, d / c }'

if [ "${CALLGRIND:-0}" = 1 ]; then
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "${check[@]}" >/dev/null 2>"$work/callgrind.log" || true
  echo "instructions (callgrind, all threads): $(grep -o 'Collected : [0-9]*' "$work/callgrind.log" | awk '{print $3}')"
fi
