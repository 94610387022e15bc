//! Declared packages whose every admitted release is older than the oldest indexed one
//! (`torch==1.6.0`, `torch<1.10`; the torch index starts at 1.13.0). The index cannot say
//! which Pythons those releases install on, but a release never supports a Python newer than
//! what later releases support: when the oldest indexed release ships wheels only, for Python
//! 3.7 - 3.10, no admitted release installs on 3.11 or later, and those Pythons are left out
//! (vits, SimCSE: `docs/false-alarm-study-18.md`, F-C). A package that ships an sdist says
//! nothing this way (its releases may build anywhere).

use apicompat_index::{wheels_admit, wheels_text, PackageView};
use apicompat_requirements::{Operator, Version};

use super::{installs_on, major_minor, split, Requirers};

/// A declared package below the index and the Pythons its oldest indexed release has wheels
/// for.
pub(super) struct BelowIndex {
    /// The declarations, as written.
    declared: String,
    name: String,
    oldest: Version,
    wheels: Vec<String>,
}

impl Requirers<'_> {
    /// The declared packages of the index that admit only releases older than its oldest one,
    /// when that one ships wheels only.
    pub(super) fn below_index(&self) -> Vec<BelowIndex> {
        let mut out = Vec::new();
        for name in self.always_installed() {
            let catalog = self.catalog;
            let Some(Ok(Some(view))) = catalog.name_of(name).map(|n| catalog.package(n)) else {
                continue;
            };
            let Some(oldest) = view.releases().first().map(|r| r.version.clone()) else {
                continue;
            };
            let reqs = self.declared.requirements_for(name);
            // An upper bound below the oldest release: `==1.6.0`, `<=1.9`, `<1.13`.
            let below = reqs.iter().any(|r| {
                r.specifier.iter().any(|c| match c.operator() {
                    Operator::LessThan => *c.version() <= oldest,
                    Operator::LessThanEqual
                    | Operator::Equal
                    | Operator::ExactEqual
                    | Operator::TildeEqual => *c.version() < oldest,
                    Operator::EqualStar => prefix_below(c.version(), &oldest),
                    _ => false,
                })
            });
            if !below {
                continue;
            }
            let wheels = view
                .header(0)
                .map(|h| h.wheel_pythons.clone())
                .unwrap_or_default();
            if wheels.is_empty() {
                continue;
            }
            let declared = reqs
                .iter()
                .map(|r| format!("`{}` ({})", r.raw, r.source))
                .collect::<Vec<_>>()
                .join(", ");
            out.push(BelowIndex {
                declared,
                name: name.to_string(),
                oldest,
                wheels,
            });
        }
        out
    }

    /// The Pythons older than the index (`pythons`, the indexed releases of Python, oldest
    /// first) that a declared package leaves, when every release of it the project admits
    /// ships wheels only, none for an indexed Python: `opencv-python==3.4.1.15` has wheels for
    /// cp27 and cp34 - cp36 and no sdist, so the project runs on Python 3.6 at most
    /// (`docs/false-alarm-study-32.md`, F-G). `(major, minor)` of each, and why.
    pub fn below_index_by_wheels(&self, pythons: &[Version]) -> Option<(Vec<(u64, u64)>, String)> {
        let (major, oldest_minor) = major_minor(pythons.first()?);
        self.packages().iter().find_map(|q| {
            if q.releases.is_empty() || q.wheels.iter().any(Vec::is_empty) {
                return None;
            }
            let installs = |i: usize, v: &Version| {
                installs_on(
                    q.requires_python[i].as_ref().map(|(s, _)| s),
                    &q.wheels[i],
                    v,
                )
            };
            let on_index = (0..q.releases.len()).any(|i| pythons.iter().any(|v| installs(i, v)));
            if on_index {
                return None;
            }
            let minors: Vec<(u64, u64)> = (0..oldest_minor)
                .filter(|&m| {
                    let v = Version::new([major, m]);
                    (0..q.releases.len()).any(|i| installs(i, &v))
                })
                .map(|m| (major, m))
                .collect();
            let newest = q.releases.len() - 1;
            let why = format!(
                "the Pythons {} installs on: {} {} has wheels for Python {} only, no sdist",
                q.declared,
                q.name,
                q.releases[newest].0,
                wheels_text(&q.wheels[newest])
            );
            (!minors.is_empty()).then_some((minors, why))
        })
    }
}

/// Leaves out of `kept` (releases of Python in `view`) those no release below the index
/// installs on, for each package of [`Requirers::below_index`].
pub(super) fn narrow_python_below_index(
    below: &[BelowIndex],
    view: &PackageView,
    versions: &[Version],
    kept: &mut Vec<usize>,
    by: &mut Vec<String>,
    notes: &mut Vec<String>,
) {
    for b in below {
        // Not newer than the newest Python the oldest indexed release has a wheel for.
        let newest = versions
            .iter()
            .map(major_minor)
            .filter(|&(major, minor)| wheels_admit(&b.wheels, major, minor))
            .max();
        let Some(newest) = newest else {
            continue;
        };
        let accepted: Vec<bool> = kept
            .iter()
            .map(|&r| major_minor(&versions[r]) <= newest)
            .collect();
        if accepted.iter().all(|&a| a) || !accepted.iter().any(|&a| a) {
            continue;
        }
        let left_out;
        (*kept, left_out) = split(versions, kept, &accepted);
        notes.push(format!(
            "{} {left_out} left out: {} admits only releases of {} older than every indexed one, and the oldest indexed, {} {}, has wheels for Python {} only",
            view.name(),
            b.declared,
            b.name,
            b.name,
            b.oldest,
            wheels_text(&b.wheels)
        ));
        if !by.contains(&b.declared) {
            by.push(b.declared.clone());
        }
    }
}

/// `==1.6.*` below `1.13.0`: the prefix is less than the oldest release's leading components.
fn prefix_below(prefix: &Version, oldest: &Version) -> bool {
    let p = prefix.release();
    let o = oldest.release();
    p < &o[..p.len().min(o.len())]
}
