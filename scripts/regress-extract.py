#!/usr/bin/env python3
"""Extract the regression trees of scripts/regress-trees.txt from bare git mirrors.

Usage: scripts/regress-extract.py [--mirrors DIR] [--trees DIR] [--list FILE] [--force]

  --mirrors  where the bare mirrors are (default /work/.mirror): the mirror of owner/name is
             DIR/owner+name/repo (the layout the session tool `fetch github:owner/name` leaves)
  --trees    where the trees go (default /tmp/trees): TREES/owner+name
  --list     the list of trees (default: regress-trees.txt beside this script)
  --force    extract again over a tree that is already there

How the mirrors are obtained is in scripts/regress-fetch.md (the `fetch` tool of a session;
this script never touches the network). Each distinct repository is extracted once, at the
commit of its line (lines that only differ in subdir or options share the tree).

A tree is `git archive COMMIT | tar -x`, as in the false-alarm studies. Some mirrors lack the
blobs of a few large files (images, notebooks, data), and `git archive` stops at the first
missing blob (a plain `git archive | tar` pipe hides that, and leaves a truncated tree). Then the
tree is rebuilt file by file from `git ls-tree -r` + `git cat-file --batch`, and the paths whose
blobs are absent are written to TREES/owner+name.missing. When the recorded commit itself is
absent from the mirror, the mirror's HEAD is used and TREES/owner+name.commit says so.

Prints one line per repository: key, commit used, how (archive / by-file N missing / skipped),
and exits 1 if any repository could not be extracted at all.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def parse_list(path):
    """(repo, commit) pairs of the list, first commit per repo; warns on a repo listed with
    two different commits (one tree per repo)."""
    seen = {}
    for n, raw in enumerate(open(path), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) < 2:
            sys.exit(f"{path}:{n}: expected `owner/name commit [subdir] [-- ARGS]`")
        repo, commit = fields[0], fields[1]
        if repo in seen and seen[repo] != commit:
            print(f"warning: {repo} listed at {seen[repo]} and {commit}; using the first",
                  file=sys.stderr)
            continue
        seen.setdefault(repo, commit)
    return list(seen.items())


def git(gitdir, *args, **kw):
    return subprocess.run(["git", f"--git-dir={gitdir}", *args], **kw)


def resolve(gitdir, commit):
    r = git(gitdir, "rev-parse", "--verify", "-q", f"{commit}^{{commit}}",
            capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def by_archive(gitdir, commit, dest):
    arch = subprocess.Popen(["git", f"--git-dir={gitdir}", "archive", commit],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tar = subprocess.run(["tar", "-x", "-C", dest], stdin=arch.stdout,
                         stderr=subprocess.PIPE)
    arch.stdout.close()
    err = arch.stderr.read()
    return arch.wait() == 0 and tar.returncode == 0, err.decode(errors="replace")


def by_file(gitdir, commit, dest):
    """Every blob of the commit that the mirror has; returns the paths whose blob is missing."""
    ls = git(gitdir, "ls-tree", "-r", "-z", "--full-tree", commit, capture_output=True)
    entries = []
    for rec in ls.stdout.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind != b"blob":  # submodules (commit entries) are not in archives either
            continue
        entries.append((mode.decode(), sha.decode(), os.fsdecode(path)))
    missing = []
    cat = subprocess.Popen(["git", f"--git-dir={gitdir}", "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for mode, sha, path in entries:
        cat.stdin.write(sha.encode() + b"\n")
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if len(header) < 2 or header[1] == b"missing":
            missing.append(path)
            continue
        size = int(header[2])
        data = cat.stdout.read(size)
        cat.stdout.read(1)  # the newline after the contents
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if mode == "120000":
            os.symlink(os.fsdecode(data), target)
            continue
        with open(target, "wb") as f:
            f.write(data)
        if mode == "100755":
            os.chmod(target, 0o755)
    cat.stdin.close()
    cat.wait()
    return missing


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--trees", default="/tmp/trees")
    ap.add_argument("--list", default=os.path.join(here, "regress-trees.txt"))
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.trees, exist_ok=True)
    failed = 0
    for repo, commit in parse_list(a.list):
        key = repo.replace("/", "+")
        gitdir = os.path.join(a.mirrors, key, "repo")
        # Some snapshots are clones with a work tree: their git directory is repo/.git.
        if os.path.isdir(os.path.join(gitdir, ".git")):
            gitdir = os.path.join(gitdir, ".git")
        dest = os.path.join(a.trees, key)
        if os.path.isdir(dest) and not a.force:
            print(f"{key}\t-\tthere already")
            continue
        if not os.path.isdir(gitdir):
            print(f"{key}\t-\tskipped: no mirror at {gitdir}")
            failed += 1
            continue
        used = resolve(gitdir, commit)
        note = ""
        if used is None:
            used = resolve(gitdir, "HEAD")
            note = f" (recorded {commit} absent from the mirror: HEAD used)"
        if used is None:
            print(f"{key}\t-\tskipped: {gitdir} has no HEAD commit")
            failed += 1
            continue
        with open(dest + ".commit", "w") as f:
            f.write(f"{used}{note}\n")
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        ok, err = by_archive(gitdir, used, dest)
        if ok:
            how = "archive"
            if os.path.exists(dest + ".missing"):
                os.remove(dest + ".missing")
        else:
            shutil.rmtree(dest)
            os.makedirs(dest)
            missing = by_file(gitdir, used, dest)
            with open(dest + ".missing", "w") as f:
                f.writelines(p + "\n" for p in missing)
            how = f"by-file, {len(missing)} missing"
            decl = re.compile(r"(\.pyi?|/requirements[^/]*\.txt|/pyproject\.toml|/setup\.(py|cfg)"
                              r"|/environment\.ya?ml)$")
            if any(decl.search("/" + p) for p in missing):
                how += " (a .py or declaration file among them)"
        print(f"{key}\t{used[:12]}\t{how}{note}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
