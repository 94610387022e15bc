//! Imports a script resolves to the project's own code beside it. Python puts a script's
//! directory first on `sys.path`, so `from datasets.vad import vad_for_folder` in
//! `recipes/x/prepare.py` loads `recipes/x/datasets/vad.py` (speechbrain's recipes), not the
//! `datasets` distribution. An import of an indexed package's name is the project's code in a
//! file when a directory above it (its own or an ancestor) that is not itself a package holds
//! the module imported: `N.py`, `N/__init__.py`, or a directory `N/` holding the submodule or
//! name imported from it (a namespace package: `N/vad.py` for `N.vad`). The directory must
//! hold what is imported, not only a directory of that name, so a `datasets/` of data files
//! does not hide the package.
//!
//! A directory that is itself a package is such a base too when a script in it (a file with
//! an `if __name__ == "__main__":` block at its top level) imports a module from it by an
//! absolute name: `python src/main.py` puts `src/` first even when `src/__init__.py` exists
//! (One-Fits-All's `Classification/src/main.py` imports `datasets.data`, its own
//! `src/datasets/data.py`; study 31). Then it is a base for its files and those below it,
//! but only where what is imported is a module there that the name must reach
//! (`datasets.data` as `src/datasets/data.py`, or a module named in `from datasets import
//! data`): the installed package is what a plain `import datasets` means when such a package
//! is run with `python -m`.

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
    /// Directories holding a script ([`is_script`]) that imports one of their modules by an
    /// absolute name.
    script_dirs: HashSet<PathBuf>,
}

impl Tree {
    /// The tree of `paths`, each with its text when it is readable; `roots` the top-level
    /// modules of the indexed packages.
    pub(crate) fn new<'a>(
        paths: impl Iterator<Item = (&'a Path, Option<&'a [u8]>)>,
        roots: &HashSet<String>,
    ) -> Tree {
        let mut tree = Tree::default();
        let mut scripts: Vec<(&Path, &[u8])> = Vec::new();
        for (p, text) in paths {
            if let Some(text) = text.filter(|t| is_script(t)) {
                scripts.push((p, text));
            }
            tree.files.insert(p.to_path_buf());
            let mut dir = p.parent();
            while let Some(d) = dir {
                if !tree.dirs.insert(d.to_path_buf()) {
                    break;
                }
                dir = d.parent();
            }
        }
        // A package a script imports its own modules from by absolute names.
        for (p, text) in scripts {
            let Some(d) = p.parent() else {
                continue;
            };
            if tree.script_dirs.contains(d) {
                continue;
            }
            let own = |(m, names): (String, Vec<String>)| {
                tree.provides_module(d, &m, &names) || tree.provides_sibling(d, &m, roots)
            };
            if import_lines(text).any(own) {
                tree.script_dirs.insert(d.to_path_buf());
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
        // while they are not packages (a module of a package imports absolutely), and the
        // packages above it that hold a script (`strict`: only modules found there count).
        let (bases, strict): (Vec<&Path>, Vec<&Path>) = file
            .ancestors()
            .skip(1)
            .take_while(|d| self.dirs.contains(*d))
            .filter(|d| {
                !self.files.contains(&d.join("__init__.py")) || self.script_dirs.contains(*d)
            })
            .partition(|d| !self.files.contains(&d.join("__init__.py")));
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
            if !bases.iter().chain(&strict).any(held) {
                absent.push(root);
                continue;
            }
            if bases.iter().any(|b| self.provides(b, module, names))
                || strict
                    .iter()
                    .any(|b| self.provides_module(b, module, names))
            {
                out.push(root.to_string());
            }
        }
        out
    }

    /// Whether `base` holds a module the import must reach: the submodule `module` names
    /// (`a.b` as `a/b.py` or `a/b/`), or a module among `names` imported from it.
    fn provides_module(&self, base: &Path, module: &str, names: &[String]) -> bool {
        let mut p = base.to_path_buf();
        for part in module.split('.') {
            p.push(part);
        }
        let is_module =
            |p: &Path| self.files.contains(&p.with_extension("py")) || self.dirs.contains(p);
        if module.contains('.') {
            return is_module(&p);
        }
        names.iter().any(|n| is_module(&p.join(n)))
    }

    /// Whether `base` holds the top-level module `module` itself, a name no indexed package
    /// has (`from abstract_dataset import get_dataset` in Otter's
    /// `mimic-it/convert-it/main.py`, beside `abstract_dataset.py`; docs/false-alarm-study-40.md,
    /// F-U): only a run of the script from its directory finds it.
    fn provides_sibling(&self, base: &Path, module: &str, roots: &HashSet<String>) -> bool {
        if module.contains('.') || roots.contains(module) {
            return false;
        }
        let p = base.join(module);
        self.files.contains(&p.with_extension("py")) || self.files.contains(&p.join("__init__.py"))
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

/// Whether a file's text has an `if __name__ == "__main__":` block at its top level.
pub(crate) fn is_script(text: &[u8]) -> bool {
    memchr::memmem::find_iter(text, b"__main__").any(|at| {
        let start = text[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = &text[start..];
        let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
        line.starts_with(b"if ") && memchr::memmem::find(line, b"__name__").is_some()
    })
}

/// The absolute imports of a text, line by line, also indented (`from a.b import c, d`,
/// `import a.b, x as y`): (module, names imported from it). A line scan, no parse: a
/// statement over several lines gives the names of its first, and a match in a string counts.
pub(crate) fn import_lines(text: &[u8]) -> impl Iterator<Item = (String, Vec<String>)> + '_ {
    text.split(|&b| b == b'\n').flat_map(|line| {
        let line = String::from_utf8_lossy(line);
        let line = line.split('#').next().unwrap_or("").trim();
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        if let Some(rest) = line.strip_prefix("from ") {
            let (module, names) = rest.split_once(" import ").unwrap_or((rest, ""));
            match module.split_whitespace().next() {
                Some(module) if !module.starts_with('.') => {
                    let names = names
                        .trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace())
                        .split(',')
                        .filter_map(|n| n.split_whitespace().next())
                        .map(str::to_string)
                        .collect();
                    out.push((module.to_string(), names));
                }
                _ => {}
            }
        } else if let Some(rest) = line.strip_prefix("import ") {
            for m in rest.split(',') {
                if let Some(m) = m.split_whitespace().next() {
                    out.push((m.to_string(), Vec::new()));
                }
            }
        }
        out
    })
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
        let tree = Tree::new(
            files.iter().map(|f| {
                let text: &[u8] = if f.ends_with("main.py") {
                    b"from datasets.data import x\n\nif __name__ == '__main__':\n    x()\n"
                } else {
                    b""
                };
                (Path::new(*f), Some(text))
            }),
            &roots(),
        );
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

    #[test]
    fn a_package_holding_a_script_is_first_for_the_modules_it_has() {
        // One-Fits-All's `Classification/src/` (study 31): a package with `main.py`, run as
        // `python src/main.py`, and its own `datasets/` package.
        let files = [
            "c/src/__init__.py",
            "c/src/main.py",
            "c/src/running.py",
            "c/src/datasets/__init__.py",
            "c/src/datasets/data.py",
            "c/src/datasets/utils.py",
        ];
        let src = "from datasets.data import data_factory\n";
        assert_eq!(local(&files, "c/src/main.py", src), ["datasets"]);
        assert_eq!(local(&files, "c/src/running.py", src), ["datasets"]);
        let src = "from datasets import utils\n";
        assert_eq!(local(&files, "c/src/datasets/data.py", src), ["datasets"]);
        // What the package does not hold as a module is the installed package's.
        assert!(local(&files, "c/src/main.py", "import datasets\n").is_empty());
        let src = "from datasets import load_dataset\n";
        assert!(local(&files, "c/src/main.py", src).is_empty());
        // A script there that imports none of its modules by an absolute name: no base.
        let files = [
            "c/src/__init__.py",
            "c/src/check.py",
            "c/src/datasets/__init__.py",
            "c/src/datasets/data.py",
        ];
        let texts: [&[u8]; 4] = [
            b"",
            b"import os\nif __name__ == '__main__':\n    pass\n",
            b"",
            b"",
        ];
        let tree = Tree::new(
            files
                .iter()
                .zip(texts)
                .map(|(f, t)| (Path::new(*f), Some(t))),
            &roots(),
        );
        let parsed = ruff_python_parser::parse_module("from datasets.data import x\n").unwrap();
        assert!(tree
            .local_roots(Path::new("c/src/check.py"), parsed.suite(), &roots())
            .is_empty());
        // Without a script there, the package's modules import absolutely.
        let files = [
            "c/src/__init__.py",
            "c/src/run.py",
            "c/src/datasets/__init__.py",
            "c/src/datasets/data.py",
        ];
        let src = "from datasets.data import data_factory\n";
        assert!(local(&files, "c/src/run.py", src).is_empty());
        // A script that imports a module beside it by its own name, one no indexed package
        // has (Otter's `mimic-it/convert-it/main.py`, study 40's F-U): the package is first; a
        // sibling named as an indexed package is no such sign.
        let script_dir = |sibling: &str, main: &[u8]| {
            let files = [
                "o/convert/__init__.py".to_string(),
                "o/convert/main.py".to_string(),
                format!("o/convert/{sibling}.py"),
                "o/convert/datasets/__init__.py".to_string(),
                "o/convert/datasets/utils/nav.py".to_string(),
            ];
            let tree = Tree::new(
                files.iter().map(|f| {
                    let text: &[u8] = if f.ends_with("main.py") { main } else { b"" };
                    (Path::new(f.as_str()), Some(text))
                }),
                &roots(),
            );
            let parsed =
                ruff_python_parser::parse_module("from datasets.utils.nav import x\n").unwrap();
            tree.local_roots(
                Path::new("o/convert/datasets/threed.py"),
                parsed.suite(),
                &roots(),
            )
        };
        let main = b"from abstract_dataset import get\nif __name__ == '__main__':\n    get()\n";
        assert_eq!(script_dir("abstract_dataset", main), ["datasets"]);
        let main = b"from torch import get\nif __name__ == '__main__':\n    get()\n";
        assert!(script_dir("torch", main).is_empty());
    }

    #[test]
    fn scripts_are_files_with_a_main_block() {
        assert!(is_script(
            b"import x\n\nif __name__ == \"__main__\":\n    main()\n"
        ));
        assert!(is_script(b"if __name__ == '__main__':\n    main()"));
        assert!(!is_script(
            b"def f():\n    if __name__ == '__main__':\n        pass\n"
        ));
        assert!(!is_script(b"x = '__main__'\n"));
    }
}
