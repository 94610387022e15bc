//! Directories: unpacked source trees, single packages and site-packages.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::layout::{self, name_from_folder};
use crate::metadata::parse_metadata;
use crate::paths::{import_form, normalize_name, sanitize_member_name};
use crate::{ArchiveError, Loader, Member, Source, SourceTree};

/// At most this many directory entries are looked at in one tree.
const MAX_ENTRIES: usize = 2_000_000;
/// Deeper directories are not entered.
const MAX_DEPTH: usize = 64;

struct Walker {
    visited: HashSet<PathBuf>,
    /// The canonical directory of the first walk: directory symlinks leading outside it are
    /// not followed.
    root: Option<PathBuf>,
    entries: usize,
    problems: Vec<String>,
    members: Vec<Member>,
    /// Collect every member (`true`) or only the ones an sdist reader wants.
    everything: bool,
}

impl Walker {
    fn new() -> Self {
        Walker {
            visited: HashSet::new(),
            root: None,
            entries: 0,
            problems: Vec::new(),
            members: Vec::new(),
            everything: false,
        }
    }

    /// Walks `dir`, whose members get paths starting with `rel` (empty or ending in `/`).
    fn walk(&mut self, dir: &Path, rel: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.problems
                .push(format!("{}: skipped, nested too deep", dir.display()));
            return;
        }
        match dir.canonicalize() {
            Ok(c) => {
                if self.root.is_none() {
                    self.root = Some(c.clone());
                }
                if !self.visited.insert(c) {
                    self.problems.push(format!(
                        "{}: skipped, directory already visited (symlink loop)",
                        dir.display()
                    ));
                    return;
                }
            }
            Err(e) => {
                self.problems
                    .push(format!("{}: unreadable: {e}", dir.display()));
                return;
            }
        }
        let read = match std::fs::read_dir(dir) {
            Ok(r) => r,
            Err(e) => {
                self.problems
                    .push(format!("{}: unreadable: {e}", dir.display()));
                return;
            }
        };
        let mut children: Vec<(String, PathBuf)> = Vec::new();
        for entry in read {
            match entry {
                Ok(e) => children.push((e.file_name().to_string_lossy().into_owned(), e.path())),
                Err(e) => self
                    .problems
                    .push(format!("{}: unreadable entry: {e}", dir.display())),
            }
        }
        children.sort();
        for (name, path) in children {
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                if self.entries == MAX_ENTRIES + 1 {
                    self.problems.push(format!(
                        "{}: stopped after {MAX_ENTRIES} directory entries",
                        dir.display()
                    ));
                }
                return;
            }
            if name.starts_with('.') || name == "__pycache__" || name == "node_modules" {
                continue;
            }
            let meta = match std::fs::symlink_metadata(&path) {
                Ok(m) => m,
                Err(e) => {
                    self.problems
                        .push(format!("{}: unreadable: {e}", path.display()));
                    continue;
                }
            };
            let meta = if meta.file_type().is_symlink() {
                let target = match std::fs::metadata(&path) {
                    Ok(m) => m,
                    Err(e) => {
                        self.problems
                            .push(format!("{}: broken symbolic link: {e}", path.display()));
                        continue;
                    }
                };
                if !inside(self.root.as_deref(), &path) {
                    let what = if target.is_dir() { "directory" } else { "file" };
                    self.problems.push(format!(
                        "{}: skipped, symbolic link to a {what} outside the tree",
                        path.display()
                    ));
                    continue;
                }
                target
            } else {
                meta
            };
            let child_rel = format!("{rel}{name}");
            if meta.is_dir() {
                self.walk(&path, &format!("{child_rel}/"), depth + 1);
            } else if meta.is_file() {
                let Ok(clean) = sanitize_member_name(&child_rel) else {
                    continue;
                };
                if self.everything || layout::wanted(&clean, true) {
                    self.members.push(Member {
                        path: clean,
                        source: Source::File(path),
                    });
                }
            }
        }
    }
}

/// Whether `path` (a symbolic link) leads to somewhere inside `root` (canonical).
fn inside(root: Option<&Path>, path: &Path) -> bool {
    match (root, path.canonicalize()) {
        (Some(root), Ok(c)) => c.starts_with(root),
        _ => false,
    }
}

fn dir_names(path: &Path) -> Result<Vec<(String, bool)>, ArchiveError> {
    let read = std::fs::read_dir(path).map_err(|source| ArchiveError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for entry in read.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = std::fs::metadata(entry.path()).is_ok_and(|m| m.is_dir());
        out.push((name, is_dir));
    }
    out.sort();
    Ok(out)
}

fn is_project_file(name: &str) -> bool {
    matches!(
        name,
        "PKG-INFO" | "setup.py" | "setup.cfg" | "pyproject.toml"
    )
}

pub(crate) fn read_dir_tree(
    root: &Path,
    package: Option<&str>,
) -> Result<SourceTree, ArchiveError> {
    let names = dir_names(root)?;
    let has_project_files = names.iter().any(|(n, d)| !d && is_project_file(n));
    let dists: Vec<String> = names
        .iter()
        .filter(|(n, d)| *d && (n.ends_with(".dist-info") || n.ends_with(".egg-info")))
        .map(|(n, _)| n.clone())
        .collect();
    if !dists.is_empty() && !has_project_files {
        return read_installed(root, package, &dists);
    }
    let dir_name = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));

    // The directory is itself a package: its parent is the import root.
    if names.iter().any(|(n, d)| !d && n == "__init__.py") {
        if let Some(name) = dir_name.clone() {
            let mut walker = Walker::new();
            walker.walk(root, &format!("{name}/"), 0);
            let mut loader = Loader::new();
            loader.problems = walker.problems;
            let hint = package.map(str::to_string).or(Some(name));
            return Ok(layout::build_sdist(walker.members, &mut loader, hint));
        }
    }

    // An unpacked sdist, possibly inside one wrapper directory.
    let mut base = root.to_path_buf();
    let mut base_name = dir_name;
    if !has_project_files {
        if let [(only, true)] = names.as_slice() {
            let inner = root.join(only);
            if dir_names(&inner)?
                .iter()
                .any(|(n, d)| !d && is_project_file(n))
            {
                base = inner;
                base_name = Some(only.clone());
            }
        }
    }
    let mut walker = Walker::new();
    walker.walk(&base, "", 0);
    let mut loader = Loader::new();
    loader.problems = walker.problems;
    let hint = package.map(str::to_string).or_else(|| {
        base_name
            .as_deref()
            .map(|n| name_from_folder(n).unwrap_or_else(|| n.to_string()))
    });
    Ok(layout::build_sdist(walker.members, &mut loader, hint))
}

/// The project name a `*.dist-info` / `*.egg-info` directory belongs to.
fn dist_dir_name(dir: &str) -> String {
    let stem = dir
        .trim_end_matches(".dist-info")
        .trim_end_matches(".egg-info");
    normalize_name(stem.split('-').next().unwrap_or(stem))
}

fn metadata_name(root: &Path, dir: &str) -> Option<String> {
    for file in ["METADATA", "PKG-INFO"] {
        let p = root.join(dir).join(file);
        if let Ok(data) = std::fs::read(&p) {
            if let Some(name) = parse_metadata(&data).name {
                return Some(normalize_name(&name));
            }
        }
    }
    None
}

/// Reads one RECORD: the first CSV field of each line.
fn record_paths(data: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(data);
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        let field = if let Some(rest) = line.strip_prefix('"') {
            // A quoted field; `""` is an escaped quote.
            let mut s = String::new();
            let mut chars = rest.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '"' {
                    if chars.peek() == Some(&'"') {
                        s.push('"');
                        chars.next();
                    } else {
                        break;
                    }
                } else {
                    s.push(c);
                }
            }
            s
        } else {
            line.split(',').next().unwrap_or("").to_string()
        };
        if !field.is_empty() {
            out.push(field);
        }
    }
    out
}

fn read_installed(
    root: &Path,
    package: Option<&str>,
    dists: &[String],
) -> Result<SourceTree, ArchiveError> {
    let available = || {
        let mut names: Vec<String> = dists.iter().map(|d| dist_dir_name(d)).collect();
        names.sort();
        names.dedup();
        names.join(", ")
    };
    let chosen: Vec<&String> = match package {
        Some(p) => {
            let want = normalize_name(p);
            let by_dir: Vec<&String> = dists.iter().filter(|d| dist_dir_name(d) == want).collect();
            if by_dir.is_empty() {
                dists
                    .iter()
                    .filter(|d| metadata_name(root, d).as_deref() == Some(want.as_str()))
                    .collect()
            } else {
                by_dir
            }
        }
        None => {
            let mut names: Vec<String> = dists.iter().map(|d| dist_dir_name(d)).collect();
            names.sort();
            names.dedup();
            if names.len() > 1 {
                return Err(ArchiveError::AmbiguousPackage {
                    path: root.to_path_buf(),
                    available: available(),
                });
            }
            dists.iter().collect()
        }
    };
    // Prefer a `.dist-info` over an `.egg-info` of the same project.
    let Some(dist) = chosen
        .iter()
        .find(|d| d.ends_with(".dist-info"))
        .or_else(|| chosen.first())
        .map(|d| d.to_string())
    else {
        return Err(ArchiveError::PackageNotFound {
            path: root.to_path_buf(),
            package: package.unwrap_or_default().to_string(),
            available: available(),
        });
    };
    let dist_path = root.join(&dist);
    let top_level: Vec<String> = std::fs::read(dist_path.join("top_level.txt"))
        .map(|d| {
            String::from_utf8_lossy(&d)
                .lines()
                .map(|l| l.trim().to_string())
                .filter(|l| !l.is_empty() && sanitize_member_name(l).is_ok())
                .collect()
        })
        .unwrap_or_default();
    let mut problems = Vec::new();
    let mut members = Vec::new();
    let record = if dist.ends_with(".dist-info") {
        std::fs::read(dist_path.join("RECORD")).ok()
    } else {
        None
    };
    for file in ["METADATA", "PKG-INFO", "top_level.txt", "requires.txt"] {
        let p = dist_path.join(file);
        if p.is_file() {
            members.push(Member {
                path: format!("{dist}/{file}"),
                source: Source::File(p),
            });
        }
    }
    let canonical_root = root.canonicalize().ok();
    if let Some(record) = record {
        for raw in record_paths(&record) {
            // Files outside site-packages (`../../bin/x`) are not importable.
            let Ok(path) = sanitize_member_name(&raw) else {
                continue;
            };
            if path.starts_with(&format!("{dist}/")) || !layout::wanted(&path, false) {
                continue;
            }
            let file = root.join(&path);
            let is_link =
                std::fs::symlink_metadata(&file).is_ok_and(|m| m.file_type().is_symlink());
            if is_link && !inside(canonical_root.as_deref(), &file) {
                problems.push(format!(
                    "{}: skipped, symbolic link to a file outside the tree",
                    file.display()
                ));
                continue;
            }
            members.push(Member {
                source: Source::File(root.join(&path)),
                path,
            });
        }
    } else {
        let names = if top_level.is_empty() {
            let name = package
                .map(import_form)
                .unwrap_or_else(|| dist_dir_name(&dist).replace('-', "_"));
            problems.push(format!(
                "{dist}: no RECORD or top_level.txt; reading `{name}` by name"
            ));
            vec![name]
        } else {
            top_level
        };
        let mut walker = Walker::new();
        walker.everything = true;
        walker.root = canonical_root.clone();
        for name in &names {
            let dir = root.join(name);
            if dir.is_dir() {
                walker.walk(&dir, &format!("{name}/"), 0);
            }
            for ext in ["py", "pyi"] {
                let file = root.join(format!("{name}.{ext}"));
                let is_link =
                    std::fs::symlink_metadata(&file).is_ok_and(|m| m.file_type().is_symlink());
                if is_link && !inside(canonical_root.as_deref(), &file) {
                    walker.problems.push(format!(
                        "{}: skipped, symbolic link to a file outside the tree",
                        file.display()
                    ));
                } else if file.is_file() {
                    walker.members.push(Member {
                        path: format!("{name}.{ext}"),
                        source: Source::File(file),
                    });
                }
            }
        }
        // Extension modules at the root (`_foo.cpython-312-x86_64-linux-gnu.so`).
        if let Ok(read) = std::fs::read_dir(root) {
            for entry in read.flatten() {
                let fname = entry.file_name().to_string_lossy().into_owned();
                if let Some(ext) = crate::paths::extension_module_path(&fname) {
                    let stem = ext.split('.').next().unwrap_or("");
                    if names.iter().any(|n| n == stem) {
                        walker.members.push(Member {
                            path: fname,
                            source: Source::NameOnly,
                        });
                    }
                }
            }
        }
        problems.extend(walker.problems);
        members.extend(
            walker
                .members
                .into_iter()
                .filter(|m| crate::paths::file_kind(&m.path) != crate::FileKind::Other),
        );
    }
    let mut loader = Loader::new();
    loader.problems = problems;
    if dist.ends_with(".dist-info") {
        Ok(layout::build_wheel(members, &mut loader))
    } else {
        let hint = Some(dist_dir_name(&dist));
        Ok(layout::build_sdist(members, &mut loader, hint))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record() {
        let rec = b"six.py,sha256=abc,123\n\"we,ird.py\",,\nsix-1.dist-info/RECORD,,\n\n";
        assert_eq!(
            record_paths(rec),
            vec!["six.py", "we,ird.py", "six-1.dist-info/RECORD"]
        );
    }

    #[test]
    fn dist_names() {
        assert_eq!(dist_dir_name("Foo_Bar-1.0.dist-info"), "foo-bar");
        assert_eq!(dist_dir_name("foo-1.0-py3.8.egg-info"), "foo");
        assert_eq!(dist_dir_name("foo.egg-info"), "foo");
    }
}
