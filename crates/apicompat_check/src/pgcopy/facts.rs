//! What one file says about process groups, as far as AC010 needs it: the classes it defines
//! (what their methods store on `self`, what they pass to `super().__init__`, which copy hooks
//! they define), the functions it defines (what they return), and the places that copy or
//! pickle something (`copy.deepcopy(model)`, `torch.save(obj, f)`), each with the copied
//! expression traced back through local variables, `**kwargs` dicts and parameters as a
//! [`Val`]. Nothing here looks at the index: [`super::eval`] does that for the whole project.

use apicompat_hash::HashMap;
use std::sync::Arc;

use apicompat_semantic::atom::{atom, Atom};

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::collect::MAX_DEPTH;

/// A traced value larger than this (in nodes) is given up on (`Val::Unknown`).
const MAX_VAL_NODES: usize = 400;

/// How an expression's value was made, as far as it can be followed inside one file.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Unknown,
    NoneLit,
    /// Another literal (a number, a string): never a process group.
    Lit,
    /// A parameter of the function it is used in.
    Param(Arc<ParamInfo>),
    /// `self` in a method of the class with this position in [`FileFacts::classes`].
    SelfObj(usize),
    /// `super()`.
    Super,
    /// A dotted path reached through an import (`torch.distributed.new_group`, `copy.deepcopy`,
    /// a relative `.model.MyModel`).
    Ref(Atom),
    /// A class defined in this file (position in [`FileFacts::classes`]).
    LocalClass(usize),
    /// A function defined at the top level of this file (its id).
    LocalFunc(u32),
    /// A builtin name (`dict`, `list`).
    Builtin(Atom),
    /// `value.attr`.
    Attr(Arc<Val>, Atom, TextRange),
    Call(Arc<CallVal>),
    /// A dict literal or `dict(...)`: string keys with their values; a `None` key is a `**x`
    /// entry (its value is what is spread).
    Dict(Arc<Vec<(Option<Atom>, Val, TextRange)>>),
    /// A list, tuple or set literal.
    Seq(Arc<Vec<Val>>),
    /// Item `n` of a tuple unpacking.
    Item(Arc<Val>, usize),
    /// `value[key]`: the item of a string key or an index, or any item (`MODELS[name]`).
    Index(Arc<Val>, Option<Key>),
    /// Either value (`a if c else b`, `a or b`, assignments in different branches).
    Either(Arc<Val>, Arc<Val>),
    /// An object of the class given (`Ref` or `LocalClass`), known from an `isinstance` check
    /// (where).
    Instance(Arc<Val>, TextRange),
}

/// A constant subscript: `d["key"]`, `items[0]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    Name(Atom),
    Position(usize),
}

impl Val {
    /// Whether the value has more than `budget` nodes, counting only until it is known (a
    /// value shares its parts with the values it was built from: counting them all again at
    /// every binding cost a tenth of a run on large projects).
    fn larger_than(&self, budget: usize) -> bool {
        let mut left = budget;
        !self.count_within(&mut left)
    }

    /// Takes this value's nodes from `left`; false once they do not fit.
    fn count_within(&self, left: &mut usize) -> bool {
        if *left == 0 {
            return false;
        }
        *left -= 1;
        match self {
            Val::Attr(v, _, _) | Val::Item(v, _) | Val::Instance(v, _) | Val::Index(v, _) => {
                v.count_within(left)
            }
            Val::Call(c) => {
                c.func.count_within(left)
                    && c.args.iter().all(|v| v.count_within(left))
                    && c.kwargs.iter().all(|(_, v, _)| v.count_within(left))
                    && c.splats.iter().all(|(v, _)| v.count_within(left))
            }
            Val::Dict(entries) => entries.iter().all(|(_, v, _)| v.count_within(left)),
            Val::Seq(items) => items.iter().all(|v| v.count_within(left)),
            Val::Either(a, b) => a.count_within(left) && b.count_within(left),
            _ => true,
        }
    }

    fn capped(self) -> Val {
        if self.larger_than(MAX_VAL_NODES) {
            Val::Unknown
        } else {
            self
        }
    }
}

/// A call, its callee and arguments traced.
#[derive(Debug, Clone, PartialEq)]
pub struct CallVal {
    pub func: Val,
    pub args: Vec<Val>,
    /// A `*args` argument: later positions are not known.
    pub star_args: bool,
    pub kwargs: Vec<(Atom, Val, TextRange)>,
    /// `**x` arguments, with where each is.
    pub splats: Vec<(Val, TextRange)>,
    pub range: TextRange,
}

/// How a parameter is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Positional,
    KeywordOnly,
    VarPositional,
    VarKeyword,
}

/// A parameter's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Default {
    Required,
    NoneLit,
    Other,
}

/// A parameter of a function of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamInfo {
    /// The id of the function it belongs to.
    pub owner: u32,
    pub name: Atom,
    /// The annotation as written.
    pub annotation: Option<String>,
    pub default: Default,
    pub kind: ParamKind,
    pub range: TextRange,
}

/// A function or method of the file.
#[derive(Debug, Clone)]
pub struct FuncFacts {
    pub id: u32,
    pub name: Atom,
    /// The class it is a method of (position in [`FileFacts::classes`]).
    pub class: Option<usize>,
    /// Its parameters, without the `self`/`cls` of a method.
    pub params: Vec<Arc<ParamInfo>>,
    /// The values of its `return` statements.
    pub returns: Vec<Val>,
    /// Defined at the top level of the file (callable by name from other files).
    pub top_level: bool,
}

/// `self.attr = value` in a method.
#[derive(Debug, Clone)]
pub struct Store {
    pub attr: Atom,
    pub val: Val,
    pub range: TextRange,
    /// The id of the method.
    pub func: u32,
}

/// `super().__init__(...)` or `Base.__init__(self, ...)` in a method.
#[derive(Debug, Clone)]
pub struct SuperInit {
    /// The base named explicitly (`Base.__init__(self, ...)`); `None` for `super()`.
    pub base: Option<Val>,
    /// The arguments (without `self`).
    pub call: CallVal,
    pub func: u32,
}

/// A class of the file.
#[derive(Debug, Clone)]
pub struct ClassFacts {
    pub name: Atom,
    pub range: TextRange,
    pub bases: Vec<Val>,
    /// The special methods it defines that change how copies and pickles are made
    /// (`__deepcopy__`, `__copy__`, `__getstate__`, `__reduce__`, `__reduce_ex__`).
    pub hooks: Vec<String>,
    /// Ids of its methods.
    pub methods: Vec<u32>,
    /// The id of its `__init__`.
    pub init: Option<u32>,
    pub stores: Vec<Store>,
    pub supers: Vec<SuperInit>,
}

/// What a copy or pickle does with the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// `copy.deepcopy`: copies everything the object holds.
    Deep,
    /// `copy.copy`: copies only the object itself (what it holds is shared).
    Shallow,
    /// `pickle.dump(s)`, `torch.save`, the object collectives: pickles everything it holds.
    Pickle,
}

/// Where an object is copied or pickled.
#[derive(Debug, Clone)]
pub struct CopySite {
    pub kind: CopyKind,
    /// The function, as a dotted path (`copy.deepcopy`).
    pub func: String,
    /// The call as written, shortened (`deepcopy(model)`).
    pub written: String,
    /// The argument copied. For the list argument of `broadcast_object_list`, the list.
    pub arg: Val,
    pub range: TextRange,
    pub stmt_start: TextSize,
    pub in_function: bool,
    /// The name the result is assigned to (`ema` in `ema = deepcopy(model)`).
    pub target: Option<String>,
}

/// What one file says (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct FileFacts {
    pub classes: Vec<ClassFacts>,
    pub functions: Vec<FuncFacts>,
    /// Position in `functions` by function id.
    pub function_index: apicompat_hash::HashMap<u32, usize>,
    pub copies: Vec<CopySite>,
    /// Names called as functions somewhere in the file (`autocast` in `with autocast():`).
    pub called: apicompat_hash::HashSet<String>,
    /// The base-class expressions of the file's classes.
    pub base_ranges: Vec<TextRange>,
    /// Attribute reads on names whose class is known (AC009 checks them against it).
    pub typed: Vec<TypedRead>,
    /// Module-level dicts, lists and tuples (`MODELS = {"dit": DiT}`), which other files
    /// import and subscript.
    pub containers: Vec<(String, Val)>,
    /// Expressions evaluated while reading the file: linear in its size (a test holds the
    /// walker to that).
    pub eval_steps: u64,
}

impl FileFacts {
    /// Takes out what only AC010 reads (its classes, functions, copy sites and containers),
    /// for the caller to free: the names called, the base ranges and the typed reads stay for
    /// AC012 and AC009.
    pub fn take_ac010_only(&mut self) -> impl Send + 'static {
        (
            std::mem::take(&mut self.classes),
            std::mem::take(&mut self.functions),
            std::mem::take(&mut self.function_index),
            std::mem::take(&mut self.copies),
            std::mem::take(&mut self.containers),
        )
    }
}

/// How the class of a receiver is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeSource {
    /// Built by calling the class (where).
    Built(TextRange),
    /// A parameter annotated with it (where).
    Annotated(TextRange),
    /// Checked with `isinstance` (where).
    Checked(TextRange),
}

/// `x.attr` where `x` is known to be an object of `class` (a dotted path through imports,
/// not yet checked against the index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedRead {
    /// The range of `x.attr`.
    pub range: TextRange,
    pub class: String,
    pub how: TypeSource,
}

impl FileFacts {
    pub fn function(&self, id: u32) -> Option<&FuncFacts> {
        self.function_index
            .get(&id)
            .and_then(|&i| self.functions.get(i))
    }
}

/// The functions that copy or pickle their argument: (dotted path, kind, position of the
/// argument, its keyword name, whether the argument is a list of objects).
pub const COPY_FUNCTIONS: &[(&str, CopyKind, usize, &str, bool)] = &[
    ("copy.deepcopy", CopyKind::Deep, 0, "x", false),
    ("copy.copy", CopyKind::Shallow, 0, "x", false),
    ("pickle.dump", CopyKind::Pickle, 0, "obj", false),
    ("pickle.dumps", CopyKind::Pickle, 0, "obj", false),
    ("torch.save", CopyKind::Pickle, 0, "obj", false),
    (
        "torch.serialization.save",
        CopyKind::Pickle,
        0,
        "obj",
        false,
    ),
    (
        "torch.distributed.broadcast_object_list",
        CopyKind::Pickle,
        0,
        "object_list",
        true,
    ),
    (
        "torch.distributed.distributed_c10d.broadcast_object_list",
        CopyKind::Pickle,
        0,
        "object_list",
        true,
    ),
    (
        "torch.distributed.all_gather_object",
        CopyKind::Pickle,
        1,
        "obj",
        false,
    ),
    (
        "torch.distributed.distributed_c10d.all_gather_object",
        CopyKind::Pickle,
        1,
        "obj",
        false,
    ),
    (
        "torch.distributed.gather_object",
        CopyKind::Pickle,
        0,
        "obj",
        false,
    ),
    (
        "torch.distributed.distributed_c10d.gather_object",
        CopyKind::Pickle,
        0,
        "obj",
        false,
    ),
];

/// Special methods that decide how an object is copied or pickled.
const HOOKS: &[&str] = &[
    "__deepcopy__",
    "__copy__",
    "__getstate__",
    "__reduce__",
    "__reduce_ex__",
];

const BUILTINS: &[&str] = &["dict", "list", "tuple", "set", "super", "getattr"];

/// Walks a parsed file.
pub fn extract(suite: &[Stmt], text: &str) -> FileFacts {
    let mut w = Walker {
        text,
        out: FileFacts::default(),
        module: HashMap::default(),
        frames: Vec::new(),
        next_id: 0,
        depth: 0,
        stmt_start: TextSize::default(),
        deferred: Vec::new(),
        steps: std::cell::Cell::new(0),
    };
    w.block(suite);
    // Function bodies run after the module is loaded: they see its final bindings.
    while let Some(d) = w.deferred.pop() {
        w.function(d.def, d.class, d.id, true);
    }
    w.out.eval_steps = w.steps.get();
    let mut containers: Vec<(String, Val)> = w
        .module
        .into_iter()
        .filter(|(_, v)| matches!(v, Val::Dict(_) | Val::Seq(_)))
        .collect();
    containers.sort_by(|a, b| a.0.cmp(&b.0));
    w.out.containers = containers;
    w.out
}

struct Deferred<'a> {
    def: &'a ast::StmtFunctionDef,
    class: Option<usize>,
    id: u32,
}

/// A function being walked.
struct Frame {
    env: HashMap<String, Val>,
    id: u32,
    class: Option<usize>,
}

struct Walker<'a> {
    text: &'a str,
    out: FileFacts,
    /// Module-level bindings.
    module: HashMap<String, Val>,
    /// The functions being walked, innermost last (empty at module level).
    frames: Vec<Frame>,
    next_id: u32,
    depth: usize,
    stmt_start: TextSize,
    deferred: Vec<Deferred<'a>>,
    /// Calls of [`Walker::val`].
    steps: std::cell::Cell<u64>,
}

impl<'a> Walker<'a> {
    fn source(&self, range: TextRange) -> &'a str {
        self.text
            .get(range.start().to_usize()..range.end().to_usize())
            .unwrap_or("")
    }

    fn lookup(&self, name: &str) -> Val {
        for f in self.frames.iter().rev() {
            if let Some(v) = f.env.get(name) {
                return v.clone();
            }
        }
        if let Some(v) = self.module.get(name) {
            return v.clone();
        }
        if BUILTINS.contains(&name) {
            return Val::Builtin(atom(name));
        }
        Val::Unknown
    }

    fn bind(&mut self, name: &str, val: Val) {
        let val = val.capped();
        match self.frames.last_mut() {
            Some(f) => {
                f.env.insert(name.to_string(), val);
            }
            None => {
                self.module.insert(name.to_string(), val);
            }
        }
    }

    /// Binds a name assigned in a branch: a value already there that may be a process group
    /// or an object is kept as one of the two possibilities.
    fn bind_assign(&mut self, name: &str, val: Val) {
        let old = match self.frames.last() {
            Some(f) => f.env.get(name).cloned(),
            None => self.module.get(name).cloned(),
        };
        let val = match (old, val) {
            (Some(old @ (Val::Call(_) | Val::Param(_) | Val::Attr(..))), Val::NoneLit) => old,
            (_, v) => v,
        };
        self.bind(name, val);
    }

    // ----- statements -----

    fn block(&mut self, body: &'a [Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        let saved = self.stmt_start;
        self.stmt_start = stmt.start();
        match stmt {
            Stmt::Import(imp) => {
                for a in &imp.names {
                    let full = a.name.as_str();
                    match &a.asname {
                        Some(alias) => self.bind(alias.as_str(), Val::Ref(atom(full))),
                        None => {
                            let root = full.split('.').next().unwrap_or(full);
                            self.bind(root, Val::Ref(atom(root)));
                        }
                    }
                }
            }
            Stmt::ImportFrom(imp) => {
                let dots = ".".repeat(imp.level as usize);
                let module = imp.module.as_ref().map_or("", |m| m.as_str());
                for a in &imp.names {
                    let name = a.name.as_str();
                    if name == "*" {
                        continue;
                    }
                    let path = match (dots.is_empty(), module.is_empty()) {
                        (true, _) => format!("{module}.{name}"),
                        (false, true) => format!("{dots}{name}"),
                        (false, false) => format!("{dots}{module}.{name}"),
                    };
                    let bound = a.asname.as_ref().map_or(name, |n| n.as_str());
                    self.bind(bound, Val::Ref(atom(&path)));
                }
            }
            Stmt::ClassDef(c) => self.class_def(c),
            Stmt::FunctionDef(f) => {
                let id = self.new_id();
                if self.frames.is_empty() {
                    self.module.insert(f.name.to_string(), Val::LocalFunc(id));
                    self.deferred.push(Deferred {
                        def: f,
                        class: None,
                        id,
                    });
                } else {
                    self.bind(f.name.as_str(), Val::Unknown);
                    self.function(f, None, id, false);
                }
            }
            Stmt::Assign(a) => {
                let before = self.out.copies.len();
                self.scan(&a.value);
                if let [Expr::Name(n)] = &*a.targets {
                    for c in &mut self.out.copies[before..] {
                        if c.range == a.value.range() {
                            c.target = Some(n.id.to_string());
                        }
                    }
                }
                let v = self.val(&a.value, 0);
                for t in &a.targets {
                    self.scan_target(t);
                    self.assign(t, v.clone());
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(value) = &a.value {
                    self.scan(value);
                    let v = self.val(value, 0);
                    self.assign(&a.target, v);
                }
            }
            Stmt::AugAssign(a) => {
                self.scan(&a.value);
                self.scan_target(&a.target);
                if let Expr::Name(n) = &*a.target {
                    self.bind(n.id.as_str(), Val::Unknown);
                }
            }
            Stmt::Expr(e) => {
                self.scan(&e.value);
                self.effect(&e.value);
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.scan(v);
                    let val = self.val(v, 0).capped();
                    let id = self.frames.last().map(|f| f.id);
                    let at = id.and_then(|id| self.out.function_index.get(&id).copied());
                    if let Some(f) = at.and_then(|i| self.out.functions.get_mut(i)) {
                        f.returns.push(val);
                    }
                }
            }
            Stmt::If(s) => {
                self.scan(&s.test);
                // `if isinstance(x, C):` -> `x` is a `C` in the body.
                let narrowed = self.isinstance(&s.test);
                let saved: Vec<(String, Val)> = narrowed
                    .iter()
                    .map(|(n, _)| (n.clone(), self.lookup(n)))
                    .collect();
                for (name, val) in &narrowed {
                    self.bind(name, val.clone());
                }
                self.block(&s.body);
                for ((name, set), (_, old)) in narrowed.iter().zip(saved) {
                    let now = match self.frames.last() {
                        Some(f) => f.env.get(name),
                        None => self.module.get(name),
                    };
                    if now == Some(set) {
                        self.bind(name, old);
                    }
                }
                for c in &s.elif_else_clauses {
                    if let Some(t) = &c.test {
                        self.scan(t);
                    }
                    self.block(&c.body);
                }
            }
            Stmt::For(s) => {
                self.scan(&s.iter);
                self.assign(&s.target, Val::Unknown);
                self.block(&s.body);
                self.block(&s.orelse);
            }
            Stmt::While(s) => {
                self.scan(&s.test);
                self.block(&s.body);
                self.block(&s.orelse);
            }
            Stmt::With(s) => {
                for item in &s.items {
                    self.scan(&item.context_expr);
                    if let Some(v) = &item.optional_vars {
                        self.assign(v, Val::Unknown);
                    }
                }
                self.block(&s.body);
            }
            Stmt::Try(t) => {
                self.block(&t.body);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.bind(n.as_str(), Val::Unknown);
                    }
                    self.block(&h.body);
                }
                self.block(&t.orelse);
                self.block(&t.finalbody);
            }
            Stmt::Match(m) => {
                self.scan(&m.subject);
                for case in &m.cases {
                    self.block(&case.body);
                }
            }
            Stmt::Raise(r) => {
                if let Some(e) = &r.exc {
                    self.scan(e);
                }
            }
            Stmt::Assert(a) => self.scan(&a.test),
            _ => {}
        }
        self.stmt_start = saved;
        self.depth -= 1;
    }

    fn new_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn class_def(&mut self, c: &'a ast::StmtClassDef) {
        let bases: Vec<Val> = c
            .arguments
            .as_ref()
            .map(|a| a.args.iter().map(|b| self.val(b, 0)).collect())
            .unwrap_or_default();
        if let Some(a) = &c.arguments {
            self.out
                .base_ranges
                .extend(a.args.iter().map(Ranged::range));
        }
        let ci = self.out.classes.len();
        self.out.classes.push(ClassFacts {
            name: atom(c.name.as_str()),
            range: c.name.range(),
            bases,
            hooks: Vec::new(),
            methods: Vec::new(),
            init: None,
            stores: Vec::new(),
            supers: Vec::new(),
        });
        self.bind(c.name.as_str(), Val::LocalClass(ci));
        for s in &c.body {
            match s {
                Stmt::FunctionDef(f) => {
                    let id = self.new_id();
                    let name = f.name.as_str();
                    let class = &mut self.out.classes[ci];
                    class.methods.push(id);
                    if HOOKS.contains(&name) {
                        class.hooks.push(name.to_string());
                    }
                    if name == "__init__" {
                        class.init = Some(id);
                    }
                    if self.frames.is_empty() {
                        self.deferred.push(Deferred {
                            def: f,
                            class: Some(ci),
                            id,
                        });
                    } else {
                        self.function(f, Some(ci), id, false);
                    }
                }
                Stmt::Assign(a) => {
                    // `__deepcopy__ = some_function` defines the hook too.
                    for t in &a.targets {
                        if let Expr::Name(n) = t {
                            if HOOKS.contains(&n.id.as_str()) {
                                self.out.classes[ci].hooks.push(n.id.to_string());
                            }
                        }
                    }
                }
                Stmt::ClassDef(inner) => self.class_def(inner),
                _ => {}
            }
        }
        // The class body binds its methods in its own namespace, not the enclosing one.
        self.bind(c.name.as_str(), Val::LocalClass(ci));
    }

    fn function(
        &mut self,
        f: &'a ast::StmtFunctionDef,
        class: Option<usize>,
        id: u32,
        top_level: bool,
    ) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        let decorated = |name: &str| {
            f.decorator_list
                .iter()
                .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == name))
        };
        let (is_static, is_classmethod) = (decorated("staticmethod"), decorated("classmethod"));
        let mut env = HashMap::default();
        let mut params = Vec::new();
        let p = &f.parameters;
        let mut first = class.is_some() && !is_static;
        for (pw, kind) in p
            .posonlyargs
            .iter()
            .chain(p.args.iter())
            .map(|x| (x, ParamKind::Positional))
            .chain(p.kwonlyargs.iter().map(|x| (x, ParamKind::KeywordOnly)))
        {
            let name = pw.parameter.name.as_str();
            if first {
                first = false;
                let this = match class {
                    Some(ci) if !is_classmethod => Val::SelfObj(ci),
                    _ => Val::Unknown,
                };
                env.insert(name.to_string(), this);
                continue;
            }
            let default = match pw.default.as_deref() {
                None => Default::Required,
                Some(Expr::NoneLiteral(_)) => Default::NoneLit,
                Some(_) => Default::Other,
            };
            let info = Arc::new(self.param(id, &pw.parameter, default, kind));
            env.insert(name.to_string(), Val::Param(Arc::clone(&info)));
            params.push(info);
        }
        for (param, kind) in [
            (&p.vararg, ParamKind::VarPositional),
            (&p.kwarg, ParamKind::VarKeyword),
        ] {
            if let Some(param) = param {
                let info = Arc::new(self.param(id, param, Default::Other, kind));
                env.insert(param.name.to_string(), Val::Param(Arc::clone(&info)));
                params.push(info);
            }
        }
        self.out.function_index.insert(id, self.out.functions.len());
        self.out.functions.push(FuncFacts {
            id,
            name: atom(f.name.as_str()),
            class,
            params,
            returns: Vec::new(),
            top_level: top_level && class.is_none(),
        });
        self.frames.push(Frame { env, id, class });
        let saved = self.stmt_start;
        self.block(&f.body);
        self.stmt_start = saved;
        self.frames.pop();
    }

    fn param(
        &self,
        owner: u32,
        p: &ast::Parameter,
        default: Default,
        kind: ParamKind,
    ) -> ParamInfo {
        ParamInfo {
            owner,
            name: atom(p.name.as_str()),
            annotation: p
                .annotation
                .as_deref()
                .map(|a| self.source(a.range()).trim().to_string()),
            default,
            kind,
            range: p.range(),
        }
    }

    fn assign(&mut self, target: &'a Expr, val: Val) {
        match target {
            Expr::Name(n) => self.bind_assign(n.id.as_str(), val),
            Expr::Tuple(t) => self.unpack(&t.elts, val),
            Expr::List(t) => self.unpack(&t.elts, val),
            Expr::Attribute(a) => {
                if let Some(ci) = self.self_of(&a.value) {
                    let func = self.frames.last().map_or(0, |f| f.id);
                    self.out.classes[ci].stores.push(Store {
                        attr: atom(a.attr.as_str()),
                        val: val.capped(),
                        range: a.range(),
                        func,
                    });
                }
            }
            Expr::Subscript(s) => {
                // `kwargs["process_group"] = pg` on a dict literal.
                if let (Expr::Name(n), Expr::StringLiteral(k)) = (&*s.value, &*s.slice) {
                    if let Val::Dict(mut entries) = self.lookup(n.id.as_str()) {
                        Arc::make_mut(&mut entries).push((
                            Some(key_atom(k.value.to_str())),
                            val,
                            target.range(),
                        ));
                        self.bind(n.id.as_str(), Val::Dict(entries));
                    }
                }
            }
            _ => {}
        }
    }

    fn unpack(&mut self, elts: &'a [Expr], val: Val) {
        if elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
            for e in elts {
                let t = match e {
                    Expr::Starred(s) => &*s.value,
                    e => e,
                };
                self.assign(t, Val::Unknown);
            }
            return;
        }
        for (i, e) in elts.iter().enumerate() {
            let item = match &val {
                Val::Seq(items) => items.get(i).cloned().unwrap_or(Val::Unknown),
                Val::Unknown => Val::Unknown,
                v => Val::Item(Arc::new(v.clone()), i),
            };
            self.assign(e, item);
        }
    }

    /// The class whose `self` an expression is.
    fn self_of(&self, e: &Expr) -> Option<usize> {
        match e {
            Expr::Name(n) => match self.lookup(n.id.as_str()) {
                Val::SelfObj(ci) => Some(ci),
                _ => None,
            },
            _ => None,
        }
    }

    /// Statements whose effect matters: `kwargs.update(...)`, `super().__init__(...)`.
    fn effect(&mut self, e: &'a Expr) {
        let Expr::Call(call) = e else {
            return;
        };
        let Expr::Attribute(a) = &*call.func else {
            return;
        };
        match a.attr.as_str() {
            "update" => {
                if let Expr::Name(n) = &*a.value {
                    if let Val::Dict(mut shared) = self.lookup(n.id.as_str()) {
                        let entries = Arc::make_mut(&mut shared);
                        for arg in call.arguments.args.iter() {
                            match self.val(arg, 0) {
                                Val::Dict(more) => entries.extend(more.iter().cloned()),
                                _ => entries.push((None, Val::Unknown, arg.range())),
                            }
                        }
                        for k in call.arguments.keywords.iter() {
                            let v = self.val(&k.value, 0);
                            entries.push((k.arg.as_ref().map(|a| atom(a.as_str())), v, k.range()));
                        }
                        self.bind(n.id.as_str(), Val::Dict(shared));
                    }
                }
            }
            "__init__" => {
                let Some((Some(class), func)) = self.frames.last().map(|f| (f.class, f.id)) else {
                    return;
                };
                let base = self.val(&a.value, 0);
                let mut cv = self.call_val(call, self.val(&call.func, 0), 0);
                let (base, is_init) = match base {
                    Val::Super => (None, true),
                    // `Base.__init__(self, ...)`.
                    b @ (Val::Ref(_) | Val::LocalClass(_)) => {
                        let passes_self = matches!(cv.args.first(), Some(Val::SelfObj(_)));
                        if passes_self {
                            cv.args.remove(0);
                        }
                        (Some(b), passes_self)
                    }
                    _ => (None, false),
                };
                if is_init {
                    self.out.classes[class].supers.push(SuperInit {
                        base,
                        call: cv,
                        func,
                    });
                }
            }
            _ => {}
        }
    }

    // ----- expressions -----

    /// Records the copies and pickles in an expression.
    fn scan(&mut self, e: &'a Expr) {
        let mut calls: Vec<&'a ast::ExprCall> = Vec::new();
        let mut attrs: Vec<&'a ast::ExprAttribute> = Vec::new();
        collect_calls(e, &mut calls, &mut attrs, 0);
        for a in attrs {
            self.typed_read(a);
        }
        for call in calls {
            if let Expr::Name(n) = &*call.func {
                self.out.called.insert(n.id.to_string());
            }
            // Copy functions are named by dotted paths: a callee that is not one (`f()()`,
            // `df.a().b()`) is not evaluated (that made every call of a chain walk the chain).
            if !is_dotted_name(&call.func) {
                continue;
            }
            let Val::Ref(path) = self.val(&call.func, 0) else {
                continue;
            };
            let Some(&(func, kind, pos, kw, _list)) = COPY_FUNCTIONS.iter().find(|c| c.0 == path)
            else {
                continue;
            };
            let arg = call
                .arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == kw))
                .map(|k| &k.value)
                .or_else(|| call.arguments.args.get(pos));
            let Some(arg) = arg else {
                continue;
            };
            if matches!(arg, Expr::Starred(_)) {
                continue;
            }
            let callee = self.source(call.func.range());
            let arg_text = self.source(arg.range());
            let written = format!("{}({})", callee, shorten(arg_text));
            let val = self.val(arg, 0).capped();
            self.out.copies.push(CopySite {
                kind,
                func: func.to_string(),
                written,
                arg: val,
                range: call.range(),
                stmt_start: self.stmt_start,
                in_function: !self.frames.is_empty(),
                target: None,
            });
        }
    }

    /// The names an `if` test proves to be objects of a class: `isinstance(x, C)`, alone or
    /// in an `and` chain (one class, not a tuple).
    fn isinstance(&self, test: &Expr) -> Vec<(String, Val)> {
        match test {
            Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
                b.values.iter().flat_map(|v| self.isinstance(v)).collect()
            }
            Expr::Call(call) => {
                let is_builtin = matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "isinstance")
                    && self.lookup("isinstance") == Val::Unknown;
                match (is_builtin, &*call.arguments.args) {
                    (true, [Expr::Name(n), class]) => match self.val(class, 0) {
                        c @ (Val::Ref(_) | Val::LocalClass(_)) => {
                            vec![(n.id.to_string(), Val::Instance(Arc::new(c), call.range()))]
                        }
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// The expressions an assignment target reads (`a.b` in `a.b.c = v`, `a.b[k] = v`).
    fn scan_target(&mut self, t: &'a Expr) {
        match t {
            Expr::Attribute(a) => self.scan(&a.value),
            Expr::Subscript(s) => {
                self.scan(&s.value);
                self.scan(&s.slice);
            }
            Expr::Tuple(t) => t.elts.iter().for_each(|e| self.scan_target(e)),
            Expr::List(t) => t.elts.iter().for_each(|e| self.scan_target(e)),
            _ => {}
        }
    }

    /// Notes `x.attr` when `x` is known to be an object of a named class: built by calling an
    /// imported class, or a parameter annotated with one.
    fn typed_read(&mut self, a: &ast::ExprAttribute) {
        let Expr::Name(n) = &*a.value else {
            return;
        };
        let (class, how) = match self.lookup(n.id.as_str()) {
            Val::Call(c) => match &c.func {
                Val::Ref(p) if !p.starts_with('.') => (p.to_string(), TypeSource::Built(c.range)),
                _ => return,
            },
            Val::Instance(c, range) => match &*c {
                Val::Ref(p) if !p.starts_with('.') => (p.to_string(), TypeSource::Checked(range)),
                _ => return,
            },
            Val::Param(p) => {
                let Some(annotation) = &p.annotation else {
                    return;
                };
                let ids: Vec<&str> = annotation
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                    .filter(|s| !s.is_empty() && !matches!(*s, "Optional" | "None"))
                    .collect();
                let [one] = ids.as_slice() else {
                    return;
                };
                let mut parts = one.splitn(2, '.');
                let head = parts.next().unwrap_or(one);
                let Val::Ref(base) = self.lookup(head) else {
                    return;
                };
                let path = match parts.next() {
                    Some(rest) => format!("{base}.{rest}"),
                    None => base.to_string(),
                };
                if path.starts_with('.') {
                    return;
                }
                (path, TypeSource::Annotated(p.range))
            }
            _ => return,
        };
        self.out.typed.push(TypedRead {
            range: a.range(),
            class,
            how,
        });
    }

    fn val(&self, e: &Expr, depth: usize) -> Val {
        self.steps.set(self.steps.get() + 1);
        if depth > 64 {
            return Val::Unknown;
        }
        let d = depth + 1;
        match e {
            Expr::Name(n) => self.lookup(n.id.as_str()),
            Expr::Attribute(a) => {
                let base = self.val(&a.value, d);
                match base {
                    Val::Ref(p) => Val::Ref(atom(&format!("{p}.{}", a.attr.as_str()))),
                    b => Val::Attr(Arc::new(b), atom(a.attr.as_str()), a.range()),
                }
            }
            Expr::Call(call) => {
                let func = self.val(&call.func, d);
                match func {
                    Val::Builtin("super") => Val::Super,
                    Val::Builtin(b) if b == "dict" => {
                        let cv = self.call_val(call, Val::Builtin(b), d);
                        let mut entries: Vec<(Option<Atom>, Val, TextRange)> = Vec::new();
                        for a in cv.args {
                            match a {
                                Val::Dict(more) => entries.extend(more.iter().cloned()),
                                _ => entries.push((None, Val::Unknown, call.range())),
                            }
                        }
                        entries.extend(cv.kwargs.into_iter().map(|(k, v, r)| (Some(k), v, r)));
                        entries.extend(cv.splats.into_iter().map(|(v, r)| (None, v, r)));
                        Val::Dict(Arc::new(entries))
                    }
                    func => Val::Call(Arc::new(self.call_val(call, func, d))),
                }
            }
            Expr::Dict(dict) => Val::Dict(Arc::new(
                dict.items
                    .iter()
                    .filter_map(|item| match &item.key {
                        None => Some((None, self.val(&item.value, d), item.value.range())),
                        Some(Expr::StringLiteral(k)) => Some((
                            Some(key_atom(k.value.to_str())),
                            self.val(&item.value, d),
                            item.value.range(),
                        )),
                        Some(_) => None,
                    })
                    .collect(),
            )),
            Expr::List(l) => Val::Seq(Arc::new(l.elts.iter().map(|x| self.val(x, d)).collect())),
            Expr::Tuple(t) => Val::Seq(Arc::new(t.elts.iter().map(|x| self.val(x, d)).collect())),
            Expr::Set(s) => Val::Seq(Arc::new(s.elts.iter().map(|x| self.val(x, d)).collect())),
            Expr::NoneLiteral(_) => Val::NoneLit,
            Expr::NumberLiteral(_)
            | Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::FString(_)
            | Expr::EllipsisLiteral(_) => Val::Lit,
            Expr::If(i) => Val::Either(
                Arc::new(self.val(&i.body, d)),
                Arc::new(self.val(&i.orelse, d)),
            ),
            Expr::BoolOp(b) => {
                let mut out: Option<Val> = None;
                for v in &b.values {
                    let v = self.val(v, d);
                    out = Some(match out {
                        None => v,
                        Some(prev) => Val::Either(Arc::new(prev), Arc::new(v)),
                    });
                }
                out.unwrap_or(Val::Unknown)
            }
            Expr::Named(n) => self.val(&n.value, d),
            Expr::Subscript(sub) => {
                let key = match &*sub.slice {
                    Expr::StringLiteral(k) => Some(Key::Name(key_atom(k.value.to_str()))),
                    Expr::NumberLiteral(ast::ExprNumberLiteral {
                        value: ast::Number::Int(i),
                        ..
                    }) => i.as_usize().map(Key::Position),
                    _ => None,
                };
                Val::Index(Arc::new(self.val(&sub.value, d)), key)
            }
            _ => Val::Unknown,
        }
        .capped()
    }

    /// The call's arguments, evaluated once each; `func` is the callee's value (evaluated by
    /// the caller: evaluating it here again made chains `f()()()` exponential).
    fn call_val(&self, call: &ast::ExprCall, func: Val, d: usize) -> CallVal {
        let mut args = Vec::new();
        let mut star_args = false;
        for a in call.arguments.args.iter() {
            if let Expr::Starred(_) = a {
                star_args = true;
                continue;
            }
            if !star_args {
                args.push(self.val(a, d));
            }
        }
        let mut kwargs = Vec::new();
        let mut splats = Vec::new();
        for k in call.arguments.keywords.iter() {
            let v = self.val(&k.value, d);
            match &k.arg {
                Some(name) => kwargs.push((atom(name.as_str()), v, k.range())),
                None => splats.push((v, k.range())),
            }
        }
        CallVal {
            func,
            args,
            star_args,
            kwargs,
            splats,
            range: call.range(),
        }
    }
}

/// `a_very_long_expression(...)` shortened for messages.
/// A string key of a dict or subscript, interned; a key too long to be a name (the only keys
/// the rule looks up) is kept as one that matches no name, so the table of names stays small.
fn key_atom(s: &str) -> Atom {
    if s.len() <= 128 {
        atom(s)
    } else {
        "\u{0}long key"
    }
}

fn shorten(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 40 {
        let head: String = one_line.chars().take(37).collect();
        format!("{head}...")
    } else {
        one_line
    }
}

/// The calls in an expression, outermost first (not inside lambdas).
fn collect_calls<'a>(
    e: &'a Expr,
    out: &mut Vec<&'a ast::ExprCall>,
    attrs: &mut Vec<&'a ast::ExprAttribute>,
    depth: usize,
) {
    use ruff_python_ast::visitor::{self, Visitor};
    struct V<'a, 'o> {
        out: &'o mut Vec<&'a ast::ExprCall>,
        attrs: &'o mut Vec<&'a ast::ExprAttribute>,
        depth: usize,
    }
    impl<'a> Visitor<'a> for V<'a, '_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.depth >= MAX_DEPTH {
                return;
            }
            if let Expr::Lambda(_) = e {
                return;
            }
            if let Expr::Call(c) = e {
                self.out.push(c);
            }
            if let Expr::Attribute(a) = e {
                if matches!(&*a.value, Expr::Name(_)) {
                    self.attrs.push(a);
                }
            }
            self.depth += 1;
            visitor::walk_expr(self, e);
            self.depth -= 1;
        }
    }
    let mut v = V { out, attrs, depth };
    v.visit_expr(e);
}

/// `a`, `a.b.c`: names and attributes only.
fn is_dotted_name(mut e: &Expr) -> bool {
    loop {
        match e {
            Expr::Name(_) => return true,
            Expr::Attribute(a) => e = &a.value,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(src: &str) -> FileFacts {
        let parsed = ruff_python_parser::parse_module(src).expect("parses");
        extract(parsed.suite(), src)
    }

    #[test]
    fn kwargs_dict_and_stores_are_traced() {
        let f = facts(
            "\
from copy import deepcopy
from .model import Model

class M:
    def __init__(self, cfg, process_group=None):
        super().__init__()
        self.process_group = process_group

def main(plugin):
    kwargs = dict(process_group=plugin.tp_group)
    model = Model(cfg, **kwargs)
    ema = deepcopy(model)
",
        );
        assert_eq!(f.classes.len(), 1);
        let c = &f.classes[0];
        assert_eq!(c.stores.len(), 1);
        assert_eq!(c.stores[0].attr, "process_group");
        assert!(matches!(&c.stores[0].val, Val::Param(p) if p.name == "process_group"));
        assert_eq!(c.supers.len(), 1);
        assert_eq!(f.copies.len(), 1);
        let site = &f.copies[0];
        assert_eq!(site.written, "deepcopy(model)");
        let Val::Call(call) = &site.arg else {
            panic!("{:?}", site.arg)
        };
        assert_eq!(call.func, Val::Ref(".model.Model"));
        assert_eq!(call.splats.len(), 1);
        assert!(matches!(&call.splats[0].0, Val::Dict(e) if e[0].0 == Some("process_group")));
    }

    #[test]
    fn copies_through_aliases_and_keywords() {
        let f = facts(
            "\
import copy as cp
import torch
import torch.distributed as dist
x = 1
cp.deepcopy(x)
torch.save(obj=x, f='a')
dist.broadcast_object_list([x], src=0)
copy.deepcopy(x)
",
        );
        let funcs: Vec<&str> = f.copies.iter().map(|c| c.func.as_str()).collect();
        assert_eq!(
            funcs,
            [
                "copy.deepcopy",
                "torch.save",
                "torch.distributed.broadcast_object_list"
            ]
        );
    }
}
