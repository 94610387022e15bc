//! A package the project uses without declaring it is installed as a requirement of the
//! packages it does declare: only the releases those admit can be there. triton, which a
//! project declaring `torch<=2.5.1` gets from torch (`triton==3.1.0; platform_system ==
//! "Linux" ...`), is checked against 3.1.0, not against the newest triton
//! (`docs/false-alarm-study-14.md`, F-F).

use apicompat_index::{PackageView, ReleaseHeader};
use apicompat_requirements::{normalize_name, Version};

use super::{
    accepted_with, installable_beside, named, requirements_of, requirements_where, split,
    PythonTargets, Requirers, Requires,
};

impl Requirers<'_> {
    /// The releases of `view` (positions), a package the project does not declare, that every
    /// declared package requiring it in each of its admitted releases accepts (requirements
    /// under a marker count: a release satisfying one of them is accepted), and whose own
    /// requirements on a declared package some admitted release of it meets (megatron-core
    /// 0.19.2 requires `torch>=2.6.0`: not beside `torch==2.4.0`); with those declarations
    /// and an example of a requirement. `None` when no declared package narrows it, or when
    /// together they would leave nothing; an empty list when every release of it requires a
    /// release of a declared package the declaration does not admit (torchvision beside a
    /// `torch==1.4.0` older than the index: its companion, 0.5.0, is older too).
    pub fn admit_undeclared(
        &self,
        view: &PackageView,
        python: Option<&PythonTargets>,
    ) -> Option<(Vec<usize>, Vec<String>, String)> {
        let name = normalize_name(view.name());
        let versions: Vec<Version> = view.releases().iter().map(|r| r.version.clone()).collect();
        let mut kept: Vec<usize> = (0..versions.len()).collect();
        let mut by: Vec<String> = Vec::new();
        let mut first_example = None;
        // Its own requirements on the declared packages, read once per release.
        let own: apicompat_hash::HashMap<usize, Vec<Requires>> = kept
            .iter()
            .map(|&r| (r, requirements_of(view.header(r))))
            .collect();
        let own_of = |r: usize| own.get(&r).map(Vec::as_slice);
        for q in self.packages().iter().filter(|q| q.name != name) {
            // Declarations older than every known release of a package whose oldest known
            // release bounds it below its newest (svdiff-pytorch's `transformers<=4.27.3`,
            // transformers 4.30.2 `huggingface-hub<1.0`; study 43, F-AE): which release comes
            // with them is not known. (A bare `numpy` or a lower bound leaves it as it was.)
            if let Some((oldest, reqs)) = q.older.as_ref().filter(|_| q.releases.is_empty()) {
                let bounds = |spec: &apicompat_requirements::VersionSpecifiers| {
                    versions
                        .last()
                        .is_some_and(|newest| !apicompat_requirements::satisfies(spec, newest))
                };
                if let Some((_, _, text)) =
                    reqs.iter().find(|(n, spec, _)| *n == name && bounds(spec))
                {
                    let example = format!(
                        "it admits only releases of {} older than the index; the oldest known, {oldest}, requires `{text}`",
                        q.name
                    );
                    return Some((Vec::new(), vec![named(q)], example));
                }
            }
            let on_python = python.and_then(|p| q.on_python(p));
            let q = on_python.as_ref().unwrap_or(q);
            // What `q` requires of it, then what it requires of `q` (each on what is left).
            for own_side in [false, true] {
                let narrowed = match own_side {
                    false => accepted_with(q, &name, &kept, &versions, true),
                    true => installable_beside(q, view, &kept, &own_of),
                };
                let Some((accepted, example)) = narrowed else {
                    continue;
                };
                if !accepted.iter().any(|&a| a) {
                    if own_side && !kept.is_empty() {
                        return Some((Vec::new(), vec![named(q)], example));
                    }
                    continue;
                }
                kept = split(&versions, &kept, &accepted).0;
                let who = named(q);
                if !by.contains(&who) {
                    by.push(who);
                }
                first_example.get_or_insert(example);
            }
        }
        let example = first_example?;
        Some((kept, by, example))
    }
}

/// The requirements of a release under a marker that may hold where it is
/// installed: a platform's or a Python's, not an extra's (`extra == "dev"` holds only when
/// the extra is asked for).
pub(super) fn marked_requirements_of(header: Option<&ReleaseHeader>) -> Vec<Requires> {
    requirements_where(header, |t| {
        t.split_once(';')
            .is_some_and(|(_, marker)| !mentions_extra(marker))
    })
}

/// Whether a marker names the variable `extra`.
fn mentions_extra(marker: &str) -> bool {
    marker
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| word == "extra")
}

#[cfg(test)]
mod tests {
    use super::mentions_extra;

    #[test]
    fn extras_are_told_from_platforms_and_pythons() {
        assert!(mentions_extra(r#" extra == "dev""#));
        assert!(mentions_extra(r#" python_version < "3.9" and extra=='x'"#));
        assert!(!mentions_extra(
            r#" platform_system == "Linux" and platform_machine == "x86_64""#
        ));
        assert!(!mentions_extra(
            r#" python_version >= "3.12" and extras_x == "1""#
        ));
    }
}
