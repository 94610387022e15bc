//! Builds the API surface of one release from its Python sources, statically: nothing is
//! imported or run.
//!
//! Each `.py` / `.pyi` file is parsed with ruff's error-tolerant parser and walked into
//! [`facts::FileFacts`] (in parallel); [`resolve::Resolver`] then resolves star imports,
//! `__all__`, re-exports and registered modules across the release into a flat
//! [`Surface`].

mod aten_ops;
pub mod attr_tables;
pub mod class_builder;
pub mod consts;
mod dataclass;
mod defs;
mod dynamic_scan;
pub mod evidence;
pub mod facts;
mod fallible;
mod flag_defs;
mod getattr;
pub mod implies;
mod injected;
mod installed;
mod kwargs_wrapper;
mod lazy;
mod legacy_tensor_types;
mod module_aliases;
mod name_sets;
mod native_modules;
pub mod nesting;
mod outside_stores;
mod py_version;
pub mod resolve;
mod return_types;
mod self_attrs;
mod stdlib;
mod torchgen;

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use ruff_python_ast::PySourceType;

use apicompat_archive::SourceTree;
use apicompat_surface::{ReleaseMeta, Surface};

use crate::resolve::{HashMap, ModuleInfo, Resolver};

/// Stack for the threads that walk syntax trees: deep nesting in real files must not overflow.
const STACK_SIZE: usize = 256 * 1024 * 1024;

// Budgets of one release (docs/hostile-input.md has the measurements behind them). What does
// not fit is recorded as open (names it does not list are unknown, never missing), with a
// problem in the surface. For scale: torch 2.15's wheel holds 2,608 `.py`/`.pyi` files, 57.5 MB
// in all, the largest 1.3 MB; parsing takes up to ~75 bytes of syntax tree per source byte
// (dense `x = 0` lines), transient, on two threads.

/// Largest file handed to the parser, in bytes (3x torch's largest).
pub const MAX_PARSE_FILE_BYTES: usize = 4 << 20;
/// Most bytes handed to the parser for one release, files in path order (2x torch's sources).
pub const MAX_PARSE_RELEASE_BYTES: usize = 128 << 20;
/// Module-level bindings kept per file (facts take ~200 bytes each).
pub const MAX_BINDINGS_PER_FILE: usize = 100_000;
/// Module-level bindings kept per release. Files walked in parallel share it, so which file
/// is cut short when a release exceeds it may vary between runs; no real release comes near.
pub const MAX_BINDINGS_PER_RELEASE: usize = 2_000_000;

/// One file after the parallel walk: its facts, kind, module, problems and dotted reads.
type Parsed = (
    Option<facts::FileFacts>,
    FileKind,
    String,
    Vec<String>,
    Option<(evidence::Reads, installed::Installed)>,
);

/// What one file of the release is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Source,
    Stub,
    Extension,
}

/// `torch/nn/__init__.py` -> (`torch.nn`, package, source).
fn module_of(path: &str) -> Option<(String, bool, FileKind)> {
    let (stem, kind) = if let Some(s) = path.strip_suffix(".pyi") {
        (s, FileKind::Stub)
    } else if let Some(s) = path.strip_suffix(".py") {
        (s, FileKind::Source)
    } else if let Some(s) = path
        .strip_suffix(".so")
        .or_else(|| path.strip_suffix(".pyd"))
    {
        // `_C.cpython-312-darwin.so` -> `_C`.
        let (dir, file) = s.rsplit_once('/').map_or(("", s), |(d, f)| (d, f));
        let file = file.split('.').next().unwrap_or(file);
        return module_of(&if dir.is_empty() {
            format!("{file}.py")
        } else {
            format!("{dir}/{file}.py")
        })
        .map(|(m, p, _)| (m, p, FileKind::Extension));
    } else {
        return None;
    };
    let mut parts: Vec<&str> = stem.split('/').collect();
    let is_package = parts.last() == Some(&"__init__");
    if is_package {
        parts.pop();
    }
    let valid = !parts.is_empty() && parts.iter().all(|p| is_identifier(p));
    valid.then(|| (parts.join("."), is_package, kind))
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// Extracts the surface of one release.
pub fn extract(tree: &SourceTree, package: &str, version: &str) -> Surface {
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_SIZE)
        .build();
    let run = || extract_inner(tree, package, version);
    match pool {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    }
}

/// Which files fit the parse budget: `Err(reason)` for those that do not.
fn parse_budget(tree: &SourceTree, per_file: usize, per_release: usize) -> Vec<Result<(), String>> {
    let mut total = 0usize;
    tree.files
        .iter()
        .map(|file| {
            let len = file.data.len();
            if len > per_file {
                return Err(format!(
                    "{}: not parsed: {len} bytes exceeds the per-file parse budget of {} MiB; \
                     its module is recorded as open (names unknown)",
                    file.path,
                    per_file >> 20
                ));
            }
            if total + len > per_release {
                return Err(format!(
                    "{}: not parsed: the release's sources exceed the parse budget of {} MiB; \
                     its module is recorded as open (names unknown)",
                    file.path,
                    per_release >> 20
                ));
            }
            total += len;
            Ok(())
        })
        .collect()
}

fn extract_inner(tree: &SourceTree, package: &str, version: &str) -> Surface {
    let python = py_version::of_release(package, version);
    let budget = parse_budget(tree, MAX_PARSE_FILE_BYTES, MAX_PARSE_RELEASE_BYTES);
    let bindings_left = AtomicUsize::new(MAX_BINDINGS_PER_RELEASE);
    let parsed: Vec<Parsed> = tree
        .files
        .par_iter()
        .zip(budget.par_iter())
        .filter_map(|(file, budget)| {
            let (module, is_package, kind) = module_of(&file.path)?;
            let mut problems = Vec::new();
            if kind == FileKind::Extension {
                return Some((None, kind, module, problems, None));
            }
            let unread = |problem: String| {
                let facts = facts::FileFacts::unread(&module, is_package, kind == FileKind::Stub);
                Some((Some(facts), kind, module.clone(), vec![problem], None))
            };
            if let Err(problem) = budget {
                return unread(problem.clone());
            }
            let text = match std::str::from_utf8(&file.data) {
                Ok(t) => std::borrow::Cow::Borrowed(t),
                Err(e) => {
                    problems.push(format!(
                        "{}: not valid UTF-8 (byte {}); read with replacement characters",
                        file.path,
                        e.valid_up_to()
                    ));
                    String::from_utf8_lossy(&file.data)
                }
            };
            let source_type = if kind == FileKind::Stub {
                PySourceType::Stub
            } else {
                PySourceType::Python
            };
            if let Err(deep) = nesting::check(&text, nesting::MAX_NESTING_ESTIMATE) {
                return unread(format!(
                    "{}: {deep}; its module is recorded as open (names unknown)",
                    file.path
                ));
            }
            let parsed = ruff_python_parser::parse_unchecked_source(&text, source_type);
            let left = bindings_left.load(Ordering::Relaxed);
            let mut facts = facts::file_facts(
                &module,
                is_package,
                kind == FileKind::Stub,
                &text,
                parsed.suite(),
                left.min(MAX_BINDINGS_PER_FILE),
                python,
            );
            let kept = facts.bindings.len();
            let _ = bindings_left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| {
                Some(l.saturating_sub(kept))
            });
            if facts.bindings_truncated {
                problems.push(format!(
                    "{}: more module-level names than the binding budget ({MAX_BINDINGS_PER_FILE} \
                     per file, {MAX_BINDINGS_PER_RELEASE} per release) keeps; the rest are \
                     unknown (module recorded as open)",
                    file.path
                ));
            }
            facts.syntax_errors = parsed.errors().len();
            if let Some(first) = parsed.errors().iter().min_by_key(|e| e.location.start()) {
                problems.push(format!(
                    "{}: {} syntax error(s), first at byte {}: {}; names after it may be missing",
                    file.path,
                    parsed.errors().len(),
                    u32::from(first.location.start()),
                    first.error
                ));
            }
            let reads = (kind == FileKind::Source).then(|| {
                (
                    evidence::reads(&module, is_package, parsed.suite()),
                    installed::read(parsed.suite()),
                )
            });
            Some((Some(facts), kind, module, problems, reads))
        })
        .collect();

    let mut modules: HashMap<String, ModuleInfo> = HashMap::default();
    let mut problems = tree.problems.clone();
    let mut reads = evidence::Reads::default();
    let mut installs: HashMap<String, installed::Installed> = HashMap::default();
    for (facts, kind, module, file_problems, file_reads) in parsed {
        problems.extend(file_problems);
        if let Some((file_reads, file_installs)) = file_reads {
            for (path, import_time) in file_reads {
                *reads.entry(path).or_default() |= import_time;
            }
            let entry = installs.entry(module.clone()).or_default();
            entry.stores.extend(file_installs.stores);
            entry.installs.extend(file_installs.installs);
        }
        let info = modules.entry(module).or_default();
        match kind {
            FileKind::Source => info.has_source = true,
            FileKind::Stub => info.has_stub = true,
            FileKind::Extension => info.extension = true,
        }
        if let Some(f) = facts {
            info.files.push(f);
        }
    }
    // Stable order: sources before stubs.
    for info in modules.values_mut() {
        info.files.sort_by_key(|f| f.is_stub);
    }
    let failing = fallible::failing_paths(&modules, &tree.metadata.requires_dist);
    if let Some(bound) = torchgen::read(tree) {
        return_types::add(&mut modules, return_types::names(&bound.entries));
        native_modules::add(&mut modules, native_modules::names(&bound));
    }
    legacy_tensor_types::add(&mut modules);
    injected::add(&mut modules);
    let table_names = resolve::tables::table_names(&modules);
    let mut resolver = Resolver::new(modules);
    let mut symbols = resolver.symbols();
    let removed = resolve::tables::apply(&table_names, &mut symbols);
    if python.is_some() {
        py_version::mark_versioned_stubs(&mut symbols, |m| resolver.only_stub_declares(m));
    }
    evidence::apply(
        &mut symbols,
        reads,
        &evidence::compiled_modules(&resolver.modules),
    );
    installed::apply(&mut symbols, &resolver.modules, &installs);
    aten_ops::apply(&mut symbols, aten_ops::read(tree));
    implies::keep_known(&mut symbols);
    for path in failing {
        if let Some(s) = symbols.get_mut(&path) {
            s.uncertain = s.kind() != apicompat_surface::Kind::Class;
        }
    }
    problems.sort();
    Surface {
        package: package.to_string(),
        version: version.to_string(),
        meta: ReleaseMeta {
            requires_dist: tree.metadata.requires_dist.clone(),
            requires_python: tree.metadata.requires_python.clone(),
            removed,
            wheel_pythons: Vec::new(),
            wheel_platforms: Vec::new(),
        },
        symbols,
        problems,
    }
}

#[cfg(test)]
mod implies_tests;
#[cfg(test)]
mod lazy_tests;
#[cfg(test)]
mod overload_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod type_checking_tests;
