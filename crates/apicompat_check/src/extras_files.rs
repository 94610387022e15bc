//! Files that run only with an extra installed: a module that imports, at its top level and
//! unguarded, a package only extras declare cannot be imported without one of them, so its
//! uses of another package run only on the releases the main requirements and that extra
//! admit together (Mantis: `mantis/train/train_mllava.py` imports `peft`, which only the extra
//! `train` declares, and `train` bounds the main requirements' bare `transformers` with
//! `<4.46.0`; `docs/false-alarm-study-43.md`, F-AF).

use std::collections::BTreeMap;
use std::sync::Arc;

use apicompat_hash::HashMap;
use apicompat_requirements::{normalize_name, Declared, DeclaredRequirement};

use crate::collect::UseKind;
use crate::evaluate::Evaluator;
use crate::files::Analyzed;
use crate::model::Reach;
use crate::targets::{self, Target};

/// Per file (position) and package: the target its uses are judged on, where the extras the
/// file needs narrow the package's chosen target.
pub(crate) type Narrowed = HashMap<(usize, String), Target>;

/// The narrowed targets of the files that need an extra ([`Narrowed`]); `declared` holds
/// every scope (the main requirements have no group).
pub(crate) fn narrowed(
    catalog: &apicompat_index::Catalog,
    eval: &Evaluator<'_>,
    declared: &Declared,
    chosen: &BTreeMap<String, Target>,
    analyzed: &[Arc<Analyzed>],
    reported: &[bool],
) -> Narrowed {
    let mut out = Narrowed::default();
    // The packages only extras declare, with those extras.
    let main: Vec<&str> = declared
        .requirements
        .iter()
        .filter(|r| r.group.is_none())
        .map(|r| r.name.as_str())
        .collect();
    let mut only_extras: HashMap<String, Vec<String>> = HashMap::default();
    for r in &declared.requirements {
        let Some(g) = &r.group else { continue };
        let g = normalize_name(g);
        if main.contains(&r.name.as_str()) || !declared.extras.contains(&g) {
            continue;
        }
        let extras = only_extras.entry(r.name.clone()).or_default();
        if !extras.contains(&g) {
            extras.push(g);
        }
    }
    if only_extras.is_empty() {
        return out;
    }
    // Per extra and package: the releases the main requirements and the extra admit.
    let mut admitted: HashMap<(String, String), Option<Vec<usize>>> = HashMap::default();
    for (fi, file) in analyzed.iter().enumerate() {
        if !reported.get(fi).copied().unwrap_or(false) {
            continue;
        }
        // The extras each needed package comes with, and the packages.
        let mut needs: Vec<&Vec<String>> = Vec::new();
        let mut imported: Vec<&str> = Vec::new();
        for u in &file.uses.uses {
            let plain = u.kind == UseKind::Import
                && u.reach == Reach::ImportTime
                && !u.guarded
                && u.requires.is_empty()
                && u.versions.is_empty();
            if !plain {
                continue;
            }
            let root = u.path.split('.').next().unwrap_or(&u.path);
            let Some(view) = eval.package_for(root) else {
                continue;
            };
            if let Some(extras) = only_extras.get(&normalize_name(view.name())) {
                if !needs.contains(&extras) {
                    needs.push(extras);
                }
                if !imported.contains(&view.name()) {
                    imported.push(view.name());
                }
            }
        }
        if needs.is_empty() {
            continue;
        }
        for (package, target) in chosen {
            let Ok(Some(view)) = catalog.package(package) else {
                continue;
            };
            // Each needed package: one of its extras is installed.
            let mut allowed: Option<Vec<usize>> = None;
            let mut by: Vec<String> = Vec::new();
            for extras in &needs {
                let mut union: Vec<usize> = Vec::new();
                for e in extras.iter() {
                    let key = (e.clone(), package.clone());
                    let releases = admitted
                        .entry(key)
                        .or_insert_with(|| within_extra(declared, e, view));
                    match releases {
                        Some(r) => union.extend(r.iter().copied()),
                        // The extra does not bound it: nothing is known of this package.
                        None => union.extend(target.releases.iter().copied()),
                    }
                    if releases.is_some() && !by.contains(e) {
                        by.push(e.clone());
                    }
                }
                allowed = Some(match allowed {
                    None => union,
                    Some(a) => a.into_iter().filter(|r| union.contains(r)).collect(),
                });
            }
            let Some(allowed) = allowed else { continue };
            let releases: Vec<usize> = target
                .releases
                .iter()
                .copied()
                .filter(|r| allowed.contains(r))
                .collect();
            if releases.len() == target.releases.len() || by.is_empty() {
                continue;
            }
            let mut narrowed = target.clone();
            let quoted = |v: &[&str]| {
                v.iter()
                    .map(|e| format!("`{e}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let by: Vec<&str> = by.iter().map(String::as_str).collect();
            let within = format!(" with the extra {}", quoted(&by));
            narrowed.short.push_str(&within);
            narrowed.info.description.push_str(&format!(
                "{within} (this file imports {}, which only extras declare)",
                quoted(&imported)
            ));
            narrowed.info.releases = releases
                .iter()
                .filter_map(|&r| Some(view.releases().get(r)?.version.to_string()))
                .collect();
            narrowed.releases = releases;
            out.insert((fi, package.clone()), narrowed);
        }
    }
    out
}

/// The releases of `view` the main requirements and extra `extra` admit together, when the
/// extra has a requirement on it (`None` otherwise).
fn within_extra(
    declared: &Declared,
    extra: &str,
    view: &apicompat_index::PackageView,
) -> Option<Vec<usize>> {
    let name = normalize_name(view.name());
    let reqs: Vec<&DeclaredRequirement> = declared
        .requirements
        .iter()
        .filter(|r| r.name == name)
        .filter(|r| match &r.group {
            None => true,
            Some(g) => normalize_name(g) == extra,
        })
        .collect();
    if !reqs
        .iter()
        .any(|r| r.group.is_some() && !r.specifier.is_empty())
    {
        return None;
    }
    let all: Vec<_> = view.releases().iter().map(|r| r.version.clone()).collect();
    let platforms = view.wheel_platforms();
    let admitted = targets::admitted_by(&reqs, &all, &platforms);
    Some(
        (0..all.len())
            .filter(|&i| admitted.contains(&all[i]))
            .collect(),
    )
}
