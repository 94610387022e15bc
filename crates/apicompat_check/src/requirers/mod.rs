//! Releases the project's other declared packages rule out. A release of P that no release of
//! Q within Q's declaration accepts (by the unconditional `Requires-Dist` on P recorded in the
//! index) cannot be installed beside Q: `trl>=0.15` requires `transformers>=4.46.0` in every
//! release, so a project declaring both never runs transformers 4.45 and older.

use apicompat_index::{ranges, Catalog, PackageView, ReleaseHeader};
use apicompat_requirements::{
    normalize_name, parse_requirement, satisfies, Declared, Version, VersionSpecifiers,
};

use crate::targets::admitted_by;

mod below_index;
mod marked;
mod python;
mod undeclared;

pub use python::installable_on;
use python::{installs_on, installs_on_some, major_minor, requires_python_of};

/// The declared packages of the index and what each admitted release requires, read on the
/// first narrowing asked for (most runs ask none: a single declared package, or targets from
/// elsewhere).
pub struct Requirers<'a> {
    catalog: &'a Catalog,
    declared: &'a Declared,
    packages: std::cell::OnceCell<Vec<Requirer>>,
    /// The Pythons the project is checked on, when they come from a declaration or an
    /// option (not the newest-release default): read on the first narrowing by wheels.
    python: std::cell::OnceCell<Option<PythonTargets>>,
}

/// The releases of Python the project is checked on, for narrowing other packages by the
/// Pythons their wheels are built for.
pub struct PythonTargets {
    /// `(major, minor)` of each.
    pub versions: Vec<(u64, u64)>,
    /// `python 3.12 - 3.14`.
    pub range: String,
    /// Where they come from (`declared requires-python \`>=3.12\` (pyproject.toml:3)`).
    pub source: String,
    /// Older than every indexed Python (`python=3.6`): a package none of whose indexed
    /// releases installs there is not checked.
    pub below_index: bool,
}

struct Requirer {
    /// Normalized name.
    name: String,
    /// The declarations, as written (`` `trl>=0.15,<1.0` (requirements.txt:3) ``).
    declared: String,
    /// Per admitted release: its version and its unconditional requirements (normalized
    /// name, specifier, text).
    releases: Vec<(Version, Vec<Requires>)>,
    /// Per admitted release (as `releases`): its requirements under a marker that may hold
    /// where the package is installed (a platform, a Python; not an extra's).
    marked: Vec<Vec<Requires>>,
    /// Per admitted release (as `releases`): its `Requires-Python`, when it has one that parses.
    requires_python: Vec<Option<(VersionSpecifiers, String)>>,
    /// Per admitted release: the Pythons it has wheels for (empty: any).
    wheels: Vec<Vec<String>>,
    /// The Pythons its releases were kept for ([`Requirer::on_python`]), as a range.
    on: Option<String>,
    /// When the declarations agree only on releases older than every one known: the oldest
    /// known release and its requirements (what an older one requires is not known).
    older: Option<(Version, Vec<Requires>)>,
}

impl Requirer {
    /// Only the releases that install on some Python of `python` (their `Requires-Python`,
    /// their wheels), when that leaves some out but not all.
    fn on_python(&self, python: &PythonTargets) -> Option<Requirer> {
        let installs: Vec<bool> = (0..self.releases.len())
            .map(|i| {
                let spec = self.requires_python[i].as_ref().map(|(s, _)| s);
                installs_on_some(spec, &self.wheels[i], python)
            })
            .collect();
        if installs.iter().all(|&i| i) || !installs.iter().any(|&i| i) {
            return None;
        }
        let pick = |n: usize| (0..n).filter(|&i| installs[i]);
        fn kept<T: Clone>(all: &[T], at: impl Iterator<Item = usize>) -> Vec<T> {
            at.map(|i| all[i].clone()).collect()
        }
        let n = self.releases.len();
        Some(Requirer {
            name: self.name.clone(),
            declared: self.declared.clone(),
            on: Some(python.range.clone()),
            releases: kept(&self.releases, pick(n)),
            marked: kept(&self.marked, pick(n)),
            requires_python: kept(&self.requires_python, pick(n)),
            wheels: kept(&self.wheels, pick(n)),
            older: self.older.clone(),
        })
    }
}

/// Declared package `name` (declarations `reqs`) as a requirer: its releases `all` (oldest
/// first) that the declarations admit, with what each requires (`header` of release `i`).
fn requirer<'h>(
    name: &str,
    reqs: &[&apicompat_requirements::DeclaredRequirement],
    declared: &Declared,
    all: &[Version],
    header: &dyn Fn(usize) -> Option<&'h ReleaseHeader>,
) -> Requirer {
    let platforms: Vec<&[String]> = (0..all.len())
        .map(|i| header(i).map_or(&[][..], |h| h.wheel_platforms.as_slice()))
        .collect();
    let mut admitted = admitted_by(reqs, all, &platforms);
    // A pin the index lacks stands for the indexed release of its series, as where the package
    // is checked itself (`targets.rs`): `transformers==4.33` requires what 4.33.3 requires.
    if admitted.is_empty() {
        if let Some(i) =
            crate::pins::exact_pin(reqs).and_then(|p| crate::pins::same_series(all, &p))
        {
            admitted.push(all[i].clone());
        }
    }
    let kept: Vec<usize> = (0..all.len())
        .filter(|&i| admitted.contains(&all[i]))
        .collect();
    let extras = extras_of(declared, name);
    let older = match (admitted.is_empty(), all.first()) {
        (true, Some(oldest)) => crate::pins::agreed_version(reqs)
            .filter(|v| v < oldest)
            .map(|_| (oldest.clone(), requirements_with(header(0), &extras))),
        _ => None,
    };
    let releases = kept
        .iter()
        .map(|&i| (all[i].clone(), requirements_with(header(i), &extras)))
        .collect();
    let marked = kept
        .iter()
        .map(|&i| undeclared::marked_requirements_of(header(i)))
        .collect();
    let requires_python = kept
        .iter()
        .map(|&i| {
            let text = header(i)?.requires_python.clone()?;
            let spec = text.trim().parse::<VersionSpecifiers>().ok()?;
            Some((spec, text))
        })
        .collect();
    let wheels = kept
        .iter()
        .map(|&i| {
            header(i)
                .map(|h| h.wheel_pythons.clone())
                .unwrap_or_default()
        })
        .collect();
    let declared = reqs
        .iter()
        .map(|r| format!("`{}` ({})", r.raw, r.source))
        .collect::<Vec<_>>()
        .join(", ");
    Requirer {
        name: name.to_string(),
        declared,
        releases,
        marked,
        requires_python,
        wheels,
        on: None,
        older,
    }
}

/// One unconditional requirement of a release: normalized name, specifier, text.
type Requires = (String, VersionSpecifiers, String);

impl<'a> Requirers<'a> {
    pub fn new(catalog: &'a Catalog, declared: &'a Declared) -> Requirers<'a> {
        Requirers {
            catalog,
            declared,
            packages: std::cell::OnceCell::new(),
            python: std::cell::OnceCell::new(),
        }
    }

    /// The Pythons the project is checked on, computed once by `compute` from the index's
    /// `python` package (not re-entrant: a computation that asks again gets `None`).
    pub fn python_targets(
        &self,
        compute: impl FnOnce(&PackageView) -> Option<PythonTargets>,
    ) -> Option<&PythonTargets> {
        if self.python.get().is_none() {
            let name = self.catalog.name_of(crate::python_target::PYTHON);
            let view = name.and_then(|n| self.catalog.package(n).ok().flatten());
            let computed = view.and_then(compute);
            let _ = self.python.set(computed);
        }
        self.python.get().and_then(Option::as_ref)
    }

    /// The names of the main requirements without markers nor URL, once each: the packages
    /// every environment of the declarations installs (a constraint or a conditional
    /// requirement does not always install the package).
    fn always_installed(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .declared
            .requirements
            .iter()
            .filter(|r| !r.is_constraint && r.marker.is_none() && r.url.is_none())
            .map(|r| r.name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The declared packages the index has (main requirements without markers; a constraint
    /// or a conditional requirement does not always install the package).
    fn packages(&self) -> &[Requirer] {
        self.packages.get_or_init(|| {
            let (catalog, declared) = (self.catalog, self.declared);
            let mut packages = Vec::new();
            for name in self.always_installed() {
                let reqs = declared.requirements_for(name);
                let requirer = match catalog.name_of(name).map(|n| catalog.package(n)) {
                    // The releases older than the index from the table, then the index's.
                    Some(Ok(Some(view))) => {
                        let indexed = view.releases();
                        let (mut all, older) = match catalog.requirements_only(name) {
                            Some((versions, headers)) => {
                                let oldest = indexed.first().map(|r| &r.version);
                                let n = versions
                                    .iter()
                                    .take_while(|v| oldest.is_none_or(|o| *v < o))
                                    .count();
                                (versions[..n].to_vec(), &headers[..n])
                            }
                            None => (Vec::new(), &[][..]),
                        };
                        let n = all.len();
                        all.extend(indexed.iter().map(|r| r.version.clone()));
                        let header = |i: usize| match i.checked_sub(n) {
                            Some(i) => view.header(i),
                            None => older.get(i),
                        };
                        requirer(name, &reqs, declared, &all, &header)
                    }
                    // A package without a surface: what its releases require, from the table.
                    None => match catalog.requirements_only(name) {
                        Some((all, headers)) => {
                            requirer(name, &reqs, declared, &all, &|i| headers.get(i))
                        }
                        None => continue,
                    },
                    _ => continue,
                };
                packages.push(requirer);
            }
            packages
        })
    }

    /// The releases of `view` among `releases` (positions) that every other declared package
    /// accepts, and the declarations that left some out (each with a note). A package that
    /// would leave out every release narrows nothing (the declarations contradict each other;
    /// a note says so).
    ///
    /// With `python` (the Pythons the project is checked on), only the releases of the other
    /// packages that install on one of them count: on Python 3.11 every torchvision from
    /// 0.15.1 requires torch 2.0 or later, so an unversioned `torchvision` beside `torch`
    /// leaves torch 1.13 out (dinov3, `docs/false-alarm-study-13.md`).
    pub fn narrow(
        &self,
        view: &PackageView,
        releases: &[usize],
        python: Option<&PythonTargets>,
        notes: &mut Vec<String>,
    ) -> (Vec<usize>, Vec<String>) {
        let name = normalize_name(view.name());
        let versions: Vec<Version> = view.releases().iter().map(|r| r.version.clone()).collect();
        let mut kept = releases.to_vec();
        let mut by = Vec::new();
        // A single declared package has no other to be narrowed by.
        if self.declared.requirements.len() < 2 {
            return (kept, by);
        }
        // Each release's own requirements (with the extras asked for), read once for every
        // other package.
        let extras = extras_of(self.declared, &name);
        let own: apicompat_hash::HashMap<usize, Vec<Requires>> = kept
            .iter()
            .map(|&r| (r, requirements_with(view.header(r), &extras)))
            .collect();
        let own_of = |r: usize| own.get(&r).map(Vec::as_slice);
        for q in self.packages().iter().filter(|q| q.name != name) {
            let on_python = python.and_then(|p| q.on_python(p));
            let q = on_python.as_ref().unwrap_or(q);
            let Some((accepted, example, own)) =
                judged_by(q, view, &name, &kept, &versions, &own_of, python)
            else {
                continue;
            };
            if !accepted.iter().any(|&a| a) {
                notes.push(format!(
                    "no release of {} the project admits is accepted by the releases of {} it declares ({}): each declaration is checked on its own",
                    view.name(),
                    q.name,
                    q.declared
                ));
                continue;
            }
            let why = why(q, own);
            let left_out;
            (kept, left_out) = split(&versions, &kept, &accepted);
            notes.push(format!(
                "{} {left_out} left out: {why} ({example})",
                view.name()
            ));
            by.push(named(q));
        }
        (kept, by)
    }
}

impl Requirers<'_> {
    /// Why none of `releases` (positions in `view`) can be installed beside another declared
    /// package, if so: the reason and an example (`they require releases of torch that
    /// `torch>=2.5.1` (setup.py:25) does not admit (torchvision 0.15.2 requires ...)`).
    pub fn refuses_all(&self, view: &PackageView, releases: &[usize]) -> Option<String> {
        if self.declared.requirements.len() < 2 || releases.is_empty() {
            return None;
        }
        let name = normalize_name(view.name());
        let versions: Vec<Version> = view.releases().iter().map(|r| r.version.clone()).collect();
        let extras = extras_of(self.declared, &name);
        let own: apicompat_hash::HashMap<usize, Vec<Requires>> = releases
            .iter()
            .map(|&r| (r, requirements_with(view.header(r), &extras)))
            .collect();
        let own_of = |r: usize| own.get(&r).map(Vec::as_slice);
        self.packages()
            .iter()
            .filter(|q| q.name != name)
            .find_map(|q| {
                let (accepted, example, own) =
                    judged_by(q, view, &name, releases, &versions, &own_of, None)?;
                (!accepted.iter().any(|&a| a)).then(|| format!("{} ({example})", why(q, own)))
            })
    }
}

/// Which of `kept` (releases of `view`, named `name`) declared package `q` lets be installed:
/// by `q`'s requirements on them (with `python`, those under a marker too, where they apply:
/// [`marked`]), else by their own on `q`; with an example of one refused, and whether it was
/// their own requirement. `None` when `q` refuses none.
fn judged_by<'o>(
    q: &Requirer,
    view: &PackageView,
    name: &str,
    kept: &[usize],
    versions: &[Version],
    own_of: &dyn Fn(usize) -> Option<&'o [Requires]>,
    python: Option<&PythonTargets>,
) -> Option<(Vec<bool>, String, bool)> {
    let by_q = python
        .and_then(|p| marked::accepted_where_installed(q, name, kept, versions, p))
        .or_else(|| accepted_by(q, name, kept, versions));
    match by_q {
        Some((accepted, example)) => Some((accepted, example, false)),
        None => installable_beside(q, view, kept, own_of).map(|(a, e)| (a, e, true)),
    }
}

/// Why `q` leaves releases out (see [`judged_by`]).
fn why(q: &Requirer, own: bool) -> String {
    let on =
        q.on.as_ref()
            .map(|p| format!(" on {p}"))
            .unwrap_or_default();
    if own {
        format!(
            "they require releases of {} that {} does not admit{on}",
            q.name, q.declared
        )
    } else {
        format!(
            "no release of {} that {} admits{on} accepts them",
            q.name, q.declared
        )
    }
}

/// How the narrowing names `q` in a target's description (`within what ... accepts`).
fn named(q: &Requirer) -> String {
    match &q.on {
        Some(p) => format!("{} on {p}", q.declared),
        None => q.declared.clone(),
    }
}

/// `kept` without the releases `accepted` refuses (one flag per release of `kept`), and those
/// releases as ranges of `versions`.
fn split(versions: &[Version], kept: &[usize], accepted: &[bool]) -> (Vec<usize>, String) {
    let mut left_out = vec![false; versions.len()];
    for (&r, &a) in kept.iter().zip(accepted) {
        left_out[r] = !a;
    }
    let names: Vec<String> = versions.iter().map(ToString::to_string).collect();
    let kept = kept
        .iter()
        .zip(accepted)
        .filter(|(_, &a)| a)
        .map(|(&r, _)| r)
        .collect();
    (kept, ranges(&names, &left_out).join(", "))
}

/// Which of `kept` some release of `q` accepts, with the requirement of the first release that
/// rejects some; `None` when every one is accepted.
fn accepted_by(
    q: &Requirer,
    name: &str,
    kept: &[usize],
    versions: &[Version],
) -> Option<(Vec<bool>, String)> {
    accepted_with(q, name, kept, versions, false)
}

/// [`accepted_by`]; `with_marked` also counts the requirements under a marker: a release is
/// accepted by those when it satisfies one of them (each marker holds somewhere).
fn accepted_with(
    q: &Requirer,
    name: &str,
    kept: &[usize],
    versions: &[Version],
    with_marked: bool,
) -> Option<(Vec<bool>, String)> {
    let mut accepted = vec![false; kept.len()];
    let mut example: Option<String> = None;
    for (i, (version, reqs)) in q.releases.iter().enumerate() {
        let on: Vec<&Requires> = reqs.iter().filter(|(n, _, _)| n == name).collect();
        let marked: Vec<&Requires> = match q.marked.get(i) {
            Some(m) if with_marked => m.iter().filter(|(n, _, _)| n == name).collect(),
            _ => Vec::new(),
        };
        if on.is_empty() && marked.is_empty() {
            return None;
        }
        let mut rejects = false;
        for (a, &r) in accepted.iter_mut().zip(kept) {
            let v = &versions[r];
            if on.iter().all(|(_, spec, _)| satisfies(spec, v))
                && (marked.is_empty() || marked.iter().any(|(_, spec, _)| satisfies(spec, v)))
            {
                *a = true;
            } else {
                rejects = true;
            }
        }
        if rejects && example.is_none() {
            example = Some(requires_text(q, version, on.iter().chain(&marked).copied()));
        }
    }
    if accepted.iter().all(|&a| a) || q.releases.is_empty() {
        return None;
    }
    Some((accepted, example.unwrap_or_default()))
}

/// How a release of `q` that refuses some releases is named in a note (`pandas 2.3.3 requires
/// `numpy>=1.23.2; ...``), with the requirements that refuse them.
fn requires_text<'r>(
    q: &Requirer,
    version: &Version,
    reqs: impl Iterator<Item = &'r Requires>,
) -> String {
    let texts: Vec<String> = reqs.map(|(_, _, t)| format!("`{t}`")).collect();
    format!("{} {version} requires {}", q.name, texts.join(", "))
}

/// The other direction: which of `kept` (releases of `view`) can be installed beside some
/// admitted release of `q`, by their own requirements on `q` (`torchvision 0.20.1` requires
/// `torch==2.5.1`: with `torch>=2.6` declared it cannot be installed), with the requirement of
/// the first that cannot; `None` when every one can.
fn installable_beside<'o>(
    q: &Requirer,
    view: &PackageView,
    kept: &[usize],
    own_of: &dyn Fn(usize) -> Option<&'o [Requires]>,
) -> Option<(Vec<bool>, String)> {
    if q.releases.is_empty() {
        return None;
    }
    let mut example: Option<String> = None;
    let accepted: Vec<bool> = kept
        .iter()
        .map(|&r| {
            let reqs = own_of(r).unwrap_or_default();
            let on: Vec<&Requires> = reqs.iter().filter(|(n, _, _)| *n == q.name).collect();
            let ok = on.is_empty()
                || q.releases
                    .iter()
                    .any(|(v, _)| on.iter().all(|(_, spec, _)| satisfies(spec, v)));
            if !ok && example.is_none() {
                let texts: Vec<String> = on.iter().map(|(_, _, t)| format!("`{t}`")).collect();
                let version = view.releases().get(r).map(|x| x.version.to_string());
                example = Some(format!(
                    "{} {} requires {}",
                    view.name(),
                    version.unwrap_or_default(),
                    texts.join(", ")
                ));
            }
            ok
        })
        .collect();
    if accepted.iter().all(|&a| a) {
        return None;
    }
    Some((accepted, example.unwrap_or_default()))
}

/// Whether setuptools is installed wherever the standard library has no `distutils`: on every
/// targeted Python from 3.12 (in `chosen["python"]`), on each platform, some package the
/// project declares (main requirements, no marker), or uses undeclared (checked against its
/// newest release), requires `setuptools` in every targeted
/// release that installs there (its `Requires-Python`, its wheels), with a marker that holds
/// there and a specifier that admits 60 or later (`crate::collect::supplies_distutils`):
/// torch 2.5 and later require `setuptools; python_version >= "3.12"`. Read from the index's `Requires-Dist`; a rule that knows one
/// package, setuptools (`docs/check-guards.md`).
pub fn requirements_supply_distutils(
    catalog: &Catalog,
    declared: &Declared,
    chosen: &std::collections::BTreeMap<String, crate::targets::Target>,
) -> bool {
    use apicompat_requirements::{marker_environment, Platform};
    let Some(python) = chosen.get(crate::python_target::PYTHON) else {
        return false;
    };
    let Ok(Some(python_view)) = catalog.package(crate::python_target::PYTHON) else {
        return false;
    };
    let versions = python_view.versions();
    let without: Vec<Version> = python
        .releases
        .iter()
        .filter_map(|&r| apicompat_requirements::parse_version(versions.get(r)?).ok())
        .filter(|v| v.release() >= [3, 12].as_slice())
        .collect();
    if without.is_empty() {
        return false;
    }
    // The targeted releases of each declared package: per release, whether it installs on a
    // Python (its `Requires-Python`, its wheels) and its setuptools requirements.
    struct Release {
        requires_python: Option<VersionSpecifiers>,
        wheels: Vec<String>,
        setuptools: Vec<apicompat_requirements::ParsedRequirement>,
    }
    let mut requirers: Vec<Vec<Release>> = Vec::new();
    // The packages the project declares (main requirements, no marker), and those it uses
    // without declaring them, checked against their newest release: the environment checked
    // has them installed, with what they require (GraphGPS imports torch and declares nothing).
    let mut packages: Vec<&PackageView> = Vec::new();
    for r in declared
        .requirements
        .iter()
        .filter(|r| !r.is_constraint && r.marker.is_none() && r.url.is_none() && r.group.is_none())
    {
        if let Some(Ok(Some(view))) = catalog.name_of(&r.name).map(|n| catalog.package(n)) {
            packages.push(view);
        }
    }
    for (name, target) in chosen {
        let undeclared = target.info.origin == "newest"
            && !declared
                .requirements
                .iter()
                .any(|r| normalize_name(&r.name) == *name);
        if undeclared && name != crate::python_target::PYTHON {
            if let Ok(Some(view)) = catalog.package(name) {
                packages.push(view);
            }
        }
    }
    for view in &packages {
        let Some(target) = chosen.get(view.name()) else {
            continue;
        };
        let per_release: Vec<Release> = target
            .releases
            .iter()
            .filter_map(|&i| view.header(i))
            .map(|h| Release {
                requires_python: requires_python_of(h),
                wheels: h.wheel_pythons.clone(),
                setuptools: h
                    .requires_dist
                    .iter()
                    .filter_map(|t| parse_requirement(t).ok())
                    .filter(|q| {
                        q.name == "setuptools"
                            && q.url.is_none()
                            && crate::collect::supplies_distutils(&q.specifier)
                    })
                    .collect(),
            })
            .collect();
        if !per_release.is_empty() {
            requirers.push(per_release);
        }
    }
    let platforms = [Platform::Linux, Platform::MacOs, Platform::Windows];
    without.iter().all(|python| {
        platforms.iter().all(|&platform| {
            let Ok(env) = marker_environment(python, platform) else {
                return false;
            };
            // The releases that install there all require it (and one does install).
            requirers.iter().any(|releases| {
                let there: Vec<&Release> = releases
                    .iter()
                    .filter(|r| installs_on(r.requires_python.as_ref(), &r.wheels, python))
                    .collect();
                !there.is_empty()
                    && there.iter().all(|r| {
                        r.setuptools
                            .iter()
                            .any(|q| q.marker_tree.evaluate(&env, &[]))
                    })
            })
        })
    })
}

/// The unconditional requirements of a release (none known without its header).
fn requirements_of(header: Option<&ReleaseHeader>) -> Vec<Requires> {
    requirements_where(header, |t| !t.contains(';'))
}

/// [`requirements_of`], and those of the extras the project asks for (`transformers[torch]`:
/// `torch>=2.0; extra == "torch"`), whose only condition is the extra.
fn requirements_with(header: Option<&ReleaseHeader>, extras: &[String]) -> Vec<Requires> {
    if extras.is_empty() {
        return requirements_of(header);
    }
    requirements_where(header, |t| match t.split_once(';') {
        None => true,
        Some((_, marker)) => {
            let m: String = marker.chars().filter(|c| !c.is_whitespace()).collect();
            extras
                .iter()
                .any(|x| m == format!("extra==\"{x}\"") || m == format!("extra=='{x}'"))
        }
    })
}

/// The extras the project asks for of package `name` (normalized), in its main requirements.
fn extras_of(declared: &Declared, name: &str) -> Vec<String> {
    let mut out: Vec<String> = declared
        .requirements_for(name)
        .iter()
        .filter(|r| !r.is_constraint && r.marker.is_none() && r.group.is_none())
        .flat_map(|r| r.extras.iter().map(|x| normalize_name(x)))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The requirements of a release whose text `keep` accepts (no URL).
fn requirements_where(
    header: Option<&ReleaseHeader>,
    keep: impl Fn(&str) -> bool,
) -> Vec<Requires> {
    let Some(header) = header else {
        return Vec::new();
    };
    header
        .requires_dist
        .iter()
        .filter(|t| keep(t))
        .filter_map(|t| {
            let r = parse_requirement(t).ok()?;
            if r.url.is_some() {
                return None;
            }
            Some((normalize_name(&r.name), r.specifier, t.trim().to_string()))
        })
        .collect()
}
