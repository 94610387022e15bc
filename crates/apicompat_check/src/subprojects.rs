//! A tree that holds other projects. A directory below the project root with declarations of
//! its own that bound a package's version differently from the root (InternVL's
//! `internvl_chat_gpt_oss/requirements.txt` pins `transformers==4.55.0` while the root pins
//! 4.37.2) is checked as its own project: its files against its declarations, completed by
//! the root's for every package it declares without a version or not at all
//! ([`inherit`]: Megatron-LM's `megatron/core/requirements.txt` lists a bare `torch`, and the
//! root's `torch>=2.6.0` stays the bound there). Each part is a whole `check`; the reports are
//! joined. A directory whose declarations bound nothing differently is not split off: the
//! parts of one run see each other (callers, classes), separate runs do not.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use apicompat_index::Catalog;
use apicompat_requirements::{read_project, Declared, ToolConfig};

use crate::model::Report;
use crate::{check_project, file_filter, files, targets, Options, UsageError};

/// Files that mark a directory as a project with declarations.
const MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
];

/// Sub-projects below the root at most (more are checked with the root's declarations).
const MAX_SUBPROJECTS: usize = 64;

/// Runs `check`, one part per project of the tree.
pub(crate) fn check(catalog: &Catalog, options: &Options) -> Result<Report, UsageError> {
    let split = if options.project.is_none()
        && options.inherit.is_none()
        && options.stdin.is_none()
        && options.documents.is_empty()
        && options.skip_dirs.is_empty()
    {
        plan(options)
    } else {
        None
    };
    let Some(Plan {
        root,
        subs,
        own,
        context,
        affordable,
    }) = split
    else {
        return check_project(catalog, options);
    };
    if !affordable {
        let mut report = check_project(catalog, options)?;
        let shown: Vec<String> = subs
            .iter()
            .take(5)
            .map(|s| {
                format!(
                    "`{}`",
                    crate::survey::display(s.strip_prefix(&root).unwrap_or(s))
                )
            })
            .collect();
        report.summary.notes.push(format!(
            "{} director{} ({}{}) have declarations of their own, checked here against the project's (checking each apart would read the project's packages again for each); `apicompat check DIR` checks one against its own",
            subs.len(),
            if subs.len() == 1 { "y" } else { "ies" },
            shown.join(", "),
            if subs.len() > 5 { ", ..." } else { "" }
        ));
        return Ok(report);
    }
    let mut root_options = options.clone();
    root_options.project = Some(root.clone());
    let inherit_from = root.clone();
    root_options.skip_dirs = subs.clone();
    let mut report = check_project(catalog, &root_options)?;
    for sub in &subs {
        let mut o = options.clone();
        o.paths = vec![sub.clone()];
        o.project = Some(sub.clone());
        o.inherit = Some(inherit_from.clone());
        o.own_roots = own.clone();
        o.context = context.clone();
        o.skip_dirs = subs
            .iter()
            .filter(|s| *s != sub && s.starts_with(sub))
            .cloned()
            .collect();
        let part = check_project(catalog, &o)?;
        report.summary.notes.push(format!(
            "`{}` has declarations of its own: its {} file(s) are checked against them",
            crate::survey::display(sub.strip_prefix(&root).unwrap_or(sub)),
            part.summary.files
        ));
        join(&mut report, part);
    }
    report.findings.sort_by(|a, b| {
        (&a.path, a.line, a.column, a.code, &a.symbol)
            .cmp(&(&b.path, b.line, b.column, b.code, &b.symbol))
    });
    Ok(report)
}

/// How a tree is split.
struct Plan {
    root: PathBuf,
    /// The sub-projects below the root.
    subs: Vec<PathBuf>,
    /// The packages the root project provides.
    own: Vec<String>,
    /// Their directories, read with each sub-project (its code calls their helpers and
    /// classes) and not reported there.
    context: Vec<PathBuf>,
    /// Reading the root's packages once more per sub-project costs no more than the tree.
    affordable: bool,
}

/// The sub-projects of the tree, when there are any and reading the root's packages once
/// more for each costs no more than the tree itself (else the tree is one project, and a note
/// says which directories have declarations of their own).
fn plan(options: &Options) -> Option<Plan> {
    let paths: Vec<PathBuf> = if options.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        options.paths.clone()
    };
    let start = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
    let start = if start.exists() {
        start
    } else {
        PathBuf::from(".")
    };
    let root = targets::find_project_root(&start);
    let declared = read_project(&root);
    let mut notes = Vec::new();
    let filter = file_filter(&root, &declared.tool_config, &options.files, &mut notes);
    let discovered = files::discover(&paths, &filter);
    let root_abs = std::fs::canonicalize(&root).ok()?;
    // The nearest directory with a marker above each file, below the root.
    let mut marked: HashMap<PathBuf, bool> = HashMap::new();
    let mut found: BTreeSet<PathBuf> = BTreeSet::new();
    for file in &discovered.files {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if d.as_os_str().is_empty() {
                break;
            }
            let is_marked = *marked
                .entry(d.to_path_buf())
                .or_insert_with(|| MARKERS.iter().any(|m| d.join(m).is_file()));
            if is_marked {
                let at_root = std::fs::canonicalize(d).is_ok_and(|a| a == root_abs);
                if !at_root {
                    found.insert(d.to_path_buf());
                }
                break;
            }
            dir = d.parent();
        }
    }
    // Only directories below the root that bound some package differently.
    let subs: Vec<PathBuf> = found
        .into_iter()
        .filter(|d| {
            std::fs::canonicalize(d).is_ok_and(|a| a.starts_with(&root_abs) && a != root_abs)
        })
        .filter(|d| {
            let own = read_project(d);
            let merged = inherit(&declared, own);
            bounds(&merged) != bounds(&declared)
        })
        .take(MAX_SUBPROJECTS)
        .collect();
    if subs.is_empty() {
        return None;
    }
    let mut own: Vec<String> = discovered.own_packages.iter().cloned().collect();
    own.sort();
    let context: Vec<PathBuf> = own
        .iter()
        .flat_map(|name| [root.join(name), root.join("src").join(name)])
        .filter(|d| d.is_dir() && !subs.iter().any(|s| d.starts_with(s) || s.starts_with(d)))
        .collect();
    let context_files = if context.is_empty() {
        0
    } else {
        files::discover(&context, &filter).files.len()
    };
    let affordable = context_files.saturating_mul(subs.len()) <= discovered.files.len();
    Some(Plan {
        root,
        subs,
        own,
        context,
        affordable,
    })
}

/// A sub-project's declarations completed by the root's: for each package, the sub-project's
/// own requirements when one of them has a version (or is a direct reference), else the
/// root's, else the sub-project's bare ones. The sub-project's `[tool.apicompat]` applies when
/// it has one.
pub(crate) fn inherit(root: &Declared, own: Declared) -> Declared {
    let mut out = own;
    let bounded = |d: &Declared, name: &str| {
        d.requirements
            .iter()
            .any(|r| r.name == name && (!r.specifier.is_empty() || r.url.is_some()))
            || d.direct.iter().any(|r| r.name == name)
    };
    let mut names: Vec<&str> = root.requirements.iter().map(|r| r.name.as_str()).collect();
    names.extend(root.direct.iter().map(|r| r.name.as_str()));
    names.sort_unstable();
    names.dedup();
    for name in names {
        if bounded(&out, name) {
            continue;
        }
        out.requirements.retain(|r| r.name != name);
        out.requirements
            .extend(root.requirements.iter().filter(|r| r.name == name).cloned());
        out.direct
            .extend(root.direct.iter().filter(|r| r.name == name).cloned());
    }
    if out.tool_config == ToolConfig::default() {
        out.tool_config = root.tool_config.clone();
    }
    out
}

/// Each package's requirement texts, to compare two sets of declarations.
fn bounds(d: &Declared) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in &d.requirements {
        out.entry(r.name.clone())
            .or_default()
            .insert(r.specifier.to_string());
    }
    for r in &d.direct {
        out.entry(r.name.clone()).or_default().insert(r.raw.clone());
    }
    out
}

/// Adds a part's findings and counts to the report.
fn join(report: &mut Report, part: Report) {
    report.findings.extend(part.findings);
    let s = &mut report.summary;
    let p = part.summary;
    s.files += p.files;
    s.errors += p.errors;
    s.warnings += p.warnings;
    s.infos += p.infos;
    s.guarded += p.guarded;
    s.suppressed += p.suppressed;
    for t in p.targets {
        if !s.targets.contains(&t) {
            s.targets.push(t);
        }
    }
    for n in p.notes {
        if !s.notes.contains(&n) {
            s.notes.push(n);
        }
    }
    s.io_failure |= p.io_failure;
    s.bad_declarations.extend(p.bad_declarations);
    s.unindexed.extend(p.unindexed);
    report.sources.extend(part.sources);
    let chains: BTreeMap<PathBuf, Vec<String>> = part.chains;
    report.chains.extend(chains);
}

/// Whether `file` lies in one of `dirs`.
pub(crate) fn skipped(file: &Path, dirs: &[PathBuf]) -> bool {
    dirs.iter().any(|d| file.starts_with(d))
}
