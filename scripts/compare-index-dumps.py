#!/usr/bin/env python3
"""Compares two dumps of index files, every path of every release decoded.

    cargo build --release -p apicompat_index --example index_dump
    target/release/examples/index_dump OLD/*.apix OLD/apicompat-stack.apid > before.tsv
    target/release/examples/index_dump crates/apicompat/index/*.apix \
        crates/apicompat/wheel-data/scripts/apicompat-stack.apid > after.tsv
    scripts/compare-index-dumps.py before.tsv after.tsv

Both dumps list the same files in the same order (package, release number, version, path,
symbol as JSON; by package, path, release). Prints per package the path-releases that are the
same, added, removed or changed, which fields changed (path-releases and distinct paths), and
each changed path with its releases and the change. A streaming merge: memory stays small.
"""
import sys, json, collections

def rows(fn):
    order = {}
    with open(fn, 'rb') as f:
        for line in f:
            pkg, rel, ver, path, js = line.rstrip(b'\n').split(b'\t', 4)
            if pkg not in order:
                order[pkg] = len(order)
            yield (order[pkg], path, int(rel)), (pkg.decode(), ver.decode(), path.decode(), js)

a, b = rows(sys.argv[1]), rows(sys.argv[2])
stats = collections.defaultdict(collections.Counter)
examples = collections.defaultdict(list)
fields = collections.defaultdict(collections.Counter)
field_paths = collections.defaultdict(set)
def note(pkg, what, item):
    stats[pkg][what] += 1
    if len(examples[(pkg, what)]) < 40:
        examples[(pkg, what)].append(item)
ra, rb = next(a, None), next(b, None)
total = 0
while ra or rb:
    total += 1
    if rb is None or (ra and ra[0] < rb[0]):
        pkg, ver, path, _ = ra[1]; note(pkg, 'removed', f'{ver} {path}'); ra = next(a, None); continue
    if ra is None or rb[0] < ra[0]:
        pkg, ver, path, _ = rb[1]; note(pkg, 'added', f'{ver} {path}'); rb = next(b, None); continue
    pkg, ver, path, ja = ra[1]; jb = rb[1][3]
    if ja != jb:
        da, db = json.loads(ja), json.loads(jb)
        changed = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
        key = ','.join(changed)
        fields[pkg][key] += 1
        field_paths[(pkg, key)].add(path)
        stats[pkg]['changed'] += 1
        ex = examples[(pkg, key)]
        desc = ' '.join(f'{k}: {da.get(k)!r} -> {db.get(k)!r}' for k in changed)
        if not ex or ex[-1][0] != path or ex[-1][2] != desc:
            ex.append([path, [ver], desc])
        else:
            ex[-1][1].append(ver)
    else:
        stats[pkg]['same'] += 1
    ra, rb = next(a, None), next(b, None)
for pkg in stats:
    print(pkg, dict(stats[pkg]))
    for k, n in fields[pkg].most_common():
        print(f'   fields {k}: {n} path-releases, {len(field_paths[(pkg, k)])} paths')
    for what in ('removed', 'added'):
        for e in examples[(pkg, what)]:
            print(f'   {what}: {e}')
    for k in fields[pkg]:
        for path, vers, desc in examples[(pkg, k)]:
            r = vers[0] if len(vers) == 1 else f'{vers[0]} - {vers[-1]} ({len(vers)})'
            print(f'   changed {path} [{r}] {desc}')
