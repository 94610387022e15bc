#!/usr/bin/env bash
# CPU time of `index build` for one wheel with two builds, alternating, N runs each
# (user seconds are steadier than wall time on a shared machine).
#
#   scripts/bench-extract-cpu.sh BEFORE_BIN AFTER_BIN WHEEL [N]
set -euo pipefail
before=$1 after=$2 wheel=$3 n=${4:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for _ in $(seq "$n"); do
  for bin in "$before" "$after"; do
    /usr/bin/time -f "$bin %e s wall %U s user" "$bin" --no-cache index build "$wheel" \
      --package torch --output "$out/surface.json" 2>&1 >/dev/null | tail -n1
  done
done
