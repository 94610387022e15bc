//! The releases of the package `python` (the standard library, indexed per version from
//! typeshed) to check, when neither `--target python==...` nor `[tool.apicompat] targets`
//! name them: the interpreter of `--python`, else the project's `requires-python`.

use apicompat_index::PackageView;
use apicompat_requirements::{read_requires_python, InstalledEnvironment, Version};

use crate::model::TargetInfo;
use crate::targets::Target;

/// The name the standard library is indexed under.
pub const PYTHON: &str = "python";

/// `major.minor` of a version (`3.11.4` -> `3.11`).
fn minor_of(v: &Version) -> String {
    v.to_string()
        .split('.')
        .take(2)
        .collect::<Vec<_>>()
        .join(".")
}

fn target(
    view: &PackageView,
    all: &[Version],
    releases: Vec<usize>,
    origin: &'static str,
    label: String,
) -> Target {
    Target {
        info: TargetInfo {
            package: view.name().to_string(),
            releases: releases.iter().map(|&i| all[i].to_string()).collect(),
            origin,
            description: label.clone(),
        },
        releases,
        short: label,
    }
}

/// The interpreter version of an environment given with `--python`.
pub fn from_interpreter(
    view: &PackageView,
    env: &InstalledEnvironment,
    all: &[Version],
    notes: &mut Vec<String>,
) -> Option<Target> {
    let version = env.site_packages.python_version.as_ref()?;
    let minor = minor_of(version);
    let releases: Vec<usize> = all
        .iter()
        .position(|v| minor_of(v) == minor)
        .into_iter()
        .collect();
    if releases.is_empty() {
        notes.push(format!(
            "Python {minor} (--python) is not in the index of the standard library"
        ));
    }
    let label = format!(
        "Python {version} (--python {})",
        env.site_packages.root.display()
    );
    Some(target(view, all, releases, "installed", label))
}

pub(crate) use apicompat_requirements::admits_minor;

/// The versions the project's `requires-python` admits; its file named from `named_from` (the
/// enclosing project of a sub-project) when given.
pub fn from_requires_python(
    view: &PackageView,
    root: &std::path::Path,
    named_from: Option<&std::path::Path>,
    all: &[Version],
    notes: &mut Vec<String>,
) -> Option<Target> {
    let mut declared = match read_requires_python(root)? {
        Ok(r) => r,
        Err(e) => {
            notes.push(e);
            return None;
        }
    };
    if let Some(dir) = named_from.and_then(|from| crate::subprojects::relative_dir(root, from)) {
        declared.source.file = dir.join(&declared.source.file);
    }
    let mut releases: Vec<usize> = all
        .iter()
        .enumerate()
        .filter(|(_, v)| admits_minor(&declared.specifier, v))
        .map(|(i, _)| i)
        .collect();
    releases.sort_unstable();
    releases.dedup();
    let label = format!(
        "declared requires-python `{}` ({})",
        declared.raw, declared.source
    );
    // Older Pythons it admits are not in the index: say so rather than drop them silently.
    if let Some(oldest) = all.first() {
        if let [major, minor, ..] = *oldest.release() {
            let before = Version::new([major, minor.saturating_sub(1)]);
            if minor > 0 && admits_minor(&declared.specifier, &before) {
                notes.push(format!(
                    "{label} also admits Python older than {}, which the index of the standard library does not have: not checked there",
                    minor_of(oldest)
                ));
            }
        }
    }
    Some(target(view, all, releases, "declared", label))
}

/// The Pythons older than the index that the project's declared Python admits, when it admits
/// no indexed one (conda's `python=3.6`): `(major, minor)` of each, with the declaration.
pub(crate) fn below_index(
    roots: impl Iterator<Item = std::path::PathBuf>,
    all: &[Version],
) -> Option<(Vec<(u64, u64)>, String)> {
    let oldest = all.first()?;
    let [major, oldest_minor, ..] = *oldest.release() else {
        return None;
    };
    for root in roots {
        let Some(Ok(declared)) = read_requires_python(&root) else {
            continue;
        };
        if all.iter().any(|v| admits_minor(&declared.specifier, v)) {
            return None;
        }
        let minors: Vec<(u64, u64)> = (0..oldest_minor)
            .filter(|&m| admits_minor(&declared.specifier, &Version::new([major, m])))
            .map(|m| (major, m))
            .collect();
        if minors.is_empty() {
            return None;
        }
        let label = format!(
            "declared requires-python `{}` ({})",
            declared.raw, declared.source
        );
        return Some((minors, label));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::admits_minor;
    use apicompat_requirements::{parse_specifiers, parse_version};

    #[test]
    fn minor_releases_a_specifier_admits() {
        let admits = |spec: &str, v: &str| {
            admits_minor(&parse_specifiers(spec).unwrap(), &parse_version(v).unwrap())
        };
        assert!(admits(">=3.8.1", "3.8"));
        assert!(!admits("<3.13", "3.13"));
        // A patch release named exactly (conda's `python=3.9.18=<build>`; study 17, D1).
        assert!(admits("==3.9.18", "3.9"));
        assert!(admits("==3.9.18.*", "3.9"));
        assert!(!admits("==3.9.18", "3.10"));
        assert!(admits("!=3.9.18", "3.9"));
    }
}
