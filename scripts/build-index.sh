#!/usr/bin/env bash
# Regenerates the package indexes embedded in the binary (crates/apicompat/index/*.apix)
# from scratch: every release is downloaded from the package index, extracted and merged.
# Running it twice gives byte-identical files.
#
#   scripts/build-index.sh            # torch >= 1.13.0, colossalai >= 0.3.0, torchvision >= 0.14.0,
#                                     # numpy >= 1.21.0
#   scripts/build-index.sh 'torchvision>=0.14'   # other specs instead
set -euo pipefail
cd "$(dirname "$0")/.."
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  specs=('torch>=1.13.0' 'colossalai>=0.3.0' 'torchvision>=0.14.0' 'numpy>=1.21.0')
fi
cargo build --release -q -p apicompat
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
./target/release/apicompat --cache-dir "$work" index fetch "${specs[@]}"
mkdir -p crates/apicompat/index
for f in "$work"/index/*.apix; do
  cp "$f" "crates/apicompat/index/$(basename "$f")"
  echo "wrote crates/apicompat/index/$(basename "$f") ($(wc -c < "$f") bytes)"
done
