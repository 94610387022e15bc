#!/usr/bin/env bash
# Before/after of the adoption changes (docs/adoption.md) on real projects.
# Usage: scripts/adoption.sh BEFORE_BIN AFTER_BIN [PROJECT_DIR...]
# (default projects: /tmp/real/{nanoGPT,DiT,torchtitan,Open-Sora,litgpt,accelerate,Megatron-LM})
set -euo pipefail
before=$1 after=$2; shift 2
projects=("$@")
[ ${#projects[@]} -gt 0 ] || projects=(/tmp/real/{nanoGPT,DiT,torchtitan,Open-Sora,litgpt,accelerate,Megatron-LM})
out=$(mktemp -d)
for p in "${projects[@]}"; do
  n=$(basename "$p")
  (cd "$p" && "$before" --no-cache check --output-format json > "$out/$n.before.json" 2>/dev/null || true)
  (cd "$p" && "$after" --no-cache check --output-format json > "$out/$n.after.json" 2>/dev/null || true)
  (cd "$p" && "$after" --no-cache check --select AC004 --output-format json > "$out/$n.ac004.json" 2>/dev/null || true)
  python3 - "$out" "$n" <<'PY'
import json, sys, collections
out, n = sys.argv[1], sys.argv[2]
b = json.load(open(f"{out}/{n}.before.json")); a = json.load(open(f"{out}/{n}.after.json"))
s = json.load(open(f"{out}/{n}.ac004.json"))
before = {f["symbol"] for f in b["findings"] if f["code"] == "AC004"}
selected = {f["symbol"] for f in s["findings"] if f["code"] == "AC004"}
targets = lambda r: [(t["package"], len(t["releases"])) for t in r["summary"]["targets"]]
count = lambda r: dict(sorted(collections.Counter(f["code"] for f in r["findings"]).items()))
print(f"{n}: files {b['summary']['files']} -> {a['summary']['files']}; "
      f"AC004 before {len(before)}, after (notes) {sum('not in the index' in x for x in a['summary']['notes'])} note, "
      f"--select AC004 {len(selected)}; only before {sorted(before - selected)}, only after {sorted(selected - before)}; "
      f"targets {targets(b)} -> {targets(a)}")
print(f"  findings before {count(b)}\n  findings after  {count(a)}")
PY
done
rm -rf "$out"
