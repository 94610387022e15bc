//! From a list of members to a [`SourceTree`]: wheel and sdist layouts.

use std::collections::{BTreeMap, BTreeSet};

use crate::metadata::{parse_metadata, parse_requirements_txt, parse_requires_txt};
use crate::paths::{
    extension_module_path, file_kind, import_form, is_identifier, is_non_package_name,
    normalize_name, FileKind,
};
use crate::{Loader, Member, Metadata, SourceFile, SourceTree};

fn components(path: &str) -> Vec<&str> {
    path.split('/').collect()
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Does a reader of this layout need this member? `sdist` paths may still carry the
/// `NAME-VERSION/` top folder.
pub(crate) fn wanted(path: &str, sdist: bool) -> bool {
    if file_kind(path) != FileKind::Other {
        return true;
    }
    let parts = components(path);
    let name = file_name(path);
    let parent = if parts.len() >= 2 {
        parts[parts.len() - 2]
    } else {
        ""
    };
    if sdist {
        match name {
            "PKG-INFO" => parts.len() <= 3,
            "requires.txt" | "top_level.txt" => parent.ends_with(".egg-info") && parts.len() <= 4,
            "requirements.txt" => parts.len() <= 3,
            _ => false,
        }
    } else {
        parts.len() == 2
            && parent.ends_with(".dist-info")
            && (name == "METADATA" || name == "top_level.txt")
    }
}

/// Strips the common top folder (`NAME-VERSION/`) of an sdist when every file is under it.
/// Returns the folder name.
pub(crate) fn strip_top_folder(
    members: Vec<Member>,
    all_files: &[String],
) -> (Vec<Member>, Option<String>) {
    let mut top: Option<&str> = None;
    for f in all_files {
        match f.split_once('/') {
            Some((first, _)) => match top {
                None => top = Some(first),
                Some(t) if t == first => {}
                Some(_) => return (members, None),
            },
            None => return (members, None),
        }
    }
    let Some(top) = top else {
        return (members, None);
    };
    let prefix = format!("{top}/");
    let members = members
        .into_iter()
        .filter_map(|mut m| {
            let rest = m.path.strip_prefix(&prefix)?.to_string();
            m.path = rest;
            Some(m)
        })
        .collect();
    (members, Some(top.to_string()))
}

/// Loads the member at `path`, if present.
fn load_path(members: &mut [Member], loader: &mut Loader, path: &str) -> Option<Vec<u8>> {
    let m = members.iter_mut().find(|m| m.path == path)?;
    loader.load(m)
}

fn top_level_lines(data: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(data)
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let first = l.split(['/', '\\']).next().unwrap_or("");
            (!first.is_empty()).then(|| first.to_string())
        })
        .collect()
}

/// Drops names that cannot be imported and obvious non-packages (tests, docs...), unless that
/// leaves nothing. Sorted, deduplicated.
fn filter_top_level(names: &[String], project: Option<&str>) -> Vec<String> {
    let project = project.map(import_form);
    let importable: BTreeSet<String> = names.iter().filter(|n| is_identifier(n)).cloned().collect();
    let kept: BTreeSet<String> = importable
        .iter()
        .filter(|n| {
            !is_non_package_name(n) || project.as_deref() == Some(n.to_ascii_lowercase().as_str())
        })
        .cloned()
        .collect();
    if kept.is_empty() {
        importable.into_iter().collect()
    } else {
        kept.into_iter().collect()
    }
}

/// The top-level import name a path installs, for paths at the import root.
fn top_name_of(path: &str) -> Option<String> {
    match path.split_once('/') {
        Some((dir, _)) => Some(dir.to_string()),
        None => {
            let stem = match file_kind(path) {
                FileKind::Source | FileKind::Stub => path.split('.').next(),
                FileKind::Extension => path.split('.').next(),
                FileKind::OpSchema | FileKind::Other => None,
            }?;
            Some(stem.to_string())
        }
    }
}

/// Loads the selected source members into files (extension modules with empty data), sorted
/// and deduplicated by path.
fn collect_files(selected: Vec<(String, &mut Member)>, loader: &mut Loader) -> Vec<SourceFile> {
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (out_path, member) in selected {
        match file_kind(&out_path) {
            FileKind::Extension => {
                if let Some(p) = extension_module_path(&out_path) {
                    files.entry(p).or_default();
                }
            }
            FileKind::Source | FileKind::Stub | FileKind::OpSchema => {
                if files.contains_key(&out_path) {
                    continue;
                }
                if let Some(data) = loader.load(member) {
                    files.insert(out_path, data);
                }
            }
            FileKind::Other => {}
        }
    }
    files
        .into_iter()
        .map(|(path, data)| SourceFile { path, data })
        .collect()
}

/// A wheel (or an installed distribution listed by its `RECORD`).
pub(crate) fn build_wheel(mut members: Vec<Member>, loader: &mut Loader) -> SourceTree {
    // `NAME.data/purelib/x` and `NAME.data/platlib/x` install at the root.
    for m in &mut members {
        let mut parts = m.path.splitn(3, '/');
        if let (Some(d), Some(kind), Some(rest)) = (parts.next(), parts.next(), parts.next()) {
            if d.ends_with(".data") && (kind == "purelib" || kind == "platlib") {
                m.path = rest.to_string();
            }
        }
    }
    let dist_infos: BTreeSet<String> = members
        .iter()
        .filter_map(|m| {
            let (d, rest) = m.path.split_once('/')?;
            (d.ends_with(".dist-info") && !rest.contains('/')).then(|| d.to_string())
        })
        .collect();
    let dist_info = dist_infos
        .iter()
        .find(|d| {
            let p = format!("{d}/METADATA");
            members.iter().any(|m| m.path == p)
        })
        .or_else(|| dist_infos.iter().next())
        .cloned();
    let mut tree = SourceTree::default();
    let mut top_txt = None;
    if let Some(d) = &dist_info {
        let path = format!("{d}/METADATA");
        if let Some(data) = load_path(&mut members, loader, &path) {
            tree.metadata = parse_metadata(&data);
            tree.metadata.requires_dist_source = Some(path);
        }
        if let Some(data) = load_path(&mut members, loader, &format!("{d}/top_level.txt")) {
            top_txt = Some(top_level_lines(&data));
        }
    } else {
        loader
            .problems
            .push("no *.dist-info directory: no metadata".to_string());
    }
    if tree.metadata.name.is_none() {
        if let Some(d) = &dist_info {
            let stem = d.trim_end_matches(".dist-info");
            let name = stem.split('-').next().unwrap_or(stem);
            if !name.is_empty() {
                tree.metadata.name = Some(name.to_string());
            }
        }
    }
    let project = tree.metadata.name.clone();

    let is_payload = |path: &str| {
        let first = path.split('/').next().unwrap_or("");
        file_kind(path) != FileKind::Other
            && !first.ends_with(".dist-info")
            && !first.ends_with(".data")
    };
    let derived: Vec<String> = members
        .iter()
        .filter(|m| is_payload(&m.path))
        .filter_map(|m| top_name_of(&m.path))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    tree.top_level = match &top_txt {
        Some(names) if !names.is_empty() => filter_top_level(names, project.as_deref()),
        _ => filter_top_level(&derived, project.as_deref()),
    };
    let keep: BTreeSet<&str> = tree.top_level.iter().map(String::as_str).collect();
    let selected: Vec<(String, &mut Member)> = members
        .iter_mut()
        .filter(|m| is_payload(&m.path))
        .filter(|m| {
            top_name_of(&m.path)
                .is_some_and(|n| keep.contains(n.as_str()) || !is_non_package_name(&n))
        })
        .map(|m| (m.path.clone(), m))
        .collect();
    tree.files = collect_files(selected, loader);
    tree.problems = std::mem::take(&mut loader.problems);
    tree
}

/// Module names that sit at the root of many sdists without being part of the distribution.
fn is_sdist_helper_module(name: &str) -> bool {
    matches!(
        name,
        "setup"
            | "conftest"
            | "noxfile"
            | "tasks"
            | "fabfile"
            | "versioneer"
            | "ez_setup"
            | "distribute_setup"
            | "runtests"
            | "run_tests"
            | "setup_helpers"
            | "build_backend"
    )
}

/// Where the packages of an sdist live: name -> prefixes (`""`, `"src/"`, ...).
struct PackageIndex {
    prefixes: BTreeMap<String, BTreeSet<String>>,
    source_paths: Vec<String>,
}

impl PackageIndex {
    fn new(members: &[Member]) -> Self {
        let mut prefixes: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut source_paths = Vec::new();
        for m in members {
            let kind = file_kind(&m.path);
            if matches!(kind, FileKind::Other | FileKind::OpSchema) {
                continue;
            }
            source_paths.push(m.path.clone());
            let parts = components(&m.path);
            let Some((last, dirs)) = parts.split_last() else {
                continue;
            };
            let is_init = *last == "__init__.py" || *last == "__init__.pyi";
            if is_init {
                if let Some((name, above)) = dirs.split_last() {
                    if above.len() <= 2 {
                        let prefix: String = above.iter().map(|c| format!("{c}/")).collect();
                        prefixes.entry(name.to_string()).or_default().insert(prefix);
                    }
                }
            } else if dirs.len() <= 1 {
                if let Some(stem) = last.split('.').next() {
                    if is_identifier(stem) && !is_sdist_helper_module(stem) {
                        let prefix: String = dirs.iter().map(|c| format!("{c}/")).collect();
                        prefixes.entry(stem.to_string()).or_default().insert(prefix);
                    }
                }
            }
        }
        PackageIndex {
            prefixes,
            source_paths,
        }
    }

    fn rank(prefix: &str) -> (usize, usize, String) {
        let tier = match prefix {
            "" => 0,
            "src/" => 1,
            _ => 2,
        };
        (tier, prefix.matches('/').count(), prefix.to_string())
    }

    /// The prefix under which package or module `name` lives.
    fn locate(&self, name: &str) -> Option<String> {
        let exact = self.prefixes.get(name);
        let found = exact.or_else(|| {
            self.prefixes
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v)
        });
        if let Some(set) = found {
            return set.iter().min_by_key(|p| Self::rank(p)).cloned();
        }
        // A namespace package (no `__init__.py`) at the root or in `src/`.
        ["", "src/"].into_iter().find_map(|prefix| {
            let dir = format!("{prefix}{name}/");
            self.source_paths
                .iter()
                .any(|p| p.starts_with(&dir))
                .then(|| prefix.to_string())
        })
    }

    /// The real spelling of `name` at `prefix` (case-insensitive matches).
    fn spelling(&self, name: &str, prefix: &str) -> String {
        if self.prefixes.get(name).is_some_and(|s| s.contains(prefix)) {
            return name.to_string();
        }
        self.prefixes
            .iter()
            .find(|(k, v)| k.eq_ignore_ascii_case(name) && v.contains(prefix))
            .map(|(k, _)| k.clone())
            .unwrap_or_else(|| name.to_string())
    }

    /// Every importable top-level name at `prefix`.
    fn names_at(&self, prefix: &str) -> Vec<String> {
        self.prefixes
            .iter()
            .filter(|(name, set)| {
                set.contains(prefix) && is_identifier(name) && !is_non_package_name(name)
            })
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Directories at `prefix` holding Python files but no `__init__.py` (namespace packages).
    fn namespace_dirs_at(&self, prefix: &str) -> Vec<String> {
        self.source_paths
            .iter()
            .filter_map(|p| {
                let rest = p.strip_prefix(prefix)?;
                let (dir, _) = rest.split_once('/')?;
                (is_identifier(dir) && !is_non_package_name(dir)).then(|| dir.to_string())
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }
}

/// `NAME-VERSION` -> `NAME`.
pub(crate) fn name_from_folder(folder: &str) -> Option<String> {
    let bytes = folder.as_bytes();
    let cut = (1..bytes.len())
        .rev()
        .find(|&i| bytes[i - 1] == b'-' && bytes[i].is_ascii_digit())?;
    let name = &folder[..cut - 1];
    (!name.is_empty()).then(|| name.to_string())
}

/// An sdist or an unpacked source tree (paths relative to the project root).
///
/// `name_hint` names the project when no metadata does (the sdist's top folder name, the
/// directory name, or the package asked for).
pub(crate) fn build_sdist(
    mut members: Vec<Member>,
    loader: &mut Loader,
    name_hint: Option<String>,
) -> SourceTree {
    let mut tree = SourceTree::default();

    // Metadata files.
    let pkg_info = load_path(&mut members, loader, "PKG-INFO").map(|d| parse_metadata(&d));
    let mut egg_dirs: Vec<String> = members
        .iter()
        .filter_map(|m| {
            let (dir, file) = m.path.rsplit_once('/')?;
            let last = file_name(dir);
            (last.ends_with(".egg-info")
                && dir.matches('/').count() <= 1
                && matches!(file, "PKG-INFO" | "requires.txt" | "top_level.txt"))
            .then(|| dir.to_string())
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    egg_dirs.sort_by_key(|d| d.matches('/').count());
    let folder_name = name_hint;
    let first_name = pkg_info
        .as_ref()
        .and_then(|m| m.name.clone())
        .or_else(|| folder_name.clone());
    let egg = first_name
        .as_deref()
        .and_then(|name| {
            let want = normalize_name(name);
            egg_dirs
                .iter()
                .find(|d| normalize_name(file_name(d).trim_end_matches(".egg-info")) == want)
        })
        .or_else(|| egg_dirs.first())
        .cloned();

    let mut metadata = match pkg_info {
        Some(md) => {
            let mut md = md;
            if !md.requires_dist.is_empty() {
                md.requires_dist_source = Some("PKG-INFO".to_string());
            }
            md
        }
        None => match &egg {
            Some(e) => load_path(&mut members, loader, &format!("{e}/PKG-INFO"))
                .map(|d| {
                    let mut md = parse_metadata(&d);
                    if !md.requires_dist.is_empty() {
                        md.requires_dist_source = Some(format!("{e}/PKG-INFO"));
                    }
                    md
                })
                .unwrap_or_default(),
            None => Metadata::default(),
        },
    };
    if metadata.name.is_none() {
        metadata.name = folder_name;
    }
    if metadata.requires_dist_source.is_none() {
        let requires_txt = egg.as_ref().and_then(|e| {
            let path = format!("{e}/requires.txt");
            load_path(&mut members, loader, &path).map(|d| (path, parse_requires_txt(&d)))
        });
        let fallback = requires_txt.or_else(|| {
            ["requirements.txt", "requirements/requirements.txt"]
                .into_iter()
                .find_map(|path| {
                    load_path(&mut members, loader, path)
                        .map(|d| (path.to_string(), parse_requirements_txt(&d)))
                })
        });
        if let Some((path, reqs)) = fallback {
            metadata.requires_dist = reqs;
            metadata.requires_dist_source = Some(path);
        }
    }
    let project = metadata.name.clone();

    // Import packages.
    let index = PackageIndex::new(&members);
    let mut roots: Vec<(String, String)> = Vec::new(); // (name, prefix)
    if let Some(e) = &egg {
        if let Some(data) = load_path(&mut members, loader, &format!("{e}/top_level.txt")) {
            let names = filter_top_level(&top_level_lines(&data), project.as_deref());
            for name in names {
                if let Some(prefix) = index.locate(&name) {
                    roots.push((index.spelling(&name, &prefix), prefix));
                }
            }
        }
    }
    if roots.is_empty() {
        if let Some(p) = &project {
            let name = import_form(p);
            if let Some(prefix) = index.locate(&name) {
                roots.push((index.spelling(&name, &prefix), prefix));
            }
        }
    }
    if roots.is_empty() {
        for prefix in ["", "src/"] {
            let mut names = index.names_at(prefix);
            if names.is_empty() {
                names = index.namespace_dirs_at(prefix);
            }
            if !names.is_empty() {
                roots = names.into_iter().map(|n| (n, prefix.to_string())).collect();
                break;
            }
        }
    }
    if roots.is_empty() {
        loader
            .problems
            .push("no importable package or module found".to_string());
    }
    roots.sort();
    roots.dedup();
    tree.top_level = roots
        .iter()
        .map(|(n, _)| n.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();

    let selected: Vec<(String, &mut Member)> = members
        .iter_mut()
        .filter(|m| file_kind(&m.path) != FileKind::Other)
        .filter_map(|m| {
            let out = roots.iter().find_map(|(name, prefix)| {
                let rest = m.path.strip_prefix(prefix.as_str())?;
                let inside = rest
                    .strip_prefix(name.as_str())
                    .is_some_and(|r| r.starts_with('/'));
                let module = !rest.contains('/') && top_name_of(rest).as_deref() == Some(name);
                (inside || module).then(|| rest.to_string())
            })?;
            Some((out, m))
        })
        .collect();
    tree.files = collect_files(selected, loader);
    tree.metadata = metadata;
    tree.problems = std::mem::take(&mut loader.problems);
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names() {
        assert_eq!(
            name_from_folder("colossalai-0.4.0").as_deref(),
            Some("colossalai")
        );
        assert_eq!(name_from_folder("my-pkg-2").as_deref(), Some("my-pkg"));
        assert_eq!(name_from_folder("nover"), None);
        assert_eq!(name_from_folder("-1"), None);
    }

    #[test]
    fn wanted_members() {
        assert!(wanted("a/b.py", false));
        assert!(wanted("x-1.dist-info/METADATA", false));
        assert!(!wanted("x-1.dist-info/RECORD", false));
        assert!(!wanted("a/x-1.dist-info/METADATA", false));
        assert!(wanted("x-1/PKG-INFO", true));
        assert!(wanted("x-1/x.egg-info/requires.txt", true));
        assert!(wanted("x-1/requirements/requirements.txt", true));
        assert!(!wanted("x-1/a/b/c/requirements.txt", true));
    }
}
