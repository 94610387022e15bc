#!/usr/bin/env bash
# Runs `apicompat --no-cache check --output-format json` on every regression tree of
# scripts/regress-trees.txt, one tree at a time, as the false-alarm studies ran them.
#
#   scripts/regress.sh BIN OUTDIR [TREES_DIR]      # TREES_DIR default: /tmp/trees
#
#   BIN        the apicompat binary to test (its data file apicompat-stack.apid beside it)
#   OUTDIR     where the results go (created; earlier results of the same key are overwritten):
#                OUTDIR/KEY.json     standard output of the run (the JSON report)
#                OUTDIR/KEY.err      standard error
#                OUTDIR/summary.tsv  one row a tree: key, exit code, wall seconds, errors,
#                                    warnings, files, and a status: ok (exit 0 or 1), no-tree,
#                                    bad-json, timeout, exit-N (N > 1: a crash or usage
#                                    error), commit-mismatch (the tree's .commit differs)
#                OUTDIR/meta.txt     the binary (path, size, sha256, --version), the list and
#                                    the trees directory used, the date
#   TREES_DIR  the extracted trees, TREES_DIR/owner+name (scripts/regress-fetch.md,
#              scripts/regress-extract.py)
#
# Environment: REGRESS_TREES (the list; default regress-trees.txt beside this script),
# REGRESS_TIMEOUT (seconds a tree may take, default 600), REGRESS_ONLY (a grep -E pattern:
# only the keys it matches).
#
# KEY is owner+name, then @subdir ('/' as '+') when the line names a subdir, then #ARGS (every
# run of characters outside [A-Za-z0-9.] as '_') when it has options after `--`.
# One failing tree never stops the run. Exit code 0 once every line was tried. Then compare
# two OUTDIRs with scripts/regress-compare.py A B.
set -uo pipefail

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$1
case $BIN in /*) ;; *) BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") ;; esac
OUT=$2
TREES=${3:-/tmp/trees}
LIST=${REGRESS_TREES:-$HERE/regress-trees.txt}
TIMEOUT=${REGRESS_TIMEOUT:-600}
ONLY=${REGRESS_ONLY:-}
[ -x "$BIN" ] || { echo "regress.sh: $BIN is not an executable" >&2; exit 2; }
[ -f "$LIST" ] || { echo "regress.sh: no list $LIST" >&2; exit 2; }
[ -d "$TREES" ] || { echo "regress.sh: no trees directory $TREES" >&2; exit 2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export NO_COLOR=1

{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "bin: $BIN ($(stat -c %s "$BIN") bytes, sha256 $(sha256sum "$BIN" | cut -c1-64))"
    echo "version: $("$BIN" --version 2>&1)"
    echo "list: $LIST (sha256 $(sha256sum "$LIST" | cut -c1-64))"
    echo "trees: $TREES"
    echo "command: cd TREES/owner+name[/subdir] && BIN --no-cache check --output-format json [ARGS]"
} > "$OUT/meta.txt"

# errors, warnings, files of a JSON report, or "- - -" when it is not one.
counts() {
    python3 - "$1" <<'EOF' 2>/dev/null || echo "- - -"
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["errors"], s["warnings"], s["files"])
EOF
}

printf 'key\texit\tseconds\terrors\twarnings\tfiles\tstatus\n' > "$OUT/summary.tsv"
declare -A seen=()
n=0 total_start=$(date +%s.%N)
while IFS= read -r raw || [ -n "$raw" ]; do
    line=${raw%%#*}
    read -r -a f <<< "$line"
    [ ${#f[@]} -eq 0 ] && continue
    repo=${f[0]} commit=${f[1]:-} sub= args=()
    rest=("${f[@]:2}")
    if [ ${#rest[@]} -gt 0 ] && [ "${rest[0]}" != "--" ]; then
        sub=${rest[0]}
        rest=("${rest[@]:1}")
    fi
    [ "$sub" = "." ] && sub=
    if [ ${#rest[@]} -gt 0 ]; then
        if [ "${rest[0]}" != "--" ]; then
            echo "regress.sh: cannot read line: $raw" >&2
            continue
        fi
        args=("${rest[@]:1}")
    fi
    key=${repo/\//+}
    [ -n "$sub" ] && key+="@${sub//\//+}"
    if [ ${#args[@]} -gt 0 ]; then
        a=$(printf '%s ' "${args[@]}" | sed -E 's/[^A-Za-z0-9.]+/_/g; s/^_+//; s/_+$//')
        key+="#$a"
    fi
    if [ -n "${seen[$key]:-}" ]; then
        echo "regress.sh: duplicate key $key (line: $raw); skipped" >&2
        continue
    fi
    seen[$key]=1
    if [ -n "$ONLY" ] && ! grep -qE -- "$ONLY" <<< "$key"; then
        continue
    fi
    n=$((n + 1))
    dir=$TREES/${repo/\//+}${sub:+/$sub}
    status=ok
    if [ ! -d "$dir" ]; then
        printf '%s\t-\t-\t-\t-\t-\tno-tree\n' "$key" >> "$OUT/summary.tsv"
        echo "regress.sh: $key: no tree at $dir" >&2
        : > "$OUT/$key.json"
        echo "no tree at $dir" > "$OUT/$key.err"
        continue
    fi
    # The commit the tree was extracted at (regress-extract.py writes it), when known.
    cfile=$TREES/${repo/\//+}.commit
    if [ -f "$cfile" ] && [ -n "$commit" ] && [ "$(cut -c1-40 "$cfile")" != "$commit" ]; then
        status=commit-mismatch
    fi
    start=$(date +%s.%N)
    (cd "$dir" && exec timeout "$TIMEOUT" "$BIN" --no-cache check --output-format json "${args[@]}") \
        > "$OUT/$key.json" 2> "$OUT/$key.err"
    rc=$?
    end=$(date +%s.%N)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    read -r errs warns files <<< "$(counts "$OUT/$key.json")"
    if [ "$rc" -eq 124 ]; then
        status=timeout
    elif [ "$rc" -gt 1 ]; then
        status=exit-$rc
    elif [ "$errs" = "-" ] && [ "$status" = ok ]; then
        status=bad-json
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$rc" "$secs" "$errs" "$warns" "$files" "$status" \
        >> "$OUT/summary.tsv"
    printf '%-60s exit %-3s %7ss  %5s errors %5s warnings  %s\n' "$key" "$rc" "$secs" "$errs" "$warns" "$status" >&2
done < "$LIST"
total_end=$(date +%s.%N)
awk -F'\t' -v n="$n" -v t0="$total_start" -v t1="$total_end" '
    NR > 1 { if ($4 != "-") { e += $4; w += $5 } ; if ($3 != "-") s += $3
             if ($7 != "ok") bad++ }
    END { printf "%d trees, %d errors, %d warnings, %.1f s in check (%.1f s wall), %d not ok\n",
                 n, e, w, s, t1 - t0, bad }' "$OUT/summary.tsv" | tee "$OUT/totals.txt" >&2
exit 0
