//! When no release of a package has every use: the fewest uses that block, with a fix for
//! each, and what the package needs once they are fixed.
//!
//! The smallest blocking set is exact: for each release, the uses absent there are what keep
//! it out; the release with the fewest (the newest among equals) names them. Fixing those (a
//! guard makes a use work on every release) leaves the meet of the other uses, which contains
//! that release. Cost: releases x uses, plus one pass over the package's paths for the moved
//! imports.

use apicompat_hash::HashMap;

use serde::Serialize;

use apicompat_check::pins::requirement_line;
use apicompat_check::survey::{Presence, SurveyedUse};
use apicompat_index::{ranges, Catalog, Status};
use apicompat_requirements::Version;
use apicompat_surface::Kind;

use crate::{meet, use_ref, Group, Releases, UseRef};

/// A use to fix, and how.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct BlockingUse {
    #[serde(flatten)]
    pub at: UseRef,
    /// `import it from `X` in 2.5.0 - 2.15.0 (the same object)`, or a guard.
    pub fix: String,
}

/// The fewest uses that keep every release out, and the answer once they are fixed.
#[derive(Debug, Clone, Serialize)]
pub struct Blocking {
    /// The release the fixes open (the newest with the fewest blocking uses).
    pub release: String,
    pub uses: Vec<BlockingUse>,
    /// What the package needs once they are fixed.
    pub then: Releases,
    pub requirement: Option<String>,
    #[serde(skip)]
    pub(crate) then_mask: Vec<bool>,
}

/// The blocking set of `live` (uses some release lacks), when their releases do not meet.
pub(crate) fn blocking(
    catalog: &Catalog,
    package: &str,
    parsed: &[Version],
    live: &[&Group<'_>],
    versions: &[String],
) -> Option<Blocking> {
    let n = versions.len();
    let absent = |g: &Group<'_>, r: usize| g.first.presence.get(r) == Some(&Presence::Absent);
    // Distinct symbols absent per release (one fix covers every place of a symbol).
    let cost = |r: usize| -> usize {
        let mut syms: Vec<&str> = live
            .iter()
            .filter(|g| absent(g, r))
            .map(|g| g.first.symbol.as_str())
            .collect();
        syms.sort_unstable();
        syms.dedup();
        syms.len()
    };
    let best = (0..n).rev().min_by_key(|&r| cost(r))?;
    let blockers: Vec<&Group<'_>> = live.iter().copied().filter(|g| absent(g, best)).collect();
    if blockers.is_empty() {
        return None;
    }
    let rest: Vec<&Group<'_>> = live.iter().copied().filter(|g| !absent(g, best)).collect();
    let then_mask = meet(n, &rest);
    let firsts: Vec<&SurveyedUse> = blockers.iter().map(|g| g.first).collect();
    let moved = moved_paths(catalog, package, &firsts, best);
    let uses = blockers
        .iter()
        .map(|g| {
            let at = use_ref(g, versions);
            let fix = match moved.get(g.first.symbol.as_str()) {
                Some(found) if found.same => found.advice(package, &versions[best]),
                Some(found) => format!(
                    "{}; or {}",
                    guard(g, versions),
                    found.advice(package, &versions[best])
                ),
                None => guard(g, versions),
            };
            BlockingUse { at, fix }
        })
        .collect();
    Some(Blocking {
        release: versions[best].clone(),
        uses,
        then: Releases::of(versions, &then_mask),
        requirement: if parsed.len() == n {
            requirement_line(package, parsed, &then_mask, false)
        } else {
            None
        },
        then_mask,
    })
}

/// The guard that makes a use work where it is missing, with the releases that have it (not
/// those where it merely does not run).
fn guard(g: &Group<'_>, versions: &[String]) -> String {
    let has: Vec<bool> = g
        .first
        .presence
        .iter()
        .map(|&p| p == Presence::Present)
        .collect();
    let has = ranges(versions, &has);
    let works = if has.is_empty() {
        "no indexed release has it".to_string()
    } else {
        format!("it exists in {}", has.join(", "))
    };
    let how = match g.first.code {
        "AC001" => "`try: ... except ImportError:` around the import",
        "AC003" => "a version condition around the call (or drop the keyword)",
        "AC013" => "a version condition around the call (or pass the parameter)",
        _ => "`hasattr` (or `getattr(obj, name, default)`) before the read",
    };
    format!("{works}: guard it with {how}")
}

/// Where a used path's object is in release `r`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub path: String,
    /// The same canonical definition; else a class or function of the same name defined at
    /// the same level (a module's, or a class's), which the index cannot say is the same.
    pub same: bool,
}

impl Found {
    /// `import it from `X`, the same object in torch 2.5.0`.
    pub(crate) fn advice(&self, package: &str, release: &str) -> String {
        if self.same {
            format!(
                "import it from `{}`, the same object in {package} {release}",
                self.path
            )
        } else {
            format!(
                "a different definition of the same name is `{}` in {package} {release} (not the same object: check it does what the code expects)",
                self.path
            )
        }
    }
}

/// For imports and attributes: a path that names the same object (same canonical
/// definition) in release `r`, else one of the same name and kind at the same level, found in
/// one pass over the package's paths.
pub(crate) fn moved_paths<'g>(
    catalog: &Catalog,
    package: &str,
    uses: &[&'g SurveyedUse],
    r: usize,
) -> HashMap<&'g str, Found> {
    let mut out: HashMap<&'g str, Found> = HashMap::default();
    let Ok(Some(view)) = catalog.package(package) else {
        return out;
    };
    let in_class = |canonical: &str, release: usize| {
        canonical.rsplit_once('.').is_some_and(|(parent, _)| {
            matches!(
                view.status(parent, release),
                Ok(Status::Present { symbol, .. }) if symbol.kind() == Kind::Class
            )
        })
    };
    // Per used path, from the newest release that has it: (symbol, canonical, kind, member
    // of a class, that release).
    type Wanted<'g> = (&'g str, String, Kind, bool, usize);
    let mut wanted: HashMap<&str, Vec<Wanted<'g>>> = HashMap::default();
    for u in uses {
        if !matches!(u.code, "AC001" | "AC002") {
            continue;
        }
        let path = u.used_path.as_str();
        let Some(p) = (0..u.presence.len())
            .rev()
            .find(|&x| u.presence[x] == Presence::Present)
        else {
            continue;
        };
        if let Ok(Status::Present {
            path: found,
            symbol,
        }) = view.status(path, p)
        {
            let kind = symbol.kind();
            let canonical = symbol.canonical.unwrap_or(found);
            let member = in_class(&canonical, p);
            let last = path.rsplit('.').next().unwrap_or(path);
            wanted
                .entry(last)
                .or_default()
                .push((u.symbol.as_str(), canonical, kind, member, p));
        }
    }
    if wanted.is_empty() {
        return out;
    }
    let mut candidates: Vec<String> = wanted.keys().flat_map(|n| view.paths_named(n)).collect();
    candidates.sort_unstable();
    // Lowest wins: (not the same object, a module that merely imports it, private segments,
    // length).
    type Score = (bool, bool, usize, usize);
    let mut best: HashMap<&'g str, (Score, Found)> = HashMap::default();
    for c in &candidates {
        let c = c.as_str();
        let last = c.rsplit('.').next().unwrap_or(c);
        let Some(list) = wanted.get(last) else {
            continue;
        };
        let Ok(Status::Present {
            path: found,
            symbol,
        }) = view.status(c, r)
        else {
            continue;
        };
        let kind = symbol.kind();
        let canonical = symbol.canonical.unwrap_or(found);
        // An object defined outside the package (a builtin numpy re-exports) is no advice.
        if canonical.split('.').next() != c.split('.').next() {
            continue;
        }
        let incidental = c
            .rsplit_once('.')
            .is_none_or(|(m, _)| !canonical.starts_with(&format!("{m}.")));
        let private = c.split('.').filter(|s| s.starts_with('_')).count();
        for (sym, want, want_kind, member, p) in list {
            // The same canonical definition, or a path of the package that defines it here and
            // names the used object's definition where the use works (the definition moved and
            // the old place re-exports it, as `diff` reports moves).
            let same = *want == canonical
                || !incidental
                    && matches!(
                        view.status(c, *p),
                        Ok(Status::Present { path: then, symbol: s }) if s.canonical.as_deref().unwrap_or(&then) == want.as_str()
                    );
            let similar = !same
                && kind == *want_kind
                && matches!(kind, Kind::Class | Kind::Function)
                && canonical.rsplit('.').next() == want.rsplit('.').next()
                && in_class(&canonical, r) == *member;
            if !same && !similar {
                continue;
            }
            let score = (!same, incidental, private, c.len());
            if best.get(sym).is_none_or(|(s, _)| score < *s) {
                best.insert(
                    *sym,
                    (
                        score,
                        Found {
                            path: c.to_string(),
                            same,
                        },
                    ),
                );
            }
        }
    }
    out.extend(best.into_iter().map(|(k, (_, f))| (k, f)));
    out
}
