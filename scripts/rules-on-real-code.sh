#!/usr/bin/env bash
# Runs AC009 (drifting attributes) and AC010 (copied process groups) on the sources of real
# deep-learning packages from PyPI, each against the torch its metadata requires, and prints
# every finding with the lines of code checked: the measurement behind
# docs/rules-on-real-code.md (whose verdicts are given by hand).
#
#   scripts/rules-on-real-code.sh [WORKDIR]      # default: target/real-code
#
# Needs the network (PyPI) the first time; the downloads are kept in WORKDIR/dl. The release
# files are found and downloaded by `apicompat index fetch --download-to`, which also indexes
# the packages into WORKDIR/cache (so that their own uses are checked too). Set APICOMPAT to
# use another binary.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$ROOT/target/real-code}
BIN=${APICOMPAT:-$ROOT/target/release/apicompat}
if [ ! -x "$BIN" ]; then
    cargo build --release -p apicompat --manifest-path "$ROOT/Cargo.toml"
fi
CACHE=$WORK/cache
mkdir -p "$WORK/dl" "$WORK/src" "$WORK/out"

# package==version | torch the package requires (its metadata) | directories checked |
# other targets. colossalai's own tests and examples are checked as a project that uses
# colossalai 0.4.4 (inside the colossalai tree, colossalai is first-party and not checked).
RUNS=(
    "colossalai==0.4.4|torch>=2.2.0,<=2.4.0|colossalai extensions|"
    "colossalai==0.4.4|torch>=2.2.0,<=2.4.0|tests examples|colossalai==0.4.4"
    "deepspeed==0.15.4|torch|deepspeed|"
    "accelerate==1.1.1|torch>=1.10.0|accelerate|"
    "megatron-core==0.10.0|torch|megatron|"
    "lightning==2.4.0|torch>=2.1.0,<4.0|lightning|"
    "transformers==4.46.3|torch|transformers|"
)

unpack() {
    local file=$1 dest=$2
    [ -d "$dest" ] && return
    mkdir -p "$dest"
    case "$file" in
        *.whl | *.zip) python3 -m zipfile -e "$file" "$dest" ;;
        *.tar.gz) tar xzf "$file" -C "$dest" --strip-components=1 ;;
    esac
}

total_lines=0
printf '%-22s %-24s %8s %6s %6s\n' package paths lines AC009 AC010
for run in "${RUNS[@]}"; do
    IFS='|' read -r spec torch paths extra <<<"$run"
    name=${spec%%==*}
    version=${spec##*==}
    dest=$WORK/src/$name-$version
    if [ ! -d "$dest" ]; then
        "$BIN" --cache-dir "$CACHE" index fetch "$spec" --download-to "$WORK/dl" >/dev/null
        file=$(ls "$WORK"/dl/* | grep -i -E "/${name//-/[-_]}-${version}[-.]" | head -n1)
        unpack "$file" "$dest"
    fi
    args=()
    dirs=()
    for p in $paths; do
        [ -d "$dest/$p" ] && dirs+=("$dest/$p")
    done
    targets=(--target "$torch")
    [ -n "$extra" ] && targets+=(--target "$extra")
    label="$name-${paths// /+}"
    out=$WORK/out/$label.json
    set +e
    "$BIN" --cache-dir "$CACHE" check "${dirs[@]}" --project "${dirs[0]}" "${targets[@]}" \
        --select AC009,AC010 --output-format json >"$out"
    set -e
    lines=$(find "${dirs[@]}" -name '*.py' -print0 | xargs -0 cat | wc -l)
    total_lines=$((total_lines + lines))
    n9=$(python3 -c "import json,sys; print(sum(f['code']=='AC009' for f in json.load(open(sys.argv[1]))['findings']))" "$out")
    n10=$(python3 -c "import json,sys; print(sum(f['code']=='AC010' for f in json.load(open(sys.argv[1]))['findings']))" "$out")
    printf '%-22s %-24s %8s %6s %6s\n' "$spec" "$paths" "$lines" "$n9" "$n10"
done
echo "total lines: $total_lines"
echo
echo "Findings:"
for out in "$WORK"/out/*.json; do
    python3 - "$out" "$WORK/src" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
root = sys.argv[2] + "/"
for f in report["findings"]:
    path = f["display_path"].replace(root, "")
    print(f"- {f['code']} {path}:{f['line']} `{f['symbol']}`: {f['message']}")
EOF
done
