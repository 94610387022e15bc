#!/usr/bin/env bash
# Runs every cargo-fuzz target (fuzz/fuzz_targets/) for a fixed time each and prints the
# executions each reached. Usage: scripts/fuzz.sh [SECONDS per target, default 60] [TARGET...]
# Needs the nightly toolchain and cargo-fuzz; without them it says so and exits 0 (the stable
# replay test, `cargo test -p apicompat_fuzz`, runs the same bodies over the seed corpus).
# One process, one job at a time. New corpus entries go to fuzz/corpus/<target>/ (not
# committed), crashes to fuzz/artifacts/<target>/; exits 1 when a target crashed.
set -uo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(check_file requirements project_files archive index)
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: skipped: cargo +nightly fuzz is not available (rustup toolchain install nightly;" \
        "cargo install cargo-fuzz). The stable replay test covers the seed corpus: cargo test -p apicompat_fuzz"
    exit 0
fi
# Pure Rust: no sanitizer (twice the speed); debug assertions on, so overflows panic as in a
# debug build.
flags=(-s none -a)
if ! cargo +nightly fuzz build "${flags[@]}" >/tmp/apicompat-fuzz-build.log 2>&1; then
    tail -30 /tmp/apicompat-fuzz-build.log
    echo "fuzz.sh: the fuzz targets do not build"
    exit 1
fi
max_len() {
    case "$1" in
        requirements) echo 4096 ;;
        project_files | index) echo 8192 ;;
        *) echo 16384 ;;
    esac
}
status=0
summary=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    log="fuzz/artifacts/$t.log"
    echo "== $t: ${secs}s"
    cargo +nightly fuzz run "${flags[@]}" "$t" "fuzz/corpus/$t" "crates/apicompat_fuzz/seeds/$t" -- \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
        -print_final_stats=1 >"$log" 2>&1
    rc=$?
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    if [ -z "$execs" ]; then
        execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    fi
    took=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*')
    if [ "$rc" -eq 0 ]; then
        summary+=("$(printf '%-14s %12s executions in %4ss  ok' "$t" "${execs:-?}" "${took:-$secs}")")
    else
        status=1
        artifact=$(grep -o 'Test unit written to [^ ]*' "$log" | tail -1 | sed 's/Test unit written to //')
        grep -m1 -E 'panicked at|ERROR: libFuzzer|stack-overflow|deadly signal' "$log"
        summary+=("$(printf '%-14s %12s executions  CRASH: %s (log %s)' "$t" "${execs:-?}" "${artifact:-?}" "$log")")
    fi
done
echo
printf '%s\n' "${summary[@]}"
exit "$status"
