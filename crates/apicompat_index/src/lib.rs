//! All releases of a package merged into one compact index: each dotted path with the set of
//! releases that have it and what it is in them (kind, canonical definition, signatures,
//! deprecation). See [`format`] for the byte layout.
//!
//! - [`IndexBuilder`] merges release surfaces and writes an index.
//! - [`PackageIndex`] reads one without decoding more than a lookup needs.
//! - [`lookup::status`] answers "does release R have path P" through re-exports and bases.
//! - [`Catalog`] joins the indexes embedded in the binary with the user's cached ones.

mod builder;
pub mod cache;
pub mod catalog;
pub mod datafile;
pub mod diff;
pub mod format;
pub mod lookup;
pub mod names;
mod reader;
pub mod requirements_table;
pub mod stdlib_classes;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use apicompat_surface::Surface;

pub use builder::IndexBuilder;
pub use catalog::{Catalog, PackageView, ReleaseRef, Unavailable};
pub use lookup::{status, Status};
pub use reader::{FacetId, PackageIndex, ReleaseSet};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("corrupt index: {0}")]
    Corrupt(String),
    #[error("{0}")]
    Invalid(String),
    /// Written by a later build of the tool: not damaged, only not readable here.
    #[error(
        "index format {0}, this build reads formats {1} to {2} (written by a newer apicompat)"
    )]
    NewerFormat(u8, u8, u8),
}

/// One release as the index header lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseHeader {
    pub version: String,
    #[serde(default)]
    pub requires_dist: Vec<String>,
    #[serde(default)]
    pub requires_python: Option<String>,
    /// Migration notes of names the release removed (see `ReleaseMeta::removed`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub removed: std::collections::BTreeMap<String, String>,
    /// The Pythons the release has wheels for, when it ships only such wheels (see
    /// `ReleaseMeta::wheel_pythons`): `3.9`, `3.8+` (abi3). Empty: any `requires_python`
    /// admits, or not known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wheel_pythons: Vec<String>,
    /// The platforms the release has wheels for, when it ships only such wheels (see
    /// `ReleaseMeta::wheel_platforms`): `linux_x86_64`, `macos_arm64`... Empty: any, or not
    /// known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wheel_platforms: Vec<String>,
}

impl ReleaseHeader {
    pub fn of(surface: &Surface) -> ReleaseHeader {
        ReleaseHeader {
            version: surface.version.clone(),
            requires_dist: surface.meta.requires_dist.clone(),
            requires_python: surface.meta.requires_python.clone(),
            removed: surface.meta.removed.clone(),
            wheel_pythons: surface.meta.wheel_pythons.clone(),
            wheel_platforms: surface.meta.wheel_platforms.clone(),
        }
    }

    /// Whether the release can be installed on Python `major.minor` as far as its wheels
    /// tell (always, when `wheel_pythons` is empty).
    pub fn has_wheel_for(&self, major: u64, minor: u64) -> bool {
        wheels_admit(&self.wheel_pythons, major, minor)
    }

    /// Whether the release can be installed on `platform` (`macos_x86_64`) as far as its
    /// wheels tell (always, when `wheel_platforms` is empty).
    pub fn has_wheel_on(&self, platform: &str) -> bool {
        self.wheel_platforms.is_empty() || self.wheel_platforms.iter().any(|p| p == platform)
    }

    /// `wheel_pythons` for a human: `3.9 - 3.13`, `3.8 and newer`.
    pub fn wheel_pythons_text(&self) -> String {
        wheels_text(&self.wheel_pythons)
    }
}

/// `3.9` -> (3, 9, false), `3.8+` -> (3, 8, true).
fn wheel_python(w: &str) -> Option<(u64, u64, bool)> {
    let (v, newer) = match w.strip_suffix('+') {
        Some(v) => (v, true),
        None => (w, false),
    };
    let (a, b) = v.split_once('.')?;
    Some((a.parse().ok()?, b.parse().ok()?, newer))
}

/// Whether a release with these `wheel_pythons` installs on Python `major.minor` (always,
/// when the list is empty).
pub fn wheels_admit(wheel_pythons: &[String], major: u64, minor: u64) -> bool {
    wheel_pythons.is_empty()
        || wheel_pythons.iter().any(|w| {
            wheel_python(w)
                .is_some_and(|(a, b, newer)| a == major && (b == minor || (newer && b < minor)))
        })
}

/// `wheel_pythons` for a human: `3.9 - 3.13`, `3.7, 3.8 and newer`.
pub fn wheels_text(wheel_pythons: &[String]) -> String {
    let mut minors: Vec<(u64, u64, bool)> = wheel_pythons
        .iter()
        .filter_map(|w| wheel_python(w))
        .collect();
    minors.sort_unstable();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < minors.len() {
        let (major, first, newer) = minors[i];
        if newer {
            out.push(format!("{major}.{first} and newer"));
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < minors.len() && minors[j + 1] == (major, minors[j].1 + 1, false) {
            j += 1;
        }
        out.push(if j == i {
            format!("{major}.{first}")
        } else {
            format!("{major}.{first} - {major}.{}", minors[j].1)
        });
        i = j + 1;
    }
    out.join(", ")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Header {
    package: String,
    releases: Vec<ReleaseHeader>,
    /// Top-level modules of any release.
    #[serde(default)]
    roots: Vec<String>,
    /// `(release, earlier)`: in the file, `release`'s `removed` is left empty because it is
    /// the same as `earlier`'s (numpy's migration notes repeat in most of its releases); the
    /// reader copies them back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    removed_same: Vec<(usize, usize)>,
}

impl Header {
    /// Empties every release's `removed` that repeats an earlier release's, recording it.
    fn dedupe_removed(&mut self) {
        let mut first: std::collections::HashMap<&BTreeMap<String, String>, usize> =
            std::collections::HashMap::new();
        let mut same = Vec::new();
        for (i, r) in self.releases.iter().enumerate() {
            if r.removed.is_empty() {
                continue;
            }
            match first.get(&r.removed) {
                Some(&earlier) => same.push((i, earlier)),
                None => {
                    first.insert(&r.removed, i);
                }
            }
        }
        for &(i, _) in &same {
            self.releases[i].removed.clear();
        }
        self.removed_same = same;
    }

    /// Copies the deduplicated notes back (see [`Self::dedupe_removed`]).
    fn restore_removed(&mut self) -> Result<(), IndexError> {
        for (i, earlier) in std::mem::take(&mut self.removed_same) {
            if earlier >= i || i >= self.releases.len() {
                return Err(IndexError::Corrupt(format!(
                    "header: release {i} repeats the notes of release {earlier}"
                )));
            }
            self.releases[i].removed = self.releases[earlier].removed.clone();
        }
        Ok(())
    }
}

/// Contiguous runs of `members` within the ordered `all`, as `first - last` (or one version).
pub fn ranges<T: AsRef<str>>(all: &[T], members: &[bool]) -> Vec<String> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for i in 0..=all.len() {
        let inside = members.get(i).copied().unwrap_or(false) && i < all.len();
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let (a, b) = (all[s].as_ref(), all[i - 1].as_ref());
                out.push(if s == i - 1 {
                    a.to_string()
                } else {
                    format!("{a} - {b}")
                });
                start = None;
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests;
