//! AC008: a declared requirement that admits releases on which unguarded uses of the project
//! break. One finding per package, on the line of its (first) declaration.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use apicompat_index::{ranges, Catalog};
use apicompat_requirements::{Declared, DeclaredRequirement, Version};

use super::{
    DriftingAttribute, MissingAttribute, MissingImport, Rule, RuleInfo, UnsupportedKeyword,
};
use crate::model::{Finding, Fix, FixKind, Reach, Severity, TargetInfo};
use crate::pins::narrowing_line;

/// ## What it does
/// Reports, once per package, a declared requirement (`requirements.txt`, `pyproject.toml`, ...)
/// that admits releases on which an unguarded use in the project breaks: the releases, the
/// uses that break there (import-time or call-time), and the requirement that admits only the
/// releases that work. The finding is placed on the declaration's line.
///
/// ## Why is this bad?
/// `pip install` may pick any release the requirement admits; on the broken ones the project
/// fails at import or when the code runs. The requirement, not only the code, is wrong.
///
/// ## Example
/// ```text
/// # requirements.txt
/// torch>=2.3.0   # admits 2.3.0 and 2.3.1, which lack torch.distributed.pipelining
/// ```
///
/// ## How to fix
/// Raise (or cap) the requirement to the one the finding gives (`torch>=2.4`), or change the
/// uses. `apicompat range` shows the releases every use needs and why.
pub struct RequirementAdmitsBroken;

impl RuleInfo for RequirementAdmitsBroken {
    const RULE: Rule = Rule {
        code: "AC008",
        name: "requirement-admits-broken",
        severity: Severity::Error,
        summary: "a declared requirement admits releases on which the project breaks",
    };
}

/// A use that breaks on some releases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakingUse {
    pub symbol: String,
    /// `src/train.py:49`.
    pub location: String,
    /// Import time or call time.
    pub reach: Reach,
    /// Positions of the releases (in the package's view) where it breaks.
    pub releases: Vec<usize>,
}

/// Whether a finding's code is one of a use that breaks on a release.
pub fn is_use_code(code: &str) -> bool {
    [
        MissingImport::RULE.code,
        MissingAttribute::RULE.code,
        UnsupportedKeyword::RULE.code,
        DriftingAttribute::RULE.code,
    ]
    .contains(&code)
}

/// The pin `release` was checked for when the declarations together do not admit it: a pin
/// the index lacks (`torch==2.3.2`) is checked on the indexed release of its series (2.3.1).
fn stands_for(
    declared: &[&DeclaredRequirement],
    versions: &[Version],
    i: usize,
) -> Option<Version> {
    if declared
        .iter()
        .all(|d| apicompat_requirements::admits(&d.specifier, &versions[i]))
    {
        return None;
    }
    declared
        .iter()
        .find_map(|d| crate::pins::pin_of(&d.specifier))
        .filter(|p| *p != versions[i] && crate::pins::same_series(versions, p) == Some(i))
}

/// The AC008 finding for the declarations of one package, when the releases they admit
/// (`admitted`, positions in `versions`) include some where a use breaks. The second value is
/// the text of the declaring file, for code frames.
pub fn requirement_finding(
    package: &str,
    versions: &[Version],
    declared: &[&DeclaredRequirement],
    admitted: &[usize],
    uses: &[BreakingUse],
    project_root: &Path,
) -> Option<(Finding, Option<String>)> {
    let first = declared.first()?;
    let n = versions.len();
    let mut broken: BTreeMap<usize, Reach> = BTreeMap::new();
    for u in uses {
        for &r in &u.releases {
            if !admitted.contains(&r) {
                continue;
            }
            let e = broken.entry(r).or_insert(u.reach);
            if u.reach == Reach::ImportTime {
                *e = Reach::ImportTime;
            }
        }
    }
    if broken.is_empty() {
        return None;
    }
    let names: Vec<String> = versions.iter().map(ToString::to_string).collect();
    let mask = |keep: &dyn Fn(usize) -> bool| -> Vec<bool> { (0..n).map(keep).collect() };
    let import_mask = mask(&|i| broken.get(&i) == Some(&Reach::ImportTime));
    // A script's `__main__` block runs when it is run, not when it is imported: with calls.
    let call_mask = mask(&|i| matches!(broken.get(&i), Some(Reach::CallTime | Reach::Script)));
    let broken_mask = mask(&|i| broken.contains_key(&i));
    let working_mask = mask(&|i| admitted.contains(&i) && !broken.contains_key(&i));
    let listed = |m: &[bool]| -> String {
        let count = m.iter().filter(|&&b| b).count();
        if count <= 3 {
            (0..n)
                .filter(|&i| m[i])
                .map(|i| match stands_for(declared, versions, i) {
                    Some(pinned) => format!("{pinned}, checked on {} of its series", names[i]),
                    None => names[i].clone(),
                })
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            ranges(&names, m).join(", ")
        }
    };
    let mut parts = Vec::new();
    if import_mask.iter().any(|&b| b) {
        parts.push(format!("{} (importing fails)", listed(&import_mask)));
    }
    if call_mask.iter().any(|&b| b) {
        parts.push(format!("{} (calls fail)", listed(&call_mask)));
    }
    let raws: Vec<String> = declared
        .iter()
        .map(|d| format!("`{}` ({})", d.raw, d.source))
        .collect();
    let mut culprits: Vec<&BreakingUse> = uses
        .iter()
        .filter(|u| u.releases.iter().any(|r| broken.contains_key(r)))
        .collect();
    culprits.sort_by_key(|u| (u.reach != Reach::ImportTime, u.location.clone()));
    let mut seen = BTreeSet::new();
    culprits.retain(|u| seen.insert(u.symbol.clone()));
    let shown: Vec<String> = culprits
        .iter()
        .take(3)
        .map(|u| format!("`{}` at {} ({})", u.symbol, u.location, u.reach.as_str()))
        .collect();
    let more = if culprits.len() > 3 {
        format!(" and {} more", culprits.len() - 3)
    } else {
        String::new()
    };
    // Open below (it starts at the index's oldest release): one declaration's own lower
    // bound stands (`transformers>=4.28.1` -> `transformers>=4.28.1,<5.0`).
    // Releases the declarations admit that were not checked (the other requirements rule
    // them out) get no `!=` of their own.
    let unchecked = mask(&|i| {
        !admitted.contains(&i)
            && declared
                .iter()
                .all(|d| apicompat_requirements::admits(&d.specifier, &versions[i]))
    });
    let pin = narrowing_line(package, versions, &working_mask, &unchecked).map(|p| {
        let (Some(at), [only]) = (p.find(['<', '>', '=', '!', '~']), declared) else {
            return p;
        };
        match crate::pins::specifier_span(&only.raw) {
            Some((a, b)) => format!(
                "{package}{}",
                crate::pins::narrowed(&p[at..], only.raw[a..b].trim())
            ),
            None => p,
        }
    });
    let tail = match &pin {
        Some(p) => format!("; `{p}` admits only the releases that work"),
        None => "; no release it admits works (`apicompat range` shows the releases the uses need)"
            .to_string(),
    };
    let message = format!(
        "{} admit{} {package} {} where the project breaks: {}{more}{tail}",
        raws.join(", "),
        if declared.len() == 1 { "s" } else { "" },
        parts.join(" and "),
        shown.join(", "),
    );
    let mut fixes = Vec::new();
    if let Some(p) = &pin {
        fixes.push(Fix {
            kind: FixKind::Pin,
            message: format!("require `{p}`"),
            replacement: None,
            releases: (0..n)
                .filter(|&i| working_mask[i])
                .map(|i| names[i].clone())
                .collect(),
            requirement: Some(p.clone()),
        });
    }
    let file = project_root.join(&first.source.file);
    let text = apicompat_requirements::read_regular_file(&file, 16 << 20)
        .ok()
        .and_then(|b| String::from_utf8(b).ok());
    let line = first.source.line.max(1);
    let (column, end_column) = text
        .as_deref()
        .and_then(|t| t.lines().nth(line as usize - 1))
        .map(|l| {
            let at = l
                .find(first.raw.as_str())
                .or_else(|| l.to_ascii_lowercase().find(&first.name))
                .unwrap_or(0);
            let col = l[..at].chars().count() as u32 + 1;
            let len = if l[at..].starts_with(first.raw.as_str()) {
                first.raw.chars().count()
            } else {
                l[at..].trim_end().chars().count()
            };
            (col, col + len.max(1) as u32)
        })
        .unwrap_or((1, 1));
    let rule = RequirementAdmitsBroken::RULE;
    let reach = if import_mask.iter().any(|&b| b) {
        Reach::ImportTime
    } else {
        Reach::CallTime
    };
    let finding = Finding {
        code: rule.code,
        rule: rule.name,
        severity: rule.severity,
        path: shorten(&file),
        line,
        column,
        end_line: line,
        end_column,
        symbol: first.raw.clone(),
        package: package.to_string(),
        missing_in: broken.keys().map(|&i| names[i].clone()).collect(),
        present_in: (0..n)
            .filter(|&i| working_mask[i])
            .map(|i| names[i].clone())
            .collect(),
        missing_ranges: ranges(&names, &broken_mask),
        present_ranges: ranges(&names, &working_mask),
        message,
        fixes,
        fix: None,
        reach,
        target_source: Some(format!("declared {}", raws.join(", "))),
        guard: None,
    };
    Some((finding, text))
}

/// A path relative to the current directory when it lies inside it.
fn shorten(path: &Path) -> PathBuf {
    if path.is_absolute() {
        if let Ok(cwd) = std::env::current_dir() {
            let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
            if let Ok(rel) = path.strip_prefix(&cwd) {
                return rel.to_path_buf();
            }
        }
    }
    path.to_path_buf()
}

/// Gathers, while `check` goes through its findings, the uses that break, then turns them into
/// AC008 findings for the packages whose targets are the declared requirements.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    /// Per package: (symbol, location, reach, releases where it breaks).
    by_package: BTreeMap<String, Vec<Noted>>,
}

type Noted = (String, String, Reach, Vec<String>);

impl Collector {
    /// Notes a finding that is neither guarded nor silenced. A use that no indexed release
    /// has is left out, as `range` leaves it out: no requirement can fix it, and its own
    /// finding already reports it.
    pub(crate) fn note(&mut self, f: &Finding) {
        if !is_use_code(f.code)
            || !matches!(f.reach, Reach::ImportTime | Reach::CallTime | Reach::Script)
            || f.present_in.is_empty()
        {
            return;
        }
        self.by_package.entry(f.package.clone()).or_default().push((
            f.symbol.clone(),
            format!("{}:{}", crate::survey::display(&f.path), f.line),
            f.reach,
            f.missing_in.clone(),
        ));
    }

    pub(crate) fn findings(
        self,
        catalog: &Catalog,
        targets: &[TargetInfo],
        declared: &Declared,
        project_root: &Path,
    ) -> Vec<(Finding, Option<String>)> {
        let mut out = Vec::new();
        for (package, noted) in self.by_package {
            let Some(target) = targets
                .iter()
                .find(|t| t.package == package && t.origin == "declared")
            else {
                continue;
            };
            let Ok(Some(view)) = catalog.package(&package) else {
                continue;
            };
            let versions: Vec<Version> =
                view.releases().iter().map(|r| r.version.clone()).collect();
            let names = view.versions();
            let position = |v: &String| names.iter().position(|n| n == v);
            let admitted: Vec<usize> = target.releases.iter().filter_map(position).collect();
            let uses: Vec<BreakingUse> = noted
                .into_iter()
                .map(|(symbol, location, reach, missing)| BreakingUse {
                    symbol,
                    location,
                    reach,
                    releases: missing.iter().filter_map(position).collect(),
                })
                .collect();
            let reqs = declared.requirements_for(&package);
            if let Some(f) =
                requirement_finding(&package, &versions, &reqs, &admitted, &uses, project_root)
            {
                out.push(f);
            }
        }
        out
    }
}
