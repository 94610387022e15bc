//! Findings behind an earlier failure: a use that can never run on a release because its
//! module already failed to import there, at an earlier line, or because it imports (at
//! import time, unguarded) a module of the project that fails to import there. On each of its
//! releases something else fails first, so it is not an error of its own; it is reported as
//! `behind` (information, shown with `--show-guarded`), naming the failure in front of it.
//! Fixing that failure brings it back.
//!
//! Per file and package, the earliest line where importing the file fails on each release:
//! its own import-time errors, then, to a fixed point over the project's import graph, its
//! unguarded module-level imports of project modules that fail on that release. A finding of
//! the same package is behind when, on every release it names, the file fails before it: a
//! call-time use wherever the file fails (its function cannot be called once its module
//! failed to import); an import-time or script use where an import of another failing module
//! comes at an earlier line. The import-time errors of the failing module itself all stay
//! errors: fixing a module's imports is one task, though Python names one at a time.
//!
//! The failures counted are errors that are reported (not suppressed, of a selected rule, in
//! a file not ignored) and unconditional: in a statement of the module's top level (not in an
//! `if`, a `try`, a loop or a class body, which the walk may not have read as conditions). Only errors of uses (not AC008, nor file problems) are put behind.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::Arc;

use apicompat_hash::{HashMap, HashSet};

use crate::chains::Modules;
use crate::files::Analyzed;
use crate::model::{Finding, Reach, Severity};

/// What fails first in a file on one release: the line, the failing use as shown, the file it
/// is in, and its position in the findings.
type First = (u32, Arc<str>, usize, usize);

/// Per (file, package): release -> the first failure.
type Failures = HashMap<(usize, String), BTreeMap<String, First>>;

/// Rounds of [`mark`] at most: each drops the failures that are themselves behind another.
const MAX_ROUNDS: usize = 16;

/// Rules whose findings are uses of a package's API (AC008 and file problems are not).
pub(crate) fn is_use_error(f: &Finding) -> bool {
    f.severity == Severity::Error
        && !f.package.is_empty()
        && !f.missing_in.is_empty()
        && crate::admitted::is_use_code(f.code)
        && matches!(f.reach, Reach::ImportTime | Reach::CallTime | Reach::Script)
}

/// Marks the findings of `per_file` that are behind an earlier failure (`counts(fi, f)` says
/// whether a finding is reported at all: suppressions, selection, ignores).
///
/// A failure that is itself behind another may not hide anything: in an import cycle two
/// failures could otherwise hide each other, and a release that fails would show no error.
/// Such failures are dropped and the rest computed again, until every failure that hides
/// something is shown (the set only shrinks; after [`MAX_ROUNDS`] nothing is marked).
pub(crate) fn mark(
    analyzed: &[Arc<Analyzed>],
    root: &Path,
    per_file: &mut [(usize, Finding, Vec<u32>)],
    counts: impl Fn(usize, &Finding, &[u32]) -> bool,
) {
    // Where each finding runs in its module: an import-time use in a function the module
    // calls while it is imported runs at the line of that call.
    let runs_at: Vec<u32> = per_file
        .iter()
        .map(|(fi, f, lines)| {
            let statement = lines.get(1).or(lines.first()).copied().unwrap_or(f.line);
            run_line(&analyzed[*fi], f, statement)
        })
        .collect();
    let mut sources: Vec<usize> = Vec::new();
    for (i, (fi, f, lines)) in per_file.iter().enumerate() {
        // A failure that may not run (in an `if`, a `try`, a loop, a class body) hides
        // nothing: only a statement of the module's top level counts.
        let statement = lines.get(1).or(lines.first()).copied().unwrap_or(f.line);
        if f.reach == Reach::ImportTime
            && is_use_error(f)
            && counts(*fi, f, lines)
            && (top_level(&analyzed[*fi], statement) || runs_at[i] != f.line)
        {
            sources.push(i);
        }
    }
    if sources.is_empty() {
        return;
    }
    let paths: Vec<&Path> = analyzed.iter().map(|a| a.path.as_path()).collect();
    let modules = Modules::new(&paths);
    let importers = importers(analyzed, &modules);
    let component = components(&importers);
    let parents = parent_packages(analyzed);
    let mut reach = Reachable::new(analyzed, &modules);
    for _ in 0..MAX_ROUNDS {
        let mut failures: Failures = HashMap::default();
        for &i in &sources {
            let (fi, f, _) = &per_file[i];
            let what: Arc<str> = Arc::from(format!(
                "`{}` ({}:{})",
                f.symbol,
                display(&analyzed[*fi].path, root),
                f.line
            ));
            let entry = failures.entry((*fi, f.package.clone())).or_default();
            for r in &f.missing_in {
                earliest(entry, r, (runs_at[i], Arc::clone(&what), *fi, i));
            }
        }
        propagate(&importers, &component, &mut failures);
        let verdicts = behind(per_file, &runs_at, &failures, &parents, &mut reach);
        let before = sources.len();
        sources.retain(|s| verdicts.binary_search_by_key(s, |(i, _)| *i).is_err());
        if sources.len() == before {
            for (i, guard) in verdicts {
                let f = &mut per_file[i].1;
                f.guard = Some(guard);
                f.reach = Reach::Behind;
                f.severity = Severity::Info;
            }
            return;
        }
        if sources.is_empty() {
            return;
        }
    }
}

/// The findings behind a failure of `failures` (positions, in order), each with the failures
/// in front of it as shown. A call-time use is also behind a failure of a package above its
/// module (`parents`): importing the module runs the package's `__init__` first, and once that
/// fails, no function of the module is called (whatever the order of their imports).
fn behind(
    per_file: &[(usize, Finding, Vec<u32>)],
    runs_at: &[u32],
    failures: &Failures,
    parents: &[Vec<usize>],
    reach: &mut Reachable,
) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, (fi, f, _)) in per_file.iter().enumerate() {
        if !is_use_error(f) {
            continue;
        }
        let own = failures.get(&(*fi, f.package.clone()));
        // An import-time use too, when the package does not import the module (then nothing
        // of the module runs before the package fails).
        let above: Vec<&BTreeMap<String, First>> = match f.reach {
            Reach::CallTime | Reach::ImportTime => parents
                .get(*fi)
                .into_iter()
                .flatten()
                .filter(|&&p| f.reach == Reach::CallTime || !reach.reaches(p, *fi))
                .filter_map(|p| failures.get(&(*p, f.package.clone())))
                .collect(),
            _ => Vec::new(),
        };
        if own.is_none() && above.is_empty() {
            continue;
        }
        // The failures in front of it, each once, in the order of its releases.
        let mut fronts: Vec<&str> = Vec::new();
        let all = f.missing_in.iter().all(|r| {
            let first = own.and_then(|o| o.get(r)).filter(|(line, _, origin, _)| {
                // Import-time uses of the file's own failing module all stay errors: fixing
                // the module's imports is one task, and Python's message names one at a time.
                f.reach == Reach::CallTime || (*origin != *fi && *line < runs_at[i])
            });
            match first.or_else(|| above.iter().find_map(|p| p.get(r))) {
                Some((_, what, _, _)) => {
                    if !fronts.contains(&&**what) {
                        fronts.push(what);
                    }
                    true
                }
                None => false,
            }
        });
        if all && !fronts.is_empty() {
            let verb = if fronts.len() == 1 { "fails" } else { "fail" };
            out.push((i, format!("{}, which {verb} first", fronts.join(" and "))));
        }
    }
    out
}

fn earliest(entry: &mut BTreeMap<String, First>, release: &str, first: First) -> bool {
    match entry.get(release) {
        Some(old) if old.0 <= first.0 => false,
        _ => {
            entry.insert(release.to_string(), first);
            true
        }
    }
}

/// Which files a file may import, directly or not: every import statement of the project
/// counts (in a `try`, under an `if`, in a function: any may run before a failure), computed
/// once per file asked, for at most [`MAX_REACH_SOURCES`] files: past that, every file counts
/// as reached (nothing more is put behind).
struct Reachable {
    imports_of: Vec<Vec<usize>>,
    /// Files with a dynamic import (`importlib.import_module`): they may import anything.
    dynamic: Vec<bool>,
    /// From a file: the files reached, `None` when anything may be.
    memo: HashMap<usize, Option<Vec<bool>>>,
}

/// Files whose reach [`Reachable`] computes (each a walk of the import graph).
const MAX_REACH_SOURCES: usize = 64;

impl Reachable {
    fn new(analyzed: &[Arc<Analyzed>], modules: &Modules) -> Reachable {
        let imports_of: Vec<Vec<usize>> = analyzed
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut out: Vec<usize> = a
                    .uses
                    .project_imports
                    .iter()
                    .flat_map(|site| modules.targets(i, &site.import))
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        Reachable {
            imports_of,
            dynamic: analyzed
                .iter()
                .map(|a| !a.uses.dynamic_imports.is_empty())
                .collect(),
            memo: HashMap::default(),
        }
    }

    /// Whether importing `from` imports `to` (or may: past the budget).
    fn reaches(&mut self, from: usize, to: usize) -> bool {
        if !self.memo.contains_key(&from) {
            if self.memo.len() >= MAX_REACH_SOURCES {
                return true;
            }
            let mut seen = vec![false; self.imports_of.len()];
            let mut stack = vec![from];
            let mut anything = false;
            while let Some(v) = stack.pop() {
                anything |= self.dynamic.get(v).copied().unwrap_or(true);
                for &w in self.imports_of.get(v).into_iter().flatten() {
                    if let Some(s) = seen.get_mut(w) {
                        if !*s {
                            *s = true;
                            stack.push(w);
                        }
                    }
                }
            }
            self.memo.insert(from, (!anything).then_some(seen));
        }
        match self.memo.get(&from) {
            Some(Some(seen)) => seen.get(to).copied().unwrap_or(true),
            _ => true,
        }
    }
}

/// The package files above each file's module (`a/b/__init__.py` and `a/__init__.py` for
/// `a.b.c`), nearest first; none for a file without a dotted name, nor for a script.
fn parent_packages(analyzed: &[Arc<Analyzed>]) -> Vec<Vec<usize>> {
    let mut packages: HashMap<&str, usize> = HashMap::default();
    for (i, a) in analyzed.iter().enumerate() {
        if let (true, Some(name)) = (a.module.is_package, a.module.name.as_deref()) {
            packages.entry(name).or_insert(i);
        }
    }
    analyzed
        .iter()
        .enumerate()
        .map(|(i, a)| {
            // A script (`if __name__ == "__main__":`) may run by its path, without them.
            let script = a.uses.is_main || a.path.file_name().is_some_and(|n| n == "__main__.py");
            let Some(mut name) = a.module.name.as_deref().filter(|_| !script) else {
                return Vec::new();
            };
            let mut out = Vec::new();
            while let Some((parent, _)) = name.rsplit_once('.') {
                if let Some(&p) = packages.get(parent) {
                    if p != i {
                        out.push(p);
                    }
                }
                name = parent;
            }
            out
        })
        .collect()
}

/// Importers of each file: (importer, line of its first module-level, unguarded import of it).
fn importers(analyzed: &[Arc<Analyzed>], modules: &Modules) -> Vec<Vec<(usize, u32)>> {
    let mut importers: Vec<Vec<(usize, u32)>> = vec![Vec::new(); analyzed.len()];
    for (i, a) in analyzed.iter().enumerate() {
        // Target -> its position in `importers[target]` for this file.
        let mut seen: HashMap<usize, usize> = HashMap::default();
        for site in &a.uses.project_imports {
            if site.func.is_some() || site.guarded || !site.versions.is_empty() {
                continue;
            }
            // Only a statement of the module's top level (not under an `if`, a `with`, a
            // loop: `if is_npu_available: from .models import npu_patch`, verl).
            let (line, _) = a.position(site.start);
            if !top_level(a, line) {
                continue;
            }
            // A module two files of the project name (copies of a package) is not followed:
            // which one runs depends on `sys.path`.
            for t in modules.unique_targets(i, &site.import) {
                match seen.get(&t) {
                    Some(&k) => importers[t][k].1 = importers[t][k].1.min(line),
                    None => {
                        seen.insert(t, importers[t].len());
                        importers[t].push((i, line));
                    }
                }
            }
        }
    }
    importers
}

/// The strongly connected component of each file in the import graph (`importers` lists, for
/// each file, the files that import it), by Tarjan's algorithm without recursion: linear.
fn components(importers: &[Vec<(usize, u32)>]) -> Vec<usize> {
    const NONE: usize = usize::MAX;
    let n = importers.len();
    let mut index = vec![NONE; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![NONE; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0usize;
    let mut count = 0usize;
    for start in 0..n {
        if index[start] != NONE {
            continue;
        }
        // (node, position of the next edge to follow).
        let mut work: Vec<(usize, usize)> = vec![(start, 0)];
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if let Some(&(w, _)) = importers[v].get(*edge) {
                *edge += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = count;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    component
}

/// A file that imports, at module level and unguarded, a project module that fails on a
/// release fails there too, at that import.
fn propagate(importers: &[Vec<(usize, u32)>], component: &[usize], failures: &mut Failures) {
    let mut queue: VecDeque<(usize, String)> = failures.keys().cloned().collect();
    let mut queued: HashSet<(usize, String)> = queue.iter().cloned().collect();
    while let Some(key) = queue.pop_front() {
        queued.remove(&key);
        let Some(fails) = failures.get(&key).cloned() else {
            continue;
        };
        let (file, package) = key;
        for &(importer, line) in &importers[file] {
            let target = (importer, package.clone());
            let entry = failures.entry(target.clone()).or_default();
            let mut changed = false;
            for (release, (_, what, origin, source)) in &fails {
                // Modules that import each other (one strongly connected component): which
                // fails first depends on which is imported first, so none is behind another's
                // failure (and a module's own failure never comes back to it).
                if component[*origin] == component[importer] {
                    continue;
                }
                changed |= earliest(entry, release, (line, Arc::clone(what), *origin, *source));
            }
            if changed && queued.insert(target.clone()) {
                queue.push_back(target);
            }
        }
    }
}

/// The line of the module's statement at which a finding's use runs while the module is
/// imported: for an import-time use in a statement of the body of a function the module
/// calls then (`FileUses::runs_at_import`; a statement of the body itself, not under an
/// `if`, a `try` or a loop), the line of that call; otherwise its own line.
fn run_line(file: &Analyzed, f: &Finding, statement: u32) -> u32 {
    if f.reach != Reach::ImportTime || file.uses.runs_at_import.is_empty() {
        return f.line;
    }
    file.uses
        .runs_at_import
        .iter()
        .find(|(body, _)| {
            let (first, indent) = file.position(body.start());
            let (last, _) = file.position(body.end());
            first <= statement && statement <= last && indentation(file, statement) == Some(indent)
        })
        .map_or(f.line, |(_, call)| file.position(call.start()).0)
}

/// The column (1-based) of the first character of `line` that is not whitespace; `None` for
/// a blank line (or past the end).
fn indentation(file: &Analyzed, line: u32) -> Option<u32> {
    let row = ruff_source_file::OneIndexed::from_zero_indexed(line.checked_sub(1)? as usize);
    let start = file.line_index.line_start(row, &file.text).to_usize();
    let text = file.text.get(start..)?;
    let skipped = text
        .chars()
        .take_while(|c| c.is_whitespace() && *c != '\n')
        .count();
    text.chars()
        .nth(skipped)
        .filter(|c| !c.is_whitespace())
        .and_then(|_| u32::try_from(skipped + 1).ok())
}

/// Whether line `line` (1-based) of the file starts a statement of the module's top level:
/// not indented.
fn top_level(file: &Analyzed, line: u32) -> bool {
    indentation(file, line) == Some(1)
}

/// A path as findings show it: relative to the project when it is inside, without `./`.
pub(crate) fn display(path: &Path, root: &Path) -> String {
    let path = path.strip_prefix(root).unwrap_or(path);
    let parts = path
        .components()
        .skip_while(|c| matches!(c, std::path::Component::CurDir));
    parts.collect::<std::path::PathBuf>().display().to_string()
}
