//! Imports a script resolves to the project's own code beside it. Python puts a script's
//! directory first on `sys.path`, so `from datasets.vad import vad_for_folder` in
//! `recipes/x/prepare.py` loads `recipes/x/datasets/vad.py` (speechbrain's recipes), not the
//! `datasets` distribution. An import of an indexed package's name is the project's code in a
//! file when a directory above it (its own or an ancestor) that is not itself a package holds
//! the module imported: `N.py`, `N/__init__.py`, or a directory `N/` holding the submodule or
//! name imported from it (a namespace package: `N/vad.py` for `N.vad`). The directory must
//! hold what is imported, not only a directory of that name, so a `datasets/` of data files
//! does not hide the package.

use apicompat_hash::HashSet;
use std::path::{Path, PathBuf};

use ruff_python_ast::Stmt;

use apicompat_extract::nesting::nested_bodies;

/// Statements nested deeper than this are not read for imports.
const MAX_DEPTH: usize = 200;

/// The project's Python files and the directories that hold them.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    files: HashSet<PathBuf>,
    dirs: HashSet<PathBuf>,
}

impl Tree {
    pub(crate) fn new<'a>(paths: impl Iterator<Item = &'a Path>) -> Tree {
        let mut tree = Tree::default();
        for p in paths {
            tree.files.insert(p.to_path_buf());
            let mut dir = p.parent();
            while let Some(d) = dir {
                if !tree.dirs.insert(d.to_path_buf()) {
                    break;
                }
                dir = d.parent();
            }
        }
        tree
    }

    /// The indexed top-level names (`roots`) that `file`'s absolute imports load from the
    /// project's own code beside it.
    pub(crate) fn local_roots(
        &self,
        file: &Path,
        suite: &[Stmt],
        roots: &HashSet<String>,
    ) -> Vec<String> {
        let mut imports = Vec::new();
        collect(suite, roots, &mut imports, 0);
        if imports.is_empty() {
            return Vec::new();
        }
        // The directories a run of this file may put on `sys.path`: its own and those above,
        // while they are not packages (a module of a package imports absolutely).
        let bases: Vec<&Path> = file
            .ancestors()
            .skip(1)
            .take_while(|d| self.dirs.contains(*d))
            .filter(|d| !self.files.contains(&d.join("__init__.py")))
            .collect();
        let mut out: Vec<String> = Vec::new();
        // Roots no base holds a file or directory of (most): their modules are not looked up.
        let mut absent: Vec<&str> = Vec::new();
        for (module, names) in &imports {
            let root = module.split('.').next().unwrap_or(module);
            if out.iter().any(|r| r == root) || absent.contains(&root) {
                continue;
            }
            let held = |b: &&Path| {
                let p = b.join(root);
                self.dirs.contains(&p) || self.files.contains(&p.with_extension("py"))
            };
            if !bases.iter().any(held) {
                absent.push(root);
                continue;
            }
            if bases.iter().any(|b| self.provides(b, module, names)) {
                out.push(root.to_string());
            }
        }
        out
    }

    /// Whether `base` holds module `module` (or, for a namespace directory, one of `names`
    /// imported from it).
    fn provides(&self, base: &Path, module: &str, names: &[String]) -> bool {
        let mut p = base.to_path_buf();
        for part in module.split('.') {
            p.push(part);
        }
        let file = p.with_extension("py");
        if self.files.contains(&file) || self.files.contains(&p.join("__init__.py")) {
            return true;
        }
        if !self.dirs.contains(&p) {
            return false;
        }
        // A namespace directory: it holds a submodule (`N.sub`), or a module or directory of a
        // name imported from it.
        module.contains('.')
            || names.iter().any(|n| {
                self.files.contains(&p.join(format!("{n}.py"))) || self.dirs.contains(&p.join(n))
            })
    }
}

/// Absolute imports of indexed names anywhere in the file: (module, names imported from it).
fn collect(
    body: &[Stmt],
    roots: &HashSet<String>,
    out: &mut Vec<(String, Vec<String>)>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let indexed = |m: &str| roots.contains(m.split('.').next().unwrap_or(m));
    for stmt in body {
        match stmt {
            Stmt::Import(i) => {
                for alias in &i.names {
                    if indexed(alias.name.as_str()) {
                        out.push((alias.name.to_string(), Vec::new()));
                    }
                }
            }
            Stmt::ImportFrom(f) if f.level == 0 => {
                if let Some(m) = f.module.as_ref().filter(|m| indexed(m.as_str())) {
                    let names = f.names.iter().map(|a| a.name.to_string()).collect();
                    out.push((m.to_string(), names));
                }
            }
            Stmt::FunctionDef(f) => collect(&f.body, roots, out, depth + 1),
            Stmt::ClassDef(c) => collect(&c.body, roots, out, depth + 1),
            _ => {
                for inner in nested_bodies(stmt) {
                    collect(inner, roots, out, depth + 1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots() -> HashSet<String> {
        ["datasets", "torch"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn local(files: &[&str], file: &str, src: &str) -> Vec<String> {
        let tree = Tree::new(files.iter().map(Path::new));
        let parsed = ruff_python_parser::parse_module(src).unwrap();
        tree.local_roots(Path::new(file), parsed.suite(), &roots())
    }

    #[test]
    fn scripts_import_what_sits_beside_them() {
        // speechbrain's recipe: a namespace directory beside the script, read from the script
        // and from the modules in it.
        let files = [
            "r/prepare.py",
            "r/datasets/vad.py",
            "r/datasets/prepare_a.py",
        ];
        let src = "from datasets.vad import vad_for_folder\nimport torch\n";
        assert_eq!(local(&files, "r/datasets/prepare_a.py", src), ["datasets"]);
        let src = "from datasets import prepare_a\n";
        assert_eq!(local(&files, "r/prepare.py", src), ["datasets"]);
        // A name the directory does not hold: the package.
        let src = "from datasets import load_dataset\n";
        assert!(local(&files, "r/prepare.py", src).is_empty());
        // A regular package beside the script.
        let files = ["r/prepare.py", "r/datasets/__init__.py"];
        let src = "import datasets\n";
        assert_eq!(local(&files, "r/prepare.py", src), ["datasets"]);
        // A module of a package imports absolutely: the installed package.
        let files = ["p/__init__.py", "p/m.py", "p/datasets/__init__.py"];
        assert!(local(&files, "p/m.py", "import datasets\n").is_empty());
        // Nothing of that name beside it.
        let files = ["r/prepare.py", "other/datasets/vad.py"];
        let src = "from datasets.vad import x\n";
        assert!(local(&files, "r/prepare.py", src).is_empty());
    }
}
