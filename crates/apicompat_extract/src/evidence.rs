//! The release's own code as evidence for names of compiled objects that their stubs omit.
//!
//! A stub of a compiled module may lag behind the compiled code: torch 2.1.0's
//! `torch/_C/__init__.pyi` does not declare `float8_e4m3fn` (2.2.0's does), yet 2.1.0's
//! `torch/fx/graph.py` reads `torch.float8_e4m3fn` at import time, so the name exists.
//! `torch.Tensor._make_wrapper_subclass` is declared by the stub of `TensorBase` from 2.8.0
//! only, but torch's own code calls it (in functions) from 1.13 on.
//!
//! Rule: every dotted read `a.b.c` in a `.py` file of the release whose root is bound by an
//! import is looked up in the release's surface. Where the first segment the surface lacks
//! is a name of a compiled object (a module known only from a stub or an extension, a module
//! that star-imports one, or a class whose first class along its bases with the name missing
//! is declared only by a stub), the name is added to that object:
//! - read at import time (module or class body, outside `if`, `try`, `while`, `match`,
//!   conditional expressions and the later operands of `and`/`or`): the import would fail
//!   without it, so it exists (kind unknown: what it is the source does not say);
//! - read anywhere else (a function body, a guarded branch): it may exist, so it is
//!   unknown there (`Symbol::uncertain`), never missing.
//!
//! Names that no Python code of the release reads stay as the stub says: `torch.float8_e8m0fnu`
//! is absent from 2.6.0. Annotations are not reads (they may never be evaluated).

use std::collections::BTreeMap;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, ExprContext, Stmt};

use apicompat_surface::{Kind, Symbol};

use crate::consts;
use crate::facts::resolve_relative;
use crate::resolve::{HashMap, HashSet, ModuleInfo};

/// Statements and expressions nested deeper than this are not read for evidence (less
/// evidence: the stub's answer stands).
const MAX_DEPTH: usize = 200;
/// Most bases followed to find a member.
const MAX_STEPS: usize = 64;

/// Dotted reads of one file, roots resolved through its imports: path -> read at import time.
pub type Reads = HashMap<String, bool>;

/// The dotted reads of one parsed `.py` file of module `module`.
pub fn reads(module: &str, is_package: bool, suite: &[Stmt]) -> Reads {
    let mut b = Binder {
        module,
        is_package,
        imports: HashMap::default(),
        other: HashSet::default(),
        depth: 0,
    };
    b.visit_body(suite);
    let mut imports = b.imports;
    imports.retain(|name, target| target.is_some() && !b.other.contains(name));
    let mut r = Reader {
        imports,
        import_time: true,
        depth: 0,
        out: HashMap::default(),
        doubted: Vec::new(),
    };
    r.visit_body(suite);
    let mut out = r.out;
    // A name the file tests with `hasattr` / `getattr(x, "n", default)` is one it doubts:
    // no read of it or under it is evidence.
    let doubted: HashSet<String> = r.doubted.into_iter().collect();
    if !doubted.is_empty() {
        out.retain(|path, _| {
            !path
                .match_indices('.')
                .map(|(i, _)| &path[..i])
                .chain([path.as_str()])
                .any(|prefix| doubted.contains(prefix))
        });
    }
    out
}

/// The names a file binds by imports (at any depth), and every name it binds otherwise.
struct Binder<'m> {
    module: &'m str,
    is_package: bool,
    /// Bound name -> module path; `None` when two imports bind it differently.
    imports: HashMap<String, Option<String>>,
    other: HashSet<String>,
    depth: usize,
}

impl Binder<'_> {
    fn bind(&mut self, name: &str, target: String) {
        let entry = self
            .imports
            .entry(name.to_string())
            .or_insert_with(|| Some(target.clone()));
        if entry.as_deref() != Some(target.as_str()) {
            *entry = None;
        }
    }
}

impl<'a> Visitor<'a> for Binder<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match stmt {
            Stmt::Import(imp) => {
                for alias in &imp.names {
                    let full = alias.name.as_str();
                    match &alias.asname {
                        Some(a) => self.bind(a.as_str(), full.to_string()),
                        None => {
                            let first = full.split('.').next().unwrap_or(full);
                            self.bind(first, first.to_string());
                        }
                    }
                }
            }
            Stmt::ImportFrom(imp) => {
                let base = match (&imp.module, imp.level) {
                    (Some(m), 0) => Some(m.to_string()),
                    (m, level) => {
                        resolve_relative(self.module, self.is_package, level).map(|base| match m {
                            Some(m) => format!("{base}.{m}"),
                            None => base,
                        })
                    }
                };
                if let Some(base) = base {
                    for alias in &imp.names {
                        let name = alias.name.as_str();
                        let bound = alias.asname.as_ref().map_or(name, |a| a.as_str());
                        if name != "*" {
                            self.bind(bound, format!("{base}.{name}"));
                        }
                    }
                }
            }
            Stmt::FunctionDef(f) => {
                self.other.insert(f.name.to_string());
            }
            Stmt::ClassDef(c) => {
                self.other.insert(c.name.to_string());
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_DEPTH {
            return;
        }
        if let Expr::Name(n) = expr {
            if n.ctx != ExprContext::Load {
                self.other.insert(n.id.to_string());
            }
        }
        self.depth += 1;
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }

    fn visit_parameter(&mut self, parameter: &'a ast::Parameter) {
        self.other.insert(parameter.name.to_string());
    }

    fn visit_except_handler(&mut self, handler: &'a ast::ExceptHandler) {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        if let Some(name) = &h.name {
            self.other.insert(name.to_string());
        }
        visitor::walk_except_handler(self, handler);
    }
}

/// Collects dotted reads rooted at import-bound names, with whether they run at import time.
struct Reader {
    imports: HashMap<String, Option<String>>,
    import_time: bool,
    depth: usize,
    out: Reads,
    /// Paths the file tests with `hasattr` or reads with a `getattr` default.
    doubted: Vec<String>,
}

impl Reader {
    fn conditional<F: FnOnce(&mut Self)>(&mut self, f: F) {
        let saved = std::mem::replace(&mut self.import_time, false);
        f(self);
        self.import_time = saved;
    }

    /// `a.b` with its root resolved through the file's imports.
    fn resolve(&self, dotted: &str) -> Option<String> {
        let (root, rest) = match dotted.split_once('.') {
            Some((r, rest)) => (r, Some(rest)),
            None => (dotted, None),
        };
        let target = self.imports.get(root)?.as_deref()?;
        Some(match rest {
            Some(rest) => format!("{target}.{rest}"),
            None => target.to_string(),
        })
    }

    fn record(&mut self, dotted: &str) {
        // Dunders (`__file__`, `__class__`) come from the module or object type.
        if dotted
            .rsplit('.')
            .any(|s| s.starts_with("__") && s.ends_with("__"))
            || !dotted.contains('.')
        {
            return;
        }
        let Some(path) = self.resolve(dotted) else {
            return;
        };
        let now = self.import_time;
        self.out
            .entry(path)
            .and_modify(|t| *t |= now)
            .or_insert(now);
    }
}

impl<'a> Visitor<'a> for Reader {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match stmt {
            Stmt::FunctionDef(f) => {
                // Decorators and defaults run when the `def` does; the body does not.
                for d in &f.decorator_list {
                    self.visit_decorator(d);
                }
                self.visit_parameters(&f.parameters);
                self.conditional(|s| s.visit_body(&f.body));
            }
            Stmt::If(i) => {
                self.visit_expr(&i.test);
                self.conditional(|s| {
                    s.visit_body(&i.body);
                    for clause in &i.elif_else_clauses {
                        s.visit_elif_else_clause(clause);
                    }
                });
            }
            Stmt::While(w) => {
                self.visit_expr(&w.test);
                self.conditional(|s| {
                    s.visit_body(&w.body);
                    s.visit_body(&w.orelse);
                });
            }
            Stmt::Try(_) | Stmt::Match(_) => self.conditional(|s| visitor::walk_stmt(s, stmt)),
            _ => visitor::walk_stmt(self, stmt),
        }
        self.depth -= 1;
    }

    fn visit_annotation(&mut self, _expr: &'a Expr) {}

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth > MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match expr {
            Expr::Attribute(a) if a.ctx == ExprContext::Load => match consts::dotted(expr) {
                Some(d) => self.record(&d),
                None => visitor::walk_expr(self, expr),
            },
            Expr::Call(c) => {
                let tested = matches!(
                    (consts::dotted(&c.func).as_deref(), c.arguments.args.len()),
                    (Some("hasattr"), 2) | (Some("getattr"), 3)
                );
                if let (true, [obj, Expr::StringLiteral(name), ..]) =
                    (tested, c.arguments.args.as_ref())
                {
                    if let Some(p) = consts::dotted(obj).and_then(|d| self.resolve(&d)) {
                        self.doubted.push(format!("{p}.{}", name.value.to_str()));
                    }
                }
                visitor::walk_expr(self, expr);
            }
            Expr::Lambda(_) => self.conditional(|s| visitor::walk_expr(s, expr)),
            Expr::If(i) => {
                self.visit_expr(&i.test);
                self.conditional(|s| {
                    s.visit_expr(&i.body);
                    s.visit_expr(&i.orelse);
                });
            }
            Expr::BoolOp(b) => {
                let mut values = b.values.iter();
                if let Some(first) = values.next() {
                    self.visit_expr(first);
                }
                self.conditional(|s| values.for_each(|v| s.visit_expr(v)));
            }
            _ => visitor::walk_expr(self, expr),
        }
        self.depth -= 1;
    }
}

/// Modules whose names may come from compiled code: known only from a stub or an extension,
/// or star-importing such a module.
pub fn compiled_modules(modules: &HashMap<String, ModuleInfo>) -> HashSet<String> {
    let compiled = |m: &ModuleInfo| m.extension || m.stub_only();
    let mut out: HashSet<String> = modules
        .iter()
        .filter(|(_, m)| compiled(m))
        .map(|(n, _)| n.clone())
        .collect();
    for (name, info) in modules {
        let stars_compiled = info
            .files
            .iter()
            .flat_map(|f| f.stars.iter())
            .any(|s| modules.get(s).is_some_and(compiled));
        if stars_compiled {
            out.insert(name.clone());
        }
    }
    out
}

/// Adds to `symbols` the names of compiled objects that the release's reads show.
pub fn apply(symbols: &mut BTreeMap<String, Symbol>, reads: Reads, compiled: &HashSet<String>) {
    let mut found: BTreeMap<String, bool> = BTreeMap::new();
    for (path, import_time) in reads {
        let Some(target) = evidence_target(symbols, &path, compiled) else {
            continue;
        };
        // A read in a function says nothing an open module does not already say.
        let owner_open = target.rsplit_once('.').is_some_and(|(owner, _)| {
            symbols
                .get(owner)
                .is_some_and(|s| s.kind() == Kind::Module && (s.open || s.opaque))
        });
        if import_time || !owner_open {
            *found.entry(target).or_default() |= import_time;
        }
    }
    for (path, import_time) in found {
        symbols.insert(
            path,
            Symbol {
                kind: Some(Kind::Unknown),
                evidence: true,
                uncertain: !import_time,
                ..Symbol::default()
            },
        );
    }
}

/// Where the first segment of `path` missing from the surface would live, when that is a
/// compiled object.
fn evidence_target(
    symbols: &BTreeMap<String, Symbol>,
    path: &str,
    compiled: &HashSet<String>,
) -> Option<String> {
    let mut segs = path.split('.');
    let mut cur = segs.next()?.to_string();
    symbols.get(&cur)?;
    for seg in segs {
        let sym = symbols.get(&cur)?;
        let kind = sym.kind();
        // Follow a re-exported module or class to its definition.
        if let Some(c) = sym.canonical.as_deref() {
            if matches!(kind, Kind::Module | Kind::Class) && symbols.contains_key(c) {
                cur = c.to_string();
            }
        }
        match kind {
            Kind::Module => {
                let direct = format!("{cur}.{seg}");
                if symbols.contains_key(&direct) {
                    cur = direct;
                } else {
                    return compiled.contains(&cur).then_some(direct);
                }
            }
            Kind::Class => match class_member(symbols, &cur, seg) {
                Member::Found(p) => cur = p,
                Member::Missing(Some(stub_class)) => return Some(format!("{stub_class}.{seg}")),
                Member::Missing(None) | Member::Unknown => return None,
            },
            _ => return None,
        }
    }
    None
}

enum Member {
    Found(String),
    /// Missing from the class and its indexed bases; the first class declared only by a
    /// stub along them, if any.
    Missing(Option<String>),
    /// A base is not in the surface: the lookup cannot tell.
    Unknown,
}

/// `seg` on the class at `class`, breadth-first through its bases.
fn class_member(symbols: &BTreeMap<String, Symbol>, class: &str, seg: &str) -> Member {
    let mut queue = vec![class.to_string()];
    let mut stub_class = None;
    let mut i = 0;
    while let Some(c) = queue.get(i).cloned() {
        i += 1;
        if i > MAX_STEPS {
            return Member::Unknown;
        }
        let direct = format!("{c}.{seg}");
        if symbols.contains_key(&direct) {
            return Member::Found(direct);
        }
        let Some(sym) = symbols.get(&c) else {
            return Member::Unknown;
        };
        if sym.stub_only && stub_class.is_none() {
            stub_class = Some(c.clone());
        }
        for b in &sym.bases {
            // A base from outside the surface (`enum.Enum`) may have the name.
            if symbols.get(b).is_none_or(|s| s.kind() != Kind::Class) {
                return Member::Unknown;
            }
            queue.push(b.clone());
        }
    }
    Member::Missing(stub_class)
}

#[cfg(test)]
mod tests {
    use apicompat_surface::{Kind, Surface};

    fn surface(files: &[(&str, &str)]) -> Surface {
        crate::extract(&crate::tests::tree(files), "pkg", "1.0")
    }

    /// torch's shape: a compiled `_C` with a stub, star-imported by the package, a Python
    /// `Tensor` over the stub's `TensorBase`.
    #[test]
    fn reads_of_compiled_names_are_evidence() {
        let s = surface(&[
            ("pkg/_C.cpython-311-x86_64-linux-gnu.so", ""),
            (
                "pkg/_C/__init__.pyi",
                "class dtype: ...\nfloat32: dtype = ...\nclass TensorBase:\n    def add(self): ...\n",
            ),
            (
                "pkg/__init__.py",
                "from pkg._C import *\nfrom pkg._tensor import Tensor\n",
            ),
            (
                "pkg/_tensor.py",
                "from pkg._C import TensorBase\nclass Tensor(TensorBase):\n    pass\n",
            ),
            ("pkg/plain.py", "class Plain:\n    pass\n"),
            (
                "pkg/fx.py",
                r#"
import pkg
import pkg.plain as plain
TABLE = {pkg.float8: "f8", pkg.float32: "f32"}
print(pkg.__file__)
def f(cls):
    return pkg.Tensor._make_wrapper_subclass(cls)
def g():
    return plain.Plain.nothing
if hasattr(pkg, "xpu"):
    pkg.xpu.go()
ok = hasattr(pkg, "later") and pkg.later
try:
    pkg._C._maybe()
except AttributeError:
    pass
def h(x: pkg.annotated_only): ...
"#,
            ),
        ]);
        let sym = |p: &str| s.symbols.get(p);
        // Read at import time: exists.
        let f8 = sym("pkg.float8").expect("pkg.float8");
        assert_eq!(f8.kind(), Kind::Unknown);
        assert!(f8.evidence && !f8.uncertain);
        // Read in a function, on the stub's class under the Python class: may exist.
        let wrap = sym("pkg._C.TensorBase._make_wrapper_subclass").expect("evidence");
        assert!(wrap.evidence && wrap.uncertain);
        assert!(sym("pkg._tensor.Tensor._make_wrapper_subclass").is_none());
        // Declared names are untouched.
        assert_eq!(sym("pkg.float32").map(|s| s.uncertain), Some(false));
        // Not evidence: a Python class, names the file doubts, dunders, annotations, and
        // reads in a `try` on an open (stub-only) module.
        for p in [
            "pkg.plain.Plain.nothing",
            "pkg.xpu",
            "pkg.later",
            "pkg.__file__",
            "pkg.annotated_only",
            "pkg._C._maybe",
        ] {
            assert!(sym(p).is_none(), "{p}: {:?}", sym(p));
        }
    }
}
