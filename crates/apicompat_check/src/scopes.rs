//! Requirement scopes (extras, dependency groups, other requirements files): the ones asked
//! for with `--scope`, the note on those not checked, and the hint for a project whose main
//! requirements declare nothing.

use apicompat_hash::HashSet;

use apicompat_index::Catalog;

use crate::targets::capped;

/// For a project whose main requirements declare nothing: the scopes that do (a
/// `requirements/pt2.txt` is the scope `pt2`, generative-models), which `--scope` checks.
pub(crate) fn scopes_instead(unscoped: &apicompat_requirements::Declared) -> String {
    let scopes = unscoped.scopes();
    let Some(first) = scopes.keys().next() else {
        return String::new();
    };
    let listed = capped(
        &scopes.iter().collect::<Vec<_>>(),
        MAX_SCOPES_LISTED,
        ", ",
        " scopes",
        |(name, reqs)| match reqs.first() {
            Some(r) => format!("`{name}` ({})", r.source.file.display()),
            None => format!("`{name}`"),
        },
    );
    format!(", or check against the requirement scopes it declares ({listed}): `--scope {first}`")
}

/// Scopes, and requirements of each, listed in the note on scopes not checked.
const MAX_SCOPES_LISTED: usize = 4;

/// The scopes asked for, a requirements file given by its path (`--scope requirements/pt2.txt`)
/// taken as the scope it declares (`pt2`).
/// The scopes asked for; without `--scope`, the extras every install of the project its
/// instructions give includes (`pip install -e .[train]` and nothing else;
/// docs/false-alarm-study-43.md, F-AF), with a note naming them.
pub(crate) fn documented(
    declared: &apicompat_requirements::Declared,
    root: &std::path::Path,
    options: &crate::Options,
    summary: &mut crate::model::Summary,
) -> Vec<String> {
    if !options.scopes.is_empty() {
        return options.scopes.clone();
    }
    let scopes = declared.scopes();
    let found: Vec<(String, std::path::PathBuf, u32)> =
        apicompat_requirements::documented_extras(root, declared.name.as_deref())
            .into_iter()
            .filter(|(e, ..)| scopes.contains_key(&apicompat_requirements::normalize_name(e)))
            .collect();
    if let Some((_, doc, line)) = found.first() {
        let names: Vec<String> = found.iter().map(|(e, ..)| format!("`{e}`")).collect();
        let (what, are, them) = match names.len() {
            1 => ("extra", "is", "it"),
            _ => ("extras", "are", "them"),
        };
        summary.notes.push(format!(
            "the {what} {} {are} checked with the main requirements: the install instructions install the project with {them} ({}:{line}; `--scope NAME` chooses others)",
            names.join(", "),
            doc.display()
        ));
    }
    found.into_iter().map(|(e, ..)| e).collect()
}

pub(crate) fn scope_names(
    declared: &apicompat_requirements::Declared,
    wanted: &[String],
) -> Vec<String> {
    let scopes = declared.scopes();
    wanted
        .iter()
        .map(|w| {
            if scopes.contains_key(&apicompat_requirements::normalize_name(w)) {
                return w.clone();
            }
            let path = std::path::Path::new(w);
            scopes
                .iter()
                .find(|(_, reqs)| reqs.iter().any(|r| r.source.file.ends_with(path)))
                .map_or_else(|| w.clone(), |(name, _)| name.clone())
        })
        .collect()
}

/// Notes on requirement scopes: the scopes that declare an indexed package and are not
/// checked, and a scope asked for that the project does not have.
pub(crate) fn scope_notes(
    catalog: &Catalog,
    declared: &apicompat_requirements::Declared,
    wanted: &[String],
    notes: &mut Vec<String>,
) {
    let scopes = declared.scopes();
    for w in wanted {
        if !scopes.contains_key(&apicompat_requirements::normalize_name(w)) {
            let known: Vec<&str> = scopes.keys().map(String::as_str).collect();
            notes.push(format!(
                "--scope {w}: the project declares no such scope (its scopes: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        }
    }
    // The scopes asked for and the extras they bring in (`base = ["proj[hf]"]`) are checked;
    // so are the extras' requirements on packages the main requirements do not name (they
    // are what installs bring in, `targets::from_extras`).
    let wanted = declared.scope_closure(wanted);
    let main: HashSet<&str> = declared
        .requirements
        .iter()
        .filter(|r| {
            r.group
                .as_deref()
                .is_none_or(|g| wanted.contains(&apicompat_requirements::normalize_name(g)))
        })
        .map(|r| r.name.as_str())
        .collect();
    let listed: Vec<(&String, Vec<String>)> = scopes
        .iter()
        .filter(|(name, _)| !wanted.contains(name))
        .filter_map(|(name, reqs)| {
            let indexed: Vec<String> = reqs
                .iter()
                .filter(|r| main.contains(r.name.as_str()))
                .filter(|r| matches!(catalog.package(&r.name), Ok(Some(_))))
                .map(|r| format!("`{}` ({})", r.raw, r.source))
                .collect();
            (!indexed.is_empty()).then_some((name, indexed))
        })
        .collect();
    // A project with an extra per accelerator lists hundreds: the first few of each.
    let unchecked = capped(
        &listed,
        MAX_SCOPES_LISTED,
        "; ",
        " scopes",
        |(name, reqs)| {
            let reqs = capped(reqs, MAX_SCOPES_LISTED, ", ", "", |r| r.clone());
            format!("`{name}`: {reqs}")
        },
    );
    if !unchecked.is_empty() {
        notes.push(format!(
            "requirement scopes not checked (extras, dependency groups, other requirements files): {}; `--scope NAME` checks one with the main requirements",
            unchecked
        ));
    }
}
