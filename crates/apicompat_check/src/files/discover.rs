//! Finding the project's Python files: the walk (gitignore-aware, excludes), its own
//! top-level packages and namespace packages.

use super::*;

/// What the walk found.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// Paths that could not be walked, with the reason.
    pub errors: Vec<(PathBuf, String)>,
    /// Top-level names of the project's own modules (directory names and file stems).
    pub first_party: HashSet<String>,
    /// The top-level modules the project itself provides: packages (directories with an
    /// `__init__.py`) and modules directly in a directory walked or in its `src/`, and a
    /// directory walked that is itself a package. An import of one of these loads the
    /// project's code, even when an indexed package has the same name.
    pub own_packages: HashSet<String>,
    /// Directories directly in a directory walked (or its `src/`) without `__init__.py` that
    /// hold Python files: namespace packages of the project (see [`Discovered::own_roots`]).
    pub namespaces: HashSet<String>,
    /// Python files found in template paths (`{{cookiecutter.name}}/`), left out of `files`
    /// (see [`crate::templates`]).
    pub templates: Vec<PathBuf>,
    /// Files that put first on `sys.path` a directory the tree does not have, with it
    /// ([`crate::syspath::Inserted::missing`]).
    pub unsure: Vec<(PathBuf, String)>,
    /// The bytes of `files`, in their order, when they were read before the walk (each file
    /// is read once); empty otherwise.
    pub texts: Vec<Result<Vec<u8>, String>>,
}

impl Discovered {
    /// The top-level modules the project provides among `roots` (the indexed ones), sorted: its
    /// packages and modules, and its namespace packages but those named like an indexed
    /// distribution (`torch/` without `__init__.py` does not hide the installed torch).
    pub fn own_roots(
        &self,
        roots: &HashSet<String>,
        catalog: &apicompat_index::Catalog,
    ) -> Vec<String> {
        let mut own: Vec<String> = self
            .own_packages
            .iter()
            .chain(
                self.namespaces
                    .iter()
                    .filter(|n| !matches!(catalog.package(n), Ok(Some(_)))),
            )
            .filter(|p| roots.contains(*p))
            // `__main__.py` at the top: a script, never imported as a package.
            .filter(|p| !(p.starts_with("__") && p.ends_with("__")))
            .cloned()
            .collect();
        own.sort();
        own.dedup();
        own
    }

    /// A name the project declares as a main requirement (`vllm==0.6.3`) is that package, not
    /// the project's own code, unless the project has a top-level module or package of that
    /// name ([`Discovered::own_packages`]): a nested directory or file of that name
    /// (`verl/third_party/vllm/`) no longer makes `import vllm` first-party, so the package is
    /// listed as not indexed, fetched on demand, and its requirements apply. A top-level
    /// directory without `__init__.py` does not hide it either (a regular package found later
    /// on `sys.path` wins over a namespace portion).
    pub fn declared_are_packages(&mut self, declared: &apicompat_requirements::Declared) {
        let names: HashSet<&str> = declared
            .requirements
            .iter()
            .filter(|r| r.group.is_none() && !r.is_constraint)
            .map(|r| r.name.as_str())
            .collect();
        if names.is_empty() {
            return;
        }
        let own = &self.own_packages;
        self.first_party.retain(|n| {
            own.contains(n) || !names.contains(apicompat_requirements::normalize_name(n).as_str())
        });
    }
}

/// The note for a top-level module the project provides itself ([`Discovered::own_roots`]).
pub fn own_root_note(name: &str) -> String {
    format!(
        "`{name}` is a package of the project itself: its imports are the project's code, not checked against the index"
    )
}

/// An ignore file of `dir` the walker would read that is not a regular file of a sane size:
/// (the directory, why it is not walked).
fn unsafe_ignore_file(dir: &Path) -> Option<(PathBuf, String)> {
    const MAX_IGNORE_BYTES: u64 = 16 << 20;
    for name in [".gitignore", ".ignore", ".git/info/exclude"] {
        let path = dir.join(name);
        if path.symlink_metadata().is_err() {
            continue;
        }
        let why = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() && m.len() <= MAX_IGNORE_BYTES => continue,
            Ok(m) if m.is_file() => format!("larger than {} MiB", MAX_IGNORE_BYTES >> 20),
            Ok(_) => "not a regular file".to_string(),
            Err(e) => describe_io(&e),
        };
        return Some((
            dir.to_path_buf(),
            format!("its `{name}` is {why}; the directory is not walked"),
        ));
    }
    None
}

/// A directory without `__init__.py` that holds Python files directly (the project imports it
/// as a namespace package: `from extensions.thunder import ...`). Not a hidden or excluded
/// directory, nor one of tests, docs or examples.
fn is_namespace_package(path: &Path, name: &str) -> bool {
    if name.starts_with('.')
        || crate::exclude::DEFAULT_EXCLUDE.contains(&name)
        || matches!(
            name,
            "tests" | "test" | "docs" | "doc" | "examples" | "scripts" | "benchmarks" | "tools"
        )
        || !name.chars().all(|c| c.is_alphanumeric() || c == '_')
    {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(path) else {
        return false;
    };
    // Python files in it, or packages (`extensions/thunder/__init__.py` in litgpt, whose
    // `extensions/` holds only packages).
    entries.flatten().take(10_000).any(|e| {
        let p = e.path();
        p.extension().is_some_and(|x| x == "py" || x == "pyi")
            || (!e.file_name().to_string_lossy().starts_with('.')
                && (p.join("__init__.py").is_file() || p.join("__init__.pyi").is_file()))
    })
}

/// The top-level packages and modules a project directory provides: in it and in its `src/`.
pub(crate) fn provided_by(dir: &Path) -> HashSet<String> {
    let (mut out, mut namespaces) = (HashSet::default(), HashSet::default());
    own_packages(dir, &mut out, &mut namespaces);
    own_packages(&dir.join("src"), &mut out, &mut namespaces);
    out
}

/// The packages and modules directly in `dir` (a directory put on `sys.path`), namespace
/// directories included.
pub(crate) fn packages_in(dir: &Path) -> HashSet<String> {
    let (mut out, mut namespaces) = (HashSet::default(), HashSet::default());
    own_packages(dir, &mut out, &mut namespaces);
    out.extend(namespaces);
    out
}

/// The regular packages and modules directly in `dir`: what a directory appended to
/// `sys.path` can provide, since a namespace portion is used only where no entry of
/// `sys.path` has a regular package of that name.
pub(crate) fn regular_packages_in(dir: &Path) -> HashSet<String> {
    let (mut out, mut namespaces) = (HashSet::default(), HashSet::default());
    own_packages(dir, &mut out, &mut namespaces);
    out
}

/// Top-level packages and modules directly in `dir` (see [`Discovered::own_packages`]).
fn own_packages(dir: &Path, out: &mut HashSet<String>, namespaces: &mut HashSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if path.is_dir() {
            if path.join("__init__.py").is_file() || path.join("__init__.pyi").is_file() {
                out.insert(name.to_string());
            } else if is_namespace_package(&path, name) {
                namespaces.insert(name.to_string());
            }
        } else if let Some(stem) = name
            .strip_suffix(".py")
            .or_else(|| name.strip_suffix(".pyi"))
        {
            if stem != "__init__" && stem != "setup" {
                out.insert(stem.to_string());
            }
        }
    }
}

/// The Python files under the given paths: directories are walked (respecting `.gitignore`,
/// `.ignore`, hidden files and `filter`'s exclusions, but ignore patterns never hide a module of
/// the project's packages: [`Walked::package_members`]); files named explicitly are always
/// taken, unless `--force-exclude` and excluded.
pub fn discover(paths: &[PathBuf], filter: &FileFilter) -> Discovered {
    discover_listing(paths, filter, &mut Vec::new())
}

/// [`discover`], and every directory the walk listed with its modification time when it was
/// reached (before it was listed), in `dirs`.
pub(crate) fn discover_listing(
    paths: &[PathBuf],
    filter: &FileFilter,
    dirs: &mut Vec<(PathBuf, Option<std::time::SystemTime>)>,
) -> Discovered {
    let mut out = Discovered::default();
    let mut files = BTreeSet::new();
    let shared = std::sync::Arc::new(filter.clone());
    for root in paths {
        if filter.force_exclude && filter.excluded_with_parents(root) {
            continue;
        }
        let meta = match std::fs::metadata(root) {
            Ok(m) => m,
            Err(e) => {
                out.errors.push((root.clone(), describe_io(&e)));
                continue;
            }
        };
        if !meta.is_dir() {
            note_first_party(
                &mut out.first_party,
                root,
                root.parent().unwrap_or(Path::new("")),
            );
            files.insert(root.clone());
            continue;
        }
        if let Some(name) = std::fs::canonicalize(root)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        {
            if root.join("__init__.py").is_file() {
                out.own_packages.insert(name.clone());
            }
            out.first_party.insert(name);
        }
        own_packages(root, &mut out.own_packages, &mut out.namespaces);
        own_packages(
            &root.join("src"),
            &mut out.own_packages,
            &mut out.namespaces,
        );
        // The walker reads ignore files itself: one that is a FIFO or a device would block or
        // never end, so such a directory is not walked (and a parent's such file disables the
        // parents' ignore files).
        if let Some(bad) = unsafe_ignore_file(root) {
            out.errors.push(bad);
            continue;
        }
        let parents_safe = std::fs::canonicalize(root).is_ok_and(|abs| {
            abs.ancestors()
                .skip(1)
                .all(|d| unsafe_ignore_file(d).is_none())
        });
        let skipped: std::sync::Arc<std::sync::Mutex<Vec<(PathBuf, String)>>> =
            std::sync::Arc::default();
        let skipped_in = std::sync::Arc::clone(&skipped);
        let filter_in = std::sync::Arc::clone(&shared);
        let anchored_root = crate::exclude::anchor(root);
        let walk_root = root.clone();
        let first_dir = dirs.len();
        let walker = ignore::WalkBuilder::new(root)
            .require_git(false)
            .parents(parents_safe)
            .filter_entry(move |e| {
                if e.depth() == 0 {
                    return true;
                }
                let rel = e.path().strip_prefix(&walk_root).unwrap_or(e.path());
                if filter_in.excluded(&anchored_root.join(rel)) {
                    return false;
                }
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                if !is_dir {
                    return true;
                }
                match unsafe_ignore_file(e.path()) {
                    Some(bad) => {
                        skipped_in
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(bad);
                        false
                    }
                    None => true,
                }
            })
            .build();
        for entry in walker {
            match entry {
                Ok(e) => {
                    if e.file_type().is_some_and(|t| t.is_dir()) {
                        let modified = e.metadata().ok().and_then(|m| m.modified().ok());
                        dirs.push((e.path().to_path_buf(), modified));
                    }
                    let is_file = e.file_type().is_some_and(|t| t.is_file());
                    let path = e.path();
                    let py = path.extension().is_some_and(|x| x == "py" || x == "pyi");
                    let rel = path.strip_prefix(root).unwrap_or(path);
                    if is_file && py && crate::templates::in_template_path(rel) {
                        out.templates.push(path.to_path_buf());
                    } else if is_file && py {
                        note_first_party(&mut out.first_party, path, root);
                        files.insert(path.to_path_buf());
                    }
                }
                Err(e) => {
                    let path = match &e {
                        ignore::Error::WithPath { path, .. } => path.clone(),
                        _ => root.clone(),
                    };
                    out.errors.push((path, e.to_string()));
                }
            }
        }
        out.errors.extend(std::mem::take(
            &mut *skipped.lock().unwrap_or_else(|p| p.into_inner()),
        ));
        let walked = Walked {
            root,
            anchored: crate::exclude::anchor(root),
            filter,
        };
        walked.package_members(first_dir, dirs, &mut files, &mut out);
    }
    out.files = files.into_iter().collect();
    out
}

/// One walked root, for [`Walked::package_members`].
struct Walked<'a> {
    root: &'a Path,
    anchored: PathBuf,
    filter: &'a FileFilter,
}

/// At most this many directories are listed again for [`Walked::package_members`].
const MAX_PACKAGE_DIRS: usize = 100_000;

impl Walked<'_> {
    /// The modules of the project's packages that ignore patterns hid from the walk: a
    /// `.gitignore` line meant for downloads or logs (`data`, `log_*`) also matches a
    /// package's `data/` subpackage or `log_stft.py`, which git tracks all the same and
    /// Python imports. Each package directory the walk listed (`dirs[first..]`, with an
    /// `__init__.py` it found) is listed again: a Python file in it the walk did not yield is
    /// added, and a subdirectory with an `__init__.py` it did not list is a package to scan
    /// (and recorded in `dirs`). Hidden, excluded, template and symlinked entries stay out.
    fn package_members(
        &self,
        first: usize,
        dirs: &mut Vec<(PathBuf, Option<std::time::SystemTime>)>,
        files: &mut BTreeSet<PathBuf>,
        out: &mut Discovered,
    ) {
        let mut listed: HashSet<PathBuf> = dirs[first..].iter().map(|(d, _)| d.clone()).collect();
        let mut stack: Vec<PathBuf> = dirs[first..]
            .iter()
            .map(|(d, _)| d)
            .filter(|d| {
                files.contains(&d.join("__init__.py")) || files.contains(&d.join("__init__.pyi"))
            })
            .cloned()
            .collect();
        let mut budget = MAX_PACKAGE_DIRS;
        while let Some(dir) = stack.pop() {
            let Some(left) = budget.checked_sub(1) else {
                break;
            };
            budget = left;
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                if name.to_string_lossy().starts_with('.') {
                    continue;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = dir.join(&name);
                // What the walk took is not looked at again.
                let skipped = if kind.is_file() {
                    path.extension().is_some_and(|x| x == "py" || x == "pyi")
                        && !files.contains(&path)
                } else {
                    kind.is_dir() && !listed.contains(&path)
                };
                if !skipped {
                    continue;
                }
                let rel = path.strip_prefix(self.root).unwrap_or(&path);
                if self.filter.excluded(&self.anchored.join(rel))
                    || crate::templates::in_template_path(rel)
                {
                    continue;
                }
                if kind.is_file() {
                    note_first_party(&mut out.first_party, &path, self.root);
                    files.insert(path);
                } else if (path.join("__init__.py").is_file()
                    || path.join("__init__.pyi").is_file())
                    && unsafe_ignore_file(&path).is_none()
                {
                    let modified = entry.metadata().ok().and_then(|m| m.modified().ok());
                    dirs.push((path.clone(), modified));
                    listed.insert(path.clone());
                    stack.push(path);
                }
            }
        }
    }
}

fn note_first_party(names: &mut HashSet<String>, file: &Path, root: &Path) {
    let rel = file.strip_prefix(root).unwrap_or(file);
    for comp in rel.components() {
        if let std::path::Component::Normal(c) = comp {
            let c = c.to_string_lossy();
            let stem = c
                .strip_suffix(".pyi")
                .or_else(|| c.strip_suffix(".py"))
                .unwrap_or(&c);
            names.insert(stem.to_string());
        }
    }
}
