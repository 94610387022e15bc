//! Walks one parsed file and collects every use of an indexed package: imports, attribute
//! chains on names bound by imports, `getattr` with a literal name and keyword arguments,
//! each with where it runs (import time or call time), whether the code guards it, and which
//! releases its branch runs on.

use std::collections::{HashMap, HashSet};

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, CmpOp, Expr, ExprContext, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::model::Reach;
use crate::versions::{
    Bound as VBound, HelperCall, Op, Pred, Restriction, VersionHelper, HELPER_ROOT,
};

/// Statements and expressions nested deeper than this are not followed (AC007).
pub const MAX_DEPTH: usize = 1500;

/// What a use does with its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UseKind {
    /// `import a.b`, `from a import b` (`path` = `a.b`), `from a import *` (`path` = `a`).
    Import,
    /// `a.b.c` on a name bound by an import.
    Attribute,
    /// `getattr(a, "b")`.
    Getattr,
    /// A keyword argument of a call of `path`.
    Keyword(String),
    /// A call of `path` with these arguments (no `*args`, no `**kwargs`), for AC013.
    Call(crate::rules::CallShape),
}

/// One use of a dotted path.
#[derive(Debug, Clone)]
pub struct Use {
    pub kind: UseKind,
    pub path: String,
    /// For uses through a name: the path the name is bound to. Releases that lack it are left
    /// to the finding on the import.
    pub base: Option<String>,
    pub range: TextRange,
    /// Start of the statement the use is in (a `# noqa` comment on that line counts too).
    pub stmt_start: TextSize,
    /// Import time or call time.
    pub reach: Reach,
    pub guarded: bool,
    /// Conditions on releases (by top-level module) under which the use runs.
    pub versions: Vec<(String, Pred)>,
    /// For a member of an object: what the semantic model knows of the object.
    pub receiver: Option<ObjectReceiver>,
}

/// The object a member use reads from (see [`crate::objects`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectReceiver {
    /// The object is of exactly the class of the use's path; otherwise the class is a bound
    /// (a subclass may stand for it), and only releases that drop a member the class has
    /// elsewhere break the use.
    pub exact: bool,
    /// The receiver as written (`self.proj`, `torch.zeros(3)`).
    pub text: String,
    /// The project class of the object, when the member comes from its indexed base.
    pub project_class: Option<String>,
}

/// Where an attribute read on an object of unknown type, or a `**mapping` argument, runs, for
/// the semantic model to judge once it knows the object ([`crate::objects`]).
#[derive(Debug, Clone)]
pub struct SiteContext {
    /// The whole `receiver.name` expression, or the `**mapping` argument.
    pub range: TextRange,
    pub stmt_start: TextSize,
    pub reach: Reach,
    pub guarded: bool,
    /// The arguments of a call there are guarded (`except TypeError`).
    pub call_guarded: bool,
    pub versions: Box<[(String, Pred)]>,
}

/// What one file uses.
#[derive(Debug, Clone, Default)]
pub struct FileUses {
    pub uses: Vec<Use>,
    /// The functions the module defines at top level, with the [`VersionHelper`] each is, if
    /// it is one; other files' conditions on helpers are resolved with
    /// [`crate::files::resolve_project_helpers`].
    pub helpers: Vec<(String, Option<VersionHelper>)>,
    /// Absolute imports whose top-level module is not indexed: (module, where).
    pub foreign: Vec<(String, TextRange)>,
    /// Where nesting got too deep to follow, if it did.
    pub too_deep: Option<TextRange>,
    /// Imports of modules outside the indexed packages that run when the module is imported
    /// (not inside functions), for the import chains of [`crate::chains`].
    pub imports: Vec<ModuleImport>,
    /// The module has an `if __name__ == "__main__":` block: it is an entry point.
    pub is_main: bool,
    /// Attributes read on objects whose type is not known (`optimizer._param_store`).
    pub members: Vec<MemberUse>,
    /// Names the file defines or binds (see [`crate::members::Definitions`]).
    pub definitions: crate::members::Definitions,
    /// Every attribute read on an expression that is not an indexed path, and every
    /// `**mapping` argument.
    pub sites: Vec<SiteContext>,
    /// Module-level string constants (`MIN_VERSION = "2.4.0"`), for conditions of other files.
    pub constants: Vec<(String, String)>,
}

/// An attribute read on an object whose type is not known statically: the receiver is a
/// parameter, a local variable, a call result. Only its name can be checked against the index.
#[derive(Debug, Clone)]
pub struct MemberUse {
    pub name: String,
    /// The receiver as written when it is a dotted name (`optimizer`, `self.opt`), else `(...)`.
    pub receiver: String,
    /// The first name of a dotted receiver (`self` for `self.opt`).
    pub root: Option<String>,
    pub range: TextRange,
    pub stmt_start: TextSize,
    pub reach: Reach,
    pub guarded: bool,
    pub versions: Vec<(String, Pred)>,
}

/// An import statement's target, as written: `import a.b` (`level` 0, `module` `a.b`, no
/// names), `from ..x import y, z` (`level` 2, `module` `x`, names `y`, `z`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleImport {
    pub level: u32,
    pub module: Option<String>,
    pub names: Vec<String>,
}

/// Collects the uses of the top-level modules in `roots`.
pub fn collect(suite: &[Stmt], roots: &HashSet<String>) -> FileUses {
    collect_in(suite, roots, true)
}

/// [`collect`], told whether the source may hold an assignment expression (`:=`, the only
/// binding inside an expression): without one, the names a function binds are found from its
/// statements' targets alone.
pub fn collect_in(suite: &[Stmt], roots: &HashSet<String>, walrus: bool) -> FileUses {
    let mut w = Walker {
        walrus,
        roots,
        scopes: vec![Scope::new(ScopeKind::Module)],
        ctx: Ctx::default(),
        deferred: vec![Vec::new()],
        out: FileUses::default(),
        depth: 0,
        stmt_start: TextSize::default(),
        future_annotations: false,
        continuation: None,
    };
    w.body(suite);
    w.run_deferred();
    w.out.definitions = crate::members::Definitions::of(suite);
    w.out
}

#[derive(Debug, Clone)]
enum Bound {
    /// A module, class, function or other object of an indexed package.
    Path {
        path: String,
        guarded: bool,
        versions: Vec<(String, Pred)>,
    },
    /// A value derived from `ROOT.__version__`.
    VersionOf(String),
    /// A boolean computed from a version check.
    Cond(Restriction),
    /// A function that compares a package's version with its parameter.
    Helper(VersionHelper),
    /// Another function defined in the file (it hides helpers of the same name elsewhere).
    Function,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScopeKind {
    Module,
    Function,
    Class,
    Comprehension,
}

#[derive(Debug)]
struct Scope {
    kind: ScopeKind,
    names: FxMap<String, Bound>,
    /// Names assigned anywhere in the function: they hide the enclosing scopes' names.
    locals: FxSet<String>,
    globals: FxSet<String>,
}

impl Scope {
    fn new(kind: ScopeKind) -> Scope {
        Scope {
            kind,
            names: FxMap::default(),
            locals: FxSet::default(),
            globals: FxSet::default(),
        }
    }
}

/// Where the walk is.
#[derive(Debug, Clone, Default)]
struct Ctx {
    in_function: bool,
    /// In the body of a `try` whose handlers catch `ImportError` and the like.
    try_guard: bool,
    /// In the body of a `try` whose handlers catch `TypeError`: the arguments of calls are
    /// guarded (AC003, AC013), not the names used.
    call_guard: bool,
    /// In an `except` handler: a fallback assigned to an imported name keeps the import.
    handler: bool,
    /// Paths known to exist here (`if hasattr(mod, "x")`).
    has: Vec<String>,
    versions: Vec<(String, Pred)>,
}

/// What a condition tells.
#[derive(Debug, Clone, Default)]
struct CondInfo {
    restriction: Restriction,
    /// Paths that exist when the condition is true / false.
    has: Vec<String>,
    has_neg: Vec<String>,
}

struct Walker<'a> {
    roots: &'a HashSet<String>,
    /// The source may hold `:=` (see [`collect_in`]).
    walrus: bool,
    scopes: Vec<Scope>,
    ctx: Ctx,
    /// Function bodies to walk when the enclosing scope is done (they run later).
    deferred: Vec<Vec<(&'a ast::StmtFunctionDef, Ctx)>>,
    out: FileUses,
    depth: usize,
    stmt_start: TextSize,
    future_annotations: bool,
    /// Set by an `if` whose branches all leave the block but one: the context of the rest of
    /// the block (taken by [`Walker::body`]).
    continuation: Option<Ctx>,
}

const GUARD_EXCEPTIONS: &[&str] = &[
    "ImportError",
    "ModuleNotFoundError",
    "AttributeError",
    "Exception",
    "BaseException",
];

const VERSION_PARSERS: &[&str] = &[
    "parse",
    "Version",
    "LooseVersion",
    "StrictVersion",
    "parse_version",
    "TorchVersion",
    "str",
];

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// `a.b.c` for a chain of names and attributes.
fn dotted(expr: &Expr) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let mut cur = expr;
    loop {
        match cur {
            Expr::Name(n) => {
                parts.push(n.id.as_str());
                break;
            }
            Expr::Attribute(a) if parts.len() < MAX_CHAIN => {
                parts.push(a.attr.as_str());
                cur = &a.value;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}

/// Dotted paths longer than this are not followed (no indexed path is that long; following
/// each level of a chain of thousands made walking it quadratic).
const MAX_CHAIN: usize = 64;

fn string_lit(expr: &Expr) -> Option<String> {
    match expr {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

fn op_of(op: CmpOp) -> Option<Op> {
    Some(match op {
        CmpOp::Lt => Op::Lt,
        CmpOp::LtE => Op::Le,
        CmpOp::Gt => Op::Gt,
        CmpOp::GtE => Op::Ge,
        CmpOp::Eq => Op::Eq,
        CmpOp::NotEq => Op::Ne,
        _ => return None,
    })
}

fn incomplete() -> Restriction {
    Restriction {
        parts: Vec::new(),
        complete: false,
    }
}

impl<'a> Walker<'a> {
    // ----- scopes -----

    fn lookup(&self, name: &str) -> Option<&Bound> {
        let innermost = self.scopes.len().saturating_sub(1);
        for (i, scope) in self.scopes.iter().enumerate().rev() {
            if scope.globals.contains(name) {
                return self.scopes.first()?.names.get(name);
            }
            if scope.kind == ScopeKind::Class && i != innermost {
                continue;
            }
            if let Some(b) = scope.names.get(name) {
                return Some(b);
            }
            if scope.locals.contains(name) {
                return None;
            }
        }
        None
    }

    /// The scope a name is bound in.
    fn binding_scope(&mut self, name: &str) -> Option<&mut Scope> {
        let global = self
            .scopes
            .iter()
            .rev()
            .find(|s| s.kind != ScopeKind::Comprehension)
            .is_some_and(|s| s.globals.contains(name));
        if global {
            return self.scopes.first_mut();
        }
        self.scopes
            .iter_mut()
            .rev()
            .find(|s| s.kind != ScopeKind::Comprehension)
    }

    fn bind(&mut self, name: &str, bound: Bound) {
        if let Some(scope) = self.binding_scope(name) {
            scope.names.insert(name.to_string(), bound);
        }
    }

    /// A store that is not an import.
    fn store(&mut self, name: &str) {
        let handler = self.ctx.handler;
        // Comprehension targets live in the comprehension's own scope.
        if let Some(scope) = self.scopes.last_mut() {
            if scope.kind == ScopeKind::Comprehension && scope.locals.contains(name) {
                scope.names.remove(name);
                return;
            }
        }
        if let Some(scope) = self.binding_scope(name) {
            match scope.names.get_mut(name) {
                // `except ImportError: X = None` keeps what the try imported.
                Some(Bound::Path { guarded, .. }) if handler => *guarded = true,
                _ => {
                    scope.names.remove(name);
                }
            }
        }
    }

    /// A binding for a path, carrying the guards and conditions of where it is made.
    fn path_binding(&self, path: String, base: Option<&Bound>) -> Bound {
        let (mut guarded, mut versions) = match base {
            Some(Bound::Path {
                guarded, versions, ..
            }) => (*guarded, versions.clone()),
            _ => (false, Vec::new()),
        };
        guarded |= self.ctx.try_guard || self.has_guard(&path);
        versions.extend(self.ctx.versions.iter().cloned());
        Bound::Path {
            path,
            guarded,
            versions,
        }
    }

    fn has_guard(&self, path: &str) -> bool {
        self.ctx.has.iter().any(|h| {
            path == h
                || path
                    .strip_prefix(h.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    }

    // ----- uses -----

    fn emit(&mut self, kind: UseKind, path: String, range: TextRange, via: Option<&Bound>) {
        if matches!(
            kind,
            UseKind::Import | UseKind::Attribute | UseKind::Getattr
        ) && is_dunder(last_segment(&path))
        {
            return;
        }
        // A guard of the binding (an import in `try: ... except ImportError`, under `hasattr`)
        // covers the bound path itself; a use of more than that is guarded only by what tests
        // it (releases that lack the bound path are left to the import's finding).
        let (base, mut guarded, mut versions) = match via {
            Some(Bound::Path {
                path: bound,
                guarded,
                versions,
            }) => {
                let same =
                    *bound == path && !matches!(kind, UseKind::Keyword(_) | UseKind::Call(_));
                (Some(bound.clone()), *guarded && same, versions.clone())
            }
            _ => (None, false, Vec::new()),
        };
        guarded |= self.ctx.try_guard || self.has_guard(&path);
        guarded |= self.ctx.call_guard && matches!(kind, UseKind::Keyword(_) | UseKind::Call(_));
        versions.extend(self.ctx.versions.iter().cloned());
        self.out.uses.push(Use {
            kind,
            path,
            base,
            range,
            stmt_start: self.stmt_start,
            reach: self.reach(),
            guarded,
            versions,
            receiver: None,
        });
    }

    /// The indexed path an expression names, with the binding it goes through.
    fn resolve(&self, expr: &Expr) -> Option<(String, Bound)> {
        // The base name first: most chains (`self.x.y`) are not on an indexed package, and
        // then nothing is allocated.
        let mut cur = expr;
        let mut len = 0;
        let mut segments = 0;
        while let Expr::Attribute(a) = cur {
            segments += 1;
            if segments > MAX_CHAIN {
                return None;
            }
            len += 1 + a.attr.len();
            cur = &a.value;
        }
        let Expr::Name(n) = cur else {
            return None;
        };
        let bound = self.lookup(n.id.as_str())?;
        let Bound::Path { path, .. } = bound else {
            return None;
        };
        let mut attrs: Vec<&str> = Vec::new();
        let mut cur = expr;
        while let Expr::Attribute(a) = cur {
            attrs.push(a.attr.as_str());
            cur = &a.value;
        }
        let mut full = String::with_capacity(path.len() + len);
        full.push_str(path);
        for a in attrs.iter().rev() {
            full.push('.');
            full.push_str(a);
        }
        Some((full, bound.clone()))
    }

    fn is_builtin(&self, expr: &Expr, name: &str) -> bool {
        matches!(expr, Expr::Name(n) if n.id.as_str() == name) && self.lookup(name).is_none()
    }

    // ----- statements -----

    /// A block. After an `if` whose branches all leave the block but one (`if not
    /// hasattr(torch, "x"): return`, `if torch.__version__ < "2.4": raise ...`), the rest of
    /// the block runs only where that branch's condition holds.
    fn body(&mut self, body: &'a [Stmt]) {
        let mut outer: Option<Ctx> = None;
        for stmt in body {
            self.visit_stmt(stmt);
            if let Some(rest) = self.continuation.take() {
                let before = std::mem::replace(&mut self.ctx, rest);
                outer.get_or_insert(before);
            }
        }
        if let Some(ctx) = outer {
            self.ctx = ctx;
        }
    }

    fn with_ctx(&mut self, ctx: Ctx, f: impl FnOnce(&mut Self)) {
        let saved = std::mem::replace(&mut self.ctx, ctx);
        f(self);
        self.ctx = saved;
    }

    fn run_deferred(&mut self) {
        let list = self
            .deferred
            .last_mut()
            .map(std::mem::take)
            .unwrap_or_default();
        for (f, ctx) in list {
            self.function_body(f, ctx);
        }
    }

    fn function_body(&mut self, f: &'a ast::StmtFunctionDef, ctx: Ctx) {
        let mut scope = Scope::new(ScopeKind::Function);
        let mut locals = LocalNames {
            walrus: self.walrus,
            ..LocalNames::default()
        };
        for p in f.parameters.iter() {
            locals.names.insert(p.name().to_string());
        }
        for stmt in &f.body {
            locals.visit_stmt(stmt);
        }
        scope.locals = locals.names;
        scope.globals = locals.globals;
        self.scopes.push(scope);
        self.deferred.push(Vec::new());
        let ctx = Ctx {
            in_function: true,
            try_guard: false,
            call_guard: false,
            handler: false,
            ..ctx
        };
        let saved_start = self.stmt_start;
        self.with_ctx(ctx, |w| {
            w.body(&f.body);
            w.run_deferred();
        });
        self.stmt_start = saved_start;
        self.deferred.pop();
        self.scopes.pop();
    }

    fn import(&mut self, imp: &'a ast::StmtImport) {
        for alias in &imp.names {
            let full = alias.name.as_str();
            let root = full.split('.').next().unwrap_or(full);
            let bound_name = alias.asname.as_ref().map_or(root, |a| a.as_str());
            if !self.roots.contains(root) {
                if !self.ctx.in_function {
                    self.out.imports.push(ModuleImport {
                        level: 0,
                        module: Some(full.to_string()),
                        names: Vec::new(),
                    });
                }
                self.out.foreign.push((root.to_string(), alias.range()));
                self.store(bound_name);
                continue;
            }
            self.emit(UseKind::Import, full.to_string(), alias.range(), None);
            let path = if alias.asname.is_some() { full } else { root };
            let b = self.path_binding(path.to_string(), None);
            self.bind(bound_name, b);
        }
    }

    fn import_from(&mut self, imp: &'a ast::StmtImportFrom) {
        let indexed = imp.level == 0
            && imp.module.as_ref().is_some_and(|m| {
                self.roots
                    .contains(m.as_str().split('.').next().unwrap_or(m.as_str()))
            });
        if !self.ctx.in_function && !indexed {
            self.out.imports.push(ModuleImport {
                level: imp.level,
                module: imp.module.as_ref().map(|m| m.to_string()),
                names: imp.names.iter().map(|a| a.name.to_string()).collect(),
            });
        }
        let module = match (&imp.module, imp.level) {
            (Some(m), 0) => m.as_str(),
            _ => {
                // Relative: first-party, not checked.
                for alias in &imp.names {
                    let name = alias.asname.as_ref().unwrap_or(&alias.name);
                    self.store(name.as_str());
                }
                return;
            }
        };
        if module == "__future__" {
            self.future_annotations |= imp.names.iter().any(|a| a.name.as_str() == "annotations");
            return;
        }
        let root = module.split('.').next().unwrap_or(module);
        let indexed = self.roots.contains(root);
        if !indexed {
            self.out.foreign.push((root.to_string(), imp.range()));
        }
        for alias in &imp.names {
            let name = alias.name.as_str();
            if name == "*" {
                if indexed {
                    self.emit(UseKind::Import, module.to_string(), alias.range(), None);
                }
                continue;
            }
            let bound_name = alias.asname.as_ref().map_or(name, |a| a.as_str());
            if !indexed {
                self.store(bound_name);
                continue;
            }
            let path = format!("{module}.{name}");
            self.emit(UseKind::Import, path.clone(), alias.range(), None);
            let b = self.path_binding(path, None);
            self.bind(bound_name, b);
        }
    }

    fn assign_name(&mut self, name: &str, value: &Expr) {
        // `require_fsdp2 = unittest.skipUnless(is_torch_version(">=", "2.5"), "...")`.
        if let Some(h) = self.skip_condition(value).and_then(implying) {
            if self.scopes.len() == 1 {
                self.out.helpers.push((name.to_string(), Some(h.clone())));
            }
            self.bind(name, Bound::Helper(h));
            return;
        }
        if self.scopes.len() == 1 {
            if let Some(text) = string_lit(value) {
                if text.len() <= 64 {
                    self.out.constants.push((name.to_string(), text));
                }
            }
        }
        if let Some(root) = self.version_root(value, 0) {
            self.bind(name, Bound::VersionOf(root));
            return;
        }
        if let Expr::Lambda(l) = value {
            if let Some(h) = l
                .parameters
                .as_deref()
                .and_then(|p| self.helper_expr(p, &l.body))
            {
                if self.scopes.len() == 1 {
                    self.out.helpers.push((name.to_string(), Some(h.clone())));
                }
                self.bind(name, Bound::Helper(h));
                return;
            }
        }
        if matches!(
            value,
            Expr::Compare(_) | Expr::BoolOp(_) | Expr::UnaryOp(_) | Expr::Call(_)
        ) {
            let info = self.cond_info(value);
            if !info.restriction.parts.is_empty() {
                self.bind(name, Bound::Cond(info.restriction));
                return;
            }
        }
        if let Some((path, via)) = self.resolve(value) {
            let b = self.path_binding(path, Some(&via));
            self.bind(name, b);
            return;
        }
        if value.is_none_literal_expr() && matches!(self.lookup(name), Some(Bound::Path { .. })) {
            return;
        }
        self.store(name);
    }

    fn if_stmt(&mut self, s: &'a ast::StmtIf) {
        if is_type_checking(&s.test) {
            // Only for type checkers: the body never runs.
            for clause in &s.elif_else_clauses {
                if let Some(test) = &clause.test {
                    self.visit_expr(test);
                }
                self.body(&clause.body);
            }
            return;
        }
        if self.scopes.len() == 1 && is_main_test(&s.test) {
            self.out.is_main = true;
        }
        self.visit_expr(&s.test);
        let info = self.cond_info(&s.test);
        let branch = self.branch_ctx(&info, true);
        // The contexts of the branches that fall through to the rest of the block.
        let mut through: Vec<Ctx> = Vec::new();
        if !leaves(&s.body) {
            through.push(branch.clone());
        }
        self.with_ctx(branch, |w| w.body(&s.body));
        // Each later clause runs when the earlier conditions were false.
        let mut before = self.branch_ctx(&info, false);
        let mut has_else = false;
        for clause in &s.elif_else_clauses {
            match &clause.test {
                Some(test) => {
                    self.with_ctx(before.clone(), |w| w.visit_expr(test));
                    let saved = std::mem::replace(&mut self.ctx, before.clone());
                    let info = self.cond_info(test);
                    let inner = self.branch_ctx(&info, true);
                    let next = self.branch_ctx(&info, false);
                    self.ctx = saved;
                    if !leaves(&clause.body) {
                        through.push(inner.clone());
                    }
                    self.with_ctx(inner, |w| w.body(&clause.body));
                    before = next;
                }
                None => {
                    has_else = true;
                    if !leaves(&clause.body) {
                        through.push(before.clone());
                    }
                    self.with_ctx(before.clone(), |w| w.body(&clause.body));
                }
            }
        }
        if !has_else {
            through.push(before);
        }
        // One way on: the rest of the block runs under its conditions.
        if let [only] = &mut through[..] {
            self.continuation = Some(std::mem::take(only));
        }
    }

    /// The context of the branch taken when a condition is `truth`.
    fn branch_ctx(&self, info: &CondInfo, truth: bool) -> Ctx {
        let mut ctx = self.ctx.clone();
        if truth {
            ctx.versions.extend(info.restriction.parts.iter().cloned());
            ctx.has.extend(info.has.iter().cloned());
        } else {
            if let Some(neg) = info.restriction.negate() {
                ctx.versions.extend(neg.parts);
            }
            ctx.has.extend(info.has_neg.iter().cloned());
        }
        ctx
    }

    fn try_stmt(&mut self, t: &'a ast::StmtTry) {
        // A handler that raises again (`except ImportError: raise ImportError("needs ...")`)
        // is no guard: the failure still happens, with another message.
        let catches = |is: &dyn Fn(&Expr) -> bool| {
            t.handlers.iter().any(|h| {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                let raises = matches!(h.body.last(), Some(Stmt::Raise(_)));
                !raises
                    && match h.type_.as_deref() {
                        None => true,
                        Some(Expr::Tuple(tuple)) => tuple.elts.iter().any(is),
                        Some(e) => is(e),
                    }
            })
        };
        let guards = catches(&is_guard_exception);
        let call_guards =
            catches(&|e: &Expr| dotted(e).is_some_and(|d| last_segment(&d) == "TypeError"));
        let mut body_ctx = self.ctx.clone();
        body_ctx.try_guard |= guards;
        body_ctx.call_guard |= call_guards;
        self.with_ctx(body_ctx, |w| w.body(&t.body));
        for h in &t.handlers {
            let ast::ExceptHandler::ExceptHandler(h) = h;
            if let Some(ty) = &h.type_ {
                self.visit_expr(ty);
            }
            if let Some(name) = &h.name {
                self.store(name.as_str());
            }
            let mut hctx = self.ctx.clone();
            hctx.handler = true;
            self.with_ctx(hctx, |w| w.body(&h.body));
        }
        self.body(&t.orelse);
        self.body(&t.finalbody);
    }

    fn with_stmt(&mut self, w: &'a ast::StmtWith) {
        let mut suppresses = false;
        for item in &w.items {
            self.visit_expr(&item.context_expr);
            if let Expr::Call(call) = &item.context_expr {
                let name = dotted(&call.func);
                let is_suppress = name.as_deref().map(last_segment) == Some("suppress");
                suppresses |= is_suppress && call.arguments.args.iter().any(is_guard_exception);
            }
            if let Some(vars) = &item.optional_vars {
                self.visit_expr(vars);
            }
        }
        let mut ctx = self.ctx.clone();
        ctx.try_guard |= suppresses;
        self.with_ctx(ctx, |s| s.body(&w.body));
    }

    fn function_def(&mut self, f: &'a ast::StmtFunctionDef) {
        for d in &f.decorator_list {
            self.visit_expr(&d.expression);
        }
        for p in f.parameters.iter_non_variadic_params() {
            if let Some(default) = &p.default {
                self.visit_expr(default);
            }
        }
        for p in f.parameters.iter() {
            if let Some(ann) = p.annotation() {
                self.visit_annotation(ann);
            }
        }
        if let Some(r) = &f.returns {
            self.visit_annotation(r);
        }
        let helper = self.version_helper(&f.parameters, &f.body);
        if self.scopes.len() == 1 {
            self.out.helpers.push((f.name.to_string(), helper.clone()));
        }
        match helper {
            Some(h) => self.bind(f.name.as_str(), Bound::Helper(h)),
            None => {
                let name = f.name.as_str();
                // `except ImportError: def name(...)`: a fallback keeps what the try imported.
                if self.ctx.handler && matches!(self.lookup(name), Some(Bound::Path { .. })) {
                    self.store(name);
                } else {
                    self.bind(name, Bound::Function);
                }
            }
        }
        let mut ctx = self.ctx.clone();
        ctx.versions
            .extend(self.decorator_conditions(&f.decorator_list));
        if let Some(list) = self.deferred.last_mut() {
            list.push((f, ctx));
        }
    }

    /// The conditions under which a function or class decorated with `decorators` runs its
    /// body: `unittest.skipUnless(C, ...)` (C), `unittest.skipIf(C, ...)` and
    /// `pytest.mark.skipif(C, ...)` (not C), and names bound to those (`require_fsdp2 =
    /// unittest.skipUnless(...)`) here or, resolved once every file is read, in another module.
    fn decorator_conditions(&self, decorators: &[ast::Decorator]) -> Vec<(String, Pred)> {
        let mut out = Vec::new();
        for d in decorators {
            if let Some(parts) = self.skip_condition(&d.expression) {
                out.extend(parts);
                continue;
            }
            let name = match &d.expression {
                Expr::Name(n) => match self.lookup(n.id.as_str()) {
                    Some(Bound::Helper(h)) => {
                        out.extend(h.implies.clone());
                        continue;
                    }
                    Some(_) => continue,
                    None => n.id.to_string(),
                },
                e @ Expr::Attribute(_) => match dotted(e) {
                    Some(d) if self.resolve(e).is_none() => last_segment(&d).to_string(),
                    _ => continue,
                },
                _ => continue,
            };
            let call = HelperCall {
                arg: None,
                op: None,
                root: None,
                args: 0,
            };
            out.push((HELPER_ROOT.to_string(), Pred::Helper { name, call }));
        }
        out
    }

    /// The condition a test-skipping decorator lets the body run under.
    fn skip_condition(&self, e: &Expr) -> Option<Vec<(String, Pred)>> {
        let Expr::Call(call) = e else {
            return None;
        };
        let name = dotted(&call.func)?;
        let runs_if = match last_segment(&name) {
            "skipUnless" => true,
            "skipIf" | "skipif" => false,
            _ => return None,
        };
        let cond = call.arguments.args.first()?;
        let info = self.cond_info(cond);
        if runs_if {
            Some(info.restriction.parts)
        } else {
            Some(info.restriction.negate()?.parts)
        }
    }

    /// A function whose body (after a docstring) is `return V op P`: `V` derived from an indexed
    /// package's `__version__`, `P` a parameter (or `parse(P)`, `Version(P)`...), in either
    /// order.
    ///
    /// Or whose last statement returns a comparison through an operator the caller names:
    /// `return OPS[operation](V, parse(P))`, or `operation = OPS[operation]` before `return
    /// operation(V, parse(P))` (`OPS` a table from `">="` and the like to `operator.ge`...; a
    /// comparator when `V` is a parameter too), or a call of such a comparator of this file
    /// with a package's version (`return compare_versions(torch_version, operation, v)`).
    fn version_helper(&self, params: &ast::Parameters, body: &[Stmt]) -> Option<VersionHelper> {
        let body = match body {
            [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
            b => b,
        };
        if let [Stmt::Return(ret)] = body {
            if let Some(h) = self.helper_expr(params, ret.value.as_deref()?) {
                return Some(h);
            }
        }
        let Some(Stmt::Return(ret)) = body.last() else {
            return self.implied_when_true(body);
        };
        let Some(Expr::Call(call)) = ret.value.as_deref() else {
            return self.implied_when_true(body);
        };
        let positional: Vec<&str> = params
            .posonlyargs
            .iter()
            .chain(&params.args)
            .map(|p| p.name().as_str())
            .collect();
        let pos = |name: &str| positional.iter().position(|p| *p == name);
        let args = &call.arguments.args;
        if let Some(op_name) = op_lookup(&call.func, body, &positional) {
            let [left, right] = &**args else {
                return None;
            };
            let param = version_param_of(params, right)?;
            let position = pos(&param)?;
            let op_param = Some(pos(op_name)?);
            if let Some(root) = self.version_root(left, 0) {
                return Some(VersionHelper {
                    root,
                    op: Op::Eq,
                    param,
                    position,
                    op_param,
                    version_param: None,
                    implies: None,
                });
            }
            let Expr::Name(v) = left else {
                return None;
            };
            return Some(VersionHelper {
                root: String::new(),
                op: Op::Eq,
                param,
                position,
                op_param,
                version_param: Some(pos(v.id.as_str())?),
                implies: None,
            });
        }
        // A comparator of this file given a package's version.
        let Expr::Name(f) = &*call.func else {
            return self.implied_when_true(body);
        };
        let Some(Bound::Helper(c)) = self.lookup(f.id.as_str()) else {
            return self.implied_when_true(body);
        };
        let (Some(vp), Some(op_i)) = (c.version_param, c.op_param) else {
            return self.implied_when_true(body);
        };
        let root = self.compared_root(args.get(vp)?)?;
        let Expr::Name(op_arg) = args.get(op_i)? else {
            return None;
        };
        let param = version_param_of(params, args.get(c.position)?)?;
        Some(VersionHelper {
            root,
            op: Op::Eq,
            position: pos(&param)?,
            param,
            op_param: Some(pos(op_arg.id.as_str())?),
            version_param: None,
            implies: None,
        })
    }

    /// `V op P` for a parameter `P` of `params` (see [`Walker::version_helper`]).
    fn helper_expr(&self, params: &ast::Parameters, value: &Expr) -> Option<VersionHelper> {
        let Expr::Compare(c) = value else {
            return None;
        };
        let ([op], [right]) = (&*c.ops, &*c.comparators) else {
            return None;
        };
        let op = op_of(*op)?;
        let positional: Vec<&str> = params
            .posonlyargs
            .iter()
            .chain(&params.args)
            .map(|p| p.name().as_str())
            .collect();
        let param_of = |e: &Expr| version_param_of(params, e);
        let (root, op, param) = if let (Some(root), Some(param)) =
            (self.version_root(&c.left, 0), param_of(right))
        {
            (root, op, param)
        } else if let (Some(param), Some(root)) = (param_of(&c.left), self.version_root(right, 0)) {
            (root, op.flipped(), param)
        } else {
            return None;
        };
        let position = positional.iter().position(|p| *p == param)?;
        Some(VersionHelper {
            root,
            op,
            param,
            position,
            op_param: None,
            version_param: None,
            implies: None,
        })
    }

    /// A function whose every `return` of a true value comes after early exits `if C: return
    /// False` (or `None`, or a bare `return`) on version conditions `C`, at the top of its body:
    /// a true result implies that no `C` held (`is_xpu_available()` beginning with `if
    /// is_torch_version("<=", "2.6"): return False`). The conditions must be about one package.
    fn implied_when_true(&self, body: &[Stmt]) -> Option<VersionHelper> {
        let mut parts: Vec<(String, Pred)> = Vec::new();
        for stmt in body {
            let Stmt::If(i) = stmt else {
                if has_return(stmt) {
                    break;
                }
                continue;
            };
            if !i.elif_else_clauses.is_empty() || !returns_false(&i.body) {
                if has_return(stmt) {
                    break;
                }
                continue;
            }
            let info = self.cond_info(&i.test);
            if !info.restriction.complete {
                continue;
            }
            if let Some(neg) = info.restriction.negate() {
                parts.extend(neg.parts);
            }
        }
        implying(parts)
    }

    /// The condition a call of a version helper stands for: known here when the helper is
    /// defined in this file, else a [`Pred::Helper`] resolved once every file is read.
    fn helper_call(&self, call: &ast::ExprCall) -> Option<Restriction> {
        let args = &call.arguments;
        let helper = match &*call.func {
            Expr::Name(n) => match self.lookup(n.id.as_str()) {
                Some(Bound::Helper(h)) => Some(h.clone()),
                Some(_) => return None,
                None => None,
            },
            func => {
                // `utils.is_torch_greater_or_equal(...)`: not through an indexed package.
                // `utils.is_torch_greater_or_equal(...)` on a module of the project (a name
                // bound here is an indexed module or a value: `V.startswith(...)`).
                let name = dotted(func)?;
                let first = name.split('.').next().unwrap_or(&name);
                if self.lookup(first).is_some() {
                    return None;
                }
                None
            }
        };
        let arg_at = |position: usize, param: &str| -> Option<&Expr> {
            args.args.get(position).or_else(|| {
                args.keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == param))
                    .map(|k| &k.value)
            })
        };
        let part = match helper {
            // Only implied when true: the condition cannot be negated.
            Some(h) if h.implies.is_some() => {
                return Some(Restriction {
                    parts: vec![h.implies.clone()?],
                    complete: false,
                })
            }
            Some(h) => {
                let value = arg_at(h.position, &h.param)?;
                let op = match h.op_param {
                    Some(i) => Some(op_string(args.args.get(i)?)?),
                    None => None,
                };
                let root = match h.version_param {
                    Some(i) => Some(self.compared_root(args.args.get(i)?)?),
                    None => None,
                };
                h.condition(version_arg(value)?, op, root.as_deref())?
            }
            None => {
                let name = last_segment(&dotted(&call.func)?).to_string();
                // `h()`, `h(flag=...)`: a helper that implies a condition when true.
                // `h(V)`, `h(OP, V)`, `h(VERSION, OP, V)`, V a version constant.
                let call = match (&*args.args, args.keywords.is_empty()) {
                    ([], _) => HelperCall {
                        arg: None,
                        op: None,
                        root: None,
                        args: 0,
                    },
                    (positional, true) => {
                        let (root, op, value) = match positional {
                            [v] => (None, None, v),
                            [o, v] => (None, Some(op_string(o)?), v),
                            [r, o, v] => (Some(self.compared_root(r)?), Some(op_string(o)?), v),
                            _ => return None,
                        };
                        HelperCall {
                            arg: Some(version_arg(value)?),
                            op,
                            root,
                            args: positional.len(),
                        }
                    }
                    _ => return None,
                };
                (HELPER_ROOT.to_string(), Pred::Helper { name, call })
            }
        };
        Some(Restriction {
            parts: vec![part],
            complete: true,
        })
    }

    /// The package whose version a comparator is given: a value derived from its version, or
    /// its name (`compare_versions("torch", ">=", "2.4")`).
    fn compared_root(&self, e: &Expr) -> Option<String> {
        if let Some(root) = self.version_root(e, 0) {
            return Some(root);
        }
        let name = string_lit(e)?;
        self.roots.contains(&name).then_some(name)
    }

    fn class_def(&mut self, c: &'a ast::StmtClassDef) {
        for d in &c.decorator_list {
            self.visit_expr(&d.expression);
        }
        if let Some(args) = &c.arguments {
            for a in args.args.iter() {
                self.visit_expr(a);
            }
            for k in args.keywords.iter() {
                self.visit_expr(&k.value);
            }
        }
        let conditions = self.decorator_conditions(&c.decorator_list);
        self.scopes.push(Scope::new(ScopeKind::Class));
        let mut ctx = self.ctx.clone();
        ctx.versions.extend(conditions);
        self.with_ctx(ctx, |w| w.body(&c.body));
        self.scopes.pop();
        self.store(c.name.as_str());
    }

    // ----- conditions -----

    fn cond_info(&self, expr: &Expr) -> CondInfo {
        match expr {
            Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
                let mut out = CondInfo {
                    restriction: Restriction {
                        parts: Vec::new(),
                        complete: true,
                    },
                    ..CondInfo::default()
                };
                for v in &b.values {
                    let i = self.cond_info(v);
                    out.restriction = out.restriction.and(i.restriction);
                    out.has.extend(i.has);
                }
                out
            }
            Expr::BoolOp(b) => {
                let mut restriction: Option<Restriction> = None;
                let mut has_neg = Vec::new();
                let mut ok = true;
                for v in &b.values {
                    let i = self.cond_info(v);
                    has_neg.extend(i.has_neg);
                    restriction = match restriction {
                        None => Some(i.restriction),
                        Some(r) => r.or(i.restriction),
                    };
                    ok &= restriction.is_some();
                }
                CondInfo {
                    restriction: restriction.filter(|_| ok).unwrap_or_else(incomplete),
                    has: Vec::new(),
                    has_neg,
                }
            }
            Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => {
                let inner = self.cond_info(&u.operand);
                CondInfo {
                    restriction: inner.restriction.negate().unwrap_or_else(incomplete),
                    has: inner.has_neg,
                    has_neg: inner.has,
                }
            }
            Expr::Call(call) => {
                if let Some(restriction) = self.helper_call(call) {
                    return CondInfo {
                        restriction,
                        ..CondInfo::default()
                    };
                }
                let mut info = CondInfo {
                    restriction: incomplete(),
                    ..CondInfo::default()
                };
                let args = &call.arguments.args;
                let probe = (self.is_builtin(&call.func, "hasattr") && args.len() == 2)
                    || (self.is_builtin(&call.func, "getattr") && args.len() == 3);
                if probe {
                    if let (Some((path, _)), Some(name)) =
                        (self.resolve(&args[0]), string_lit(&args[1]))
                    {
                        info.has.push(format!("{path}.{name}"));
                    } else if let Some(name) = string_lit(&args[1]) {
                        // A probe on an object of unknown type guards member reads of the name.
                        info.has.push(format!("?.{name}"));
                    }
                    return info;
                }
                // `V.startswith("2.4")`, `V.startswith(("2.4", "2.5"))`.
                if let Expr::Attribute(a) = &*call.func {
                    if a.attr.as_str() == "startswith" {
                        if let (Some(root), [arg]) = (self.version_root(&a.value, 0), &**args) {
                            let prefixes = match arg {
                                Expr::Tuple(t) => t.elts.iter().map(string_lit).collect(),
                                e => string_lit(e).map(|s| vec![s]),
                            };
                            if let Some(p) = prefixes {
                                info.restriction = Restriction {
                                    parts: vec![(root, Pred::StartsWith(p))],
                                    complete: true,
                                };
                            }
                        }
                    }
                }
                info
            }
            Expr::Compare(c) => CondInfo {
                restriction: self.compare(c),
                ..CondInfo::default()
            },
            Expr::Name(n) => match self.lookup(n.id.as_str()) {
                Some(Bound::Cond(r)) => CondInfo {
                    restriction: r.clone(),
                    ..CondInfo::default()
                },
                _ => CondInfo {
                    restriction: incomplete(),
                    ..CondInfo::default()
                },
            },
            _ => CondInfo {
                restriction: incomplete(),
                ..CondInfo::default()
            },
        }
    }

    fn compare(&self, c: &ast::ExprCompare) -> Restriction {
        let mut out = Restriction {
            parts: Vec::new(),
            complete: true,
        };
        let mut left: &Expr = &c.left;
        for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
            let part = op_of(*op).and_then(|op| {
                if let (Some(root), Some(b)) = (self.version_root(left, 0), const_bound(right)) {
                    Some((root, Pred::Cmp(op, b)))
                } else if let (Some(b), Some(root)) =
                    (const_bound(left), self.version_root(right, 0))
                {
                    Some((root, Pred::Cmp(op.flipped(), b)))
                } else {
                    None
                }
            });
            match part {
                Some(p) => out.parts.push(p),
                None => out.complete = false,
            }
            left = right;
        }
        out
    }

    /// The top-level module whose version an expression is derived from.
    fn version_root(&self, expr: &Expr, depth: usize) -> Option<String> {
        if depth > 12 {
            return None;
        }
        let d = depth + 1;
        match expr {
            Expr::Name(n) => match self.lookup(n.id.as_str())? {
                Bound::VersionOf(r) => Some(r.clone()),
                Bound::Path { path, .. } if last_segment(path) == "__version__" => {
                    path.split('.').next().map(str::to_string)
                }
                _ => None,
            },
            Expr::Attribute(a) => {
                if a.attr.as_str() == "__version__" {
                    let (path, _) = self.resolve(expr)?;
                    return path.split('.').next().map(str::to_string);
                }
                self.version_root(&a.value, d)
            }
            Expr::Call(call) => {
                if let Expr::Attribute(a) = &*call.func {
                    // `V.split(".")`, `V.replace(...)`.
                    if let Some(r) = self.version_root(&a.value, d) {
                        return Some(r);
                    }
                }
                let name = dotted(&call.func)?;
                let last = last_segment(&name);
                // `importlib.metadata.version("torch")` (also imported as `version`).
                if name == "version" || name.ends_with("metadata.version") {
                    if let [arg] = &*call.arguments.args {
                        if let Some(dist) = string_lit(arg) {
                            return self.roots.contains(&dist).then_some(dist);
                        }
                    }
                }
                if VERSION_PARSERS.contains(&last) || matches!(last, "tuple" | "list" | "map") {
                    return call
                        .arguments
                        .args
                        .iter()
                        .find_map(|a| self.version_root(a, d));
                }
                None
            }
            Expr::Subscript(s) => self.version_root(&s.value, d),
            Expr::Generator(g) => g
                .generators
                .iter()
                .find_map(|c| self.version_root(&c.iter, d)),
            Expr::ListComp(g) => g
                .generators
                .iter()
                .find_map(|c| self.version_root(&c.iter, d)),
            _ => None,
        }
    }
}

/// The parameter a version argument is, through `parse(v)`, `version.Version(v)`, `str(v)`.
fn version_param_of(params: &ast::Parameters, e: &Expr) -> Option<String> {
    let mut e = e;
    let mut depth = 0;
    while let Expr::Call(call) = e {
        depth += 1;
        let name = dotted(&call.func)?;
        if depth > 8 || !VERSION_PARSERS.contains(&last_segment(&name)) {
            return None;
        }
        let [arg] = &*call.arguments.args else {
            return None;
        };
        e = arg;
    }
    match e {
        Expr::Name(n) if params.iter().any(|p| p.name().as_str() == n.id.as_str()) => {
            Some(n.id.to_string())
        }
        _ => None,
    }
}

/// The parameter that names the operator of a call `OPS[op](...)`, or `op(...)` after
/// `op = OPS[op]` in `body` (a lookup keyed by the parameter itself).
fn op_lookup<'p>(func: &Expr, body: &[Stmt], positional: &[&'p str]) -> Option<&'p str> {
    let keyed = |e: &Expr| -> Option<&'p str> {
        let Expr::Subscript(s) = e else {
            return None;
        };
        let (Expr::Name(_), Expr::Name(k)) = (&*s.value, &*s.slice) else {
            return None;
        };
        positional.iter().copied().find(|p| *p == k.id.as_str())
    };
    if let Some(p) = keyed(func) {
        return Some(p);
    }
    let Expr::Name(f) = func else {
        return None;
    };
    let p = positional.iter().copied().find(|p| *p == f.id.as_str())?;
    body.iter()
        .any(|s| match s {
            Stmt::Assign(a) => {
                matches!(&*a.targets, [Expr::Name(t)] if t.id.as_str() == p)
                    && keyed(&a.value) == Some(p)
            }
            _ => false,
        })
        .then_some(p)
}

/// A helper that implies the conditions `parts` (about one package), whatever its arguments.
fn implying(parts: Vec<(String, Pred)>) -> Option<VersionHelper> {
    let root = parts.first()?.0.clone();
    if parts.iter().any(|(r, _)| *r != root) {
        return None;
    }
    let preds: Vec<Pred> = parts.into_iter().map(|(_, p)| p).collect();
    let pred = match <[Pred; 1]>::try_from(preds) {
        Ok([p]) => p,
        Err(preds) => Pred::And(preds),
    };
    Some(VersionHelper {
        root: root.clone(),
        op: Op::Eq,
        param: String::new(),
        position: usize::MAX,
        op_param: None,
        version_param: None,
        implies: Some((root, pred)),
    })
}

/// Whether a statement holds a `return` (not looking into nested functions or classes).
fn has_return(stmt: &Stmt) -> bool {
    struct Finder(bool);
    impl<'a> Visitor<'a> for Finder {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            match s {
                Stmt::Return(_) => self.0 = true,
                Stmt::FunctionDef(_) | Stmt::ClassDef(_) => {}
                s if !self.0 => visitor::walk_stmt(self, s),
                _ => {}
            }
        }
        fn visit_expr(&mut self, _: &'a Expr) {}
    }
    let mut f = Finder(false);
    f.visit_stmt(stmt);
    f.0
}

/// A block that ends by returning a false value (`False`, `None`, nothing) and returns nowhere
/// else.
fn returns_false(body: &[Stmt]) -> bool {
    let Some((Stmt::Return(r), before)) = body.split_last() else {
        return false;
    };
    let falsy = match r.value.as_deref() {
        None => true,
        Some(Expr::BooleanLiteral(b)) => !b.value,
        Some(Expr::NoneLiteral(_)) => true,
        _ => false,
    };
    falsy && !before.iter().any(has_return)
}

/// `">="` and the other operator strings.
fn op_string(e: &Expr) -> Option<Op> {
    Op::from_operator(&string_lit(e)?)
}

/// A version argument: a constant, or the name of a module-level string constant of the
/// project (`XPU_MIN_VERSION`, `constants.XPU_MIN_VERSION`), resolved once every file is read.
fn version_arg(e: &Expr) -> Option<VBound> {
    const_bound(e).or_else(|| match e {
        Expr::Name(n) => Some(VBound::Named(n.id.to_string())),
        Expr::Attribute(a) => Some(VBound::Named(a.attr.to_string())),
        _ => None,
    })
}

fn const_bound(expr: &Expr) -> Option<VBound> {
    match expr {
        Expr::StringLiteral(s) => VBound::parse_str(s.value.to_str()),
        Expr::Tuple(t) => {
            let mut out = Vec::new();
            for e in &t.elts {
                match e {
                    Expr::NumberLiteral(n) => match &n.value {
                        ast::Number::Int(i) => out.push(i.as_u64()?),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            (!out.is_empty()).then_some(VBound::Tuple(out))
        }
        Expr::Call(call) => {
            let name = dotted(&call.func)?;
            if !VERSION_PARSERS.contains(&last_segment(&name)) {
                return None;
            }
            match &*call.arguments.args {
                [arg] => const_bound(arg).filter(|b| matches!(b, VBound::Version(_))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether a block never falls through to what follows it: it ends with `return`, `raise`,
/// `continue`, `break`, `sys.exit(...)` / `exit()` / `os._exit(...)`, or an `if` whose every
/// branch (an `else` included) does.
fn leaves(body: &[Stmt]) -> bool {
    match body.last() {
        Some(Stmt::Return(_) | Stmt::Raise(_) | Stmt::Continue(_) | Stmt::Break(_)) => true,
        Some(Stmt::Expr(e)) => match &*e.value {
            Expr::Call(call) => dotted(&call.func).is_some_and(|name| {
                matches!(
                    name.as_str(),
                    "sys.exit" | "exit" | "quit" | "os._exit" | "os.abort"
                )
            }),
            _ => false,
        },
        Some(Stmt::If(s)) => {
            leaves(&s.body)
                && s.elif_else_clauses.iter().any(|c| c.test.is_none())
                && s.elif_else_clauses.iter().all(|c| leaves(&c.body))
        }
        _ => false,
    }
}

/// `__name__ == "__main__"` (either way round).
fn is_main_test(e: &Expr) -> bool {
    let Expr::Compare(c) = e else {
        return false;
    };
    let ([CmpOp::Eq], [right]) = (&*c.ops, &*c.comparators) else {
        return false;
    };
    let is_name = |e: &Expr| matches!(e, Expr::Name(n) if n.id.as_str() == "__name__");
    let is_main = |e: &Expr| string_lit(e).as_deref() == Some("__main__");
    (is_name(&c.left) && is_main(right)) || (is_main(&c.left) && is_name(right))
}

fn is_guard_exception(e: &Expr) -> bool {
    dotted(e).is_some_and(|d| GUARD_EXCEPTIONS.contains(&last_segment(&d)))
}

fn is_type_checking(e: &Expr) -> bool {
    dotted(e).is_some_and(|d| last_segment(&d) == "TYPE_CHECKING")
}

impl<'a> Visitor<'a> for Walker<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            self.out.too_deep.get_or_insert(stmt.range());
            return;
        }
        self.depth += 1;
        let saved_start = self.stmt_start;
        self.stmt_start = stmt.start();
        match stmt {
            Stmt::Import(imp) => self.import(imp),
            Stmt::ImportFrom(imp) => self.import_from(imp),
            Stmt::FunctionDef(f) => self.function_def(f),
            Stmt::ClassDef(c) => self.class_def(c),
            Stmt::If(s) => self.if_stmt(s),
            Stmt::Try(t) => self.try_stmt(t),
            Stmt::With(w) => self.with_stmt(w),
            Stmt::Assign(a) => {
                self.visit_expr(&a.value);
                match &*a.targets {
                    [Expr::Name(n)] => self.assign_name(n.id.as_str(), &a.value),
                    targets => targets.iter().for_each(|t| self.visit_expr(t)),
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.visit_expr(v);
                }
                self.visit_annotation(&a.annotation);
                match (&*a.target, &a.value) {
                    (Expr::Name(n), Some(v)) => self.assign_name(n.id.as_str(), v),
                    (t, _) => self.visit_expr(t),
                }
            }
            Stmt::Global(g) => {
                let names: Vec<String> = g.names.iter().map(|n| n.to_string()).collect();
                if let Some(scope) = self.scopes.last_mut() {
                    scope.globals.extend(names);
                }
            }
            // `assert C`: the rest of the block runs only where `C` holds.
            Stmt::Assert(a) => {
                visitor::walk_stmt(self, stmt);
                let info = self.cond_info(&a.test);
                if !info.restriction.parts.is_empty() || !info.has.is_empty() {
                    self.continuation = Some(self.branch_ctx(&info, true));
                }
            }
            _ => visitor::walk_stmt(self, stmt),
        }
        self.stmt_start = saved_start;
        self.depth -= 1;
    }

    fn visit_body(&mut self, body: &'a [Stmt]) {
        self.body(body);
    }

    fn visit_annotation(&mut self, expr: &'a Expr) {
        // Not evaluated with `from __future__ import annotations`, nor inside function bodies.
        if self.future_annotations || self.ctx.in_function {
            return;
        }
        self.visit_expr(expr);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_DEPTH {
            self.out.too_deep.get_or_insert(expr.range());
            return;
        }
        self.depth += 1;
        self.expr(expr);
        self.depth -= 1;
    }
}

impl<'a> Walker<'a> {
    fn expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) => {
                if matches!(n.ctx, ExprContext::Store | ExprContext::Del) {
                    self.store(n.id.as_str());
                }
            }
            Expr::Attribute(a) if a.ctx == ExprContext::Load => match self.resolve(expr) {
                Some((path, via)) => self.emit(UseKind::Attribute, path, expr.range(), Some(&via)),
                None => {
                    self.site(a);
                    self.member(a);
                    visitor::walk_expr(self, expr)
                }
            },
            Expr::Call(call) => self.call(expr, call),
            Expr::Lambda(l) => {
                let mut scope = Scope::new(ScopeKind::Function);
                if let Some(params) = &l.parameters {
                    for p in params.iter_non_variadic_params() {
                        if let Some(d) = &p.default {
                            self.visit_expr(d);
                        }
                    }
                    for p in params.iter() {
                        scope.locals.insert(p.name().to_string());
                    }
                }
                self.scopes.push(scope);
                let mut ctx = self.ctx.clone();
                ctx.in_function = true;
                ctx.try_guard = false;
                self.with_ctx(ctx, |w| w.visit_expr(&l.body));
                self.scopes.pop();
            }
            Expr::ListComp(_) | Expr::SetComp(_) | Expr::DictComp(_) | Expr::Generator(_) => {
                let generators = match expr {
                    Expr::ListComp(c) => &c.generators,
                    Expr::SetComp(c) => &c.generators,
                    Expr::DictComp(c) => &c.generators,
                    Expr::Generator(c) => &c.generators,
                    _ => return,
                };
                let mut scope = Scope::new(ScopeKind::Comprehension);
                let mut names = LocalNames::default();
                for g in generators {
                    names.visit_expr(&g.target);
                }
                scope.locals = names.names;
                self.scopes.push(scope);
                visitor::walk_expr(self, expr);
                self.scopes.pop();
            }
            // `A and B`: `B` runs only where `A` holds (`is_xpu_available() and
            // torch.xpu.device_count() > 1`, `hasattr(m, "x") and m.x()`).
            Expr::BoolOp(b) if b.op == ast::BoolOp::And => {
                let saved = self.ctx.clone();
                for v in &b.values {
                    self.visit_expr(v);
                    let info = self.cond_info(v);
                    self.ctx = self.branch_ctx(&info, true);
                }
                self.ctx = saved;
            }
            Expr::If(e) => {
                self.visit_expr(&e.test);
                let info = self.cond_info(&e.test);
                let yes = self.branch_ctx(&info, true);
                let no = self.branch_ctx(&info, false);
                self.with_ctx(yes, |w| w.visit_expr(&e.body));
                self.with_ctx(no, |w| w.visit_expr(&e.orelse));
            }
            _ => visitor::walk_expr(self, expr),
        }
    }

    fn reach(&self) -> Reach {
        if self.ctx.in_function {
            Reach::CallTime
        } else {
            Reach::ImportTime
        }
    }

    /// A read of `name` is guarded: in a `try` that catches its failure, or after a
    /// `hasattr`/`getattr` probe of that name.
    fn member_guarded(&self, name: &str) -> bool {
        self.ctx.try_guard
            || self
                .ctx
                .has
                .iter()
                .any(|h| h.rsplit('.').next() == Some(name))
    }

    /// Records where an attribute read on a non-indexed receiver runs.
    fn site(&mut self, a: &ast::ExprAttribute) {
        let guarded = self.member_guarded(a.attr.as_str());
        self.out.sites.push(SiteContext {
            range: a.range(),
            stmt_start: self.stmt_start,
            reach: self.reach(),
            guarded,
            call_guarded: self.ctx.call_guard,
            versions: self.ctx.versions.clone().into_boxed_slice(),
        });
    }

    /// Records an attribute read on a receiver of unknown type (not `self`/`cls`, not a
    /// literal of a builtin type).
    fn member(&mut self, a: &ast::ExprAttribute) {
        let name = a.attr.as_str();
        // Only private names are checked (see `members`); dunders come from `object`.
        if !name.starts_with('_') || is_dunder(name) {
            return;
        }
        let (receiver, root) = match &*a.value {
            Expr::Name(n) if matches!(n.id.as_str(), "self" | "cls") => return,
            Expr::StringLiteral(_)
            | Expr::BytesLiteral(_)
            | Expr::FString(_)
            | Expr::NumberLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_)
            | Expr::List(_)
            | Expr::Tuple(_)
            | Expr::Dict(_)
            | Expr::Set(_)
            | Expr::ListComp(_)
            | Expr::SetComp(_)
            | Expr::DictComp(_) => return,
            // `Cls()._x`: the root of the callee tells where the object comes from.
            Expr::Call(c) => match dotted(&c.func) {
                Some(d) => {
                    let root = d.split('.').next().map(str::to_string);
                    (format!("{d}()"), root)
                }
                None => ("(...)".to_string(), None),
            },
            e => match dotted(e) {
                Some(d) => {
                    let root = d.split('.').next().map(str::to_string);
                    (d, root)
                }
                None => ("(...)".to_string(), None),
            },
        };
        let guarded = self.member_guarded(name);
        self.out.members.push(MemberUse {
            name: name.to_string(),
            receiver,
            root,
            range: a.range(),
            stmt_start: self.stmt_start,
            reach: self.reach(),
            guarded,
            versions: self.ctx.versions.clone(),
        });
    }

    fn call(&mut self, expr: &'a Expr, call: &'a ast::ExprCall) {
        let args = &call.arguments.args;
        // `f(**options)`: the semantic model may know the keywords `options` holds.
        for k in call.arguments.keywords.iter().filter(|k| k.arg.is_none()) {
            self.out.sites.push(SiteContext {
                range: k.range(),
                stmt_start: self.stmt_start,
                reach: self.reach(),
                guarded: self.ctx.try_guard || self.ctx.call_guard,
                call_guarded: self.ctx.call_guard,
                versions: self.ctx.versions.clone().into_boxed_slice(),
            });
        }
        if self.is_builtin(&call.func, "getattr") && (2..=3).contains(&args.len()) {
            if let (Some((path, via)), Some(name)) = (self.resolve(&args[0]), string_lit(&args[1]))
            {
                let guarded = args.len() == 3;
                let saved = self.ctx.try_guard;
                self.ctx.try_guard |= guarded;
                self.emit(
                    UseKind::Getattr,
                    format!("{path}.{name}"),
                    call.range(),
                    Some(&via),
                );
                self.ctx.try_guard = saved;
            }
        } else if let Some((path, via)) = self.resolve(&call.func) {
            if let Some(shape) = call_shape(call) {
                self.emit(UseKind::Call(shape), path.clone(), call.range(), Some(&via));
            }
            for k in call.arguments.keywords.iter() {
                if let Some(arg) = &k.arg {
                    self.emit(
                        UseKind::Keyword(arg.to_string()),
                        path.clone(),
                        k.range(),
                        Some(&via),
                    );
                }
            }
        }
        visitor::walk_expr(self, expr);
    }
}

/// The arguments of a call, when they can be counted (no `*args`, no `**kwargs`).
fn call_shape(call: &ast::ExprCall) -> Option<crate::rules::CallShape> {
    let args = &call.arguments;
    if args.args.iter().any(|a| matches!(a, Expr::Starred(_))) {
        return None;
    }
    let keywords = args
        .keywords
        .iter()
        .map(|k| k.arg.as_ref().map(|a| a.to_string()))
        .collect::<Option<Vec<_>>>()?;
    Some(crate::rules::CallShape {
        positional: u32::try_from(args.args.len()).unwrap_or(u32::MAX),
        keywords,
    })
}

/// Names a function body (or comprehension target) binds, not looking into nested scopes.
#[derive(Default)]
struct LocalNames {
    names: FxSet<String>,
    globals: FxSet<String>,
    depth: usize,
    /// Whether an expression may bind a name (`:=`); else only targets are looked into.
    walrus: bool,
}

impl<'a> Visitor<'a> for LocalNames {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.local_stmt(stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.local_expr(expr);
        self.depth -= 1;
    }
}

impl LocalNames {
    fn local_stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.names.insert(f.name.to_string());
            }
            Stmt::ClassDef(c) => {
                self.names.insert(c.name.to_string());
            }
            Stmt::Import(imp) => {
                for a in &imp.names {
                    let full = a.name.as_str();
                    let n = a
                        .asname
                        .as_ref()
                        .map_or(full.split('.').next().unwrap_or(full), |n| n.as_str());
                    self.names.insert(n.to_string());
                }
            }
            Stmt::ImportFrom(imp) => {
                for a in &imp.names {
                    self.names
                        .insert(a.asname.as_ref().unwrap_or(&a.name).to_string());
                }
            }
            Stmt::Global(g) => self.globals.extend(g.names.iter().map(|n| n.to_string())),
            Stmt::Nonlocal(g) => self.globals.extend(g.names.iter().map(|n| n.to_string())),
            Stmt::Try(t) => {
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.names.insert(n.to_string());
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn local_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Name(n) if n.ctx != ExprContext::Load => {
                self.names.insert(n.id.to_string());
            }
            Expr::Name(_)
            | Expr::Lambda(_)
            | Expr::ListComp(_)
            | Expr::SetComp(_)
            | Expr::DictComp(_)
            | Expr::Generator(_) => {}
            // Targets: `a, *b = ...`, `for (i, x) in ...`.
            Expr::Tuple(_) | Expr::List(_) | Expr::Starred(_) => visitor::walk_expr(self, expr),
            _ if self.walrus => visitor::walk_expr(self, expr),
            // A value without `:=` binds nothing.
            _ => {}
        }
    }
}

/// The multiply-rotate hash of rustc (`FxHasher`): the scopes' small string keys hash several
/// times faster than with SipHash, and no key here comes from an adversary who could gain
/// from collisions.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

type FxBuild = std::hash::BuildHasherDefault<FxHasher>;
pub(crate) type FxMap<K, V> = HashMap<K, V, FxBuild>;
pub(crate) type FxSet<K> = HashSet<K, FxBuild>;
