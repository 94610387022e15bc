//! The note on declarations that admit releases older than the index has.

use apicompat_index::catalog::Origin;
use apicompat_index::PackageView;
use apicompat_requirements::{admits, parse_version, DeclaredRequirement, Version};

/// When every bounded declaration of an embedded (or data-file) package also admits releases
/// older than the oldest the index has (`torch>1.0.0` beside torch 1.13.0 first), a note that
/// those are not checked (study 54, D-3), as for Python. `all`: the package's versions, oldest
/// first; `described`: the target's description (`declared \`torch>1.0.0\` (file:line)`).
pub(super) fn note(
    view: &PackageView,
    all: &[Version],
    reqs: &[&DeclaredRequirement],
    described: &str,
) -> Option<String> {
    // A cached package holds the releases fetched for the project, not a chosen start.
    if view.releases().iter().any(|r| r.origin == Origin::Cached) {
        return None;
    }
    let oldest = all.iter().find(|v| !v.any_prerelease())?;
    let probe = match *oldest.release() {
        [major, minor, ..] if minor > 0 => format!("{major}.{}.9999", minor - 1),
        [major, ..] if major > 0 => format!("{}.9999", major - 1),
        _ => return None,
    };
    let probe = parse_version(&probe).ok()?;
    let bounded: Vec<&&DeclaredRequirement> =
        reqs.iter().filter(|r| !r.specifier.is_empty()).collect();
    if bounded.is_empty() || !bounded.iter().all(|r| admits(&r.specifier, &probe)) {
        return None;
    }
    let verb = if reqs.len() > 1 { "admit" } else { "admits" };
    Some(format!(
        "{described} also {verb} {} older than {oldest}, the oldest release the index has: not checked there",
        view.name()
    ))
}
