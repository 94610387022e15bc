//! `apicompat diff PACKAGE A B [--used-by PATH]`: what changed between two releases, and with a
//! project, every line the upgrade affects with its fix (the fixes `check` gives against B).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Serialize;

use apicompat_check::survey::{survey, Presence, SurveyOptions, SurveyedUse};
use apicompat_check::{check, Finding, Fix, Options, UsageError};
use apicompat_index::diff::{diff, Diff};
use apicompat_index::{Catalog, PackageView, Status};
use apicompat_requirements::parse_version;

/// What to compare.
#[derive(Debug, Clone, Default)]
pub struct DiffOptions {
    pub package: String,
    pub from: String,
    pub to: String,
    /// Only paths under this prefix (`torch.distributed`).
    pub prefix: String,
    /// A project: report only what it uses, line by line.
    pub used_by: Option<PathBuf>,
}

/// One line of the project the upgrade affects.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Affected {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub symbol: String,
    /// The rule `check` reports it under.
    pub code: &'static str,
    /// `import-time`, `call-time` or `guarded`.
    pub reach: &'static str,
    pub message: String,
    pub fixes: Vec<Fix>,
}

/// The upgrade report of a project.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct UpgradeReport {
    pub project: String,
    pub files: usize,
    /// Uses of the package in the project.
    pub uses: usize,
    /// Lines that work on the older release and break on the newer one.
    pub breaks: Vec<Affected>,
    /// Lines that break on both.
    pub still_broken: Vec<Affected>,
    /// Lines that lack what they use on the newer release behind a guard of the project
    /// (`try/except ImportError`, `hasattr`, a version check): not breaks.
    pub guarded: Vec<Affected>,
    /// Lines that break on the older release and work on the newer one.
    pub fixed: Vec<Affected>,
    /// Uses of callables whose signature changed in a way that can break a call (they may
    /// still work).
    pub signature_changes: Vec<Affected>,
    /// Uses of callables whose signature only grew (an optional parameter, `**kwargs`): every
    /// call that bound before still binds.
    pub additive: Vec<Affected>,
    /// Uses of APIs the newer release deprecates.
    pub deprecated: Vec<Affected>,
    /// `from M import *` of a module that gains names: the names, once per module.
    pub star_imports: Vec<StarImport>,
}

/// Names a star import brings in on the newer release only (they may shadow the project's).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct StarImport {
    pub module: String,
    /// Where the project star-imports it (`train.py:3`).
    pub at: Vec<String>,
    pub added: Vec<String>,
}

/// `diff`'s answer.
#[derive(Debug, Clone, Serialize)]
pub struct DiffReport {
    #[serde(flatten)]
    pub diff: Diff,
    /// With `--used-by`: the project's upgrade report (then `diff` keeps only what it uses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_by: Option<UpgradeReport>,
}

fn position(view: &PackageView, text: &str) -> Result<usize, UsageError> {
    let v = parse_version(text).map_err(|e| UsageError(e.to_string()))?;
    view.position(&v).ok_or_else(|| {
        UsageError(format!(
            "{} {text} is not in the index (indexed: {}); add it with `apicompat index fetch {}=={text}`",
            view.name(),
            compact(&view.versions()),
            view.name()
        ))
    })
}

fn compact(versions: &[String]) -> String {
    match versions {
        [] => "none".to_string(),
        [one] => one.clone(),
        [first, .., last] => format!("{first} - {last}"),
    }
}

fn display(p: &std::path::Path) -> String {
    crate::render::display(p)
}

fn affected(f: &Finding) -> Affected {
    Affected {
        path: display(&f.path),
        line: f.line,
        column: f.column,
        symbol: f.symbol.clone(),
        code: f.code,
        reach: f.reach.as_str(),
        message: f.message.clone(),
        fixes: f.fixes.clone(),
    }
}

/// A use of the project as an affected line, with `symbol` and `message`.
fn affected_use(u: &SurveyedUse, symbol: &str, message: String) -> Affected {
    Affected {
        path: display(&u.path),
        line: u.line,
        column: u.column,
        symbol: symbol.to_string(),
        code: u.code,
        reach: if u.guarded {
            "guarded"
        } else {
            u.reach.as_str()
        },
        message,
        fixes: Vec::new(),
    }
}

/// The package's view, by distribution name or by the top-level module.
fn package_view<'c>(catalog: &'c Catalog, name: &str) -> Result<&'c PackageView, UsageError> {
    let err = |e: apicompat_index::IndexError| UsageError(e.to_string());
    if let Some(v) = catalog.package(name).map_err(err)? {
        return Ok(v);
    }
    if let Some(n) = catalog.name_of(name) {
        if let Some(v) = catalog.package(n).map_err(err)? {
            return Ok(v);
        }
    }
    if let Some(v) = catalog.package_for_module(name).map_err(err)? {
        return Ok(v);
    }
    Err(UsageError(format!(
        "`{name}` is not in the index (known: {}); add it with `apicompat index fetch {name}`",
        catalog.names().join(", ")
    )))
}

/// Runs `diff`.
pub fn run(catalog: &Catalog, options: &DiffOptions) -> Result<DiffReport, UsageError> {
    let view = package_view(catalog, &options.package)?;
    let a = position(view, &options.from)?;
    let b = position(view, &options.to)?;
    let full = diff(view, a, b, &options.prefix).map_err(|e| UsageError(e.to_string()))?;
    let Some(project) = &options.used_by else {
        return Ok(DiffReport {
            diff: full,
            used_by: None,
        });
    };
    if !project.exists() {
        return Err(UsageError(format!(
            "--used-by `{}`: no such file or directory",
            project.display()
        )));
    }
    let s = survey(
        catalog,
        &SurveyOptions {
            paths: vec![project.clone()],
            project: None,
        },
    )?;
    let pkg = view.name();
    let uses = s.package(pkg).map(|p| p.uses.as_slice()).unwrap_or(&[]);
    // Findings against the newer release, with their fixes, as `check` gives them.
    let report = check(
        catalog,
        &Options {
            paths: vec![project.clone()],
            targets: vec![format!("{pkg}=={}", view.versions()[b])],
            show_guarded: true,
            // Every use that breaks on the release moved to, behind another or not.
            every_failure: true,
            ..Options::default()
        },
    )?;
    let mut breaks = Vec::new();
    let mut still_broken = Vec::new();
    let mut guarded = Vec::new();
    for f in report
        .findings
        .iter()
        .filter(|f| f.package == pkg && apicompat_check::admitted::is_use_code(f.code))
    {
        if f.reach == apicompat_check::Reach::Guarded {
            guarded.push(affected(f));
            continue;
        }
        let at_a = uses
            .iter()
            .find(|u| u.path == f.path && u.line == f.line && u.column == f.column)
            .and_then(|u| u.presence.get(a).copied());
        if at_a == Some(Presence::Absent) {
            still_broken.push(affected(f));
        } else {
            breaks.push(affected(f));
        }
    }
    let mut fixed = Vec::new();
    for u in uses {
        if u.presence.get(a) == Some(&Presence::Absent)
            && u.presence.get(b) != Some(&Presence::Absent)
        {
            fixed.push(affected_use(
                u,
                &u.symbol,
                format!(
                    "`{}` breaks on {pkg} {} and works on {}",
                    u.symbol, options.from, options.to
                ),
            ));
        }
    }
    // The objects the project uses, by their definition in the newer release.
    let mut canonical: BTreeMap<String, String> = BTreeMap::new();
    for u in uses.iter().filter(|u| !u.is_member()) {
        if canonical.contains_key(&u.used_path) {
            continue;
        }
        if let Ok(Status::Present { path, symbol }) = view.status(&u.used_path, b) {
            canonical.insert(u.used_path.clone(), symbol.canonical.unwrap_or(path));
        }
    }
    let signature_of: BTreeMap<&str, &apicompat_index::diff::SignatureChange> = full
        .signatures
        .iter()
        .map(|c| (c.path.as_str(), c))
        .collect();
    let deprecated_of: BTreeMap<&str, &apicompat_index::diff::Deprecated> = full
        .deprecated
        .iter()
        .map(|d| (d.path.as_str(), d))
        .collect();
    let mut signature_changes = Vec::new();
    let mut additive = Vec::new();
    let mut deprecated = Vec::new();
    let mut seen_sig = BTreeSet::new();
    // A call and the attribute it calls are two uses of one line: listed once.
    let mut seen_dep = BTreeSet::new();
    for u in uses.iter().filter(|u| !u.is_member()) {
        let Some(def) = canonical.get(&u.used_path) else {
            continue;
        };
        if let Some(c) = signature_of.get(def.as_str()) {
            // A keyword use is reported once per line; a plain use of the callable too.
            if seen_sig.insert((u.path.clone(), u.line, u.used_path.clone())) {
                let list = if c.breaking {
                    &mut signature_changes
                } else {
                    &mut additive
                };
                list.push(affected_use(
                    u,
                    &u.used_path,
                    format!(
                        "the signature of `{}` changed in {pkg} {}: {}",
                        u.used_path,
                        options.to,
                        c.changes.join(", ")
                    ),
                ));
            }
        }
        if u.keyword.is_none() && seen_dep.insert((u.path.clone(), u.line, u.used_path.clone())) {
            if let Some(d) = deprecated_of.get(def.as_str()) {
                let mut a = affected_use(
                    u,
                    &u.used_path,
                    format!(
                        "`{}` is deprecated in {pkg} {}: {}",
                        u.used_path, options.to, d.message
                    ),
                );
                a.code = <apicompat_check::rules::DeprecatedApi as apicompat_check::rules::RuleInfo>::RULE.code;
                deprecated.push(a);
            }
        }
    }
    // The diff itself, cut down to what the project uses (paths as written; signatures and
    // deprecations are at definitions).
    let used: BTreeSet<&str> = uses
        .iter()
        .filter(|u| !u.is_member())
        .map(|u| u.used_path.as_str())
        .collect();
    let defined: BTreeSet<&str> = canonical.values().map(String::as_str).collect();
    let relevant = |p: &str| {
        used.iter()
            .any(|u| *u == p || u.strip_prefix(p).is_some_and(|rest| rest.starts_with('.')))
    };
    // Names a star-imported module gains, grouped by module (not listed one by one).
    let mut star_imports: Vec<StarImport> = Vec::new();
    for u in uses.iter().filter(|u| u.star && !u.guarded) {
        let location = u.location();
        if let Some(s) = star_imports.iter_mut().find(|s| s.module == u.used_path) {
            if !s.at.contains(&location) {
                s.at.push(location);
            }
            continue;
        }
        let added: Vec<String> = full
            .added
            .iter()
            .filter_map(|x| x.path.strip_prefix(&format!("{}.", u.used_path)))
            .filter(|name| !name.contains('.') && !name.starts_with('_'))
            .map(str::to_string)
            .collect();
        if !added.is_empty() {
            star_imports.push(StarImport {
                module: u.used_path.clone(),
                at: vec![location],
                added,
            });
        }
    }
    let mut cut = full.clone();
    cut.added.retain(|x| relevant(&x.path));
    cut.removed.retain(|x| relevant(&x.path));
    cut.moved
        .retain(|x| relevant(&x.path) || x.also.iter().any(|p| relevant(p)));
    cut.signatures
        .retain(|x| relevant(&x.path) || defined.contains(x.path.as_str()));
    cut.deprecated
        .retain(|x| relevant(&x.path) || defined.contains(x.path.as_str()));
    Ok(DiffReport {
        diff: cut,
        used_by: Some(UpgradeReport {
            project: display(project),
            files: s.files,
            uses: uses.len(),
            breaks,
            still_broken,
            guarded,
            fixed,
            signature_changes,
            additive,
            deprecated,
            star_imports,
        }),
    })
}
