//! AC008's requirement narrowed in place: only the version specifier of the declaration is
//! replaced (`torch>=2.0  # pinned for CI` -> `torch>=2.4  # pinned for CI`), so the name,
//! extras, markers, quotes, commas and comments of `requirements.txt`, `pyproject.toml` and
//! `setup.cfg` stay as written. Unsafe: it admits fewer releases.
//!
//! When the new specifier is open above, the declaration's own upper bounds (`<3`, `<=2.9`,
//! `~=2.0`, `==2.*`) are kept: narrowing never admits a release the declaration left out.
//! Direct references (`torch @ https://...`) are not edited.

use apicompat_requirements::parse_requirement;

use crate::model::{Applicability, Autofix, Finding};

use super::{edit, offset};

/// Files whose declarations are edited.
fn editable(path: &std::path::Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name == "pyproject.toml"
        || name == "setup.cfg"
        || name.ends_with(".txt")
        || name.ends_with(".in")
}

/// The edit that narrows the declaration an AC008 finding is on to `pin` (`torch>=2.4`).
pub(super) fn narrow(f: &Finding, text: &str, pin: &str) -> Option<Autofix> {
    if !editable(&f.path) {
        return None;
    }
    let start = offset(text, f.line, f.column);
    let end = offset(text, f.end_line, f.end_column);
    let raw = text.get(start..end)?;
    if raw.contains('@') || f.end_line != f.line {
        return None;
    }
    let (spec_start, spec_end) = specifier_span(raw)?;
    let old = raw[spec_start..spec_end].trim_end();
    let spec_end = spec_start + old.len();
    let new_clauses = pin.get(pin.find(['<', '>', '=', '!', '~'])?..)?;
    let spec = narrowed(new_clauses, old);
    let new_raw = format!("{}{spec}{}", &raw[..spec_start], &raw[spec_end..]);
    // The declaration must still read as the same requirement, narrowed.
    let before = parse_requirement(raw).ok()?;
    let after = parse_requirement(&new_raw).ok()?;
    if before.name != after.name || before.extras != after.extras || spec == old {
        return None;
    }
    let e = edit(text, start + spec_start, start + spec_end, spec);
    Some(Autofix {
        applicability: Applicability::Unsafe,
        message: format!(
            "narrow the requirement to `{new_raw}` (the releases where no use without a fix of \
             its own breaks)"
        ),
        edits: vec![e],
    })
}

/// Where the version specifier of a requirement lies: after the name and extras, before the
/// marker. An empty span after the name when there is none.
fn specifier_span(raw: &str) -> Option<(usize, usize)> {
    let name_end = raw
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(raw.len());
    if name_end == 0 {
        return None;
    }
    let mut i = name_end;
    let rest = &raw[i..];
    let trimmed = rest.trim_start();
    if trimmed.starts_with('[') {
        i += rest.len() - trimmed.len();
        i += raw[i..].find(']')? + 1;
    }
    let rest = &raw[i..];
    let spec_from = i + (rest.len() - rest.trim_start().len());
    let spec_to = raw[spec_from..]
        .find(';')
        .map_or(raw.len(), |j| spec_from + j);
    if raw[spec_from..spec_to].trim_start().starts_with('(') {
        return None;
    }
    if spec_from == spec_to || raw[spec_from..spec_to].trim().is_empty() {
        return Some((name_end.max(i), name_end.max(i)));
    }
    Some((spec_from, spec_to))
}

/// The new clauses, with the old upper bounds when the new ones leave the top open.
fn narrowed(new: &str, old: &str) -> String {
    let bounded_above = |c: &str| {
        let c = c.trim();
        c.starts_with('<') || c.starts_with("~=") || (c.starts_with("==") && c.ends_with('*'))
    };
    if new
        .split(',')
        .any(|c| bounded_above(c) || c.trim().starts_with("=="))
    {
        return new.to_string();
    }
    let kept: Vec<&str> = old
        .split(',')
        .map(str::trim)
        .filter(|c| bounded_above(c))
        .collect();
    let sep = if old.contains(", ") { ", " } else { "," };
    if kept.is_empty() {
        new.to_string()
    } else {
        format!("{new}{sep}{}", kept.join(sep))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifier_spans() {
        fn span(r: &str) -> Option<&str> {
            specifier_span(r).map(|(a, b)| &r[a..b])
        }
        assert_eq!(span("torch>=2.0"), Some(">=2.0"));
        assert_eq!(
            span("torch [cuda] >= 2.0 ; python_version > '3.8'"),
            Some(">= 2.0 ")
        );
        assert_eq!(span("torch"), Some(""));
        assert_eq!(span("torch; sys_platform == 'linux'"), Some(""));
    }

    #[test]
    fn upper_bounds_are_kept() {
        assert_eq!(narrowed(">=2.4", ">=2.0,<3"), ">=2.4,<3");
        assert_eq!(narrowed(">=2.4,<2.6", ">=2.0,<3"), ">=2.4,<2.6");
        assert_eq!(narrowed(">=2.4", "~=2.0"), ">=2.4,~=2.0");
        assert_eq!(narrowed(">=2.4", ">=2.0"), ">=2.4");
    }
}
