use apicompat_hash::HashMap;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ruff_text_size::TextRange;

use apicompat_requirements::{normalize_name, Declared, InstalledEnvironment};

use super::{Rule, RuleInfo};
use crate::files::Analyzed;
use crate::model::{Finding, Severity};

/// Packages listed by name in the note; the others are counted.
const NOTE_LIMIT: usize = 25;

/// ## What it does
/// Lists the third-party packages the project imports whose releases are not in the index,
/// with the number of files importing each: by default as one note after the findings; as a
/// warning per package (on its first import) only when selected by name (`--select AC004`),
/// or when the project names the package's distribution (a declared requirement, installed
/// metadata) and fetching it on demand failed: then its uses are not checked although the
/// project depends on it, which is worth a warning with the reason.
/// The distribution to fetch comes from data only: a declared requirement of the same name,
/// else the `top_level.txt` or `RECORD` of the distribution installed in the `--python` or
/// `VIRTUAL_ENV` environment (`PIL` is provided by `pillow`). Without such data the
/// distribution is said to be unknown: an import name is never offered as a distribution
/// (`apicompat index fetch pil` would fetch nothing or something else).
///
/// ## Why is this bad?
/// Its uses cannot be checked: a break in them would go unnoticed.
///
/// ## Example
/// ```python
/// import deepspeed  # the index knows torch and colossalai only
/// ```
///
/// ## How to fix
/// Run the command in the message (`apicompat index fetch deepspeed`), or leave it: the note
/// is a reminder of what is not checked. `--ignore AC004` drops the note.
pub struct UnindexedPackage;

impl RuleInfo for UnindexedPackage {
    const RULE: Rule = Rule {
        code: "AC004",
        name: "unindexed-package",
        severity: Severity::Warning,
        summary: "an imported third-party package is not in the index",
    };
}

/// The imported packages that are not indexed: import name -> (first import, files).
#[derive(Debug, Default)]
pub struct Unindexed {
    roots: BTreeMap<String, ((usize, TextRange), BTreeSet<usize>)>,
}

/// An imported package the index does not have, with what the project says about it: what
/// `check` and `range` fetch on demand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnindexedImport {
    /// The import name (`PIL`).
    pub import: String,
    /// The distribution, from a declared requirement of that name or installed metadata;
    /// never guessed from the import name.
    pub distribution: Option<String>,
    /// Files importing it.
    pub files: usize,
    /// The version specifiers that apply to it: `[tool.apicompat] targets` of that name, else
    /// the declared requirements, else `==V` of the installed release. Empty: none.
    pub specifiers: Vec<String>,
    /// Its first import, where a warning would be reported: None when AC004 is not selected,
    /// is ignored for that file, or a `noqa` comment silences it there.
    pub site: Option<FirstImport>,
}

/// Where an import is: the file and its 1-based span (columns count characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirstImport {
    pub path: std::path::PathBuf,
    pub span: (u32, u32, u32, u32),
}

/// The distribution that provides import name `root`, from data only.
fn distribution_of(
    root: &str,
    declared: &Declared,
    installed: &HashMap<String, String>,
) -> Option<String> {
    let name = normalize_name(root);
    if declared.requirements.iter().any(|r| r.name == name) {
        return Some(name);
    }
    installed.get(root).cloned()
}

impl Unindexed {
    /// Each unindexed import with its distribution and specifiers (`envs`: as for `report`).
    /// `site` says where a warning on the first import of a root may be reported.
    pub fn imports(
        &self,
        declared: &Declared,
        envs: &[&InstalledEnvironment],
        site: impl Fn(usize, TextRange) -> Option<FirstImport>,
    ) -> Vec<UnindexedImport> {
        let installed = installed_names(envs);
        self.roots
            .iter()
            .map(|(root, ((fi, range), files))| {
                let distribution = distribution_of(root, declared, &installed);
                let specifiers = distribution
                    .as_deref()
                    .map(|d| specifiers_of(d, declared, envs))
                    .unwrap_or_default();
                UnindexedImport {
                    import: root.clone(),
                    distribution,
                    files: files.len(),
                    specifiers,
                    site: site(*fi, *range),
                }
            })
            .collect()
    }

    /// An import of `root` in file `fi` at `range`.
    pub fn note(&mut self, root: &str, fi: usize, range: TextRange) {
        self.roots
            .entry(root.to_string())
            .or_insert_with(|| ((fi, range), BTreeSet::new()))
            .1
            .insert(fi);
    }

    /// Per package a warning (`explicit`: AC004 selected by name), else one note. `envs`:
    /// the installed environments whose metadata map import names to distributions.
    pub fn report(
        self,
        explicit: bool,
        analyzed: &[Arc<Analyzed>],
        declared: &Declared,
        envs: &[&InstalledEnvironment],
        per_file: &mut Vec<(usize, Finding, Vec<u32>)>,
        notes: &mut Vec<String>,
    ) {
        if self.roots.is_empty() {
            return;
        }
        let installed = installed_names(envs);
        let dist_of = |root: &str| distribution_of(root, declared, &installed);
        if explicit {
            for (root, ((fi, range), _)) in &self.roots {
                let file = &analyzed[*fi];
                let (l, c, el, ec) = file.span(*range);
                let dist = dist_of(root);
                let how = match &dist {
                    Some(d) => format!("add it with `apicompat index fetch {d}`"),
                    None => "its distribution is not known (no declared requirement or installed metadata names it): add it with `apicompat index fetch DISTRIBUTION`".to_string(),
                };
                let mut f = Finding::of_file(
                    UnindexedPackage::RULE,
                    &file.path,
                    (l, c, el, ec),
                    format!("`{root}` is not in the index, so its uses are not checked; {how}"),
                );
                f.symbol = root.clone();
                f.package = dist.unwrap_or_default();
                per_file.push((*fi, f, vec![l]));
            }
            return;
        }
        let mut by_use: Vec<(&String, usize)> = self
            .roots
            .iter()
            .map(|(r, (_, files))| (r, files.len()))
            .collect();
        by_use.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let listed: Vec<String> = by_use
            .iter()
            .take(NOTE_LIMIT)
            .map(|(root, n)| {
                let files = if *n == 1 {
                    "1 file".to_string()
                } else {
                    format!("{n} files")
                };
                match dist_of(root) {
                    Some(d) if d != normalize_name(root) => format!("{root} [{d}] ({files})"),
                    _ => format!("{root} ({files})"),
                }
            })
            .collect();
        let more = by_use.len().saturating_sub(NOTE_LIMIT);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        notes.push(format!(
            "{} imported package(s) are not in the index, so their uses are not checked: {}{more}; `apicompat index fetch DISTRIBUTION` adds one, `--select AC004` reports each on its first import",
            by_use.len(),
            listed.join(", ")
        ));
    }
}

/// Warnings for imported packages whose distribution the project names but that could not be
/// fetched (`failed`: distribution and reason), on the first import of each (where AC004 is
/// selected and not silenced there), unless a warning is already there (`--select AC004`).
/// The findings are kept in order and the summary's counts updated.
pub fn add_unfetched(report: &mut crate::Report, failed: &[(String, String)]) {
    let mut added = false;
    for u in &report.summary.unindexed {
        let (Some(dist), Some(site)) = (&u.distribution, &u.site) else {
            continue;
        };
        let Some((_, reason)) = failed.iter().find(|(d, _)| d == dist) else {
            continue;
        };
        if report
            .findings
            .iter()
            .any(|f| f.code == UnindexedPackage::RULE.code && f.symbol == u.import)
        {
            continue;
        }
        let mut f = Finding::of_file(
            UnindexedPackage::RULE,
            &site.path,
            site.span,
            format!(
                "`{}` is not in the index and the project's `{dist}` could not be fetched, so its uses are not checked: {reason}; `apicompat index fetch {dist}` tries again",
                u.import
            ),
        );
        f.symbol = u.import.clone();
        f.package = dist.clone();
        report.findings.push(f);
        report.summary.warnings += 1;
        added = true;
    }
    if added {
        report.findings.sort_by(|a, b| {
            (&a.path, a.line, a.column, a.code, &a.symbol)
                .cmp(&(&b.path, b.line, b.column, b.code, &b.symbol))
        });
    }
}

/// The specifiers that choose the releases of distribution `name`, in `check`'s order of
/// precedence after `--target`: config targets, declared requirements, the installed release.
fn specifiers_of(name: &str, declared: &Declared, envs: &[&InstalledEnvironment]) -> Vec<String> {
    let of = |reqs: &[apicompat_requirements::DeclaredRequirement]| -> Vec<String> {
        reqs.iter()
            .filter(|r| r.name == name)
            .map(|r| r.specifier.to_string())
            .collect()
    };
    let config = of(&declared.tool_config.targets);
    if !config.is_empty() {
        return config;
    }
    let reqs = of(&declared.requirements);
    if !reqs.is_empty() {
        return reqs;
    }
    envs.iter()
        .find_map(|e| e.get(name))
        .map(|d| {
            // The public release: the package index has no local labels (`+cu121`).
            let v = d.version.to_string();
            vec![format!("=={}", v.split('+').next().unwrap_or(&v))]
        })
        .unwrap_or_default()
}

/// Import name -> distribution, from the installed distributions' `top_level.txt` / `RECORD`.
fn installed_names(envs: &[&InstalledEnvironment]) -> HashMap<String, String> {
    let mut out = HashMap::default();
    for env in envs {
        for d in &env.distributions {
            for name in apicompat_requirements::import_names(d) {
                out.entry(name).or_insert_with(|| d.name.clone());
            }
        }
    }
    out
}
