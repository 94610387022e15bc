//! A declared package's requirements under a Python's or a platform's marker, judged where
//! they apply. pandas 2.3.3 requires `numpy>=1.23.2; python_version == "3.11"` and
//! `numpy>=1.26.0; python_version >= "3.12"`: on Python 3.11 - 3.13 no numpy older than
//! 1.23.2 is installed beside it, though it requires none unconditionally
//! (`docs/false-alarm-study-45.md`, F-AH). A release of the other package is accepted when,
//! on some targeted Python and platform where the requirer installs, it satisfies every
//! requirement that applies there.

use apicompat_requirements::{
    evaluate_marker, marker_environment, parse_version, satisfies, MarkerEnvironment, Platform,
    Version,
};

use super::python::installs_on;
use super::{requires_text, PythonTargets, Requirer, Requires};

const PLATFORMS: [Platform; 3] = [Platform::Linux, Platform::MacOs, Platform::Windows];

/// Which of `kept` (positions in `versions`, releases of package `name`) some release of `q`
/// accepts on the Pythons of `python` (see the module doc), with the requirements of the
/// first release that refuses some; `None` when `q` refuses none (a release of it requires
/// nothing of `name` somewhere it installs).
pub(super) fn accepted_where_installed(
    q: &Requirer,
    name: &str,
    kept: &[usize],
    versions: &[Version],
    python: &PythonTargets,
) -> Option<(Vec<bool>, String)> {
    if q.releases.is_empty() || q.marked.iter().all(|m| !m.iter().any(|r| r.0 == name)) {
        return None;
    }
    // Each targeted Python on each platform, built once.
    let envs: Vec<(Version, MarkerEnvironment)> = python
        .versions
        .iter()
        .filter_map(|&(major, minor)| parse_version(&format!("{major}.{minor}")).ok())
        .flat_map(|v| {
            PLATFORMS
                .iter()
                .filter_map(|&p| Some((v.clone(), marker_environment(&v, p).ok()?)))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut accepted = vec![false; kept.len()];
    let mut example: Option<String> = None;
    for (i, (version, reqs)) in q.releases.iter().enumerate() {
        let on: Vec<&Requires> = reqs.iter().filter(|r| r.0 == name).collect();
        let marked: Vec<(&Requires, &str)> = q
            .marked
            .get(i)
            .into_iter()
            .flatten()
            .filter(|r| r.0 == name)
            .filter_map(|r| Some((r, r.2.split_once(';')?.1)))
            .collect();
        let spec = q.requires_python[i].as_ref().map(|(s, _)| s);
        let mut installs: Vec<&MarkerEnvironment> = envs
            .iter()
            .filter(|(v, _)| installs_on(spec, &q.wheels[i], v))
            .map(|(_, e)| e)
            .collect();
        if installs.is_empty() {
            installs = envs.iter().map(|(_, e)| e).collect();
        }
        let mut refused = false;
        for env in installs {
            // A marker that does not parse is taken not to hold: it bounds nothing.
            let here: Vec<&Requires> = on
                .iter()
                .copied()
                .chain(
                    marked
                        .iter()
                        .filter(|(_, m)| evaluate_marker(m, env, &[]).unwrap_or(false))
                        .map(|(r, _)| *r),
                )
                .collect();
            if here.is_empty() {
                return None;
            }
            for (a, &r) in accepted.iter_mut().zip(kept) {
                if here.iter().all(|(_, s, _)| satisfies(s, &versions[r])) {
                    *a = true;
                } else {
                    refused = true;
                }
            }
        }
        if refused && example.is_none() {
            let reqs = on.iter().copied().chain(marked.iter().map(|(r, _)| *r));
            example = Some(requires_text(q, version, reqs));
        }
    }
    if accepted.iter().all(|&a| a) {
        return None;
    }
    Some((accepted, example.unwrap_or_default()))
}
