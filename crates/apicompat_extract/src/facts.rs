//! What one source file says about its module, before anything is resolved across the package.

use ruff_python_ast::{self as ast, Expr, Stmt};

use apicompat_surface::Signature;

use std::collections::HashMap;

use crate::attr_tables::{Table, TableUse, Tables};
use crate::consts::{self, Env};
pub(crate) use crate::dynamic_scan::is_this_module;
use crate::name_sets::{self, Copy, Filter, NameList};
use crate::py_version::{Branch, PyVersion};
use crate::resolve::HashSet;

mod namespace;
mod statements;

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
    /// Names found in the instance's own data (see
    /// [`GetattrRule::InstanceData`](crate::getattr::GetattrRule::InstanceData)).
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
    /// Tables of names with messages built at module level (see
    /// [`attr_tables`](crate::attr_tables)).
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
    /// The modules its top-level imports import (`import a.b`, `from a.b import c`: `a.b`
    /// and `a.b.c`, which may be a module), conditional ones too.
    pub imported_modules: Vec<String>,
    /// Names it sets on other modules at import time: (module, name, path of the value)
    /// (`crate::injected`).
    pub injected: Vec<(String, String, String)>,
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
        let injected = crate::injected::read(suite, &w.facts.bindings, module);
        w.facts.injected = injected.names;
        let own = Some(module.to_string());
        w.facts
            .registered
            .extend(injected.registered.into_iter().map(|k| (k, own.clone())));
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
