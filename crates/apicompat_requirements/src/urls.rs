//! Names and versions a requirement's URL or path tells: `#egg=NAME`, a VCS repository's name,
//! a wheel's file name.

use std::str::FromStr;

use crate::declared::normalize_name;
use crate::version::Version;

/// The distribution a URL or path names in its `#egg=NAME` fragment (pip's form for
/// `git+https://host/repo.git@<rev>#egg=NAME` and `-e` lines), normalized.
pub(crate) fn egg_name(text: &str) -> Option<String> {
    let (_, fragment) = text.trim().split_once('#')?;
    let value = fragment
        .split('&')
        .find_map(|part| part.strip_prefix("egg="))?;
    let name = value.split('[').next()?.trim();
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    valid.then(|| normalize_name(name))
}

/// The distribution a VCS URL without `#egg=` installs, taken from its repository's name
/// (`git+https://github.com/huggingface/diffusers.git@<rev>`: `diffusers`), as pip would find
/// it in the repository's own metadata for nearly every project, and whether the URL names a
/// revision (`@<rev>`; without one it installs the repository's head); not for a sub-directory
/// of the repository (`#subdirectory=`), whose name is its own.
pub(crate) fn vcs_repository_name(text: &str) -> Option<(String, bool)> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    if !["git+", "hg+", "svn+", "bzr+"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        return None;
    }
    let (url, fragment) = t.split_once('#').unwrap_or((t, ""));
    if fragment.contains("subdirectory=") {
        return None;
    }
    let (_, path) = url.split_once("://")?;
    let path = path.split('?').next()?.trim_end_matches('/');
    let (_, last) = path.rsplit_once('/')?;
    let (repo, revision) = match last.split_once('@') {
        Some((repo, rev)) => (repo, !rev.is_empty()),
        None => (last, false),
    };
    let name = repo.strip_suffix(".git").unwrap_or(repo);
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    valid.then(|| (normalize_name(name), revision))
}

pub(crate) fn looks_like_url_or_path(text: &str) -> bool {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    lower.contains("://")
        || ["git+", "hg+", "svn+", "bzr+", "file:", ".", "/", "~", "\\"]
            .iter()
            .any(|p| lower.starts_with(p))
        || t.contains('/')
        || t.contains('\\')
        || [
            ".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar",
        ]
        .iter()
        .any(|s| lower.ends_with(s))
        || (t.len() >= 2 && t.as_bytes()[1] == b':' && t.as_bytes()[0].is_ascii_alphabetic())
}

/// Name and version from a wheel file name or URL:
/// `https://download.pytorch.org/whl/cu121/torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl`
/// -> (`torch`, `2.1.0+cu121`).
pub(crate) fn wheel_name_version(url: &str) -> Option<(String, Version)> {
    let url = url.trim();
    let without_fragment = url.split(['#', '?']).next().unwrap_or(url);
    let file = without_fragment.rsplit(['/', '\\']).next()?;
    let stem = file.strip_suffix(".whl")?;
    let stem = stem.replace("%2B", "+").replace("%2b", "+");
    let mut parts = stem.split('-');
    let name = parts.next()?;
    let version = parts.next()?;
    // A wheel name has at least name-version-python-abi-platform.
    if parts.count() < 3 || name.is_empty() {
        return None;
    }
    let version = Version::from_str(version).ok()?;
    Some((normalize_name(name), version))
}
