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
//! project's files. The directory is computed from `__file__` (`os.path.dirname`, `abspath`,
//! `realpath`, `join` with literals, `Path(...).parent`, `/ "lib"`, names bound to those), from
//! the `__file__` of a module of the project the file imports (ClassyVision's
//! `Path(classy_vision.__file__).resolve().parent / "templates" / "synthetic"`), or, in files
//! outside a package (scripts and the modules beside them), from the working directory
//! (`os.getcwd()`, a relative literal), which is taken to be the project's root, as its
//! scripts are run from there (LLM-Adapters' `sys.path.append(os.path.join(os.getcwd(),
//! "peft/src/"))`).
//! A directory put first (`insert`) holds the project's code; an appended one comes after the
//! installed packages, so only the packages there that no declaration of the project
//! installs are its code ([`Inserted::appended`]).

use std::path::{Path, PathBuf};

use ruff_python_ast::{Expr, Operator, Stmt};

/// Statements nested deeper are not read.
const MAX_DEPTH: usize = 8;

/// What the files put first on `sys.path`.
#[derive(Debug, Default)]
pub(crate) struct Inserted {
    /// The directories under the root, existing, each once.
    pub dirs: Vec<PathBuf>,
    /// The directories under the root, existing, that the files append to `sys.path`.
    pub appended: Vec<PathBuf>,
    /// Files that put first a directory the tree does not have (a checkout of a package at
    /// another commit, FastVideo's `DiffusersMiniMaxH3/src`) or one computed at run time from
    /// elsewhere (a name imported from another module, the environment): what they import may
    /// come from it. With what the directory is, for the note.
    pub missing: Vec<(PathBuf, String)>,
}

/// The directories the files put first on `sys.path` ([`Inserted`]).
/// `texts` are the files' bytes, in their order (as [`crate::files::read_all`] reads them).
pub(crate) fn inserted_dirs(
    files: &[PathBuf],
    texts: &[Result<Vec<u8>, String>],
    root: &Path,
) -> Inserted {
    let Ok(root) = std::fs::canonicalize(root) else {
        return Inserted::default();
    };
    let mut out = Inserted::default();
    for (file, bytes) in files.iter().zip(texts) {
        let Ok(bytes) = bytes else {
            continue;
        };
        if memchr::memmem::find(bytes, b"sys.path").is_none() {
            continue;
        }
        let Some(dir) = file.parent() else {
            continue;
        };
        let in_package = dir.join("__init__.py").is_file();
        let Ok(text) = std::str::from_utf8(bytes) else {
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
            root: root.clone(),
            names: Vec::new(),
            cwd_names: Vec::new(),
            found: Vec::new(),
            unknown: Vec::new(),
            helpers: path_helpers(parsed.suite()),
            in_package,
            modules: Vec::new(),
        };
        reader.stmts(parsed.suite(), 0);
        // One note a file: the first directory it cannot see.
        let mut noted = false;
        if let Some(what) = reader.unknown.first() {
            out.missing
                .push((file.clone(), format!("`{what}`, computed at run time,")));
            noted = true;
        }
        for (d, place) in reader.found {
            let Ok(d) = std::fs::canonicalize(&d) else {
                // Only a directory put first from `__file__` is known to be missing: an
                // appended one comes after the installed packages, and the working
                // directory may be another than the root. A module of a package may be
                // imported after its package's imports ran: not noted.
                if place == Place::FirstFromFile
                    && !in_package
                    && !std::mem::replace(&mut noted, true)
                {
                    let shown = d.strip_prefix(&root).map_or(d.clone(), Path::to_path_buf);
                    let what = format!(
                        "`{}`, a directory this tree does not have,",
                        shown.display()
                    );
                    out.missing.push((file.clone(), what));
                }
                continue;
            };
            // The root's regular packages are the project's without being appended.
            if !d.is_dir() || !d.starts_with(&root) || d == root {
                continue;
            }
            let list = match place {
                Place::Appended => &mut out.appended,
                Place::FirstFromFile | Place::FirstFromCwd => &mut out.dirs,
            };
            if !list.contains(&d) {
                list.push(d);
            }
        }
    }
    out
}

/// The findings on installed packages in files that put first on `sys.path` a directory the
/// tree does not have are dropped, with a note per file: what they import may come from it (a
/// checkout of the package at another commit), which the tool cannot read. The standard
/// library is still checked.
pub(crate) fn drop_unsure(
    files: &crate::project::ProjectFiles,
    per_file: &mut Vec<(usize, crate::model::Finding, Vec<u32>)>,
    notes: &mut Vec<String>,
) {
    let unsure = &files.discovered.unsure;
    if unsure.is_empty() {
        return;
    }
    let by_path: apicompat_hash::HashMap<&Path, &String> =
        unsure.iter().map(|(f, d)| (f.as_path(), d)).collect();
    let dir_of = |fi: usize| by_path.get(files.analyzed.get(fi)?.path.as_path()).copied();
    // Per file, in the order of their first finding: how many were dropped.
    let mut dropped: Vec<(usize, usize)> = Vec::new();
    let mut at: apicompat_hash::HashMap<usize, usize> = apicompat_hash::HashMap::default();
    per_file.retain(|(fi, f, _)| {
        let keep = f.package.is_empty()
            || f.package == crate::python_target::PYTHON
            || dir_of(*fi).is_none();
        if !keep {
            let i = *at.entry(*fi).or_insert_with(|| {
                dropped.push((*fi, 0));
                dropped.len() - 1
            });
            dropped[i].1 += 1;
        }
        keep
    });
    for (fi, n) in dropped {
        let (Some(file), Some(dir)) = (files.analyzed.get(fi), dir_of(fi)) else {
            continue;
        };
        notes.push(format!(
            "{} puts {dir} first on `sys.path`: what it imports may come from there, so its {n} finding(s) on installed packages are not reported",
            file.path.display(),
        ));
    }
}

/// The directory `sys.path.insert(i, DIR)` / `sys.path.append(DIR)` adds, and whether first.
fn sys_path_change(call: &ruff_python_ast::ExprCall) -> Option<(&Expr, bool)> {
    let Expr::Attribute(f) = &*call.func else {
        return None;
    };
    if crate::collect::dotted(&f.value).as_deref() != Some("sys.path") {
        return None;
    }
    match (f.attr.as_str(), &*call.arguments.args) {
        ("insert", [_, dir]) => Some((dir, true)),
        ("append", [dir]) => Some((dir, false)),
        _ => None,
    }
}

/// The module's functions that put a parameter on `sys.path` (`def add_path(path): if path
/// not in sys.path: sys.path.insert(0, path)`): name, the parameter's position, and whether
/// first.
fn path_helpers(suite: &[Stmt]) -> Vec<(String, usize, bool)> {
    let mut out = Vec::new();
    for stmt in suite {
        let Stmt::FunctionDef(f) = stmt else {
            continue;
        };
        let params: Vec<&str> = f
            .parameters
            .posonlyargs
            .iter()
            .chain(&f.parameters.args)
            .map(|p| p.parameter.name.as_str())
            .collect();
        if let Some((at, first)) = param_change(&f.body, &params, 0) {
            out.push((f.name.to_string(), at, first));
        }
    }
    out
}

/// The first `sys.path` change in `body` (also under `if`) whose directory is one of
/// `params`: its position and whether first.
fn param_change(body: &[Stmt], params: &[&str], depth: usize) -> Option<(usize, bool)> {
    if depth > MAX_DEPTH {
        return None;
    }
    body.iter().find_map(|stmt| match stmt {
        Stmt::Expr(e) => {
            let Expr::Call(call) = &*e.value else {
                return None;
            };
            let (Expr::Name(n), first) = sys_path_change(call)? else {
                return None;
            };
            let at = params.iter().position(|p| *p == n.id.as_str())?;
            Some((at, first))
        }
        Stmt::If(s) => param_change(&s.body, params, depth + 1).or_else(|| {
            s.elif_else_clauses
                .iter()
                .find_map(|c| param_change(&c.body, params, depth + 1))
        }),
        _ => None,
    })
}

/// How a directory was put on `sys.path`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// `insert`, computed from `__file__`.
    FirstFromFile,
    /// `insert`, computed from the working directory.
    FirstFromCwd,
    /// `append`, from either.
    Appended,
}

struct Reader {
    file: PathBuf,
    /// The project's root, where its scripts are taken to run.
    root: PathBuf,
    /// Module-level names bound to a path computed from `__file__`.
    names: Vec<(String, PathBuf)>,
    /// Module-level names bound to a path from the working directory (`os.getcwd()`, `"."`),
    /// with that path relative to it when it is known.
    cwd_names: Vec<(String, Option<PathBuf>)>,
    found: Vec<(PathBuf, Place)>,
    /// Directories put first that are computed at run time from something else (a name
    /// imported from another module, the environment, arguments), as written.
    unknown: Vec<String>,
    /// The module's functions that put a parameter on `sys.path` ([`path_helpers`]).
    helpers: Vec<(String, usize, bool)>,
    /// The file is a module of a package: it is imported, from wherever, so only directories
    /// computed from a file's path count.
    in_package: bool,
    /// Module-level names bound by `import`, with the module they hold.
    modules: Vec<(String, String)>,
}

impl Reader {
    fn stmts(&mut self, body: &[Stmt], depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for stmt in body {
            match stmt {
                Stmt::Assign(a) => {
                    if let [Expr::Name(n)] = &*a.targets {
                        let name = n.id.as_str();
                        self.names.retain(|(k, _)| k != name);
                        self.cwd_names.retain(|(k, _)| k != name);
                        if let Some(p) = self.path(&a.value, 0) {
                            self.names.push((name.to_string(), p));
                        } else if self.cwd_relative(&a.value, 0) {
                            let rel = self.cwd_path(&a.value, 0);
                            self.cwd_names.push((name.to_string(), rel));
                        }
                    }
                }
                Stmt::Expr(e) => self.insert(&e.value),
                Stmt::Import(i) => {
                    for alias in &i.names {
                        let module = alias.name.as_str();
                        let (bound, held) = match &alias.asname {
                            Some(a) => (a.as_str(), module),
                            None => {
                                let first = module.split('.').next().unwrap_or(module);
                                (first, first)
                            }
                        };
                        // Looked up from the last: a later import of the name wins.
                        self.modules.push((bound.to_string(), held.to_string()));
                    }
                }
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

    /// `sys.path.insert(i, DIR)`, `sys.path.append(DIR)`, or a call of a function of the
    /// module that does one with its parameter (`add_path(lib_path)`).
    fn insert(&mut self, e: &Expr) {
        let Expr::Call(call) = e else {
            return;
        };
        let (dir, first) = match (sys_path_change(call), &*call.func) {
            (Some(change), _) => change,
            (None, Expr::Name(f)) => {
                let Some(&(_, at, first)) =
                    self.helpers.iter().find(|(n, _, _)| n == f.id.as_str())
                else {
                    return;
                };
                match call.arguments.args.get(at) {
                    Some(dir) => (dir, first),
                    None => return,
                }
            }
            _ => return,
        };
        let place = |from_file: bool| match (first, from_file) {
            (false, _) => Place::Appended,
            (true, true) => Place::FirstFromFile,
            (true, false) => Place::FirstFromCwd,
        };
        if let Some(p) = self.path(dir, 0) {
            self.found.push((p, place(true)));
            return;
        }
        // A module of a package is imported from wherever it runs.
        if self.in_package {
            return;
        }
        if let Some(rel) = self.cwd_path(dir, 0) {
            self.found.push((self.root.join(rel), place(false)));
        } else if first && !self.cwd_relative(dir, 0) {
            let mut inner = dir;
            while let Expr::Call(c) = inner {
                match &*c.arguments.args {
                    [x] => inner = x,
                    _ => break,
                }
            }
            let what = crate::collect::dotted(inner)
                .unwrap_or_else(|| "a path computed at run time".to_string());
            self.unknown.push(what);
        }
    }

    /// Whether a path is the working directory or relative to it (`"."`, `".."`,
    /// `os.getcwd()`, `os.path.abspath("..")`): the project's own code, as run from its root.
    fn cwd_relative(&self, e: &Expr, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let d = depth + 1;
        match e {
            Expr::StringLiteral(_) | Expr::FString(_) => true,
            Expr::Name(n) => self.cwd_names.iter().any(|(k, _)| k == n.id.as_str()),
            Expr::BinOp(b) => self.cwd_relative(&b.left, d) && self.cwd_relative(&b.right, d),
            Expr::Attribute(a) if a.attr.as_str() == "parent" => self.cwd_relative(&a.value, d),
            Expr::Call(call) => {
                let name = crate::collect::dotted(&call.func).unwrap_or_default();
                let last = name.rsplit('.').next().unwrap_or(&name);
                let args = &call.arguments.args;
                match last {
                    "getcwd" | "cwd" | "getcwdb" => true,
                    "abspath" | "realpath" | "normpath" | "Path" | "PurePath" | "str"
                    | "fspath" | "dirname" | "expanduser" | "join" => {
                        !args.is_empty() && args.iter().all(|x| self.cwd_relative(x, d))
                    }
                    _ => match &*call.func {
                        Expr::Attribute(a) if matches!(a.attr.as_str(), "resolve" | "absolute") => {
                            self.cwd_relative(&a.value, d)
                        }
                        _ => false,
                    },
                }
            }
            _ => false,
        }
    }

    /// The path, relative to the working directory, of an expression computed from it alone
    /// and literals (`os.getcwd()`, `os.path.join(os.getcwd(), "peft/src/")`, `"lib"`); not
    /// above it.
    fn cwd_path(&self, e: &Expr, depth: usize) -> Option<PathBuf> {
        self.computed(e, depth, Base::Cwd)
    }

    /// The path an expression computes from `__file__`, if it does.
    fn path(&self, e: &Expr, depth: usize) -> Option<PathBuf> {
        self.computed(e, depth, Base::File)
    }

    /// The path `e` computes from `base`: its own leaves (`__file__`, `sys.path[0]`,
    /// `.parents[i]`; `os.getcwd()`, a relative literal; names bound to either), then the
    /// path operations both share.
    fn computed(&self, e: &Expr, depth: usize, base: Base) -> Option<PathBuf> {
        if depth > MAX_DEPTH {
            return None;
        }
        let d = depth + 1;
        match (base, e) {
            (Base::File, Expr::Name(n)) if n.id.as_str() == "__file__" => {
                return Some(self.file.clone())
            }
            // `pkg.__file__` for a module of the project the file imports.
            (Base::File, Expr::Attribute(a)) if a.attr.as_str() == "__file__" => {
                let Expr::Name(n) = &*a.value else {
                    return None;
                };
                let (_, module) = self
                    .modules
                    .iter()
                    .rev()
                    .find(|(k, _)| k == n.id.as_str())?;
                return self.module_file(module);
            }
            (Base::File, Expr::Name(n)) => {
                return self
                    .names
                    .iter()
                    .rev()
                    .find(|(k, _)| k == n.id.as_str())
                    .map(|(_, p)| p.clone())
            }
            (Base::Cwd, Expr::Name(n)) => {
                return self
                    .cwd_names
                    .iter()
                    .rev()
                    .find(|(k, _)| k == n.id.as_str())
                    .and_then(|(_, p)| p.clone())
            }
            (Base::Cwd, Expr::StringLiteral(_)) => {
                let mut p = PathBuf::new();
                push_relative(&mut p, relative(e)?)?;
                return Some(p);
            }
            // `sys.path[0]`: the script's directory.
            (Base::File, Expr::Subscript(sub))
                if crate::collect::dotted(&sub.value).as_deref() == Some("sys.path")
                    && matches!(&*sub.slice, Expr::NumberLiteral(n) if n.value.as_int().and_then(|i| i.as_u8()) == Some(0)) =>
            {
                return Some(self.file.parent()?.to_path_buf());
            }
            // `Path(__file__).parents[1]`.
            (Base::File, Expr::Subscript(sub)) => {
                let Expr::Attribute(a) = &*sub.value else {
                    return None;
                };
                let Expr::NumberLiteral(n) = &*sub.slice else {
                    return None;
                };
                let i = n.value.as_int()?.as_usize()?;
                if a.attr.as_str() != "parents" || i > MAX_DEPTH {
                    return None;
                }
                let from = self.computed(&a.value, d, base)?;
                return Some(from.ancestors().nth(i + 1)?.to_path_buf());
            }
            _ => {}
        }
        match e {
            // `Path(__file__).parent`, `.resolve()` below.
            Expr::Attribute(a) if a.attr.as_str() == "parent" => {
                Some(self.computed(&a.value, d, base)?.parent()?.to_path_buf())
            }
            // `Path(...) / "lib"`.
            Expr::BinOp(b) if b.op == Operator::Div => {
                let mut p = self.computed(&b.left, d, base)?;
                push_relative(&mut p, relative(&b.right)?)?;
                Some(p)
            }
            Expr::Call(call) => {
                // A method of a computed path (`Path(__file__).resolve()`) has no dotted name.
                let name = crate::collect::dotted(&call.func).unwrap_or_default();
                let last = name.rsplit('.').next().unwrap_or(&name);
                let args = &call.arguments.args;
                match (last, &**args) {
                    ("getcwd" | "cwd", []) if base == Base::Cwd => Some(PathBuf::new()),
                    ("dirname", [x]) => Some(self.computed(x, d, base)?.parent()?.to_path_buf()),
                    (
                        "abspath" | "realpath" | "normpath" | "Path" | "PurePath" | "str"
                        | "fspath",
                        [x],
                    ) => self.computed(x, d, base),
                    ("join", [first, rest @ ..]) => {
                        let mut p = self.computed(first, d, base)?;
                        for r in rest {
                            push_relative(&mut p, relative(r)?)?;
                        }
                        Some(p)
                    }
                    _ => match &*call.func {
                        // `Path(__file__).resolve()`, `.absolute()`.
                        Expr::Attribute(a)
                            if matches!(a.attr.as_str(), "resolve" | "absolute")
                                && args.is_empty() =>
                        {
                            self.computed(&a.value, d, base)
                        }
                        _ => None,
                    },
                }
            }
            _ => None,
        }
    }

    /// The file of a module of the project, found from the root or the file's directory
    /// (where a script's imports are found first).
    fn module_file(&self, module: &str) -> Option<PathBuf> {
        let rel: PathBuf = module.split('.').collect();
        let bases = [self.file.parent()?, self.root.as_path()];
        bases.iter().find_map(|base| {
            let pkg = base.join(&rel).join("__init__.py");
            let file = base.join(&rel).with_extension("py");
            [pkg, file].into_iter().find(|p| p.is_file())
        })
    }
}

/// What a computed path starts from ([`Reader::computed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    /// The file's own path (`__file__`).
    File,
    /// The working directory, as a path relative to it.
    Cwd,
}

/// A string literal that names a relative path (`"lib"`, `"peft/src/"`, `".."`).
fn relative(e: &Expr) -> Option<&str> {
    let Expr::StringLiteral(s) = e else {
        return None;
    };
    let s = s.value.to_str();
    (!s.starts_with(['/', '\\']) && !s.contains(':')).then_some(s)
}

/// Adds the parts of a relative path to `p`, `..` going up; `None` when it goes above an
/// empty (working-directory) path.
fn push_relative(p: &mut PathBuf, rel: &str) -> Option<()> {
    for part in rel.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if !p.pop() {
                    return None;
                }
            }
            part => p.push(part),
        }
    }
    Some(())
}
