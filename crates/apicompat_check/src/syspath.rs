//! Directories a script of the project puts first on `sys.path`: what they hold is the
//! project's code, even under the name of an indexed package.
//!
//! ```python
//! # _init_paths.py (CenterNet, Faster R-CNN and their many forks), imported by every script
//! lib_path = osp.join(osp.dirname(__file__), "lib")
//! if lib_path not in sys.path:
//!     sys.path.insert(0, lib_path)
//! ```
//!
//! `from datasets.dataset_factory import get_dataset` then loads `lib/datasets/`, not the
//! installed `datasets`. Read from the module-level statements (also under `if`, `try`) of the
//! files outside a package (scripts and the modules beside them), and only `sys.path.insert`:
//! an appended directory comes after the installed packages. The directory must be computed
//! from `__file__` (`os.path.dirname`, `abspath`, `realpath`, `join` with literals, `Path(...)
//! .parent`, `/ "lib"`, names bound to those): the working directory is not known.

use std::path::{Path, PathBuf};

use ruff_python_ast::{Expr, Operator, Stmt};

/// Statements nested deeper are not read.
const MAX_DEPTH: usize = 8;

/// The directories under `root` that the files put first on `sys.path`, existing, each once.
pub(crate) fn inserted_dirs(files: &[PathBuf], root: &Path) -> Vec<PathBuf> {
    let Ok(root) = std::fs::canonicalize(root) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for file in files {
        let Some(dir) = file.parent() else {
            continue;
        };
        if dir.join("__init__.py").is_file() {
            continue;
        }
        let Ok(bytes) =
            apicompat_requirements::read_regular_file(file, crate::files::MAX_FILE_BYTES)
        else {
            continue;
        };
        if memchr::memmem::find(&bytes, b"sys.path").is_none() {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        // Nested deeper than the walk reads a file: not read here either.
        use apicompat_extract::nesting::{check, MAX_NESTING_ESTIMATE};
        if check(text, MAX_NESTING_ESTIMATE).is_err() {
            continue;
        }
        let Ok(parsed) = ruff_python_parser::parse_module(text) else {
            continue;
        };
        let Ok(file_abs) = std::fs::canonicalize(file) else {
            continue;
        };
        let mut reader = Reader {
            file: file_abs,
            names: Vec::new(),
            found: Vec::new(),
        };
        reader.stmts(parsed.suite(), 0);
        for d in reader.found {
            let Ok(d) = std::fs::canonicalize(&d) else {
                continue;
            };
            if d.is_dir() && d.starts_with(&root) && !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

struct Reader {
    file: PathBuf,
    /// Module-level names bound to a path computed from `__file__`.
    names: Vec<(String, PathBuf)>,
    found: Vec<PathBuf>,
}

impl Reader {
    fn stmts(&mut self, body: &[Stmt], depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for stmt in body {
            match stmt {
                Stmt::Assign(a) => {
                    if let ([Expr::Name(n)], Some(p)) = (&*a.targets, self.path(&a.value, 0)) {
                        self.names.retain(|(k, _)| k != n.id.as_str());
                        self.names.push((n.id.to_string(), p));
                    }
                }
                Stmt::Expr(e) => self.insert(&e.value),
                Stmt::If(s) => {
                    self.stmts(&s.body, depth + 1);
                    for clause in &s.elif_else_clauses {
                        self.stmts(&clause.body, depth + 1);
                    }
                }
                Stmt::Try(t) => {
                    self.stmts(&t.body, depth + 1);
                    self.stmts(&t.orelse, depth + 1);
                }
                Stmt::For(f) => self.stmts(&f.body, depth + 1),
                _ => {}
            }
        }
    }

    /// `sys.path.insert(i, DIR)`.
    fn insert(&mut self, e: &Expr) {
        let Expr::Call(call) = e else {
            return;
        };
        let Expr::Attribute(f) = &*call.func else {
            return;
        };
        if f.attr.as_str() != "insert"
            || crate::collect::dotted(&f.value).as_deref() != Some("sys.path")
        {
            return;
        }
        if let [_, dir] = &*call.arguments.args {
            if let Some(p) = self.path(dir, 0) {
                self.found.push(p);
            }
        }
    }

    /// The path an expression computes from `__file__`, if it does.
    fn path(&self, e: &Expr, depth: usize) -> Option<PathBuf> {
        if depth > MAX_DEPTH {
            return None;
        }
        let d = depth + 1;
        match e {
            Expr::Name(n) if n.id.as_str() == "__file__" => Some(self.file.clone()),
            Expr::Name(n) => self
                .names
                .iter()
                .rev()
                .find(|(k, _)| k == n.id.as_str())
                .map(|(_, p)| p.clone()),
            // `Path(__file__).parent`, `.resolve()` below.
            Expr::Attribute(a) if a.attr.as_str() == "parent" => {
                Some(self.path(&a.value, d)?.parent()?.to_path_buf())
            }
            // `Path(...) / "lib"`.
            Expr::BinOp(b) if b.op == Operator::Div => {
                let base = self.path(&b.left, d)?;
                Some(base.join(literal(&b.right)?))
            }
            Expr::Call(call) => {
                let name = crate::collect::dotted(&call.func)?;
                let last = name.rsplit('.').next().unwrap_or(&name);
                let args = &call.arguments.args;
                match (last, &**args) {
                    ("dirname", [x]) => Some(self.path(x, d)?.parent()?.to_path_buf()),
                    ("abspath" | "realpath" | "normpath" | "Path" | "PurePath", [x]) => {
                        self.path(x, d)
                    }
                    ("join", [first, rest @ ..]) => {
                        let mut p = self.path(first, d)?;
                        for r in rest {
                            match literal(r)? {
                                ".." => {
                                    p = p.parent()?.to_path_buf();
                                }
                                "." => {}
                                part => p.push(part),
                            }
                        }
                        Some(p)
                    }
                    _ => match &*call.func {
                        // `Path(__file__).resolve()`, `.absolute()`.
                        Expr::Attribute(a)
                            if matches!(a.attr.as_str(), "resolve" | "absolute")
                                && args.is_empty() =>
                        {
                            self.path(&a.value, d)
                        }
                        _ => None,
                    },
                }
            }
            _ => None,
        }
    }
}

/// A string literal that names a directory (no separator, not absolute).
fn literal(e: &Expr) -> Option<&str> {
    let Expr::StringLiteral(s) = e else {
        return None;
    };
    let s = s.value.to_str();
    (!s.is_empty() && !s.contains(['/', '\\'])).then_some(s)
}
