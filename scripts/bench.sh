#!/usr/bin/env bash
# Benchmarks behind the figures in docs/benchmarks.md. Rerun them here:
#
#   scripts/bench.sh          # surface of the torch 2.5.0 wheel, index loading, binary size
#   scripts/bench.sh rebuild  # also: rebuild the whole embedded index from downloaded files
#                             # (downloads every embedded release file, ~2.4 GB)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p apicompat --bin apicompat --example load_index
bin=./target/release/apicompat
work=target/bench
files=$work/files
mkdir -p "$files"

# shellcheck source=scripts/timing.sh
. scripts/timing.sh

# "best B ms, median M ms over N runs" for a command run N times.
report() {
  local n=$1; shift
  timeit "$n" "$@" | awk -v n="$n" '{printf "best %d ms, median %d ms over %d runs\n", $1, $2, n}'
}

echo "machine: $(nproc) cores, $(uname -m); $(cargo --version)"
echo "binary size: $(wc -c < "$bin") bytes"

wheel=$(ls "$files"/torch-2.5.0-*.whl 2>/dev/null | head -n1 || true)
if [ -z "$wheel" ]; then
  "$bin" --cache-dir "$work/cache-dl" index fetch torch==2.5.0 --download-to "$files" >/dev/null 2>&1
  wheel=$(ls "$files"/torch-2.5.0-*.whl | head -n1)
fi
echo "surface of $(basename "$wheel") ($(wc -c < "$wheel") bytes), read + extract:"
echo "  $(report 7 "$bin" index build "$wheel" --package torch --version 2.5.0 --output "$work/surface.json")"

echo "query torch.distributed.pipelining (process start + index load + 30 releases):"
echo "  $(report 11 "$bin" --no-cache query torch.distributed.pipelining)"

echo "index loading:"
./target/release/examples/load_index | sed 's/^/  /'

if [ "${1:-}" = "rebuild" ]; then
  "$bin" --cache-dir "$work/cache-dl" index fetch 'torch>=1.13.0' 'colossalai>=0.3.0' 'torchvision>=0.14.0' --download-to "$files" >/dev/null 2>&1
  rm -rf "$work/cache-rebuild"
  t0=$(date +%s%N)
  "$bin" --cache-dir "$work/cache-rebuild" index build "$files"/torch-*.whl --package torch >/dev/null 2>&1
  "$bin" --cache-dir "$work/cache-rebuild" index build "$files"/colossalai-*.tar.gz --package colossalai >/dev/null 2>&1
  "$bin" --cache-dir "$work/cache-rebuild" index build "$files"/torchvision-*.whl --package torchvision >/dev/null 2>&1
  t1=$(date +%s%N)
  echo "rebuild of the whole embedded index from downloaded files: $(( (t1 - t0) / 1000000 )) ms"
  for p in torch colossalai torchvision; do
    if cmp -s "$work/cache-rebuild/index/$p.apix" "crates/apicompat/index/$p.apix"; then
      echo "  $p.apix: byte-identical to the embedded one"
    else
      echo "  $p.apix: differs from the embedded one"
    fi
  done
fi
