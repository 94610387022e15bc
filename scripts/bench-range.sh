#!/usr/bin/env bash
# `apicompat range` on the sources of transformers 4.46.3 (1,813 files, ~1.0 M lines; every
# indexed torch release is considered), and `apicompat diff` of two torch releases. The figures
# in docs/benchmarks.md ("range and diff") come from here. Rerunnable: the transformers sources
# are shared with scripts/bench-check.sh (target/bench/check/transformers-4.46.3).
#
#   scripts/bench-range.sh                 # 7 runs of each
#   RUNS=15 scripts/bench-range.sh         # more runs (wall times are noisy on a shared machine)
#   CALLGRIND=1 scripts/bench-range.sh     # also count instructions (valgrind; the count does
#                                          # not depend on machine load)
#
# Needs python3 (pip and unzipping); GNU time (`apt-get install time`) for peak memory and CPU
# time.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
work=target/bench/check
src=$work/transformers-4.46.3
mkdir -p "$work"

cargo build --release -q -p apicompat --bin apicompat
bin=./target/release/apicompat

# The same download as scripts/bench-check.sh (the .complete marker says it is whole).
if [ ! -f "$src/.complete" ]; then
  rm -rf "$src" "$work/wheel"
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$work/wheel" transformers==4.46.3
  python3 -m zipfile -e "$work"/wheel/transformers-4.46.3-*.whl "$src"
  rm -rf "$src"/transformers-4.46.3.dist-info
  touch "$src/.complete"
fi
files=$(find "$src" -name '*.py' | wc -l)
lines=$(find "$src" -name '*.py' -print0 | xargs -0 cat | wc -l)

# shellcheck source=scripts/timing.sh
. scripts/timing.sh

# CPU seconds (user + system) and peak resident memory (MB) of one run.
cpu_mem() {
  if [ -x /usr/bin/time ]; then
    { /usr/bin/time -f '%U %S %M' "$@" 2>&1 >/dev/null || true; } | tail -n1 |
      awk '{printf "%.2f s CPU, peak RSS %d MB", $1 + $2, $3 / 1024}'
  else
    echo "(GNU time not installed)"
  fi
}

# `--project` keeps the requirements of this checkout out of it (the tree has none of its own).
range=("$bin" --no-cache range "$src" --project "$src" --output-format json)
diff_json=("$bin" --no-cache diff torch 2.4.1 2.5.0 --output-format json)
diff_text=("$bin" --no-cache diff torch 2.4.1 2.5.0)
diff_used=("$bin" --no-cache diff torch 2.4.1 2.5.0 --used-by "$src")

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(cargo --version)"
echo "tree: transformers 4.46.3, $files .py files, $lines lines"
"${range[@]}" > "$work/range.json" || true
python3 - "$work/range.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["packages"]:
    print(f"range finds: {p['package']}: {p['uses']['total']} uses, {p['uses']['counted']} counted, "
          f"{p['uses']['restricting']} restricting, needs {p['needs']['ranges'] or 'no release'} "
          f"over {len(p['releases'])} releases")
EOF
"${diff_json[@]}" > "$work/diff.json"
python3 - "$work/diff.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"diff torch 2.4.1 2.5.0: {len(d['added'])} added, {len(d['removed'])} removed, "
      f"{len(d['moved'])} moved, {len(d['signatures'])} signatures, {len(d['deprecated'])} deprecated")
EOF

read -r r_best r_med < <(timeit "$RUNS" "${range[@]}")
echo "apicompat range (transformers, every torch release): best $r_best ms, median $r_med ms over $RUNS runs; $(cpu_mem "${range[@]}")"
read -r d_best d_med < <(timeit "$RUNS" "${diff_json[@]}")
echo "apicompat diff torch 2.4.1 2.5.0 (json):             best $d_best ms, median $d_med ms over $RUNS runs; $(cpu_mem "${diff_json[@]}")"
read -r t_best t_med < <(timeit "$RUNS" "${diff_text[@]}")
echo "apicompat diff torch 2.4.1 2.5.0 (text):             best $t_best ms, median $t_med ms over $RUNS runs"
read -r u_best u_med < <(timeit 3 "${diff_used[@]}")
echo "apicompat diff ... --used-by transformers:           best $u_best ms, median $u_med ms over 3 runs"

if [ "${CALLGRIND:-0}" = 1 ]; then
  for name in range diff_json; do
    declare -n cmd=$name
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind-$name.out" "${cmd[@]}" >/dev/null 2>"$work/callgrind-$name.log" || true
    echo "instructions of $name (callgrind, all threads): $(grep -o 'Collected : [0-9]*' "$work/callgrind-$name.log" | awk '{print $3}')"
  done
fi
