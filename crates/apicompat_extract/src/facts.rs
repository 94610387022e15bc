//! What one source file says about its module, before anything is resolved across the package.

use ruff_python_ast::visitor::Visitor;
use ruff_python_ast::{self as ast, Expr, Stmt};

use apicompat_surface::Signature;

use std::collections::HashMap;

use crate::attr_tables::{self, Table, TableUse, Tables};
use crate::consts::{self, Const, Env};
use crate::defs::{class_info, deprecation_warning, function_info};
pub(crate) use crate::dynamic_scan::is_this_module;
use crate::dynamic_scan::{Dynamic, DynamicScan};
use crate::getattr::{getattr_rule, GetattrRule};
use crate::name_sets::{self, Copy, Filter, NameList};
use crate::py_version::{Branch, PyVersion};
use crate::resolve::HashSet;

/// How a name in a module or class got its value.
#[derive(Debug, Clone)]
pub enum Value {
    Function(Function),
    Class(Class),
    /// `import a.b as x` (an absolute module path).
    Module(String),
    /// `from m import n` (absolute `m`).
    From {
        module: String,
        name: String,
    },
    /// `x = a.b.c`: a dotted reference in the scope where it is written.
    Alias(String),
    /// Any other value.
    Data,
    /// Bound dynamically; what it is cannot be known.
    Unknown,
}

impl Value {
    /// What an import bound: the module of `import a.b as x`, the object of `from m import n`
    /// (`m.n`).
    pub fn imported(&self) -> Option<String> {
        match self {
            Value::Module(m) => Some(m.clone()),
            Value::From { module, name } => Some(format!("{module}.{name}")),
            _ => None,
        }
    }
}

/// What each name's last binding imports (`None`: it is bound to something else), for
/// lookups by name after the walk.
pub(crate) fn imports_by_name(bindings: &[(String, Value)]) -> HashMap<&str, Option<String>> {
    let mut out = HashMap::new();
    for (n, v) in bindings {
        out.insert(n.as_str(), v.imported());
    }
    out
}

#[derive(Debug, Clone, Default)]
pub struct Function {
    pub signatures: Vec<Signature>,
    pub deprecated: Option<String>,
    pub property: bool,
    /// Decorators as dotted references in the defining scope (`@a.b(x)` -> `a.b`).
    pub decorators: Vec<String>,
    /// For a decorator: the `**kwargs` keys its wrapper takes out (`crate::kwargs_wrapper`).
    pub wrapper_keys: Vec<String>,
    /// For a decorator factory (`@deprecate_kwarg("old", ...)`): its parameters (position,
    /// name) whose values name keys the wrapper takes out of `**kwargs`.
    pub wrapper_params: Vec<(usize, String)>,
    /// Decorators called with arguments (`@a.b("x", k="y")`): the dotted name and the string
    /// literals given (by position, `None` where not a literal; by keyword).
    pub decorator_calls: Vec<DecoratorCall>,
    /// It builds a class from its arguments (`crate::class_builder`).
    pub class_builder: Option<crate::class_builder::ClassBuilder>,
    /// Defined under `if TYPE_CHECKING:` (`crate::py_version::Branch::type_checking`): with
    /// the other definitions there, it decides the name's deprecation.
    pub type_checking: bool,
    /// For a predicate: paths that exist where it returns true (`crate::implies`).
    pub implies: Vec<String>,
}

impl Function {
    /// Whether it is an `@overload` (`typing.overload`, `typing_extensions.overload`, however
    /// imported).
    pub fn is_overload(&self) -> bool {
        self.decorators
            .iter()
            .any(|d| d.rsplit('.').next() == Some("overload"))
    }

    /// Whether it is a property's `@x.setter` or `@x.deleter`.
    pub fn is_accessor(&self) -> bool {
        self.decorators
            .iter()
            .any(|d| matches!(d.rsplit('.').next(), Some("setter" | "deleter")))
    }

    /// Several definitions of one name in one scope as one function: the `@overload`s and the
    /// implementation (what runs), the branches of an `if` or `try`, a module's `.py` and
    /// `.pyi`. It has every signature (a call is valid when one accepts it: an implementation
    /// taking `**kwargs` accepts any keyword, as it does at run time), every decorator and
    /// decorator call (the implementation's run), the rest from the first definition. A
    /// property's setter and deleter count only when nothing else defines the name.
    pub fn merged<'a>(definitions: impl IntoIterator<Item = &'a Function>) -> Option<Function> {
        let all: Vec<&Function> = definitions.into_iter().collect();
        let mut defs: Vec<&Function> = all.iter().copied().filter(|f| !f.is_accessor()).collect();
        if defs.is_empty() {
            defs = all;
        }
        let (first, rest) = defs.split_first()?;
        let mut out = (*first).clone();
        for f in rest {
            union(&mut out.signatures, &f.signatures);
            union(&mut out.decorators, &f.decorators);
            union(&mut out.decorator_calls, &f.decorator_calls);
            union(&mut out.wrapper_keys, &f.wrapper_keys);
            union(&mut out.wrapper_params, &f.wrapper_params);
            if out.class_builder.is_none() {
                out.class_builder.clone_from(&f.class_builder);
            }
            // Every definition may be the one that runs: what they all imply.
            out.implies.retain(|p| f.implies.contains(p));
        }
        Some(out)
    }
}

/// Appends the items of `more` that `out` lacks.
fn union<T: PartialEq + Clone>(out: &mut Vec<T>, more: &[T]) {
    for x in more {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
}

/// A decorator called with arguments, as [`Function::decorator_calls`] keeps it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecoratorCall {
    pub name: String,
    pub args: Vec<Option<String>>,
    pub keywords: Vec<(String, Option<String>)>,
}

#[derive(Debug, Clone, Default)]
pub struct Class {
    /// Base classes as dotted references in the defining scope.
    pub bases: Vec<String>,
    pub members: Vec<(String, Value)>,
    pub signatures: Vec<Signature>,
    pub deprecated: Option<String>,
    /// What its `__getattr__` answers beyond the members.
    pub open: Openness,
    /// `metaclass=...`: its members are attributes of the class object too.
    pub metaclass: Option<String>,
    /// Own fields, when `__init__` is synthesized from them (`crate::dataclass`).
    pub fields: Option<Vec<crate::dataclass::Field>>,
    /// Bases written as calls (`with_metaclass(M, B)`), expanded by the resolver
    /// (`crate::class_builder`).
    pub base_calls: Vec<crate::class_builder::BaseCall>,
    /// Defined under `if TYPE_CHECKING:` (see [`Function::type_checking`]).
    pub type_checking: bool,
    /// The class decorators applied after the one that synthesizes `__init__` from the
    /// fields (written above it), as dotted references: one from another package may replace
    /// `__init__` (`crate::resolve::classes`).
    pub outer_decorators: Vec<String>,
}

impl Class {
    /// The function the class body binds to `name` (`__init__`, `__new__`).
    /// Every definition of `name` in the class body (and the other files or branches that
    /// define the class) as one function ([`Function::merged`]).
    pub fn method(&self, name: &str) -> Option<Function> {
        Function::merged(self.members.iter().filter_map(|(n, v)| match v {
            Value::Function(f) if n == name => Some(f),
            _ => None,
        }))
    }

    /// The deprecation of method `name`: that of its first definition on the indexed version's
    /// branches, under `if TYPE_CHECKING:` if one is (each carries the deprecation of all its
    /// definitions in its class body, `crate::defs::merged_deprecation`; a class defined in
    /// two files, or in two branches, has the members of both, the first file's first).
    pub fn method_deprecation(&self, name: &str) -> Option<String> {
        let mut first = None;
        for (n, v) in &self.members {
            match v {
                Value::Function(f) if n == name => {
                    if f.type_checking {
                        return f.deprecated.clone();
                    }
                    first.get_or_insert(&f.deprecated);
                }
                _ => {}
            }
        }
        first.and_then(|d| d.clone())
    }
}

/// What a class's `__getattr__` answers beyond its members (ordered: two definitions of one
/// class answer what the more open one does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Openness {
    /// No `__getattr__`, or one that answers a fixed set of names (listed as members).
    #[default]
    Closed,
    /// Names found in the instance's own data (see [`GetattrRule::InstanceData`]).
    InstanceData,
    /// Any name.
    Open,
}

/// A piece of a module's `__all__`.
#[derive(Debug, Clone)]
pub enum AllPart {
    Names(Vec<String>),
    /// `other.__all__` for a dotted reference `other` in this module.
    ModuleAll(String),
    /// Something that cannot be evaluated.
    Dynamic,
    /// Names of other modules (`crate::name_sets`).
    Copies(Vec<Copy>),
}

/// What one file says about its module.
#[derive(Debug, Clone, Default)]
pub struct FileFacts {
    pub module: String,
    pub is_package: bool,
    pub is_stub: bool,
    /// Names bound at module level, in source order.
    pub bindings: Vec<(String, Value)>,
    /// Modules whose public names are copied in (`from m import *`).
    pub stars: Vec<String>,
    /// Modules all of whose names are copied in, private ones too (`for k in dir(m)` or
    /// `m.__dir__()` storing `globals()[k]`).
    pub copies: Vec<Copy>,
    /// `__all__`, when the module defines it.
    pub all: Option<Vec<AllPart>>,
    /// Answers names it does not list (module `__getattr__`, dynamic `globals()` keys...).
    pub open: bool,
    /// Has a function, not called by the module itself, that sets attributes with computed
    /// names on the module: other code may add names at run time.
    pub extensible: bool,
    /// Names answered by a module `__getattr__` that answers only those.
    pub getattr_names: Vec<String>,
    /// Tables of names with messages built at module level (see [`attr_tables`]).
    pub tables: HashMap<String, Table>,
    /// The tables the module `__getattr__` looks names up in, and how.
    pub getattr_tables: Vec<(String, TableUse)>,
    /// `sys.modules[key] = value`: registered module name and, where known, the module it is
    /// (also through a registrar function: `crate::module_aliases`).
    pub registered: Vec<(String, Option<String>)>,
    /// Candidate aliases from the table of a `sys.meta_path` finder (`crate::module_aliases`):
    /// (`pkg.old`, `pkg.new`).
    pub finder_aliases: Vec<(String, String)>,
    /// A deprecation warning issued when the module is imported.
    pub deprecated: Option<String>,
    pub syntax_errors: usize,
    /// A stub's `from m import n [as a]` that it does not re-export: (bound name, `m.n`).
    /// Not names of the module, but what its class bases refer to (`class A(Enum)`).
    pub private_imports: Vec<(String, String)>,
    /// `from M import n` bound in a `try` body that catches `ImportError`: (name, `M`)
    /// (`crate::fallible`).
    pub fallible: Vec<(String, String)>,
    /// More module-level bindings than the walk keeps (see [`file_facts`]): the rest were
    /// dropped and the module is open.
    pub bindings_truncated: bool,
    /// `name = f(...)` at module level, `f` a dotted name: (name, `f`). Read only for the
    /// objects a package binds over a submodule (`Symbol::instance_of`).
    pub instances: Vec<(String, String)>,
    /// `param.name = ...` on a parameter annotated with a class, from outside that class:
    /// (the class as a dotted reference in the module's scope, `name`)
    /// (`crate::outside_stores`).
    pub stores: Vec<(String, String)>,
}

impl FileFacts {
    /// The facts of a file that was not parsed (over the parse budget, nested too deep): its
    /// module is open, so a name it may define is unknown, never missing.
    pub fn unread(module: &str, is_package: bool, is_stub: bool) -> Self {
        FileFacts {
            module: module.to_string(),
            is_package,
            is_stub,
            open: true,
            ..FileFacts::default()
        }
    }
}

/// Walks one parsed file, keeping at most `max_bindings` module-level bindings (a file of
/// 8 million `x = 0` lines would otherwise keep 200 bytes of facts per binding); past that the
/// module is open (names unknown, never missing) and `bindings_truncated` is set.
///
/// `python` is the version when the file is part of the standard library indexed as the
/// package `python` (`crate::py_version`): its `sys.version_info` branches then decide which
/// definitions' deprecations count.
pub fn file_facts(
    module: &str,
    is_package: bool,
    is_stub: bool,
    source: &str,
    suite: &[Stmt],
    max_bindings: usize,
    python: Option<PyVersion>,
) -> FileFacts {
    let mut w = Walker {
        max_bindings,
        branch: Branch {
            python,
            ..Branch::default()
        },
        facts: FileFacts {
            module: module.to_string(),
            is_package,
            is_stub,
            ..FileFacts::default()
        },
        source,
        env: Env::new(),
        dir_loops: Vec::new(),
        stmt_depth: 0,
        name_lists: Vec::new(),
        member_helpers: name_sets::member_helpers(suite),
        globals_aliases: HashSet::default(),
        self_aliases: HashSet::default(),
        tables: Tables::default(),
        deleted: Vec::new(),
        setattr_functions: Vec::new(),
        called: Vec::new(),
        last_bound: HashMap::new(),
        registers_self: false,
    };
    w.module_body(suite, true, 0);
    if !is_stub {
        let aliases = crate::module_aliases::read(suite, module, is_package);
        w.facts.registered.extend(aliases.registered);
        w.facts.finder_aliases = aliases.table;
    }
    for name in crate::flag_defs::names(suite) {
        w.bind(&name, Value::Data);
    }
    if w.registers_self {
        let imports = imports_by_name(&w.facts.bindings);
        match crate::lazy::read(suite, module, &imports) {
            Some(lazy) => w.bind_lazy(lazy),
            None => w.facts.open = true,
        }
    }
    crate::kwargs_wrapper::mark_wrappers(&mut w.facts.bindings, suite);
    crate::class_builder::mark_builders(&mut w.facts.bindings, suite);
    if !is_stub {
        crate::implies::mark(&mut w.facts.bindings, suite, module, is_package);
        w.facts.stores = crate::outside_stores::stores(suite);
    }
    // A function that sets computed names on its module: names appear at import time when the
    // module calls it itself (open), else only when other code does (extensible).
    for f in std::mem::take(&mut w.setattr_functions) {
        if w.called.contains(&f) {
            w.facts.open = true;
        } else {
            w.facts.extensible = true;
        }
    }
    let deleted = std::mem::take(&mut w.deleted);
    for (name, at) in deleted {
        let at = at.min(w.facts.bindings.len());
        let rebound = w.facts.bindings[at..].iter().any(|(n, _)| *n == name);
        if !rebound {
            let mut i = 0;
            w.facts.bindings.retain(|(n, _)| {
                i += 1;
                !(i <= at && *n == name)
            });
        }
    }
    w.facts.tables = std::mem::take(&mut w.tables.tables);
    w.facts
}

/// Statements nested deeper than this are skipped.
pub(crate) const MAX_NESTING: usize = 200;
/// A loop over a literal is unrolled only up to this many items.
const MAX_UNROLL: usize = 256;
/// Names bound to dotted references followed to find the module a copy names.
const MAX_ALIAS_HOPS: usize = 8;

struct Walker<'s> {
    /// Bindings kept at most (see [`file_facts`]).
    max_bindings: usize,
    /// The branch of `sys.version_info` tests being walked (`crate::py_version`).
    branch: Branch,
    facts: FileFacts,
    source: &'s str,
    env: Env,
    /// Loop variables that iterate over names of modules (`dir(module)`, `crate::name_sets`).
    dir_loops: Vec<(String, NameList, usize)>,
    /// Nesting depth of the module-level statement being walked.
    stmt_depth: usize,
    /// Module-level variables holding lists of names (`crate::name_sets`).
    name_lists: name_sets::Lists,
    /// Functions of the file returning `inspect.getmembers(param, pred)`.
    member_helpers: Vec<(String, Filter)>,
    /// Module-level names bound to `globals()` (or `vars()`).
    globals_aliases: HashSet<String>,
    /// Module-level names bound to the module itself (`this = sys.modules[__name__]`).
    self_aliases: HashSet<String>,
    tables: Tables,
    /// `del x` at the top level, with the number of bindings at that point.
    deleted: Vec<(String, usize)>,
    /// Module-level functions that set computed names on the module.
    setattr_functions: Vec<String>,
    /// Names of functions the module body calls itself.
    called: Vec<String>,
    /// The position in `facts.bindings` of each name's last binding (the walk only appends).
    last_bound: HashMap<String, usize>,
    /// `sys.modules[__name__] = ...` at module level.
    registers_self: bool,
}

impl Walker<'_> {
    fn bind(&mut self, name: &str, value: Value) {
        if self.facts.bindings.len() >= self.max_bindings {
            self.facts.bindings_truncated = true;
            self.facts.open = true;
            return;
        }
        self.last_bound
            .insert(name.to_string(), self.facts.bindings.len());
        self.facts.bindings.push((name.to_string(), value));
    }

    /// The names a lazy module's table lists (`crate::lazy`).
    fn bind_lazy(&mut self, lazy: crate::lazy::Lazy) {
        for (name, module) in lazy.names {
            self.bind(
                &name,
                Value::From {
                    module,
                    name: name.clone(),
                },
            );
        }
        self.facts.stars = lazy.stars;
        for name in lazy.extra {
            if !self.last_bound.contains_key(&name) {
                self.bind(&name, Value::Data);
            }
        }
    }

    fn base_package(&self, level: u32) -> Option<String> {
        resolve_relative(&self.facts.module, self.facts.is_package, level)
    }

    fn module_body(&mut self, body: &[Stmt], top: bool, depth: usize) {
        if depth > MAX_NESTING {
            return;
        }
        for stmt in body {
            self.module_stmt(stmt, top, depth);
        }
    }

    fn module_stmt(&mut self, stmt: &Stmt, top: bool, depth: usize) {
        self.stmt_depth = depth;
        match stmt {
            Stmt::FunctionDef(f) => {
                if f.name.as_str() == "__getattr__" {
                    self.module_getattr(f);
                }
                let mut function = function_info(f, self.source, false);
                self.branch.apply(&mut function);
                self.scan_dynamic(f.name.as_str(), &f.body);
                self.bind(f.name.as_str(), Value::Function(function));
            }
            Stmt::ClassDef(c) => {
                let class = class_info(c, self.source, &self.env, depth, self.branch);
                self.bind(c.name.as_str(), Value::Class(class));
            }
            Stmt::Import(imp) => {
                for alias in &imp.names {
                    let full = alias.name.as_str();
                    self.bind_imported_child(full);
                    // A stub re-exports an import only in the `import a as a` form.
                    if self.facts.is_stub
                        && alias.asname.as_ref().is_none_or(|a| a.as_str() != full)
                    {
                        continue;
                    }
                    match &alias.asname {
                        Some(asname) => self.bind(asname.as_str(), Value::Module(full.into())),
                        None => {
                            let first = full.split('.').next().unwrap_or(full);
                            self.bind(first, Value::Module(first.into()));
                        }
                    }
                }
            }
            Stmt::ImportFrom(imp) => self.import_from(imp),
            Stmt::Assign(a) => {
                for target in &a.targets {
                    self.assign(target, Some(&a.value));
                }
            }
            Stmt::AnnAssign(a) if (a.value.is_some() || self.facts.is_stub) => {
                self.assign(&a.target, a.value.as_deref());
            }
            Stmt::AugAssign(a) => {
                if let Expr::Name(n) = &*a.target {
                    if n.id.as_str() == "__all__" {
                        let part = self.all_part(&a.value);
                        self.push_all(part, false);
                    } else if let (Some(Const::List(old)), Some(Const::List(new))) = (
                        self.env.get(n.id.as_str()).cloned(),
                        consts::eval(&a.value, &self.env),
                    ) {
                        let mut old = old;
                        old.extend(new);
                        self.env.insert(n.id.to_string(), Const::List(old));
                    }
                } else {
                    self.subscript_store(&a.target, &a.value);
                }
            }
            Stmt::TypeAlias(t) => {
                if let Expr::Name(n) = &*t.name {
                    self.bind(n.id.as_str(), Value::Data);
                }
            }
            Stmt::If(i) => {
                let outer = self.branch;
                let branches = outer.clauses(i);
                let bodies =
                    std::iter::once(&i.body).chain(i.elif_else_clauses.iter().map(|c| &c.body));
                // A branch the indexed Python version does not take defines nothing there.
                for (body, branch) in bodies.zip(branches).filter(|(_, b)| !b.off) {
                    self.branch = branch;
                    self.module_body(body, false, depth + 1);
                }
                self.branch = outer;
            }
            Stmt::Try(t) => {
                let start = self.facts.bindings.len();
                self.module_body(&t.body, false, depth + 1);
                if crate::fallible::catches_import_error(t) {
                    crate::fallible::record(&mut self.facts, start);
                }
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    if let Some(name) = &h.name {
                        self.bind(name.as_str(), Value::Data);
                    }
                    self.module_body(&h.body, false, depth + 1);
                }
                self.module_body(&t.orelse, false, depth + 1);
                self.module_body(&t.finalbody, false, depth + 1);
            }
            Stmt::With(w) => {
                for item in &w.items {
                    if let Some(vars) = &item.optional_vars {
                        self.assign(vars, None);
                    }
                }
                self.module_body(&w.body, false, depth + 1);
            }
            Stmt::For(f) => self.module_for(f, depth),
            Stmt::While(wh) => {
                self.module_body(&wh.body, false, depth + 1);
                self.module_body(&wh.orelse, false, depth + 1);
            }
            Stmt::Match(m) => {
                for case in &m.cases {
                    self.module_body(&case.body, false, depth + 1);
                }
            }
            Stmt::Expr(e) => {
                if let Expr::Call(c) = &*e.value {
                    self.tables.call(c, &self.env);
                    if let Expr::Name(n) = &*c.func {
                        self.called.push(n.id.to_string());
                    }
                }
                self.module_expr(&e.value, top)
            }
            Stmt::Delete(d) if top => {
                for target in &d.targets {
                    if let Expr::Name(n) = target {
                        self.deleted
                            .push((n.id.to_string(), self.facts.bindings.len()));
                    }
                }
            }
            _ => {}
        }
    }

    fn import_from(&mut self, imp: &ast::StmtImportFrom) {
        let module = match (&imp.module, imp.level) {
            (Some(m), 0) => Some(m.to_string()),
            (m, level) => self.base_package(level).map(|base| match m {
                Some(m) => format!("{base}.{m}"),
                None => base,
            }),
        };
        let Some(module) = module else {
            return;
        };
        self.bind_imported_child(&module);
        for alias in &imp.names {
            let name = alias.name.as_str();
            if name == "*" {
                self.facts.stars.push(module.clone());
                continue;
            }
            let bound = alias.asname.as_ref().map_or(name, |a| a.as_str());
            // A stub re-exports `from m import n` only as `from m import n as n`.
            if self.facts.is_stub && (alias.asname.is_none() || bound != name) && bound != "__all__"
            {
                self.facts
                    .private_imports
                    .push((bound.to_string(), format!("{module}.{name}")));
                continue;
            }
            if bound == "__all__" {
                self.push_all(vec![AllPart::ModuleAll(module.clone())], true);
                continue;
            }
            self.bind(
                bound,
                Value::From {
                    module: module.clone(),
                    name: name.to_string(),
                },
            );
        }
    }

    /// Importing `pkg.child...` from inside package `pkg` binds `child` in `pkg` as a side
    /// effect of the import system (so a star import of `pkg` without `__all__` copies it).
    fn bind_imported_child(&mut self, imported: &str) {
        if !self.facts.is_package || self.facts.is_stub {
            return;
        }
        let Some(rest) = imported
            .strip_prefix(self.facts.module.as_str())
            .and_then(|r| r.strip_prefix('.'))
        else {
            return;
        };
        let child = rest.split('.').next().unwrap_or(rest);
        if !child.is_empty() {
            let path = format!("{}.{child}", self.facts.module);
            self.bind(child, Value::Module(path));
        }
    }

    fn module_for(&mut self, f: &ast::StmtFor, depth: usize) {
        let target = match &*f.target {
            Expr::Name(n) => Some(n.id.to_string()),
            _ => None,
        };
        // `for name in <names of modules>` and `for name, value in <members of modules>`.
        let first = match &*f.target {
            Expr::Tuple(t) => t.elts.first(),
            e => Some(e),
        };
        if let Some(Expr::Name(var)) = first {
            let list =
                name_sets::loop_names(&f.iter, &self.name_lists, &self.member_helpers, &self.env);
            if let Some(list) = list.filter(|l| !l.copies.is_empty()) {
                self.dir_loops.push((var.id.to_string(), list, depth + 1));
                self.module_body(&f.body, false, depth + 1);
                self.dir_loops.pop();
                self.assign(&f.target, None);
                return;
            }
        }
        // `for name in dir(module)` and `for name in module.__dir__()`.
        if let (Some(target), Expr::Call(call)) = (&target, &*f.iter) {
            let module = match (&*call.func, call.arguments.args.as_ref()) {
                (func, [arg]) if consts::dotted(func).as_deref() == Some("dir") => Some(arg),
                (Expr::Attribute(a), []) if a.attr.as_str() == "__dir__" => Some(&*a.value),
                _ => None,
            };
            {
                if let Some(arg) = module {
                    if let Some(m) = consts::dotted(arg) {
                        let list = NameList {
                            copies: vec![Copy::all(m)],
                            names: Vec::new(),
                        };
                        self.dir_loops.push((target.clone(), list, depth + 1));
                        self.module_body(&f.body, false, depth + 1);
                        self.dir_loops.pop();
                        self.bind(target, Value::Data);
                        return;
                    }
                }
            }
        }
        let items = consts::strings(&f.iter, &self.env);
        match (target, items) {
            (Some(target), Some(items)) if items.len() <= MAX_UNROLL => {
                let saved = self.env.get(&target).cloned();
                for item in items {
                    self.env.insert(target.clone(), Const::Str(vec![item]));
                    self.module_body(&f.body, false, depth + 1);
                }
                match saved {
                    Some(v) => self.env.insert(target.clone(), v),
                    None => self.env.remove(&target),
                };
                // The loop variable stays bound after the loop.
                self.bind(&target, Value::Data);
            }
            (target, _) => {
                if let Some(target) = target {
                    self.bind(&target, Value::Data);
                } else {
                    self.assign(&f.target, None);
                }
                self.module_body(&f.body, false, depth + 1);
            }
        }
        self.module_body(&f.orelse, false, depth + 1);
    }

    /// `target = value` at module level.
    fn assign(&mut self, target: &Expr, value: Option<&Expr>) {
        match target {
            Expr::Name(n) => {
                let name = n.id.as_str();
                if name == "__all__" {
                    let parts = value.map_or(vec![AllPart::Dynamic], |v| self.all_part(v));
                    if let [AllPart::Names(names)] = parts.as_slice() {
                        self.env.insert(name.into(), Const::List(names.clone()));
                    }
                    self.push_all(parts, true);
                    return;
                }
                // A set each (a lookup per assignment, however many aliases).
                self.globals_aliases.remove(name);
                if value.is_some_and(|v| self.is_this_module(v)) {
                    self.self_aliases.insert(name.to_string());
                } else {
                    self.self_aliases.remove(name);
                }
                let list = value.and_then(|v| name_sets::list_of(v, &self.name_lists, &self.env));
                self.name_lists.retain(|(v, _)| v != name);
                if let Some(list) = list.filter(|l| !l.copies.is_empty()) {
                    self.name_lists.push((name.to_string(), list));
                }
                if let Some(v) = value {
                    self.tables.assign(name, v, &self.env);
                }
                if let Some(Expr::Call(c)) = value {
                    let f = consts::dotted(&c.func);
                    if c.arguments.is_empty() && matches!(f.as_deref(), Some("globals" | "vars")) {
                        self.globals_aliases.insert(name.to_string());
                    }
                }
                if let Some(Expr::Call(c)) = value {
                    if let Some(f) = consts::dotted(&c.func) {
                        self.facts.instances.push((name.to_string(), f));
                    }
                }
                let v = match value {
                    Some(v) => {
                        if let Some(c) = consts::eval(v, &self.env) {
                            self.env.insert(name.to_string(), c);
                        } else {
                            self.env.remove(name);
                        }
                        self.classify(v)
                    }
                    None => Value::Data,
                };
                self.bind(name, v);
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.assign(e, None)),
            Expr::List(l) => l.elts.iter().for_each(|e| self.assign(e, None)),
            Expr::Starred(s) => self.assign(&s.value, None),
            Expr::Subscript(_) => {
                if let Some(v) = value {
                    self.subscript_store(target, v);
                }
            }
            Expr::Attribute(a) => self.class_attribute_store(a, value),
            _ => {}
        }
    }

    /// `C.name = value` after the body of a class `C` of this module adds `name` to its
    /// members: torch 1.13's `autograd/variable.py` sets `Variable._execution_engine =
    /// ImperativeEngine()` below the class (2.0 moves it into the body). A store on an imported
    /// class (another module's) is not read.
    fn class_attribute_store(&mut self, target: &ast::ExprAttribute, value: Option<&Expr>) {
        let Expr::Name(class) = &*target.value else {
            return;
        };
        let bound = match self.last_bound.get(class.id.as_str()) {
            Some(&at) => self.facts.bindings.get_mut(at),
            None => return,
        };
        // `C.m = copy_func(C.m)` (transformers' `push_to_hub`) wraps what `C` already answers
        // (its own member or an inherited one): the member stays what it was.
        let is_this = |a: &Expr| {
            matches!(a, Expr::Attribute(x) if x.attr.as_str() == target.attr.as_str()
                && matches!(&*x.value, Expr::Name(n) if n.id == class.id))
        };
        let rewraps =
            matches!(value, Some(Expr::Call(call)) if call.arguments.args.iter().any(is_this));
        if rewraps {
            return;
        }
        if let Some((_, Value::Class(c))) = bound {
            let member = match value {
                Some(v) => match consts::dotted(v) {
                    Some(d) => Value::Alias(d),
                    None => Value::Data,
                },
                None => Value::Data,
            };
            c.members.push((target.attr.to_string(), member));
        }
    }

    /// What a right-hand side binds a name to.
    fn classify(&self, value: &Expr) -> Value {
        if let Some(dotted) = consts::dotted(value) {
            return Value::Alias(dotted);
        }
        if let Expr::Call(call) = value {
            if let Some(m) = import_module_call(call, &self.env) {
                return Value::Module(m);
            }
        }
        Value::Data
    }

    /// `globals()[k] = v`, `vars()[k] = v`, `sys.modules[k] = v`.
    fn subscript_store(&mut self, target: &Expr, value: &Expr) {
        let Expr::Subscript(sub) = target else {
            return;
        };
        self.tables.set_item(sub, value, &self.env);
        let container = match &*sub.value {
            Expr::Call(c) if c.arguments.args.is_empty() => consts::dotted(&c.func),
            // `_globals = globals()` then `_globals[k] = ...`; `sys.modules[__name__].__dict__[k]
            // = ...`, also through a name bound to it.
            e if self.is_own_namespace(e) => Some("globals".to_string()),
            e => consts::dotted(e).map(|d| format!("{d}[]")),
        };
        match container.as_deref() {
            Some("globals" | "vars") => self.dynamic_name(&sub.slice),
            Some("sys.modules[]") => {
                if is_dunder_name(&sub.slice) {
                    // Open, unless it is a lazy module of a table read at the end
                    // (`crate::lazy`).
                    self.registers_self = true;
                    return;
                }
                let Some(key) = consts::string(&sub.slice, &self.env) else {
                    return;
                };
                let target = match value {
                    Expr::Call(call) => import_module_call(call, &self.env),
                    e => consts::dotted(e).and_then(|d| self.module_alias(&d)),
                };
                self.facts.registered.push((key, target));
            }
            _ => {}
        }
    }

    /// The module a dotted reference names, when it is bound by an import in this file.
    fn module_alias(&self, dotted: &str) -> Option<String> {
        let (first, rest) = match dotted.split_once('.') {
            Some((f, r)) => (f, Some(r)),
            None => (dotted, None),
        };
        let base = self
            .facts
            .bindings
            .iter()
            .rev()
            .find_map(|(n, v)| (n == first).then(|| v.imported()))??;
        Some(match rest {
            Some(r) => format!("{base}.{r}"),
            None => base,
        })
    }

    /// The module a copy names: [`Self::module_alias`], also through a name bound to a dotted
    /// reference (`return_types = torch._C._return_types`, torch's `return_types.py`).
    fn copied_module(&self, dotted: &str) -> Option<String> {
        let mut dotted = dotted.to_string();
        for _ in 0..MAX_ALIAS_HOPS {
            if let Some(m) = self.module_alias(&dotted) {
                return Some(m);
            }
            let (first, rest) = dotted.split_once('.').unwrap_or((&dotted, ""));
            let bound = self.facts.bindings.iter().rev().find(|(n, _)| n == first);
            let Some((_, Value::Alias(target))) = bound else {
                return None;
            };
            dotted = match rest {
                "" => target.clone(),
                r => format!("{target}.{r}"),
            };
        }
        None
    }

    /// A `globals()` key: a constant binds a name; a loop over `dir(m)` copies `m`'s names;
    /// anything else makes the module open.
    fn dynamic_name(&mut self, key: &Expr) {
        if let Some(names) = consts::strings(key, &self.env) {
            for n in names {
                self.bind(&n, Value::Unknown);
            }
            return;
        }
        if let Expr::Name(n) = key {
            // A filtered list's names are stored only when the store is not under a
            // condition inside the loop (it might store some of them only).
            let conditional = self
                .dir_loops
                .iter()
                .rev()
                .find(|(v, _, _)| v == n.id.as_str())
                .is_some_and(|(_, l, d)| {
                    *d != self.stmt_depth && l.copies.iter().any(|c| !c.exact)
                });
            if let Some(list) = self.loop_list(n.id.as_str()).filter(|_| !conditional) {
                for name in &list.names {
                    self.bind(name, Value::Data);
                }
                self.facts.copies.extend(list.copies);
                return;
            }
        }
        self.facts.open = true;
    }

    /// The names the loop variable `var` runs over, module references resolved.
    fn loop_list(&self, var: &str) -> Option<NameList> {
        let (_, list, _) = self.dir_loops.iter().rev().find(|(v, _, _)| v == var)?;
        let mut list = list.clone();
        for c in &mut list.copies {
            if let Some(m) = self.copied_module(&c.module) {
                c.module = m;
            }
        }
        Some(list)
    }

    fn module_expr(&mut self, expr: &Expr, top: bool) {
        let Expr::Call(call) = expr else {
            return;
        };
        let args = call.arguments.args.as_ref();
        let func = match &*call.func {
            // The module's own namespace: `sys.modules[__name__].__dict__`, `vars(this)`, a
            // name bound to `globals()`.
            Expr::Attribute(a) if self.is_own_namespace(&a.value) => {
                Some(format!("globals().{}", a.attr))
            }
            Expr::Attribute(a) => match &*a.value {
                Expr::Call(inner) if inner.arguments.args.is_empty() => {
                    consts::dotted(&inner.func).map(|f| format!("{f}().{}", a.attr))
                }
                _ => consts::dotted(&call.func),
            },
            f => consts::dotted(f),
        };
        let Some(func) = func else {
            return;
        };
        match func.as_str() {
            "__all__.extend" | "__all__.__iadd__" => {
                if let [arg] = args {
                    let part = self.all_part(arg);
                    self.push_all(part, false);
                }
            }
            "__all__.append" => {
                if let [arg] = args {
                    // Appended in the loop's own body, not under a condition inside it.
                    let looped = match arg {
                        Expr::Name(n) => self
                            .dir_loops
                            .iter()
                            .rev()
                            .find(|(v, _, _)| v == n.id.as_str())
                            .filter(|(_, _, d)| *d == self.stmt_depth)
                            .and_then(|_| self.loop_list(n.id.as_str())),
                        _ => None,
                    };
                    let part = match (consts::string(arg, &self.env), looped) {
                        (Some(s), _) => AllPart::Names(vec![s]),
                        (None, Some(list)) => AllPart::Copies(list.copies),
                        (None, None) => AllPart::Dynamic,
                    };
                    self.push_all(vec![part], false);
                }
            }
            "globals().update" | "vars().update" => match args {
                [arg] => match consts::strings(arg, &self.env) {
                    Some(names) => names.iter().for_each(|n| self.bind(n, Value::Unknown)),
                    None => self.facts.open = true,
                },
                _ => self.facts.open = true,
            },
            "setattr" => self.module_setattr(args),
            // `exec(code)` at module level may bind any name (numpy's test modules generate
            // test classes so).
            "exec"
                if args
                    .first()
                    .is_none_or(|a| consts::string(a, &self.env).is_none()) =>
            {
                self.facts.open = true;
            }
            _ => {
                if top && self.facts.deprecated.is_none() {
                    self.facts.deprecated = deprecation_warning(call);
                }
            }
        }
    }

    /// The module being walked: `sys.modules[__name__]`, or a name bound to it at module level.
    fn is_this_module(&self, e: &Expr) -> bool {
        match e {
            Expr::Subscript(s) => {
                consts::dotted(&s.value).as_deref() == Some("sys.modules")
                    && is_dunder_name(&s.slice)
            }
            Expr::Name(n) => self.self_aliases.contains(n.id.as_str()),
            _ => false,
        }
    }

    /// The module's namespace dict, other than `globals()` itself: `M.__dict__` or `vars(M)`
    /// with `M` the module ([`Self::is_this_module`]), or a name bound to `globals()`.
    fn is_own_namespace(&self, e: &Expr) -> bool {
        match e {
            Expr::Attribute(a) => a.attr.as_str() == "__dict__" && self.is_this_module(&a.value),
            Expr::Call(c) => {
                consts::dotted(&c.func).as_deref() == Some("vars")
                    && matches!(&*c.arguments.args, [m] if self.is_this_module(m))
            }
            Expr::Name(n) => self.globals_aliases.contains(n.id.as_str()),
            _ => false,
        }
    }

    /// `setattr(sys.modules[__name__], k, v)` (or on a name bound to it).
    fn module_setattr(&mut self, args: &[Expr]) {
        let [obj, key, ..] = args else {
            return;
        };
        if self.is_this_module(obj) {
            match consts::strings(key, &self.env) {
                Some(names) => names.iter().for_each(|n| self.bind(n, Value::Unknown)),
                None => self.facts.open = true,
            }
        }
    }

    fn all_part(&self, value: &Expr) -> Vec<AllPart> {
        if let Some(names) = consts::strings(value, &self.env) {
            return vec![AllPart::Names(names)];
        }
        if let Expr::Name(_) = value {
            if let Some(mut list) = name_sets::list_of(value, &self.name_lists, &self.env) {
                for c in &mut list.copies {
                    if let Some(m) = self.copied_module(&c.module) {
                        c.module = m;
                    }
                }
                return vec![AllPart::Names(list.names), AllPart::Copies(list.copies)];
            }
        }
        match value {
            Expr::Attribute(a) if a.attr.as_str() == "__all__" => match consts::dotted(&a.value) {
                Some(m) => vec![AllPart::ModuleAll(m)],
                None => vec![AllPart::Dynamic],
            },
            Expr::BinOp(b) if b.op == ast::Operator::Add => {
                let mut parts = self.all_part(&b.left);
                parts.extend(self.all_part(&b.right));
                parts
            }
            Expr::List(l) => l
                .elts
                .iter()
                .flat_map(|e| match e {
                    Expr::Starred(s) => self.all_part(&s.value),
                    e => match consts::string(e, &self.env) {
                        Some(s) => vec![AllPart::Names(vec![s])],
                        None => vec![AllPart::Dynamic],
                    },
                })
                .collect(),
            _ => vec![AllPart::Dynamic],
        }
    }

    fn push_all(&mut self, parts: Vec<AllPart>, replace: bool) {
        let all = self.facts.all.get_or_insert_with(Vec::new);
        if replace {
            all.clear();
        }
        all.extend(parts);
    }

    /// Function bodies at module level: dynamic bindings of module names.
    fn scan_dynamic(&mut self, function: &str, body: &[Stmt]) {
        let mut scan = DynamicScan {
            found: Vec::new(),
            aliases: Vec::new(),
        };
        for stmt in body {
            scan.visit_stmt(stmt);
        }
        for found in scan.found {
            match found {
                Dynamic::Globals(key) => self.dynamic_name(key),
                Dynamic::SetAttrOnSelf(key) => match consts::strings(key, &self.env) {
                    Some(names) => names.iter().for_each(|n| self.bind(n, Value::Unknown)),
                    None => self.setattr_functions.push(function.to_string()),
                },
                Dynamic::ReplaceSelf => self.facts.open = true,
                Dynamic::AllMutated => {
                    if self.facts.all.is_some() {
                        self.push_all(vec![AllPart::Dynamic], false);
                    }
                }
            }
        }
    }

    /// A module `__getattr__` that ends in `raise AttributeError` and only answers names tested
    /// against constants answers exactly those names; any other makes the module open.
    fn module_getattr(&mut self, f: &ast::StmtFunctionDef) {
        // The tables this file built are known by their keys.
        let mut env = self.env.clone();
        for (name, table) in &self.tables.tables {
            let keys = table.iter().map(|(k, _)| k.clone()).collect();
            env.insert(name.clone(), Const::List(keys));
        }
        self.facts.getattr_tables = attr_tables::getattr_tables(f);
        match getattr_rule(f, false, &env) {
            GetattrRule::Closed(names) => self.facts.getattr_names.extend(names),
            GetattrRule::InstanceData(_) | GetattrRule::Open => self.facts.open = true,
        }
    }
}

/// `import_module("a.b")` / `importlib.import_module(".b", "a")`: the module, when constant.
fn import_module_call(call: &ast::ExprCall, env: &Env) -> Option<String> {
    if consts::last_name(&call.func) != Some("import_module") {
        return None;
    }
    let args = call.arguments.args.as_ref();
    let name = consts::string(args.first()?, env)?;
    if let Some(rel) = name.strip_prefix('.') {
        let package = consts::string(args.get(1)?, env)?;
        let dots = rel.len() - rel.trim_start_matches('.').len();
        let base = resolve_relative(&package, true, dots as u32 + 1)?;
        let rest = rel.trim_start_matches('.');
        return Some(if rest.is_empty() {
            base
        } else {
            format!("{base}.{rest}")
        });
    }
    Some(name)
}

pub(crate) fn is_dunder_name(e: &Expr) -> bool {
    matches!(e, Expr::Name(n) if n.id.as_str() == "__name__")
}

/// The package a relative import of `level` dots refers to.
pub fn resolve_relative(module: &str, is_package: bool, level: u32) -> Option<String> {
    let mut parts: Vec<&str> = module.split('.').collect();
    if !is_package {
        parts.pop();
    }
    for _ in 1..level {
        parts.pop()?;
    }
    (!parts.is_empty()).then(|| parts.join("."))
}
