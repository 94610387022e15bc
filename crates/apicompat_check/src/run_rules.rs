//! The third stage of a check: every rule over the files, against the targets chosen. The
//! uses are judged in parallel while the semantic model finds the members of objects whose
//! class it knows and AC010 follows process groups.

use apicompat_hash::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;

use apicompat_index::Catalog;

use crate::collect::{self, UseKind};
use crate::evaluate::{self, Evaluator};
use crate::files::Analyzed;
use crate::model::{self, Finding, Reach};
use crate::project::{self, ProjectFiles};
use crate::requirers::Requirers;
use crate::rules::{self, MissingAttribute, RuleInfo};
use crate::targets::{self, Target};
use crate::{members, objects, pgcopy, pin_advice, stability, Options};

/// What the rules need besides the files.
pub(crate) struct Context<'a, 'c> {
    pub catalog: &'c Catalog,
    pub eval: &'a Evaluator<'c>,
    pub requirers: &'a Requirers<'a>,
    pub sources: &'a targets::Sources<'a>,
    pub options: &'a Options,
}

/// Runs the rules: adds the findings of each file (its number, the finding, the lines a
/// `noqa` may be on) to `per_file`, then vets the pins they advise. The packages of the
/// objects the model types get their targets here too.
pub(crate) fn run(
    cx: &Context<'_, '_>,
    files: &mut ProjectFiles,
    chosen: &mut BTreeMap<String, Target>,
    notes: &mut Vec<String>,
    per_file: &mut Vec<(usize, Finding, Vec<u32>)>,
) {
    let (catalog, eval) = (cx.catalog, cx.eval);
    let pool = files.pool;
    let reported = &files.reported;
    let modules = objects::module_facts(&files.analyzed);
    let assigned = stored_paths(&files.analyzed);
    let stored = invented_paths(eval, &assigned);
    let replaced = Replaced::new(&files.analyzed, assigned);
    // Files that run only with an extra: their uses are judged on the releases it admits.
    let narrowed = crate::extras_files::narrowed(
        catalog,
        eval,
        cx.sources.unscoped,
        chosen,
        &files.analyzed,
        reported,
    );
    let stored = (&stored, &replaced, &narrowed);
    let mut by_pgcopy = Vec::new();
    let ((typed, origins), (mut evaluated, mut places)) = {
        let (analyzed, roots, chosen) = (&files.analyzed, &files.roots, &*chosen);
        pool.install(|| {
            rayon::join(
                || objects::member_uses(eval, modules, analyzed, reported, roots, chosen),
                || {
                    rayon::join(
                        || {
                            // The files read for context only are not judged.
                            let uses = analyzed
                                .par_iter()
                                .enumerate()
                                .filter(move |(fi, _)| reported[*fi])
                                .flat_map_iter(|(fi, f)| f.uses.uses.iter().map(move |u| (fi, u)));
                            evaluate_uses(eval, chosen, analyzed, stored, uses)
                        },
                        || {
                            pgcopy::check_files(
                                catalog,
                                analyzed,
                                reported,
                                cx.options.warm.as_deref().map(|w| &w.process_groups),
                                &mut by_pgcopy,
                            )
                        },
                    )
                    .0
                },
            )
        })
    };
    // AC010's own facts are not read again (AC009 and AC012 read the rest).
    // (A file kept for the next check is left whole.)
    // They are freed on the pool while the other rules run.
    let ac010_only: Vec<_> = files
        .analyzed
        .iter_mut()
        .filter_map(|a| Arc::get_mut(a)?.take_ac010_only())
        .collect();
    pool.spawn(move || drop(ac010_only));
    // The members of objects: their packages' targets, then the same evaluation.
    for (_, u) in &typed {
        let root = u.path.split('.').next().unwrap_or(&u.path);
        project::choose_for(eval, root, cx.sources, chosen, notes);
    }
    let (more, more_places) = pool.install(|| {
        evaluate_uses(
            eval,
            chosen,
            &files.analyzed,
            stored,
            typed.par_iter().map(|(fi, u)| (*fi, u)),
        )
    });
    evaluated.extend(more);
    places.extend(more_places);
    for (fi, u) in typed {
        Arc::make_mut(&mut files.analyzed[fi]).uses.uses.push(u);
    }
    let analyzed = &files.analyzed;
    let chosen = &*chosen;
    // The `moved` fixes (one pass over the index's paths) while the other rules run.
    pgcopy::add_targets(catalog, chosen, &mut by_pgcopy);
    let (mut by_members, mut by_stability) = (Vec::new(), Vec::new());
    pool.install(|| {
        rayon::join(
            || eval.add_moved(&mut evaluated),
            || {
                rayon::join(
                    || {
                        members::check_files(
                            catalog,
                            analyzed,
                            reported,
                            chosen,
                            &origins,
                            &mut by_members,
                        )
                    },
                    || {
                        stability::check_files(
                            eval,
                            catalog,
                            analyzed,
                            reported,
                            chosen,
                            &mut by_stability,
                        )
                    },
                )
            },
        )
    });
    // A read AC009 reports on an object of a known class (with the replacements it finds)
    // is not reported again as a missing member.
    let drifting: HashSet<(usize, u32, u32)> = by_members
        .iter()
        .map(|(fi, f, _)| (*fi, f.line, f.column))
        .collect();
    let mut found: Vec<(usize, Finding, Vec<u32>)> = evaluated
        .into_iter()
        .zip(places)
        .map(|((_, p), (fi, lines))| (fi, p.finding, lines))
        .filter(|(fi, f, _)| {
            !(f.code == MissingAttribute::RULE.code && drifting.contains(&(*fi, f.line, f.column)))
        })
        .collect();
    rules::ac013_call_does_not_bind::drop_explained(&mut found);
    per_file.extend(found);
    per_file.extend(by_members);
    per_file.extend(by_pgcopy);
    per_file.extend(by_stability);
    // A per-use pin is printed only when it breaks no other use.
    pin_advice::vet(catalog, eval, cx.requirers, chosen, analyzed, per_file);
}

/// Evaluates uses (file number, use) against the chosen targets, in parallel: the pending
/// findings, and for each its file and the lines a `noqa` may be on.
#[allow(clippy::type_complexity)]
fn evaluate_uses<'c, 'u>(
    eval: &Evaluator<'c>,
    chosen: &BTreeMap<String, targets::Target>,
    analyzed: &[Arc<Analyzed>],
    (stored, replaced, narrowed): (&HashSet<String>, &Replaced, &crate::extras_files::Narrowed),
    uses: impl ParallelIterator<Item = (usize, &'u collect::Use)>,
) -> (
    Vec<(&'c apicompat_index::PackageView, evaluate::Pending)>,
    Vec<(usize, Vec<u32>)>,
) {
    uses.filter_map(|(fi, u)| {
        if u.kind != UseKind::Store && under_stored(&u.path, stored) {
            return None;
        }
        // A call of a function the project replaces binds against the replacement.
        if matches!(u.kind, UseKind::Keyword(_) | UseKind::Call(_)) && replaced.seen_in(&u.path, fi)
        {
            return None;
        }
        let file = &analyzed[fi];
        let root = u.path.split('.').next().unwrap_or(&u.path);
        let view = eval.package_for(root)?;
        let target = match narrowed.is_empty() {
            true => None,
            false => narrowed.get(&(fi, view.name().to_string())),
        }
        .or_else(|| chosen.get(view.name()))?;
        if eval.never_runs(u, view, chosen) {
            return None;
        }
        let mut p = eval.evaluate(u, view, target)?;
        let f = &mut p.finding;
        // A fallback import already sits in a handler: no advice to wrap it in another.
        let fallbacks = &file.uses.fallbacks;
        if u.kind == UseKind::Import
            && fallbacks.iter().any(|&i| {
                file.uses
                    .uses
                    .get(i as usize)
                    .is_some_and(|x| x.range == u.range)
            })
        {
            f.fixes.retain(|x| x.kind != model::FixKind::Guard);
        }
        let (l, c, el, ec) = file.span(u.range);
        f.path = file.path.clone();
        if f.reach == Reach::Guarded && f.guard.is_none() {
            // The setuptools the project installs supplies `distutils`: that is the reason,
            // whatever test the use sits under.
            f.guard = if eval.shimmed(u, view) {
                Some(DISTUTILS_SHIM.to_string())
            } else {
                u.guard_at
                    .and_then(|g| guard_note(analyzed, fi, g))
                    .or_else(|| eval.restore_note(&u.path).map(str::to_string))
            };
        }
        (f.line, f.column, f.end_line, f.end_column) = (l, c, el, ec);
        let (stmt_line, _) = file.position(u.stmt_start);
        Some(((view, p), (fi, vec![l, stmt_line])))
    })
    .unzip()
}

/// The paths of indexed packages the project assigns (`Store` uses), each with the files that
/// assign it, in order of path.
fn stored_paths(analyzed: &[Arc<Analyzed>]) -> BTreeMap<String, Vec<usize>> {
    let mut out: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (fi, f) in analyzed.iter().enumerate() {
        for u in f.uses.uses.iter().filter(|u| u.kind == UseKind::Store) {
            if out.get(&u.path).and_then(|f| f.last()) == Some(&fi) {
                continue;
            }
            out.entry(u.path.clone()).or_default().push(fi);
        }
    }
    out
}

/// Of the paths the project assigns, those no release of the package has
/// (`masking_utils.origin_mask = masking_utils.create_causal_mask`): names the project puts
/// there itself, in any file. A name some release has is judged as usual where it is read
/// (the original is read before a patch replaces it: `orig = mod.f; mod.f = patched`).
fn invented_paths(eval: &Evaluator<'_>, stored: &BTreeMap<String, Vec<usize>>) -> HashSet<String> {
    // Each is looked up in every release: a bounded number (the others are judged as usual).
    stored
        .keys()
        .take(MAX_STORED_PATHS)
        .filter(|path| {
            let root = path.split('.').next().unwrap_or(path);
            eval.package_for(root).is_some_and(|view| {
                (0..view.releases().len()).all(|r| {
                    !matches!(
                        view.status(path, r),
                        Ok(apicompat_index::Status::Present { .. })
                    )
                })
            })
        })
        .cloned()
        .collect()
}

/// The paths of indexed packages the project assigns (`peft_lora_model.dispatch_torchao =
/// _dispatch_torchao`, SimpleTuner's `torchao_workarounds.py`, study 26's F-M), and the files
/// that see each replacement: the file that assigns it and those that import that file. A
/// call there may call the project's replacement, whose parameters are not the package's, so
/// its arguments are not judged (AC003, AC013); that the name exists is judged as usual. A
/// test's `monkeypatch.setattr(torch.cuda, "Event", fake)` replaces nothing for the modules
/// the test does not import (Megatron-LM's).
struct Replaced {
    stored: BTreeMap<String, Vec<usize>>,
    /// For each file that assigns a path: the files importing it.
    importers: HashMap<usize, HashSet<usize>>,
}

impl Replaced {
    fn new(analyzed: &[Arc<Analyzed>], stored: BTreeMap<String, Vec<usize>>) -> Replaced {
        let mut importers: HashMap<usize, HashSet<usize>> = HashMap::default();
        if !stored.is_empty() {
            let all = crate::importers::importers(analyzed);
            for &fi in stored.values().flatten() {
                importers.entry(fi).or_insert_with(|| {
                    all.get(fi)
                        .and_then(Option::as_ref)
                        .into_iter()
                        .flatten()
                        .map(|(importer, _)| *importer)
                        .collect()
                });
            }
        }
        Replaced { stored, importers }
    }

    /// Whether a call of `path` in file `fi` may call a replacement of the project's.
    fn seen_in(&self, path: &str, fi: usize) -> bool {
        self.stored.get(path).is_some_and(|files| {
            files
                .iter()
                .any(|&a| a == fi || self.importers.get(&a).is_some_and(|s| s.contains(&fi)))
        })
    }
}

/// Assigned paths looked up in the index at most (see [`invented_paths`]).
const MAX_STORED_PATHS: usize = 4096;

/// `path` is a path the project invents, or something read through one.
fn under_stored(path: &str, stored: &HashSet<String>) -> bool {
    !stored.is_empty()
        && (stored.contains(path)
            || path
                .match_indices('.')
                .any(|(i, _)| stored.contains(&path[..i])))
}

/// Why a use of `distutils` is not judged where Python lacks it.
const DISTUTILS_SHIM: &str =
    "the `distutils` that setuptools supplies (the project declares it, or its packages require it)";

/// A guard as written (its first line) and where: `` `if hasattr(torch, "xpu"):` (line 12) ``,
/// with the file when it is another one.
fn guard_note(analyzed: &[Arc<Analyzed>], fi: usize, at: collect::GuardAt) -> Option<String> {
    let file = match at.file {
        Some(other) => analyzed.get(other as usize)?,
        None => analyzed.get(fi)?,
    };
    let (line, _) = file.position(at.range.start());
    let start = at.range.start().to_usize();
    let line_start = file.text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
    let first = file.text.get(line_start..)?.lines().next()?.trim();
    let shown: String = if first.chars().count() > 72 {
        first.chars().take(69).chain("...".chars()).collect()
    } else {
        first.to_string()
    };
    Some(match at.file {
        Some(other) if other as usize != fi => {
            format!("`{shown}` ({}:{line})", crate::survey::display(&file.path))
        }
        _ => format!("`{shown}` (line {line})"),
    })
}
