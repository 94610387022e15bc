#!/usr/bin/env bash
# Regenerates the package indexes embedded in the binary (crates/apicompat/index/*.apix)
# from scratch: every release is downloaded from the package index, extracted and merged.
# Running it twice gives byte-identical files.
#
#   scripts/build-index.sh            # torch >= 1.13.0, colossalai >= 0.3.0, torchvision >= 0.14.0,
#                                     # numpy >= 1.21.0, python 3.8 - 3.14 (typeshed), and the
#                                     # training stack: the releases in scripts/stack-releases.txt
#                                     # (transformers, accelerate, diffusers, peft, safetensors,
#                                     # huggingface_hub, einops, timm embedded; deepspeed, datasets,
#                                     # triton, xformers, lightning, pytorch-lightning,
#                                     # megatron-core packed into the data file
#                                     # crates/apicompat/wheel-data/scripts/apicompat-stack.apid;
#                                     # regenerate the list with scripts/stack_releases.py),
#                                     # and the table of what the distributions of
#                                     # scripts/requirements-table.txt require
#                                     # (crates/apicompat/index/requirements.apir)
#   scripts/build-index.sh 'torchvision>=0.14'   # other specs instead
set -euo pipefail
cd "$(dirname "$0")/.."
# The typeshed copy the `python` index comes from.
MYPY_VERSION=2.4.1
# The window of releases in the table of requirements (uploaded on or after FROM, before UNTIL).
REQUIREMENTS_FROM=2017-01-01
REQUIREMENTS_UNTIL=2026-12-01
specs=("$@")
if [ ${#specs[@]} -eq 0 ]; then
  specs=('torch>=1.13.0' 'colossalai>=0.3.0' 'torchvision>=0.14.0' 'numpy>=1.21.0')
  # The training stack: exact releases (the newest patch of each minor series).
  while read -r spec; do specs+=("$spec"); done < scripts/stack-releases.txt
fi
cargo build --release -q -p apicompat
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin="${CARGO_TARGET_DIR:-target}/release/apicompat"
"$bin" --cache-dir "$work" index fetch "${specs[@]}"
# Python itself (package `python`, releases 3.8 - 3.14): typeshed's stdlib stubs from the mypy
# wheel (MYPY_WHEEL=path to use a downloaded one), one tree per version by stdlib/VERSIONS.
if [ "$#" -eq 0 ]; then
  wheel=${MYPY_WHEEL:-}
  if [ -z "$wheel" ]; then
    pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux2014_x86_64 "mypy==$MYPY_VERSION" -d "$work/mypy"
    wheel=$(ls "$work"/mypy/mypy-*.whl)
  fi
  python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); [z.extract(n, sys.argv[2]) for n in z.namelist() if n.startswith("mypy/typeshed/stdlib/")]' "$wheel" "$work/typeshed"
  python3 scripts/gen_python_trees.py "$work/typeshed/mypy/typeshed/stdlib" "$work/python"
  for dir in "$work"/python/*; do
    "$bin" --cache-dir "$work" index build "$dir" --package python --version "$(basename "$dir")"
  done
fi
# The packages shipped in the data file beside the binary instead of inside it (README, "The
# data file"): triton's wheels are read with HTTP Range requests (sources only).
DATA_PACKAGES="deepspeed datasets triton xformers lightning pytorch-lightning megatron-core"
mkdir -p crates/apicompat/index
packed=()
for f in "$work"/index/*.apix; do
  name=$(basename "$f" .apix)
  if [[ " $DATA_PACKAGES " == *" $name "* ]]; then
    packed+=("$f")
    [ "$#" -eq 0 ] && continue
    echo "note: $name belongs in the data file; run without arguments to repack it" >&2
    continue
  fi
  cp "$f" "crates/apicompat/index/$name.apix"
  echo "wrote crates/apicompat/index/$name.apix ($(wc -c < "$f") bytes)"
done
if [ "$#" -eq 0 ] && [ ${#packed[@]} -gt 0 ]; then
  mkdir -p crates/apicompat/wheel-data/scripts
  "$bin" index pack "${packed[@]}" --output crates/apicompat/wheel-data/scripts/apicompat-stack.apid
fi
# The Pythons each binary-only release has wheels for, from the package index's file lists
# (`index fetch` records them already; indexes built from local files need this step, and
# running it again on these files changes nothing).
written=(crates/apicompat/index/*.apix)
[ "$#" -eq 0 ] && written+=(crates/apicompat/wheel-data/scripts/apicompat-stack.apid)
"$bin" index wheels "${written[@]}"
# What the releases of packages without a surface require (scripts/requirements-table.txt):
# their Requires-Dist, Requires-Python and wheels, embedded as index/requirements.apir.
if [ "$#" -eq 0 ]; then
  mapfile -t table < <(grep -v '^#' scripts/requirements-table.txt)
  "$bin" --cache-dir "$work" index requirements "${table[@]}" \
    --from "$REQUIREMENTS_FROM" --until "$REQUIREMENTS_UNTIL" \
    --output crates/apicompat/index/requirements.apir
fi
