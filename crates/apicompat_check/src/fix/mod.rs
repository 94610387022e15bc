//! Concrete edits for findings (`check --fix`, `--diff`, the server's code actions), derived
//! from the fixes the rules suggest and from the index (`docs/fixes.md`).
//!
//! - `imports.rs`: an import whose path is missing on some targeted release, when the index
//!   names the same object elsewhere (a `moved` fix). **Safe**: rewritten to a path that has
//!   the object on every targeted release (the same object wherever the old path worked, and
//!   no more private). **Unsafe** otherwise: a `try/except ImportError` fallback with the
//!   releases that take the fallback in its comment.
//! - `requirement.rs`: AC008's requirement narrowed in place (unsafe: fewer releases admitted)
//!   to the releases on which no use without an edit of its own breaks.
//! - `apply.rs`: applying the edits of many findings (overlaps, re-parse, unified diff).
//!
//! Files are parsed again here, once per file that has a candidate finding: the walk that found
//! the uses keeps no tree.

pub mod apply;
mod imports;
mod requirement;

use apicompat_hash::HashSet;
use std::collections::BTreeMap;
use std::path::PathBuf;

use apicompat_index::{Catalog, PackageView};

use crate::model::{Edit, FixKind, Report};
use crate::rules::{MissingImport, RequirementAdmitsBroken, RuleInfo};

pub use apply::{apply_edits, plan, unified_diff, FileOutcome};

/// Attaches an [`crate::model::Autofix`] to every finding of `report` that has one: first the
/// imports, then the requirements (whose narrowing leaves out only the releases that uses
/// without a fix of their own break).
pub fn attach(catalog: &Catalog, report: &mut Report) {
    let mut by_file: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    let mut requirements = Vec::new();
    for (i, f) in report.findings.iter().enumerate() {
        // A use behind an earlier failure gets its fix too: it breaks once that is fixed.
        if f.reach == crate::Reach::Guarded {
            continue;
        }
        if f.code == MissingImport::RULE.code && f.fixes.iter().any(|x| x.kind == FixKind::Moved) {
            by_file.entry(f.path.clone()).or_default().push(i);
        } else if f.code == RequirementAdmitsBroken::RULE.code {
            requirements.push(i);
        }
    }
    for (path, indexes) in by_file {
        let Some(text) = report.sources.get(&path) else {
            continue;
        };
        let parsed = imports::Module::parse(text);
        for i in indexes {
            let f = &report.findings[i];
            let fix = match catalog.package(&f.package) {
                Ok(Some(view)) => parsed.fix(view, targeted(report, &f.package), f),
                _ => None,
            };
            report.findings[i].fix = fix;
        }
    }
    for i in requirements {
        let f = &report.findings[i];
        let Some(text) = report.sources.get(&f.path) else {
            continue;
        };
        let Ok(Some(view)) = catalog.package(&f.package) else {
            continue;
        };
        let fix = still_broken(report, view, f).and_then(|pin| requirement::narrow(f, text, &pin));
        report.findings[i].fix = fix;
    }
}

/// The targeted releases of a package.
fn targeted<'r>(report: &'r Report, package: &str) -> &'r [String] {
    report
        .summary
        .targets
        .iter()
        .find(|t| t.package == package)
        .map_or(&[][..], |t| t.releases.as_slice())
}

/// A requirement that admits the targeted releases of the package of AC008 finding `req` on
/// which no unguarded use without an edit of its own breaks; None when that is every targeted
/// release, or none. The releases the requirement admits that were not checked (the other
/// requirements rule them out) get no `!=` of their own.
fn still_broken(report: &Report, view: &PackageView, req: &crate::Finding) -> Option<String> {
    let package = req.package.as_str();
    let targeted = targeted(report, package);
    let mut broken: HashSet<&str> = HashSet::default();
    for f in &report.findings {
        if f.package == package
            && f.reach != crate::Reach::Guarded
            && f.fix.is_none()
            && crate::admitted::is_use_code(f.code)
        {
            broken.extend(f.missing_in.iter().map(String::as_str));
        }
    }
    let versions: Vec<_> = view.releases().iter().map(|r| r.version.clone()).collect();
    let working: Vec<bool> = versions
        .iter()
        .map(|v| {
            let v = v.to_string();
            targeted.contains(&v) && !broken.contains(v.as_str())
        })
        .collect();
    let count = working.iter().filter(|&&w| w).count();
    if count == 0 || count == targeted.len() {
        return None;
    }
    let declared = apicompat_requirements::parse_requirement(&req.symbol).ok();
    let unchecked: Vec<bool> = versions
        .iter()
        .map(|v| {
            declared.as_ref().is_some_and(|d| {
                !targeted.contains(&v.to_string())
                    && apicompat_requirements::admits(&d.specifier, v)
            })
        })
        .collect();
    crate::pins::narrowing_line(package, &versions, &working, &unchecked)
}

/// An edit of `text` replacing `start..end`, with its line and column positions.
pub(crate) fn edit(text: &str, start: usize, end: usize, content: String) -> Edit {
    let (line, column) = position(text, start);
    let (end_line, end_column) = position(text, end);
    Edit {
        start,
        end,
        content,
        line,
        column,
        end_line,
        end_column,
    }
}

/// 1-based line and character column of a byte offset.
pub(crate) fn position(text: &str, offset: usize) -> (u32, u32) {
    let offset = floor_char_boundary(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// The byte offset of a 1-based line and character column (clamped to the text).
pub fn offset(text: &str, line: u32, column: u32) -> usize {
    let mut start = 0;
    for _ in 1..line.max(1) {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_text = &text[start..];
    let line_end = line_text.find('\n').unwrap_or(line_text.len());
    let skip = column.max(1) as usize - 1;
    start
        + line_text[..line_end]
            .char_indices()
            .nth(skip)
            .map_or(line_end, |(i, _)| i)
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}
