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
use crate::pins::{narrowed, specifier_span};

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
