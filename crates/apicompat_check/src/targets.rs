//! Which releases of each package are checked: `--target` specs, the installed environment
//! given with `--python`, `[tool.apicompat] targets`, the project's declared requirements, an
//! active virtual environment, or else the newest release.

use std::path::Path;

use apicompat_index::{PackageView, ReleaseRef};
use apicompat_requirements::{
    normalize_name, parse_requirement, release_of, select, Declared, DeclaredRequirement,
    InstalledEnvironment, Version, VersionSpecifiers,
};

use crate::model::TargetInfo;
use crate::pins::{exact_pin, pin_of, same_series, series_note};
use crate::python_target;
use crate::requirers::{PythonTargets, Requirers};
use crate::scopes::scopes_instead;

mod markers;
mod older;
pub use markers::admitted_by;

/// The start of the note for a project that declares no requirements at all.
pub const NOTHING_DECLARED: &str =
    "the project declares no package requirements (no dependency in a pyproject.toml, requirements file, setup.py, setup.cfg or environment.yml)";

/// A `--target` spec, parsed.
#[derive(Debug, Clone)]
pub struct TargetSpec {
    pub text: String,
    pub name: String,
    pub specifier: VersionSpecifiers,
}

/// Parses `torch==2.4.1`, `torch>=2.3`, `torch` (every release).
pub fn parse_target(text: &str) -> Result<TargetSpec, String> {
    let parsed = parse_requirement(text).map_err(|e| {
        let first = e.message.lines().next().unwrap_or("").trim().to_string();
        format!("invalid --target `{text}`: {first}")
    })?;
    if parsed.url.is_some() {
        return Err(format!(
            "invalid --target `{text}`: give a name and versions, not a URL"
        ));
    }
    Ok(TargetSpec {
        text: text.trim().to_string(),
        name: parsed.name,
        specifier: parsed.specifier,
    })
}

/// Where targets may come from, in order of precedence.
pub struct Sources<'a> {
    pub cli: &'a [TargetSpec],
    /// From `--python`: given on purpose, so it comes before declared requirements.
    pub python: Option<&'a InstalledEnvironment>,
    pub declared: &'a Declared,
    /// From `VIRTUAL_ENV`: used when nothing is declared.
    pub virtual_env: Option<&'a InstalledEnvironment>,
    /// What the other declared packages accept of a declared one.
    pub requirers: Option<&'a Requirers<'a>>,
    /// Every declaration, the scopes not checked included: a package the main requirements
    /// do not name is checked against what the extras that require it admit.
    pub unscoped: &'a Declared,
    /// For a sub-project: the enclosing project's root, whose `requires-python` applies when
    /// the sub-project declares none.
    pub parent: Option<&'a std::path::Path>,
}

/// The releases of one package to check.
#[derive(Debug, Clone)]
pub struct Target {
    pub info: TargetInfo,
    /// Positions in the package view.
    pub releases: Vec<usize>,
    /// Short form for messages: `declared \`torch>=2.3.0\``.
    pub short: String,
}

fn versions_of(view: &PackageView) -> Vec<Version> {
    view.releases()
        .iter()
        .map(|r: &ReleaseRef| r.version.clone())
        .collect()
}

fn positions(view: &PackageView, chosen: &[Version]) -> Vec<usize> {
    let mut out: Vec<usize> = chosen.iter().filter_map(|v| view.position(v)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn rel_source(r: &DeclaredRequirement) -> String {
    format!("{}", r.source)
}

/// Chooses the releases of `view` to check; notes explain choices the user should know of.
pub fn choose(view: &PackageView, sources: &Sources<'_>, notes: &mut Vec<String>) -> Target {
    let name = normalize_name(view.name());
    let all = versions_of(view);
    let make =
        |releases: Vec<usize>, origin: &'static str, description: String, short: String| Target {
            info: TargetInfo {
                package: view.name().to_string(),
                releases: releases.iter().map(|&i| all[i].to_string()).collect(),
                origin,
                description,
            },
            releases,
            short,
        };

    let cli: Vec<&TargetSpec> = sources.cli.iter().filter(|t| t.name == name).collect();
    if !cli.is_empty() {
        let mut chosen = Vec::new();
        for t in &cli {
            let mut picked = select(&t.specifier, &all);
            // `--target transformers==4.52.3` where the index has 4.52.4.
            if picked.is_empty() {
                let pinned = pin_of(&t.specifier);
                if let Some((wanted, i)) =
                    pinned.and_then(|p| Some((p.clone(), same_series(&all, &p)?)))
                {
                    notes.push(series_note(view.name(), &wanted, &all[i]));
                    picked.push(all[i].clone());
                }
            }
            if picked.is_empty() {
                notes.push(format!(
                    "--target `{}` admits no indexed release of {}; add it with `apicompat index fetch '{}'`",
                    t.text,
                    view.name(),
                    t.text
                ));
            }
            chosen.extend(picked);
        }
        let texts: Vec<&str> = cli.iter().map(|t| t.text.as_str()).collect();
        let joined = texts.join("`, `");
        return make(
            positions(view, &chosen),
            "target",
            format!("--target `{joined}`"),
            format!("--target `{joined}`"),
        );
    }

    if let Some(env) = sources.python {
        if name == python_target::PYTHON {
            if let Some(t) = python_target::from_interpreter(view, env, &all, notes) {
                return t;
            }
        }
        if let Some(t) = installed(view, env, &all, notes, "--python") {
            return t;
        }
    }

    let config: Vec<&DeclaredRequirement> = sources
        .declared
        .tool_config
        .targets
        .iter()
        .filter(|r| r.name == name)
        .collect();
    if let Some(t) = from_requirements(view, &all, &config, "config", notes) {
        return t;
    }

    if name == python_target::PYTHON {
        let roots = std::iter::once(sources.declared.root.as_path()).chain(sources.parent);
        for root in roots {
            if let Some(mut t) =
                python_target::from_requires_python(view, root, sources.parent, &all, notes)
            {
                if let Some(requirers) = sources.requirers {
                    let (kept, by) = requirers.narrow_python(view, &t.releases, notes);
                    within(&mut t, kept, &by, &all);
                }
                return t;
            }
        }
    }

    // `deepspeed @ git+https://...`: installed from that source (a fork, a checkout), which
    // no indexed release stands for.
    if let Some(d) = sources.declared.direct.iter().find(|d| d.name == name) {
        notes.push(format!(
            "{} is declared as `{}` ({}): it is installed from that source, not from a release of the package index, so its uses are not checked (`--target {}==VERSION` checks them against a release)",
            view.name(),
            d.raw,
            d.source,
            view.name()
        ));
        return make(
            Vec::new(),
            "direct",
            format!("declared `{}` ({})", d.raw, d.source),
            format!("declared `{}`", d.raw),
        );
    }

    let declared: Vec<&DeclaredRequirement> = sources
        .declared
        .requirements
        .iter()
        .filter(|r| r.name == name)
        .collect();
    if let Some(mut t) = from_requirements(view, &all, &declared, "declared", notes) {
        notes.extend(older::note(view, &all, &declared, &t.info.description));
        if let Some(requirers) = sources.requirers {
            let python = python_targets(name.as_str(), sources, requirers);
            let (kept, by) = requirers.narrow(view, &t.releases, python, notes);
            within(&mut t, kept, &by, &all);
            if let Some(python) = python {
                let (kept, by) = requirers.narrow_by_python(view, &t.releases, python, notes);
                within(&mut t, kept, &by, &all);
            }
        }
        return t;
    }

    let extras = sources.unscoped.extras_requiring(view.name());
    if let Some(t) = from_extras(view, &all, &extras, "extra", notes) {
        return t;
    }
    // Named only in other requirements files (InternEvo installs `requirements/runtime.txt`,
    // which holds `transformers<4.30.0`): the newest release they admit, as for extras.
    let files = sources.unscoped.files_requiring(view.name());
    if let Some(t) = from_extras(view, &all, &files, "requirements scope", notes) {
        nothing_declared(sources, notes);
        return t;
    }

    if let Some(env) = sources.virtual_env {
        if let Some(t) = installed(view, env, &all, notes, "VIRTUAL_ENV") {
            return t;
        }
    }

    // The newest final release (or the newest of any kind when there is no final one) that
    // can be installed on the Pythons the project is checked on, when those are known
    // (numpy 2.5.5 requires Python 3.11: a project on 3.8 gets numpy 1.24.4).
    let python = sources
        .requirers
        .and_then(|r| python_targets(name.as_str(), sources, r));
    let installable =
        |i: usize| python.is_none_or(|py| crate::requirers::installable_on(view, i, py));
    let newest_any = all
        .iter()
        .rposition(|v| !v.any_prerelease())
        .or_else(|| all.len().checked_sub(1));
    let newest_of = |allowed: &dyn Fn(usize) -> bool| {
        (0..all.len())
            .rev()
            .find(|&i| !all[i].any_prerelease() && installable(i) && allowed(i))
    };
    // A declared package installs only on Pythons older than the index (its wheels): Python
    // is not checked, rather than checked where the project cannot be installed.
    if name == python_target::PYTHON {
        let below = sources
            .requirers
            .and_then(|r| r.below_index_by_wheels(&versions_of(view)));
        if let Some((versions, source)) = below {
            let range = pythons_text(&versions);
            notes.push(format!(
                "{} is not checked: {range} only ({source})",
                view.name()
            ));
            let label = format!("older than the index ({range})");
            return make(Vec::new(), "newest", label.clone(), label);
        }
    }
    // Installed as a requirement of declared packages: the newest release they admit, when
    // that is not the newest anyway. For Python, the newest the declared packages install on.
    // `None` as the release: none installs beside the declarations (a package's own
    // requirements; its release is older than the index).
    let required = sources.requirers.and_then(|r| {
        let (kept, by, example) = if name == python_target::PYTHON {
            let finals: Vec<usize> = (0..all.len())
                .filter(|&i| !all[i].any_prerelease())
                .collect();
            let mut why = Vec::new();
            let (kept, by) = r.narrow_python(view, &finals, &mut why);
            // The note that leaves out the newest release says why.
            let newest = finals.last().map(|&i| all[i].to_string())?;
            let example = why.iter().find(|n| n.contains(&newest)).or(why.first())?;
            (kept, by, example.clone())
        } else {
            let (kept, by, example) = r.admit_undeclared(view, python)?;
            if kept.is_empty() {
                return Some((None, by.join(", "), example));
            }
            (kept, by, example)
        };
        let i = newest_of(&|i| kept.contains(&i))?;
        (Some(i) != newest_of(&|_| true)).then(|| (Some(i), by.join(", "), example))
    });
    if let Some((None, by, example)) = &required {
        notes.push(format!(
            "{} is not declared or installed, and no indexed release of it is known to install beside {by} ({example}): not checked",
            view.name()
        ));
        let label = format!("no indexed release known to install beside {by}");
        return make(Vec::new(), "newest", label.clone(), label);
    }
    if let Some((Some(i), by, example)) = required {
        let v = all[i].to_string();
        let for_python = python
            .map(|py| format!(" on {}", py.range))
            .unwrap_or_default();
        notes.push(format!(
            "{} is not declared or installed; checked against the newest release that {by} admits{for_python}, {v} ({example})",
            view.name()
        ));
        return make(
            vec![i],
            "newest",
            format!("the newest release that {by} admits ({v})"),
            format!("the newest release that {by} admits"),
        );
    }
    // No release installs on a Python older than the index (numpy 1.21+ on Python 3.6): not
    // checked, rather than checked where it cannot be installed.
    if let Some(py) = python.filter(|py| py.below_index && newest_of(&|_| true).is_none()) {
        notes.push(format!(
            "{} is not checked: no indexed release of it installs on {} ({})",
            view.name(),
            py.range,
            py.source
        ));
        return make(
            Vec::new(),
            "newest",
            format!("no indexed release installable on {}", py.range),
            format!("no indexed release installable on {}", py.range),
        );
    }
    let newest = newest_of(&|_| true).or(newest_any);
    let releases: Vec<usize> = newest.into_iter().collect();
    let v = newest.map(|i| all[i].to_string()).unwrap_or_default();
    // Said when it is not the newest indexed release.
    let (for_python, why) = match (python, newest != newest_any) {
        (Some(py), true) => (
            format!(" installable on {}", py.range),
            format!(" ({})", py.source),
        ),
        _ => (String::new(), String::new()),
    };
    if !nothing_declared(sources, notes) {
        let how = match extras.first() {
            Some((extra, _)) => {
                format!("is declared without a version, in extras only (`{extra}`)")
            }
            None => "is not declared or installed".to_string(),
        };
        notes.push(format!(
            "{} {how}; checked against the newest indexed release{for_python}{why}, {v}",
            view.name()
        ));
    }
    make(
        releases,
        "newest",
        format!("the newest indexed release{for_python} ({v})"),
        format!("the newest indexed release{for_python}"),
    )
}

/// Whether the project declares nothing at all (its scopes aside); then one note for the
/// project, not one per package.
fn nothing_declared(sources: &Sources<'_>, notes: &mut Vec<String>) -> bool {
    let nothing = sources.declared.requirements.is_empty()
        && sources.declared.direct.is_empty()
        && sources.declared.tool_config.targets.is_empty();
    if nothing && !notes.iter().any(|n| n.starts_with(NOTHING_DECLARED)) {
        notes.push(format!(
            "{NOTHING_DECLARED}: each package it uses is checked against its newest indexed release (the newest its other requirements files admit, for the packages they name); declare what it needs (`torch>=2.4` in requirements.txt or `[project] dependencies` in pyproject.toml) to check every release it admits{}",
            scopes_instead(sources.unscoped)
        ));
    }
    nothing
}

/// The Pythons the project is checked on, for narrowing package `name` by its wheels: chosen
/// as for the package `python` (its notes are left to that choice), unless that is only the
/// newest release (nothing says which Pythons run the project). When the declared packages
/// leave out the newest ones (`torch==2.0.1` has wheels up to Python 3.11), every Python they
/// leave narrows, not only the one checked: torch 2.5.1 requires triton on Python 3.12 and
/// older only, and a project on 3.9 - 3.13 may be on those.
fn python_targets<'r>(
    name: &str,
    sources: &Sources<'_>,
    requirers: &'r Requirers<'_>,
) -> Option<&'r PythonTargets> {
    if name == python_target::PYTHON {
        return None;
    }
    requirers.python_targets(|view| {
        let t = choose(view, sources, &mut Vec::new());
        let all = view.releases();
        let finals: Vec<usize> = (0..all.len())
            .filter(|&i| !all[i].version.any_prerelease())
            .collect();
        let (releases, source) = if t.info.origin == "newest" {
            if let Some((versions, source)) = requirers.below_index_by_wheels(&versions_of(view)) {
                return Some(below_index_targets(versions, source));
            }
            if t.releases.is_empty() || t.releases.last() == finals.last() {
                return None;
            }
            let (kept, by) = requirers.narrow_python(view, &finals, &mut Vec::new());
            if by.is_empty() || kept.is_empty() {
                return None;
            }
            let verb = if by.len() == 1 { "admits" } else { "admit" };
            (kept, format!("the Pythons that {} {verb}", by.join(", ")))
        } else if t.releases.is_empty() {
            // A Python older than the index (`python=3.6`): its minors, for the packages
            // installable there.
            let roots = std::iter::once(sources.declared.root.clone())
                .chain(sources.parent.map(std::path::Path::to_path_buf));
            let (versions, source) = python_target::below_index(roots, &versions_of(view))?;
            return Some(below_index_targets(versions, source));
        } else {
            (t.releases, t.info.description)
        };
        let versions = releases
            .iter()
            .filter_map(|&r| {
                let r = all.get(r)?.version.release();
                Some((*r.first()?, r.get(1).copied().unwrap_or(0)))
            })
            .collect();
        let mut member = vec![false; all.len()];
        for &r in &releases {
            if let Some(m) = member.get_mut(r) {
                *m = true;
            }
        }
        let names: Vec<String> = all.iter().map(|r| r.version.to_string()).collect();
        Some(PythonTargets {
            versions,
            range: format!(
                "python {}",
                apicompat_index::ranges(&names, &member).join(", ")
            ),
            source,
            below_index: false,
        })
    })
}

/// Pythons older than the index (`(major, minor)` of each) as the project's Pythons.
fn below_index_targets(versions: Vec<(u64, u64)>, source: String) -> PythonTargets {
    PythonTargets {
        range: pythons_text(&versions),
        versions,
        source,
        below_index: true,
    }
}

/// `python 3.4, 3.5, 3.6`.
fn pythons_text(versions: &[(u64, u64)]) -> String {
    let minors: Vec<String> = versions.iter().map(|(a, b)| format!("{a}.{b}")).collect();
    format!("python {}", minors.join(", "))
}

/// `t` narrowed to `kept` by the declarations `by` (nothing when `by` is empty).
fn within(t: &mut Target, kept: Vec<usize>, by: &[String], all: &[Version]) {
    if by.is_empty() {
        return;
    }
    t.info.releases = kept.iter().map(|&i| all[i].to_string()).collect();
    t.info.description = format!(
        "{}, within what {} accepts",
        t.info.description,
        by.join(", ")
    );
    t.releases = kept;
}

/// A package only extras require (`hf = ["transformers>=4.51,<=5.5"]`, and `all =
/// ["proj[hf]"]`): every install of the project that brings it in goes through one of them;
/// the newest release any of them admits (each extra's requirements hold together).
fn from_extras(
    view: &PackageView,
    all: &[Version],
    extras: &[(String, Vec<&DeclaredRequirement>)],
    kind: &str,
    notes: &mut Vec<String>,
) -> Option<Target> {
    // An extra that names the package without a version says nothing of its releases (a test
    // extra's `transformers`): such extras alone leave the newest release.
    let extras: Vec<_> = extras
        .iter()
        .filter(|(_, reqs)| reqs.iter().any(|r| !r.specifier.is_empty()))
        .collect();
    if extras.is_empty() {
        return None;
    }
    let mut releases: Vec<usize> = Vec::new();
    let mut reqs_seen: Vec<&DeclaredRequirement> = Vec::new();
    for (_, reqs) in &extras {
        if let Some(t) = from_requirements(view, all, reqs, "declared", notes) {
            releases.extend(t.releases);
        }
        for r in reqs {
            if !reqs_seen
                .iter()
                .any(|s| s.source == r.source && s.raw == r.raw)
            {
                reqs_seen.push(r);
            }
        }
    }
    releases.sort_unstable();
    releases.dedup();
    // Which extra an install goes through is not known: the release pip picks by default,
    // the newest one they admit, as for a package not declared at all. Every admitted release
    // added 36 false errors for 13 real ones on unsloth and lm-evaluation-harness (code run in
    // environments pinned elsewhere, guards in other packages; docs/extras-targets-judged.md).
    let newest = releases
        .iter()
        .rev()
        .find(|&&i| !all[i].any_prerelease())
        .or(releases.last())
        .copied();
    let releases: Vec<usize> = newest.into_iter().collect();
    let names: Vec<&str> = extras.iter().map(|(e, _)| e.as_str()).collect();
    let (plural, verb) = if names.len() == 1 {
        ("", "s")
    } else {
        ("s", "")
    };
    let extras_text = capped(&names, MAX_EXTRAS_SHOWN, ", ", "", |e| format!("`{e}`"));
    let described = capped(&reqs_seen, MAX_EXTRAS_SHOWN, ", ", "", |r| {
        format!("`{}` ({})", r.raw, rel_source(r))
    });
    let short = capped(&reqs_seen, MAX_EXTRAS_SHOWN, ", ", "", |r| {
        format!("`{}`", r.raw)
    });
    Some(Target {
        info: TargetInfo {
            package: view.name().to_string(),
            releases: releases.iter().map(|&i| all[i].to_string()).collect(),
            origin: "extras",
            description: format!(
                "the newest release that {kind}{plural} {extras_text} admit{verb}: {described}"
            ),
        },
        releases,
        short: format!("the newest release that {kind}{plural} {extras_text} admit{verb}: {short}"),
    })
}

/// The first `max` of `items`, then `and N more{more}`, joined by `sep`: `` `a`, `b`, `c`, and 2
/// more ``.
pub(crate) fn capped<T>(
    items: &[T],
    max: usize,
    sep: &str,
    more: &str,
    show: impl Fn(&T) -> String,
) -> String {
    let mut out: Vec<String> = items.iter().take(max).map(show).collect();
    if items.len() > max {
        out.push(format!("and {} more{more}", items.len() - max));
    }
    out.join(sep)
}

/// Extras named in a target's description, at most.
const MAX_EXTRAS_SHOWN: usize = 3;

fn from_requirements(
    view: &PackageView,
    all: &[Version],
    reqs: &[&DeclaredRequirement],
    origin: &'static str,
    notes: &mut Vec<String>,
) -> Option<Target> {
    if reqs.is_empty() {
        return None;
    }
    // Every declaration holds at once (pip intersects them); if they contradict each other,
    // each is checked.
    let platforms = view.wheel_platforms();
    let mut admitted = admitted_by(reqs, all, &platforms);
    // (pinned, the indexed release of its series checked for it)
    let mut stand_ins: Vec<(Version, Version)> = Vec::new();
    // `transformers==4.38.0` where the index has 4.38.2 of that series; a declaration without
    // a version beside the pin (`lightning[app]`) does not bound it.
    if admitted.is_empty() {
        let bounded: Vec<&DeclaredRequirement> = reqs
            .iter()
            .copied()
            .filter(|r| !r.specifier.is_empty())
            .collect();
        // The pins agree and every range beside them admits the pinned release
        // (`transformers>=4.27.1` and `==4.32.0`, the index has 4.32.1).
        let (pins, ranges): (Vec<&DeclaredRequirement>, Vec<&DeclaredRequirement>) = bounded
            .iter()
            .copied()
            .partition(|r| pin_of(&r.specifier).is_some());
        if let Some(pinned) = exact_pin(&pins) {
            let within = ranges
                .iter()
                .all(|r| apicompat_requirements::admits(&r.specifier, &pinned));
            if let Some(i) = same_series(all, &pinned).filter(|_| within) {
                notes.push(series_note(view.name(), &pinned, &all[i]));
                stand_ins.push((pinned.clone(), all[i].clone()));
                admitted.push(all[i].clone());
            }
        }
    }
    if admitted.is_empty() {
        // A declaration without a version beside ones with (`datasets==2.14.7`, `datasets`)
        // bounds nothing: it does not reopen the range.
        let bounded = reqs.iter().any(|r| !r.specifier.is_empty());
        // Declarations that agree on releases the index lacks admit none of its releases:
        // not checked, as one such pin alone.
        let agree = bounded && reqs.len() > 1 && crate::pins::agree_on_some_version(reqs);
        for r in reqs
            .iter()
            .filter(|r| !agree && (!bounded || !r.specifier.is_empty()))
        {
            let selected = select(&r.specifier, all);
            // A pin the index lacks stands for the indexed release of its series here too.
            let series = pin_of(&r.specifier)
                .filter(|_| selected.is_empty())
                .and_then(|p| Some((same_series(all, &p)?, p)));
            match series {
                Some((i, pinned)) => {
                    notes.push(series_note(view.name(), &pinned, &all[i]));
                    stand_ins.push((pinned, all[i].clone()));
                    admitted.push(all[i].clone());
                }
                None => admitted.extend(selected),
            }
        }
        if admitted.is_empty() {
            // The narrowest to fetch: a pin, else the first with a version.
            let first = reqs
                .iter()
                .find(|r| pin_of(&r.specifier).is_some())
                .or_else(|| reqs.iter().find(|r| !r.specifier.is_empty()))
                .unwrap_or(&reqs[0]);
            notes.push(format!(
                "the declared {} {} no indexed release of {}; add them with `apicompat index fetch '{}'`",
                reqs.iter().map(|r| format!("`{}`", r.raw)).collect::<Vec<_>>().join(", "),
                if reqs.len() > 1 { "admit" } else { "admits" },
                view.name(),
                first.raw
            ));
        } else if reqs.len() > 1 {
            notes.push(format!(
                "the declared requirements on {} admit no release together; each range is checked",
                view.name()
            ));
        }
    }
    // No version anywhere (`pytest` in requirements.txt) on a package known only from the
    // cache: its newest release, what pip installs and what fetching on demand fetches. The
    // releases an older run left in the cache (pytest 2.0.3) are no bound the project chose.
    // Embedded and data-file packages start at a release chosen for training code: all of
    // them are checked.
    let unbounded = reqs.iter().all(|r| r.specifier.is_empty());
    let cached_only = view
        .releases()
        .iter()
        .all(|r| r.origin == apicompat_index::catalog::Origin::Cached);
    if unbounded && cached_only && admitted.len() > 1 {
        if let Some(newest) = admitted
            .iter()
            .filter(|v| !v.any_prerelease())
            .max()
            .cloned()
        {
            notes.push(format!(
                "{} is declared without a version and is indexed from the cache: checked against its newest cached release, {newest} (declare a lower bound to check older ones)",
                view.name()
            ));
            admitted = vec![newest];
        }
    }
    let releases = positions(view, &admitted);
    let described: Vec<String> = reqs
        .iter()
        .map(|r| format!("`{}` ({})", r.raw, rel_source(r)))
        .collect();
    let what = if origin == "config" {
        "[tool.apicompat] targets"
    } else {
        "declared"
    };
    // The same text declared in several files is named once (their files are in `described`).
    let mut texts: Vec<String> = Vec::new();
    for r in reqs {
        let text = format!("`{}`", r.raw);
        if !texts.contains(&text) {
            texts.push(text);
        }
    }
    let mut short = format!("{what} {}", texts.join(", "));
    // The release a message names is not the one declared: say which it stands for.
    for (pinned, used) in &stand_ins {
        short.push_str(&format!(
            "; the index lacks {pinned}, and {used} of its series stands for it"
        ));
    }
    let all_strings: Vec<String> = releases.iter().map(|&i| all[i].to_string()).collect();
    Some(Target {
        info: TargetInfo {
            package: view.name().to_string(),
            releases: all_strings,
            origin,
            description: format!("{what} {}", described.join(", ")),
        },
        releases,
        short,
    })
}

fn installed(
    view: &PackageView,
    env: &InstalledEnvironment,
    all: &[Version],
    notes: &mut Vec<String>,
    how: &str,
) -> Option<Target> {
    let dist = env.get(view.name())?;
    let release = release_of(&dist.version);
    let root = env.site_packages.root.display().to_string();
    let label = if release == dist.version {
        format!("installed {} {} ({how} {root})", view.name(), dist.version)
    } else {
        format!(
            "installed {} {}, release {release} ({how} {root})",
            view.name(),
            dist.version
        )
    };
    let releases = if let Some(i) = all.iter().position(|v| *v == release) {
        vec![i]
    } else if let Some(i) = same_series(all, &release) {
        notes.push(series_note(view.name(), &release, &all[i]));
        vec![i]
    } else {
        notes.push(format!(
            "{label} is not in the index; add it with `apicompat index fetch {}=={release}`",
            view.name()
        ));
        Vec::new()
    };
    Some(Target {
        info: TargetInfo {
            package: view.name().to_string(),
            releases: releases.iter().map(|&i| all[i].to_string()).collect(),
            origin: "installed",
            description: label.clone(),
        },
        releases,
        short: label,
    })
}

/// Where the project's declarations are: the nearest directory at or above `start` that has a
/// `pyproject.toml`, `setup.py`, `setup.cfg` or `requirements.txt`, else `start`.
pub fn find_project_root(start: &Path) -> std::path::PathBuf {
    let start = if start.is_dir() {
        start.to_path_buf()
    } else {
        start
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| std::path::PathBuf::from("."), Path::to_path_buf)
    };
    let abs = std::fs::canonicalize(&start).unwrap_or_else(|_| start.clone());
    for dir in abs.ancestors() {
        // Any file of that name counts, readable or not (a FIFO `pyproject.toml` is the
        // project's, and reported as unreadable, not skipped for a parent's).
        let marker = [
            "pyproject.toml",
            "setup.py",
            "setup.cfg",
            "requirements.txt",
            "environment.yml",
            "environment.yaml",
        ]
        .iter()
        .any(|m| dir.join(m).symlink_metadata().is_ok())
            || apicompat_requirements::has_conda_file(dir);
        if marker {
            return dir.to_path_buf();
        }
    }
    start
}
