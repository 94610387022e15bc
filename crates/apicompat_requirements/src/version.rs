//! PEP 440 versions and specifier sets, with PEP 440's pre-release rule applied.

use std::fmt;
use std::str::FromStr;

pub use pep440_rs::{Operator, Version, VersionSpecifier, VersionSpecifiers};

/// A version or specifier string that is not valid PEP 440.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionError {
    /// The text that failed to parse.
    pub input: String,
    /// What was wrong with it.
    pub message: String,
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid version `{}`: {}", self.input, self.message)
    }
}

impl std::error::Error for VersionError {}

/// Parses a PEP 440 version such as `2.1.2+cu121`, `2.5.0.dev20240617` or `2.4.0rc1`.
pub fn parse_version(text: &str) -> Result<Version, VersionError> {
    Version::from_str(text.trim()).map_err(|e| VersionError {
        input: text.to_string(),
        message: e.to_string(),
    })
}

/// Parses a PEP 440 specifier set such as `>=2.3,<2.6` (the empty string admits everything).
pub fn parse_specifiers(text: &str) -> Result<VersionSpecifiers, VersionError> {
    VersionSpecifiers::from_str(text.trim()).map_err(|e| VersionError {
        input: text.to_string(),
        message: e.to_string(),
    })
}

/// Whether a version is a pre-release in PEP 440's sense (`a`, `b`, `rc` or `.dev`).
pub fn is_prerelease(version: &Version) -> bool {
    version.any_prerelease()
}

/// The release a locally labelled build belongs to: `2.1.2+cu121` -> `2.1.2`.
pub fn release_of(version: &Version) -> Version {
    version.clone().without_local()
}

/// The local label of a version, if any: `2.1.2+cu121` -> `Some("cu121")`.
pub fn local_label(version: &Version) -> Option<String> {
    if version.local().is_empty() {
        return None;
    }
    let text = version.to_string();
    text.split_once('+').map(|(_, label)| label.to_string())
}

/// Whether the specifier set explicitly mentions a pre-release (`>=2.5.0.dev0`, `==2.4.0rc1`),
/// which under PEP 440 lets it admit pre-releases.
pub fn mentions_prerelease(spec: &VersionSpecifiers) -> bool {
    spec.iter().any(|s| {
        !matches!(s.operator(), Operator::NotEqual | Operator::NotEqualStar)
            && s.version().any_prerelease()
    })
}

/// Whether `version` satisfies every clause, ignoring the pre-release rule.
///
/// Local labels are ignored unless a clause names one (PEP 440); `==2.1.*` compares the release
/// padded with zeros, so it does not admit `2`.
pub fn satisfies(spec: &VersionSpecifiers, version: &Version) -> bool {
    spec.iter().all(|s| clause_contains(s, version))
}

fn clause_contains(spec: &VersionSpecifier, version: &Version) -> bool {
    match spec.operator() {
        Operator::EqualStar => prefix_matches(spec.version(), version),
        Operator::NotEqualStar => !prefix_matches(spec.version(), version),
        // A pin of a local build (`==2.10.0+cu128`) on a release without a label (what the
        // index and the package index list): the build is of that release.
        Operator::Equal | Operator::ExactEqual
            if !spec.version().local().is_empty() && version.local().is_empty() =>
        {
            spec.version().clone().without_local() == *version
        }
        Operator::NotEqual if !spec.version().local().is_empty() && version.local().is_empty() => {
            true
        }
        _ => spec.contains(version),
    }
}

fn prefix_matches(prefix: &Version, version: &Version) -> bool {
    if prefix.epoch() != version.epoch() {
        return false;
    }
    let release = version.release();
    prefix
        .release()
        .iter()
        .enumerate()
        .all(|(i, part)| release.get(i).copied().unwrap_or(0) == *part)
}

/// Whether the specifier set admits `version` under PEP 440, including its pre-release rule:
/// a pre-release (or dev release) is admitted only when the specifier mentions a pre-release.
/// A local build (`2.1.2+cu121`) is judged by its release unless a clause names a local label.
pub fn admits(spec: &VersionSpecifiers, version: &Version) -> bool {
    admits_with(spec, version, false)
}

/// Like [`admits`], but `allow_prereleases` admits pre-releases regardless of the specifier
/// (PEP 440 does so for a version that is already installed).
pub fn admits_with(spec: &VersionSpecifiers, version: &Version, allow_prereleases: bool) -> bool {
    if !satisfies(spec, version) {
        return false;
    }
    allow_prereleases || !version.any_prerelease() || mentions_prerelease(spec)
}

/// The releases a specifier admits, in the order given.
///
/// Applies PEP 440's rule: pre-releases are left out unless the specifier mentions one, except
/// when no final release satisfies the specifier, in which case the satisfying pre-releases
/// are returned (as pip and `packaging` do).
pub fn select(spec: &VersionSpecifiers, releases: &[Version]) -> Vec<Version> {
    let admitted: Vec<Version> = releases
        .iter()
        .filter(|v| admits(spec, v))
        .cloned()
        .collect();
    if !admitted.is_empty() {
        return admitted;
    }
    releases
        .iter()
        .filter(|v| satisfies(spec, v))
        .cloned()
        .collect()
}
