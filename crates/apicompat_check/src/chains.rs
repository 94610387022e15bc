//! Import chains: which of the project's own modules, each importing the next when it is
//! imported, lead from an entry point of the project to a module. An import-time finding in a
//! module on such a chain breaks the program at start-up, not only when someone imports that
//! module.
//!
//! - Entry points: `[project.scripts]` and `[project.gui-scripts]` of `pyproject.toml`
//!   (`name = "pkg.cli:main"`), `__main__.py` files, and modules with an
//!   `if __name__ == "__main__":` block.
//! - A module's name comes from its path: up from the file while the directory is a package
//!   (has an `__init__.py`), so `src/pkg/sub/mod.py` is `pkg.sub.mod`.
//! - Only imports that run when a module is imported count (module level, class bodies, `if`
//!   and `try` blocks at module level; not function bodies): `import a.b.c` imports `a`, `a.b`
//!   and `a.b.c`; `from .x import y` imports the package, `x`, and `x.y` when that is a module.
//!
//! Cheap by design: no file is read again, and the chain is the shortest from any entry point.

use apicompat_hash::{HashMap, HashSet};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use crate::collect::{FileUses, ModuleImport};

/// The module name of a file: `(name, is_package)`; `None` when a part is not an identifier.
fn module_name(path: &Path, packages: &mut HashMap<PathBuf, bool>) -> Option<(String, bool)> {
    module_name_in(path, packages, true).map(|(n, p, _)| (n, p))
}

/// [`module_name`]; with `through`, a directory without `__init__.py` inside a package is a
/// namespace portion of it (`moellava/model/language_model/mpt/modeling_mpt.py`, where only
/// `moellava/model/` has one, is `moellava.model.language_model.mpt.modeling_mpt`, which
/// `from .mpt.modeling_mpt import` in `language_model/llava_mpt.py` names); without, the name
/// stops at the first such directory (`modeling_mpt`, as a script beside it imports it).
fn module_name_in(
    path: &Path,
    packages: &mut HashMap<PathBuf, bool>,
    through: bool,
) -> Option<(String, bool, bool)> {
    let file = path.file_name()?.to_str()?;
    let stem = file
        .strip_suffix(".py")
        .or_else(|| file.strip_suffix(".pyi"))?;
    let is_package = stem == "__init__";
    let mut parts: Vec<String> = Vec::new();
    if !is_package {
        parts.push(stem.to_string());
    }
    let mut dir = path.parent();
    // The directory of an `__init__.py` is always a package; above it, while it has one.
    let mut first = is_package;
    // Whether the name goes through a directory without `__init__.py`.
    let mut crossed = false;
    while let Some(d) = dir {
        let name = d.file_name().and_then(|n| n.to_str());
        let Some(name) = name else {
            break;
        };
        let mut package = |d: &Path| {
            *packages.entry(d.to_path_buf()).or_insert_with(|| {
                d.join("__init__.py").is_file() || d.join("__init__.pyi").is_file()
            })
        };
        let own = first || package(d);
        let is_pkg = own || (through && is_identifier(name) && ancestors_package(d, &mut package));
        crossed |= is_pkg && !own;
        first = false;
        if !is_pkg || name == "." || name == ".." {
            break;
        }
        parts.push(name.to_string());
        dir = d.parent();
    }
    if parts.is_empty() || !parts.iter().all(|p| is_identifier(p)) {
        return None;
    }
    parts.reverse();
    Some((parts.join("."), is_package, crossed))
}

/// Whether a directory above `d` (up to a few levels of directories without `__init__.py`)
/// is a package: `d` is then a namespace portion inside it.
fn ancestors_package(d: &Path, package: &mut impl FnMut(&Path) -> bool) -> bool {
    d.ancestors()
        .skip(1)
        .take(MAX_NAMESPACE_LEVELS)
        .take_while(|a| {
            a.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(is_identifier)
        })
        .any(package)
}

/// Directories without `__init__.py` followed up to a package ([`module_name_in`]).
const MAX_NAMESPACE_LEVELS: usize = 4;

/// The module name of each file for the semantic model: the name its packages give it, and
/// also its dotted path from the project root when every part is an identifier (a directory
/// without `__init__.py` imported as a namespace package: `from models.ema import x`).
pub fn module_names(files: &[PathBuf], root: &Path) -> Vec<apicompat_semantic::ModuleName> {
    let mut packages: HashMap<PathBuf, bool> = HashMap::default();
    files
        .iter()
        .map(|path| {
            let named = module_name_in(path, &mut packages, true);
            let mut aliases = Vec::new();
            // Named through a directory without `__init__.py`: the short name too.
            if named.as_ref().is_some_and(|(_, _, crossed)| *crossed) {
                if let Some((short, _, _)) = module_name_in(path, &mut packages, false) {
                    aliases.push(short);
                }
            }
            let own = named.map(|(n, p, _)| (n, p));
            let rel = relative_to(path, root);
            let mut parts: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if let Some(last) = parts.last_mut() {
                let stem = last
                    .strip_suffix(".py")
                    .or_else(|| last.strip_suffix(".pyi"))
                    .map(str::to_string);
                match stem.as_deref() {
                    Some("__init__") => {
                        parts.pop();
                    }
                    Some(s) => *last = s.to_string(),
                    None => parts.clear(),
                }
            }
            if !parts.is_empty() && parts.iter().all(|p| is_identifier(p)) {
                let dotted = parts.join(".");
                if own.as_ref().map(|(n, _)| n) != Some(&dotted) && !aliases.contains(&dotted) {
                    aliases.push(dotted);
                }
            }
            let (name, is_package) = match own {
                Some((n, p)) => (Some(n), p),
                None => (None, false),
            };
            apicompat_semantic::ModuleName {
                name,
                is_package,
                aliases,
            }
        })
        .collect()
}

/// `path` from `root`: also when one is given relative to the working directory and the
/// other absolute or canonical (`check` in the project's directory walks `./pkg/m.py`, and
/// the project root is found canonical); else `path` itself.
fn relative_to(path: &Path, root: &Path) -> PathBuf {
    if let Ok(rel) = path.strip_prefix(root) {
        return rel.to_path_buf();
    }
    let paths = [
        std::path::absolute(path).ok(),
        std::fs::canonicalize(path).ok(),
    ];
    let roots = [
        std::path::absolute(root).ok(),
        std::fs::canonicalize(root).ok(),
    ];
    for p in paths.iter().flatten() {
        for r in roots.iter().flatten() {
            if let Ok(rel) = p.strip_prefix(r) {
                return rel.to_path_buf();
            }
        }
    }
    path.to_path_buf()
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// The modules named by `[project.scripts]` and `[project.gui-scripts]` of a `pyproject.toml`.
pub fn script_modules(pyproject: &Path) -> Vec<String> {
    use toml::de::{DeTable, DeValue};
    // Regular files only, size-capped: a pyproject.toml may be a FIFO or a link to /dev/zero.
    let Ok(bytes) = apicompat_requirements::read_regular_file(pyproject, 16 << 20) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let Ok(doc) = DeTable::parse(&text) else {
        return Vec::new();
    };
    fn get<'t, 'i>(t: &'t DeTable<'i>, key: &str) -> Option<&'t DeValue<'i>> {
        t.iter()
            .find(|(k, _)| k.get_ref() == key)
            .map(|(_, v)| v.get_ref())
    }
    let mut out = Vec::new();
    let Some(DeValue::Table(project)) = get(doc.get_ref(), "project") else {
        return out;
    };
    for section in ["scripts", "gui-scripts"] {
        let Some(DeValue::Table(scripts)) = get(project, section) else {
            continue;
        };
        for (_, v) in scripts.iter() {
            if let DeValue::String(s) = v.get_ref() {
                let module = s.split(':').next().unwrap_or("").trim();
                if !module.is_empty() {
                    out.push(module.to_string());
                }
            }
        }
    }
    out
}

/// The project's modules by name, and the files an import statement of one of them imports.
pub(crate) struct Modules {
    names: Vec<Option<(String, bool)>>,
    by_name: HashMap<String, usize>,
    /// Names two source files of the project give (copies of a package in two directories):
    /// which one an import finds depends on `sys.path`.
    ambiguous: HashSet<String>,
    /// Dotted names of two or more trailing parts of each file's path (`f5_tts.infer.utils_infer`
    /// for `src/f5_tts/infer/utils_infer.py`), for imports through directories without
    /// `__init__.py` (namespace packages, a `src/` layout); `None` where two files end alike.
    by_suffix: HashMap<String, Option<usize>>,
}

impl Modules {
    pub(crate) fn new(paths: &[&Path]) -> Modules {
        let mut packages: HashMap<PathBuf, bool> = HashMap::default();
        let names: Vec<Option<(String, bool)>> = paths
            .iter()
            .map(|p| module_name(p, &mut packages))
            .collect();
        let mut by_name: HashMap<String, usize> = HashMap::default();
        let mut ambiguous: HashSet<String> = HashSet::default();
        let is_stub = |i: usize| paths[i].extension().is_some_and(|e| e == "pyi");
        for (i, n) in names.iter().enumerate() {
            if let Some((name, _)) = n {
                // A `.py` wins over a `.pyi` of the same module.
                match by_name.get(name.as_str()) {
                    Some(_) if is_stub(i) => {}
                    Some(&j) if !is_stub(j) => {
                        ambiguous.insert(name.clone());
                        by_name.insert(name.clone(), i);
                    }
                    _ => {
                        by_name.insert(name.clone(), i);
                    }
                }
            }
        }
        let mut by_suffix: HashMap<String, Option<usize>> = HashMap::default();
        for (i, p) in paths.iter().enumerate() {
            let Some(parts) = dotted_parts(p) else {
                continue;
            };
            for k in 2..=parts.len() {
                let name = parts[parts.len() - k..].join(".");
                by_suffix
                    .entry(name)
                    .and_modify(|e| {
                        if *e != Some(i) {
                            *e = None;
                        }
                    })
                    .or_insert(Some(i));
            }
        }
        Modules {
            names,
            by_name,
            ambiguous,
            by_suffix,
        }
    }

    /// The file of a dotted module name: by the names packages give, else (two parts or more)
    /// by the trailing parts of a path, when one file alone ends that way.
    fn find(&self, parts: &[String]) -> Option<usize> {
        let name = parts.join(".");
        if let Some(&t) = self.by_name.get(name.as_str()) {
            return Some(t);
        }
        if parts.len() < 2 {
            return None;
        }
        self.by_suffix.get(name.as_str()).copied().flatten()
    }

    /// [`Modules::targets`] without the modules two files of the project name.
    pub(crate) fn unique_targets(&self, i: usize, imp: &ModuleImport) -> HashSet<usize> {
        let mut targets = self.targets(i, imp);
        if !self.ambiguous.is_empty() {
            targets.retain(|&t| {
                self.names[t]
                    .as_ref()
                    .is_some_and(|(n, _)| !self.ambiguous.contains(n))
            });
        }
        targets
    }

    /// The files (other than `i`) that `imp`, written in file `i`, imports: each package on
    /// the way and each name that is a module.
    pub(crate) fn targets(&self, i: usize, imp: &ModuleImport) -> HashSet<usize> {
        let mut targets: HashSet<usize> = HashSet::default();
        let Some((name, is_package)) = &self.names[i] else {
            return targets;
        };
        let package: Vec<&str> = {
            let mut parts: Vec<&str> = name.split('.').collect();
            if !is_package {
                parts.pop();
            }
            parts
        };
        let base: Vec<String> = if imp.level == 0 {
            imp.module
                .as_deref()
                .map(|m| m.split('.').map(str::to_string).collect())
                .unwrap_or_default()
        } else {
            let up = (imp.level - 1) as usize;
            if up > package.len() {
                return targets;
            }
            let mut b: Vec<String> = package[..package.len() - up]
                .iter()
                .map(|s| s.to_string())
                .collect();
            if let Some(m) = &imp.module {
                b.extend(m.split('.').map(str::to_string));
            }
            b
        };
        for k in 1..=base.len() {
            if let Some(t) = self.find(&base[..k]) {
                targets.insert(t);
            }
        }
        for n in &imp.names {
            let mut full = base.clone();
            full.push(n.clone());
            if let Some(t) = self.find(&full) {
                targets.insert(t);
            }
        }
        targets.remove(&i);
        targets
    }
}

/// The parts of a Python file's path as a dotted name (`a/b/c.py` -> `a`, `b`, `c`; a package's
/// `__init__.py` is its directory), when every part is an identifier.
fn dotted_parts(path: &Path) -> Option<Vec<String>> {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        if let std::path::Component::Normal(os) = c {
            parts.push(os.to_str()?.to_string());
        }
    }
    let last = parts.pop()?;
    let stem = last
        .strip_suffix(".py")
        .or_else(|| last.strip_suffix(".pyi"))?;
    if stem != "__init__" {
        parts.push(stem.to_string());
    }
    // Only the trailing identifiers (a directory above may have any name).
    let start = parts
        .iter()
        .rposition(|p| !is_identifier(p))
        .map_or(0, |i| i + 1);
    let parts = parts.split_off(start);
    (!parts.is_empty()).then_some(parts)
}

/// For each file reachable from an entry point, the chain of module names from the entry point
/// to it (the entry point first, the file's own module last).
pub fn chains(files: &[(&Path, &FileUses)], scripts: &[String]) -> HashMap<usize, Vec<String>> {
    let paths: Vec<&Path> = files.iter().map(|(p, _)| *p).collect();
    let modules = Modules::new(&paths);
    let names = &modules.names;

    // Edges: the modules each file imports at import time.
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); files.len()];
    for (i, (_, uses)) in files.iter().enumerate() {
        let mut targets: HashSet<usize> = HashSet::default();
        for imp in &uses.imports {
            targets.extend(modules.targets(i, imp));
        }
        let mut targets: Vec<usize> = targets.into_iter().collect();
        targets.sort_unstable();
        edges[i] = targets;
    }

    // Entry points, in file order (the chains do not depend on the walk's order).
    let mut entries: Vec<usize> = Vec::new();
    for (i, (path, uses)) in files.iter().enumerate() {
        let main_file = path.file_name().is_some_and(|n| n == "__main__.py");
        let script = names[i]
            .as_ref()
            .is_some_and(|(n, _)| scripts.iter().any(|s| s == n));
        if uses.is_main || main_file || script {
            entries.push(i);
        }
    }

    // Shortest chains from any entry point.
    let mut parent: Vec<Option<usize>> = vec![None; files.len()];
    let mut seen: Vec<bool> = vec![false; files.len()];
    let mut queue: VecDeque<usize> = VecDeque::new();
    for &e in &entries {
        seen[e] = true;
        queue.push_back(e);
    }
    while let Some(i) = queue.pop_front() {
        for &t in &edges[i] {
            if !seen[t] {
                seen[t] = true;
                parent[t] = Some(i);
                queue.push_back(t);
            }
        }
    }
    let mut out = HashMap::default();
    for (i, _) in seen.iter().enumerate().filter(|(_, s)| **s) {
        let mut chain = Vec::new();
        let mut cur = Some(i);
        while let Some(c) = cur {
            if let Some((n, _)) = &names[c] {
                chain.push(n.clone());
            }
            cur = parent[c];
        }
        chain.reverse();
        out.insert(i, chain);
    }
    out
}
