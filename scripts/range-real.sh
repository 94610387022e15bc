#!/usr/bin/env bash
# Before/after of `range` (docs/adoption.md, "range before and after") and of check's fix
# texts on real projects: the recommendation, scopes named apart, blocking uses, wall time.
# Usage: scripts/range-real.sh BEFORE_BIN AFTER_BIN [PROJECT_DIR...]
# (default projects: /tmp/real/{nanoGPT,DiT,litgpt,torchtitan,accelerate,diffusers,Open-Sora,Megatron-LM})
set -euo pipefail
before=$1 after=$2; shift 2
projects=("$@")
[ ${#projects[@]} -gt 0 ] || projects=(/tmp/real/{nanoGPT,DiT,litgpt,torchtitan,accelerate,diffusers,Open-Sora,Megatron-LM})
out=$(mktemp -d)
for p in "${projects[@]}"; do
  n=$(basename "$p")
  for side in before after; do
    bin=$before; [ "$side" = after ] && bin=$after
    start=$(date +%s.%N)
    (cd "$p" && "$bin" --no-cache range --output-format json > "$out/$n.$side.json" 2>/dev/null || true)
    end=$(date +%s.%N)
    echo "$end - $start" | bc > "$out/$n.$side.time"
    (cd "$p" && "$bin" --no-cache check --output-format json > "$out/$n.$side.check.json" 2>/dev/null || true)
  done
  python3 - "$out" "$n" <<'PY'
import json, sys
out, n = sys.argv[1], sys.argv[2]
b = json.load(open(f"{out}/{n}.before.json")); a = json.load(open(f"{out}/{n}.after.json"))
tb = open(f"{out}/{n}.before.time").read().strip(); ta = open(f"{out}/{n}.after.time").read().strip()
print(f"== {n}: main scope {a.get('main_scope')} ({a.get('package_source')}); range {tb} s -> {ta} s")
print(f"  before possible={b['joint']['possible']} recommended={b['recommended']}")
print(f"  after  possible={a['joint']['possible']} exact={a['joint'].get('exact')} recommended={a['recommended']}")
if a.get("recommended_after_fixes"):
    print(f"  once the blocking uses are fixed: {a['recommended_after_fixes']}")
for p in a["packages"]:
    if p.get("blocking"):
        b_ = p["blocking"]
        print(f"  blocking {p['package']} {b_['release']}: " + "; ".join(f"{u['symbol']} at {u['path']}:{u['line']}" for u in b_["uses"]))
    for s in p.get("scopes", []):
        if s["narrower"]:
            print(f"  {s['scope']} need {p['package']} {s['needs']['ranges']}: " + "; ".join(s["fixes"][:2]))
    if not p.get("in_main", True):
        print(f"  not imported by the main scope: {p['package']}")
cb = json.load(open(f"{out}/{n}.before.check.json")); ca = json.load(open(f"{out}/{n}.after.check.json"))
key = lambda f: (f["code"], f["path"], f["line"], f["column"], f["symbol"])
db = {key(f): f for f in cb["findings"]}; da = {key(f): f for f in ca["findings"]}
changed = sum(1 for k in db if k in da and [x["message"] for x in db[k]["fixes"]] != [x["message"] for x in da[k]["fixes"]])
print(f"  check: findings {len(db)} -> {len(da)} (new {len(set(da) - set(db))}, gone {len(set(db) - set(da))}), fix texts changed {changed}")
PY
done
