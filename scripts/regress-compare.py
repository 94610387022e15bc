#!/usr/bin/env python3
"""Differences between two runs of scripts/regress.sh (two OUTDIRs), tree by tree.

Usage: scripts/regress-compare.py [--errors-only] [--summary-only] [--notes] [--width N] A B

For every tree (KEY.json in A or B) prints the findings only in A ("-"), only in B ("+") and
those on both sides whose severity, column, releases, message or reach changed ("~" for A,
">" for B), each as `severity code file:line:column symbol | releases | message`, then a count
summary.

Findings are matched by (code, file, line, symbol), whatever their order in the report; several
findings under one such key (the same name used twice on a line) are paired first where they
are identical, then by column. "releases" is missing_ranges (where an error breaks), or
present_ranges for findings that have none (deprecations, private API). The targets of the run
(summary.targets: the releases checked per package) are compared too; --notes also compares the
notes. A tree with no JSON report on one side (crash, timeout, no tree) gets one "!" line.
Finding lines are cut at --width characters (220; 0 never cuts).

Exit code: 0 when no finding, target or note differs; 1 otherwise; 2 on bad usage.
"""
import argparse
import collections
import csv
import json
import os
import sys


def load(path):
    """The JSON report, or None when the run left none (crash, no tree)."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def rel(x):
    p = x.get("display_path") or x.get("path", "")
    return p[2:] if p.startswith("./") else p


def releases(x):
    if x.get("missing_ranges"):
        return ", ".join(x["missing_ranges"])
    if x.get("present_ranges"):
        return "present " + ", ".join(x["present_ranges"])
    return ""


def record(x):
    """What is compared of one finding besides its key."""
    return (x.get("severity", ""), x.get("column", 0), releases(x), x.get("message", ""),
            x.get("reach", ""))


def by_key(report):
    out = collections.defaultdict(list)
    for x in report.get("findings", []) if report else []:
        out[(x["code"], rel(x), x.get("line", 0), x.get("symbol", ""))].append(record(x))
    return out


WIDTH = 220


def show(sign, key, rec, with_reach=False):
    width = WIDTH
    code, path, line, symbol = key
    sev, col, rng, msg, reach = rec
    text = f"  {sign} {sev} {code} {path}:{line}:{col} {symbol} | {rng} | "
    text += f"reach {reach} | {msg}" if with_reach else msg
    return text if width <= 0 or len(text) <= width else text[: width - 3] + "..."


def pair(a, b):
    """Pairs two lists of records of one key: identical first, then by column, then in order.
    Returns (only_a, only_b, changed pairs)."""
    a, b = list(a), list(b)
    for r in list(a):
        if r in b:
            a.remove(r)
            b.remove(r)
    changed = []
    for r in list(a):
        same_col = [s for s in b if s[1] == r[1]]
        if same_col:
            a.remove(r)
            b.remove(same_col[0])
            changed.append((r, same_col[0]))
    while a and b:
        changed.append((a.pop(0), b.pop(0)))
    return a, b, changed


def targets(report):
    out = {}
    for t in (report or {}).get("summary", {}).get("targets", []):
        out[t.get("package")] = (t.get("releases") or [], t.get("description", ""))
    return out


def span(rs):
    return f"{rs[0]} - {rs[-1]} ({len(rs)})" if len(rs) > 1 else (rs[0] if rs else "none")


def summary_rows(outdir):
    rows = {}
    path = os.path.join(outdir, "summary.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for r in csv.DictReader(f, delimiter="\t"):
                rows[r["key"]] = r
    return rows


def main():
    ap = argparse.ArgumentParser(description="Differences between two regress.sh OUTDIRs.")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--errors-only", action="store_true", help="ignore warnings and infos")
    ap.add_argument("--summary-only", action="store_true", help="print only the per-tree counts")
    ap.add_argument("--notes", action="store_true", help="also compare the notes")
    ap.add_argument("--width", type=int, default=220,
                    help="cut finding lines to this many characters (0: never)")
    o = ap.parse_args()
    global WIDTH
    WIDTH = o.width
    for d in (o.a, o.b):
        if not os.path.isdir(d):
            print(f"regress-compare: {d} is not a directory", file=sys.stderr)
            sys.exit(2)
    sa, sb = summary_rows(o.a), summary_rows(o.b)
    keys = sorted({f[:-5] for d in (o.a, o.b) for f in os.listdir(d) if f.endswith(".json")})
    tot = collections.Counter()
    differing = []
    for key in keys:
        ra, rb = load(os.path.join(o.a, key + ".json")), load(os.path.join(o.b, key + ".json"))
        lines = []
        if ra is None or rb is None:
            for side, r, s in (("A", ra, sa), ("B", rb, sb)):
                if r is None:
                    ex = s.get(key, {}).get("exit", "?")
                    lines.append(f"  ! no JSON report in {side} (exit {ex}, status "
                                 f"{s.get(key, {}).get('status', 'not run')})")
                    tot["missing_" + side] += 1
        for side, r in (("A", ra), ("B", rb)):
            if r is not None:
                tot["errors_" + side] += r["summary"].get("errors", 0)
                tot["warnings_" + side] += r["summary"].get("warnings", 0)
        # A run with no report on one side: only the "!" line, no finding listed.
        ka, kb = (by_key(ra), by_key(rb)) if ra is not None and rb is not None else ({}, {})
        counts = collections.Counter()
        for k in sorted(set(ka) | set(kb), key=lambda k: (k[1], k[2], k[0], k[3])):
            la, lb = ka.get(k, []), kb.get(k, [])
            if o.errors_only:
                la = [r for r in la if r[0] == "error"]
                lb = [r for r in lb if r[0] == "error"]
            only_a, only_b, changed = pair(la, lb)
            for r in only_a:
                lines.append(show("-", k, r))
                counts["only_a_" + r[0]] += 1
            for r in only_b:
                lines.append(show("+", k, r))
                counts["only_b_" + r[0]] += 1
            for x, y in changed:
                r = x[4] != y[4]
                lines.append(show("~", k, x, with_reach=r))
                lines.append(show(">", k, y, with_reach=r))
                counts["changed"] += 1
        if ra is not None and rb is not None:
            ta, tb = targets(ra), targets(rb)
            for pkg in sorted(set(ta) | set(tb), key=str):
                if ta.get(pkg, ([], ""))[0] != tb.get(pkg, ([], ""))[0]:
                    lines.append(f"  t target {pkg}: {span(ta.get(pkg, ([], ''))[0])} -> "
                                 f"{span(tb.get(pkg, ([], ''))[0])}")
                    counts["targets"] += 1
            if o.notes:
                na = set(ra["summary"].get("notes", []))
                nb = set(rb["summary"].get("notes", []))
                for n in sorted(na - nb):
                    lines.append(f"  n- {n[:200]}")
                    counts["notes"] += 1
                for n in sorted(nb - na):
                    lines.append(f"  n+ {n[:200]}")
                    counts["notes"] += 1
        tot.update(counts)
        if lines:
            differing.append(key)
            ea = ra["summary"]["errors"] if ra else "-"
            eb = rb["summary"]["errors"] if rb else "-"
            wa = ra["summary"]["warnings"] if ra else "-"
            wb = rb["summary"]["warnings"] if rb else "-"
            print(f"== {key}: errors {ea} -> {eb}, warnings {wa} -> {wb}; "
                  f"only A {sum(v for c, v in counts.items() if c.startswith('only_a'))}, "
                  f"only B {sum(v for c, v in counts.items() if c.startswith('only_b'))}, "
                  f"changed {counts['changed']}")
            if not o.summary_only:
                print("\n".join(lines))
    print()
    print(f"trees: {len(keys)} compared, {len(differing)} differ"
          + (f" ({', '.join(differing[:12])}{', ...' if len(differing) > 12 else ''})"
             if differing else ""))
    print(f"totals: A {tot['errors_A']} errors, {tot['warnings_A']} warnings; "
          f"B {tot['errors_B']} errors, {tot['warnings_B']} warnings")
    print(f"only in A: {tot['only_a_error']} errors, {tot['only_a_warning']} warnings"
          f"{', %d infos' % tot['only_a_info'] if tot['only_a_info'] else ''}; "
          f"only in B: {tot['only_b_error']} errors, {tot['only_b_warning']} warnings"
          f"{', %d infos' % tot['only_b_info'] if tot['only_b_info'] else ''}; "
          f"changed: {tot['changed']}; target changes: {tot['targets']}"
          + (f"; note changes: {tot['notes']}" if o.notes else ""))
    if tot["missing_A"] or tot["missing_B"]:
        print(f"no JSON report: {tot['missing_A']} in A, {tot['missing_B']} in B")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
