//! Which Pythons the declared packages install on, and which releases install on the
//! project's Pythons: `Requires-Python` and the wheels each release ships.

use apicompat_index::{ranges, wheels_admit, wheels_text, PackageView};
use apicompat_requirements::{Version, VersionSpecifiers};

use super::{below_index, split, PythonTargets, Requirer, Requirers};
use crate::python_target::admits_minor;

/// Whether release `r` of `view` can be installed on some Python of `python`: its
/// `Requires-Python` admits one, and it has a wheel for that one when it ships wheels only.
pub fn installable_on(view: &PackageView, r: usize, python: &PythonTargets) -> bool {
    let Some(header) = view.header(r) else {
        return true;
    };
    installs_on_some(
        requires_python_of(header).as_ref(),
        &header.wheel_pythons,
        python,
    )
}

/// Whether a release with this `Requires-Python` and these wheels installs on some Python of
/// `python`.
pub(super) fn installs_on_some(
    requires_python: Option<&VersionSpecifiers>,
    wheels: &[String],
    python: &PythonTargets,
) -> bool {
    python.versions.iter().any(|&(major, minor)| {
        apicompat_requirements::parse_version(&format!("{major}.{minor}"))
            .is_ok_and(|v| installs_on(requires_python, wheels, &v))
    })
}

/// A release's `Requires-Python`, when it has one that parses.
pub(super) fn requires_python_of(
    header: &apicompat_index::ReleaseHeader,
) -> Option<VersionSpecifiers> {
    header
        .requires_python
        .as_deref()
        .and_then(|t| apicompat_requirements::parse_specifiers(t).ok())
}

/// Whether a release with this `Requires-Python` and these wheels (empty: an sdist, a pure
/// wheel or unknown) installs on the Python minor release `v` (`3.9`).
pub(super) fn installs_on(
    requires_python: Option<&VersionSpecifiers>,
    wheels: &[String],
    v: &Version,
) -> bool {
    let (major, minor) = major_minor(v);
    requires_python.is_none_or(|spec| admits_minor(spec, v)) && wheels_admit(wheels, major, minor)
}
impl Requirers<'_> {
    /// The releases of Python (`view` is the `python` package) among `releases` on which every
    /// declared package has an admitted release whose `Requires-Python` admits it (`numpy<2`:
    /// numpy 1.26.4 requires `<3.13`, so Python 3.13 and later cannot run the project), and
    /// the declarations that left some out (each with a note). A package that would leave out
    /// every release narrows nothing.
    pub fn narrow_python(
        &self,
        view: &PackageView,
        releases: &[usize],
        notes: &mut Vec<String>,
    ) -> (Vec<usize>, Vec<String>) {
        let versions: Vec<Version> = view.releases().iter().map(|r| r.version.clone()).collect();
        let mut kept = releases.to_vec();
        let mut by = Vec::new();
        for q in self.packages() {
            if q.requires_python.is_empty() {
                continue;
            }
            let accepted: Vec<bool> = kept
                .iter()
                .map(|&r| {
                    q.requires_python.iter().any(|rp| {
                        rp.as_ref()
                            .is_none_or(|(spec, _)| admits_minor(spec, &versions[r]))
                    })
                })
                .collect();
            if !accepted.iter().any(|&a| a) {
                continue;
            }
            if accepted.iter().all(|&a| a) {
                narrow_python_by_wheels(q, view, &versions, &mut kept, &mut by, notes);
                continue;
            }
            let newest = q
                .releases
                .iter()
                .zip(&q.requires_python)
                .rev()
                .find_map(|((v, _), rp)| {
                    rp.as_ref()
                        .map(|(_, t)| format!("{} {v} requires Python `{t}`", q.name))
                })
                .unwrap_or_default();
            let left_out;
            (kept, left_out) = split(&versions, &kept, &accepted);
            notes.push(format!(
                "{} {left_out} left out: no release of {} that {} admits supports them ({newest})",
                view.name(),
                q.name,
                q.declared,
            ));
            by.push(q.declared.clone());
            narrow_python_by_wheels(q, view, &versions, &mut kept, &mut by, notes);
        }
        let below = self.below_index();
        below_index::narrow_python_below_index(&below, view, &versions, &mut kept, &mut by, notes);
        (kept, by)
    }

    /// The releases of `view` (a declared package) among `releases` that install on some
    /// Python the project is checked on (`python`): their `Requires-Python` admits it and,
    /// when they ship wheels only, one is for it. torch 2.1 has no wheel for 3.12, so with
    /// `requires-python = ">=3.12"` it is never installed; numpy 2.3 requires Python 3.11, so
    /// beside `python>=3.8,<3.10` it is never installed either, sdist or not. A narrowing that
    /// would leave no release narrows nothing (a note says so).
    pub fn narrow_by_python(
        &self,
        view: &PackageView,
        releases: &[usize],
        python: &PythonTargets,
        notes: &mut Vec<String>,
    ) -> (Vec<usize>, Vec<String>) {
        let versions: Vec<Version> = view.releases().iter().map(|r| r.version.clone()).collect();
        let wheels = |r: usize| view.header(r).map(|h| h.wheel_pythons.as_slice());
        let requires = |r: usize| view.header(r).and_then(requires_python_of);
        // `Requires-Python` alone: the releases it leaves out are named by it in the note.
        let on_python = |r: usize| installs_on_some(requires(r).as_ref(), &[], python);
        let accepted: Vec<bool> = releases
            .iter()
            .map(|&r| {
                let w = wheels(r).unwrap_or_default();
                installs_on_some(requires(r).as_ref(), w, python)
            })
            .collect();
        if accepted.iter().all(|&a| a) {
            return (releases.to_vec(), Vec::new());
        }
        if !accepted.iter().any(|&a| a) {
            notes.push(format!(
                "no release of {} the project admits installs on the Pythons it is checked on ({}: {}): not narrowed by Python",
                view.name(),
                python.range,
                python.source
            ));
            return (releases.to_vec(), Vec::new());
        }
        let newest = releases
            .iter()
            .zip(&accepted)
            .rev()
            .find(|(_, &a)| !a)
            .and_then(|(&r, _)| {
                if !on_python(r) {
                    let text = view.header(r)?.requires_python.clone()?;
                    return Some(format!(
                        "{} {} requires Python `{text}`",
                        view.name(),
                        versions[r]
                    ));
                }
                let text = wheels_text(wheels(r)?);
                Some(format!(
                    "{} {} has wheels for Python {text} only, no sdist",
                    view.name(),
                    versions[r]
                ))
            })
            .unwrap_or_default();
        let (kept, left_out) = split(&versions, releases, &accepted);
        notes.push(format!(
            "{} {left_out} left out: they install on no Python the project is checked on ({}: {}; {newest})",
            view.name(),
            python.range,
            python.source
        ));
        (kept, vec![python.range.clone()])
    }
}

/// The Pythons among `kept` (releases of `view`, the package `python`) on which some admitted
/// release of `q` that `Requires-Python` admits has a wheel: torch 2.6 - 2.8 have none for
/// 3.14 (`cp39` - `cp313`, no sdist), whatever their `>=3.9.0` says. A narrowing that would
/// leave no Python narrows nothing (a note says so).
fn narrow_python_by_wheels(
    q: &Requirer,
    view: &PackageView,
    versions: &[Version],
    kept: &mut Vec<usize>,
    by: &mut Vec<String>,
    notes: &mut Vec<String>,
) {
    if q.wheels.iter().all(Vec::is_empty) {
        return;
    }
    let installable = |i: usize, v: &Version| {
        installs_on(
            q.requires_python[i].as_ref().map(|(s, _)| s),
            &q.wheels[i],
            v,
        )
    };
    let accepted: Vec<bool> = kept
        .iter()
        .map(|&r| (0..q.releases.len()).any(|i| installable(i, &versions[r])))
        .collect();
    if accepted.iter().all(|&a| a) {
        return;
    }
    if !accepted.iter().any(|&a| a) {
        notes.push(format!(
            "no Python the project admits has a wheel of a release of {} that {} admits: Pythons not narrowed by wheels",
            q.name, q.declared
        ));
        return;
    }
    // The newest admitted releases with the wheels of the newest one, as an example.
    let example = q.wheels.iter().rposition(|w| !w.is_empty()).map(|n| {
        let same: Vec<bool> = q.wheels.iter().map(|w| *w == q.wheels[n]).collect();
        let names: Vec<String> = q.releases.iter().map(|(v, _)| v.to_string()).collect();
        let group = ranges(&names, &same).join(", ");
        let have = if same.iter().filter(|&&s| s).count() > 1 {
            "have"
        } else {
            "has"
        };
        format!(
            "{} {group} {have} wheels for Python {} only, no sdist",
            q.name,
            wheels_text(&q.wheels[n])
        )
    });
    let left_out;
    (*kept, left_out) = split(versions, kept, &accepted);
    let them = if accepted.iter().filter(|&&a| !a).count() == 1 {
        "it"
    } else {
        "them"
    };
    notes.push(format!(
        "{} {left_out} left out: no release of {} that {} admits has a wheel for {them} ({})",
        view.name(),
        q.name,
        q.declared,
        example.unwrap_or_default()
    ));
    if !by.contains(&q.declared) {
        by.push(q.declared.clone());
    }
}

/// `(major, minor)` of a version (`3.10` -> (3, 10)).
pub(super) fn major_minor(v: &Version) -> (u64, u64) {
    let r = v.release();
    (
        r.first().copied().unwrap_or(0),
        r.get(1).copied().unwrap_or(0),
    )
}
