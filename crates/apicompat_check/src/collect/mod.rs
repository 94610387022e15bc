//! Walks one parsed file and collects every use of an indexed package: imports, attribute
//! chains on names bound by imports, `getattr` with a literal name and keyword arguments,
//! each with where it runs (import time or call time), whether the code guards it, and which
//! releases its branch runs on.

use crate::last_segment;
use apicompat_hash::{HashMap, HashSet};

use ruff_python_ast::visitor::Visitor;
use ruff_python_ast::{self as ast, CmpOp, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

mod arms;
mod binding_counts;
mod cleared;
mod conditions;
mod constants;
mod defs;
mod doubles;
mod flags;
mod flow;
mod getters;
mod helper_calls;
mod import_calls;
mod imports;
mod instance_tests;
mod locals;
mod markers;
mod params;
mod patches;
mod pytest_gates;
mod ranges;
mod reads;
mod returns;
mod scope;
mod signature;
mod spec;
mod specs;
mod star_names;
mod state;
mod terms;
mod uses;
mod walk;

pub(crate) use imports::is_dispatch;
pub use imports::ImportSite;
pub(crate) use locals::name_key;
use locals::LocalNames;
pub use patches::{declares_distutils_shim, setup_script_distutils, supplies_distutils};
pub(crate) use pytest_gates::gate_matches;
pub use pytest_gates::CollectGate;
pub use reads::{Found, PathTest, INDEXED_CALL, OBJECT_TEST};
pub use uses::*;

use conditions::implying;

use crate::model::Reach;
use crate::versions::{
    Bound as VBound, HelperCall, Op, Pred, Restriction, VersionHelper, HELPER_ROOT,
};

/// Statements and expressions nested deeper than this are not followed (AC007).
pub const MAX_DEPTH: usize = 1500;

/// Collects the uses of the top-level modules in `roots`.
pub fn collect(suite: &[Stmt], roots: &HashSet<String>) -> FileUses {
    collect_in(suite, roots, true, true)
}

/// [`collect`], told whether the source may hold an assignment expression (`:=`, the only
/// binding inside an expression): without one, the names a function binds are found from its
/// statements' targets alone; and whether it mentions `sys.modules` (test doubles,
/// [`doubles`]).
pub fn collect_in(
    suite: &[Stmt],
    roots: &HashSet<String>,
    walrus: bool,
    sys_modules: bool,
) -> FileUses {
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
        falsy_flags: Vec::new(),
        if_frames: Vec::new(),
        method_ctx: None,
        class_has_base: false,
        callee: None,
        escaping: HashSet::default(),
        plain_calls: HashSet::default(),
        table_values: HashSet::default(),
        signature_helpers: HashSet::default(),
        imported: HashSet::default(),
        flag_names: HashSet::default(),
        self_flags: HashMap::default(),
        sentinels: HashMap::default(),
        instance_tests: HashMap::default(),
        module_values: HashMap::default(),
        rebound_at: HashMap::default(),
        constant_flags: constants::constant_flags(suite),
        bodies: Vec::new(),
        body_strings: std::cell::RefCell::new(None),
        block: 0,
        tick: 0,
        import_time: Vec::new(),
    };
    let run_at_import = import_calls::import_time_functions(suite);
    w.import_time = run_at_import.iter().map(|(n, _, _)| *n).collect();
    w.out.runs_at_import = run_at_import
        .iter()
        .map(|(_, f, trigger)| (*f, *trigger))
        .collect();
    w.body(suite);
    w.run_deferred();
    w.export_self_flags();
    patches::apply(&mut w.out.uses, suite);
    patches::setuptools_distutils(&mut w.out.uses, suite, false);
    // Modules the file replaces with test doubles: its uses of them are the doubles'.
    let doubled = if sys_modules {
        doubles::stubbed(suite)
    } else {
        Vec::new()
    };
    let stubbed: Vec<String> = doubled
        .into_iter()
        .filter(|m| roots.contains(m.split('.').next().unwrap_or(m)))
        .collect();
    if !stubbed.is_empty() {
        w.out
            .uses
            .retain(|u| !stubbed.iter().any(|m| doubles::under(&u.path, m)));
    }
    let mut escaping: Vec<u32> = w.escaping.iter().map(|n| name_key(n)).collect();
    escaping.sort_unstable();
    escaping.dedup();
    let mut table_only: Vec<u32> = w
        .out
        .tables
        .iter()
        .flat_map(|(_, _, values)| values.iter().copied())
        .filter(|k| escaping.binary_search(k).is_err())
        .collect();
    table_only.sort_unstable();
    table_only.dedup();
    escaping.extend(table_only.iter().copied());
    escaping.sort_unstable();
    w.out.escaping = escaping;
    w.out.table_only = table_only;
    let mut plain: Vec<(u32, Option<u32>)> = w.plain_calls.iter().copied().collect();
    plain.sort_unstable();
    plain.dedup();
    w.out.plain_calls = plain;
    w.out.definitions = crate::members::Definitions::of(suite);
    // Every file's uses are kept until the end of the run: no spare capacity (a growing vector
    // holds up to twice what it needs; ~27 MB of uses on transformers).
    let out = &mut w.out;
    out.uses.shrink_to_fit();
    out.members.shrink_to_fit();
    out.sites.shrink_to_fit();
    out.calls.shrink_to_fit();
    out.functions.shrink_to_fit();
    out.imports.shrink_to_fit();
    out.project_imports.shrink_to_fit();
    out.helpers.shrink_to_fit();
    out.foreign.shrink_to_fit();
    out.constants.shrink_to_fit();
    out.all_names = star_names::all_names(suite);
    out.values.shrink_to_fit();
    w.out
}

#[derive(Debug, Clone)]
enum Bound {
    /// A module, class, function or other object of an indexed package.
    Path {
        path: String,
        guarded: bool,
        versions: Vec<(String, Pred)>,
        /// What the tests in force where it is bound say about paths (`else:` of `if
        /// hasattr(m, "n"):`): a use through the name runs only where they hold too.
        requires: Vec<PathTest>,
    },
    /// A value derived from `ROOT.__version__` in a way no [`Term`] reads.
    VersionOf(String),
    /// A value computed from `ROOT.__version__` (`V.split(".")`, `parse(V)`, `int(...)`).
    VersionTerm(String, crate::version_terms::Term),
    /// A boolean computed from a version check, a presence test, or a test that reads indexed
    /// paths: its restriction, the paths that exist when it is true, and what it says about
    /// paths when true ([`Walker::test_info`]).
    Cond(Restriction, Vec<String>, Vec<PathTest>),
    /// A function that compares a package's version with its parameter.
    Helper(Box<VersionHelper>),
    /// Another function defined in the file (it hides helpers of the same name elsewhere).
    Function,
    /// A function that returns the installed version of the distribution its parameter at
    /// this position names (`def _get_package_version(name): return
    /// version.parse(importlib.metadata.version(name))`).
    VersionGetter(usize),
    /// A function that returns a tuple whose item at the second position is the installed
    /// version of the distribution its parameter at the first position names
    /// ([`getters::tuple_version_getter`]).
    TupleVersionGetter(usize, usize),
    /// A function without parameters that returns the installed version of this package
    /// ([`Walker::version_returner`]).
    VersionReturner(String),
    /// A decorator whose wrapper leaves unless a test holds ([`markers::Guarding`]).
    Guarding(Box<markers::Guarding>),
    /// A tuple, list or set of names written as string literals (`MODELS = ("qwen3_vl",
    /// "qwen3_vl_moe")`), for membership tests.
    Names(Vec<String>),
    /// Paths bound in different arms of an `if`, each with the tests of its arm
    /// ([`arms`]); a lookup sees the last arm that agrees with the tests in force.
    Either(Box<[arms::Arm]>),
    /// A tuple or list of integers (`_MIN_TORCH_VERSION = (2, 9, 1)`), compared with version
    /// components; or the name of an indexed package (`package_name = "vllm"`), given to a
    /// version getter.
    Const(crate::version_terms::Term),
    /// `inspect.signature(f)` of this indexed path: `"k" in sig.parameters` tests `f(k=)`
    /// ([`Walker::keyword_test`]).
    Signature(String),
}

/// A function body to walk once its scope is done, with the context of its definition and
/// the facts of the enclosing function it may inherit.
type Deferred<'a> = (&'a ast::StmtFunctionDef, Ctx<'a>, Vec<cleared::Snapshot>);

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
    names: HashMap<String, Bound>,
    /// Names assigned anywhere in the function: they hide the enclosing scopes' names.
    locals: HashSet<String>,
    globals: HashSet<String>,
    /// Locals of a function bound only by `from M import n` from outside the indexed
    /// packages: a flag of the project read there is that flag (`flags.rs`).
    imported_only: HashSet<String>,
    /// Flags of a function cleared under a negated test (`cleared.rs`).
    facts: cleared::Facts,
    /// Names bound to a [`Bound::Either`] (a store of what its tests read ends them).
    eithers: Vec<String>,
    /// Flags set in the arms of a test: what they say when false, when true ([`arms`]).
    flag_truths: HashMap<String, [Vec<arms::TestTruth>; 2]>,
    /// Comparisons of a name with a string bound to a test (`MODE == "flash"`): by name, the
    /// keys they are bound under (`flow::compared_key`).
    compared: HashMap<String, Vec<String>>,
    /// The names the tests of `eithers` and `flag_truths` read (a store of another name
    /// leaves them alone).
    test_reads: HashSet<String>,
    /// Functions the function defines and never names again: their bodies never run
    /// ([`locals::never_named`]).
    never_called: HashSet<String>,
}

/// Functions nested deeper than this are not asked whether their nested functions are named
/// (each level reads its whole body once more).
const NEVER_CALLED_DEPTH: usize = 8;

impl Scope {
    fn new(kind: ScopeKind) -> Scope {
        Scope {
            kind,
            names: HashMap::default(),
            locals: HashSet::default(),
            globals: HashSet::default(),
            imported_only: HashSet::default(),
            facts: cleared::Facts::default(),
            eithers: Vec::new(),
            flag_truths: HashMap::default(),
            compared: HashMap::default(),
            test_reads: HashSet::default(),
            never_called: HashSet::default(),
        }
    }
}

/// Where the walk is.
#[derive(Debug, Clone, Default)]
struct Ctx<'a> {
    in_function: bool,
    /// In the body of a function the module calls while it is imported
    /// ([`import_calls`]): its uses run at import time.
    at_import: bool,
    /// In the module's `if __name__ == "__main__":` block.
    in_main: bool,
    /// In the body of a `try` whose handlers catch `ImportError` and the like.
    try_guard: bool,
    /// In the body of a `try` whose handlers catch `TypeError`: the arguments of calls are
    /// guarded (AC003, AC013), not the names used.
    call_guard: bool,
    /// In an `except` handler: a fallback assigned to an imported name keeps the import.
    handler: bool,
    /// In a handler of `ImportError`, `AttributeError` and the like that does not raise again:
    /// what runs where the `try` failed (AC011 does not ask a fallback to be public).
    fallback: bool,
    /// In such a handler: the top-level modules the `try` body imports (`.` for a relative
    /// import), for flags it sets false ([`Walker::fallback_flag`]).
    handler_imports: Option<std::rc::Rc<[String]>>,
    /// Paths known to exist here (`if hasattr(mod, "x")`).
    has: Vec<String>,
    versions: Vec<(String, Pred)>,
    /// The function of the file the walk is in ([`FileUses::functions`]).
    func: Option<u32>,
    /// The innermost guard or condition the walk is under.
    guard_at: Option<TextRange>,
    /// What the enclosing tests say about paths (see [`Use::requires`]).
    requires: Vec<PathTest>,
    /// The tests in force, with their truth ([`arms`]).
    tests: arms::Tests<'a>,
    /// Some test in force says more than `versions` do (a test not understood, or one of
    /// paths): `versions` hold where the code runs but may hold where it does not.
    inexact: bool,
    /// In a function body: where its definition (or that of the function enclosing it)
    /// starts; a call may run it from there on.
    defined_at: Option<TextSize>,
}

/// What a condition tells.
#[derive(Debug, Clone, Default)]
struct CondInfo {
    restriction: Restriction,
    /// Paths that exist when the condition is true / false.
    has: Vec<String>,
    has_neg: Vec<String>,
    /// The condition.
    at: Option<TextRange>,
    /// What the test says about paths when it is true / false ([`Walker::test_info`]).
    reads_true: Vec<PathTest>,
    reads_false: Vec<PathTest>,
    /// Version conditions that hold when it is false, where `restriction` cannot be negated:
    /// `not x` of an `x` that implies them when true (a cleared flag, `cleared.rs`).
    false_parts: Vec<(String, Pred)>,
}

impl CondInfo {
    /// Whether the test says anything where it is true: a version condition, paths that
    /// exist, or paths it reads.
    fn says_when_true(&self) -> bool {
        !self.restriction.parts.is_empty() || !self.has.is_empty() || !self.reads_true.is_empty()
    }

    /// Whether the test says anything where it is false ([`CondInfo::says_when_true`]).
    fn says_when_false(&self) -> bool {
        !self.restriction.parts.is_empty()
            || !self.false_parts.is_empty()
            || !self.has_neg.is_empty()
            || !self.reads_false.is_empty()
    }
}

struct Walker<'a> {
    roots: &'a HashSet<String>,
    /// The source may hold `:=` (see [`collect_in`]).
    walrus: bool,
    scopes: Vec<Scope>,
    ctx: Ctx<'a>,
    /// Function bodies to walk when the enclosing scope is done (they run later).
    deferred: Vec<Vec<Deferred<'a>>>,
    /// The bodies of the functions being walked, innermost last (`cleared.rs`).
    bodies: Vec<&'a [Stmt]>,
    /// The names of the last function body a dynamic import was read in that it binds once,
    /// at its top level, to a string: where the binding ends, and the string (`imports.rs`
    /// `local_string`, read once per body).
    body_strings: std::cell::RefCell<Option<(usize, BodyStrings<'a>)>>,
    /// How many blocks deep the walk is (`cleared.rs`: a fact ends with its block).
    block: u32,
    /// Counts the stores of names with a fact (`cleared.rs`).
    tick: u32,
    out: FileUses,
    depth: usize,
    stmt_start: TextSize,
    future_annotations: bool,
    /// Set by an `if` whose branches all leave the block but one: the context of the rest of
    /// the block (taken by [`Walker::body`]).
    continuation: Option<Ctx<'a>>,
    /// For the `if` statement about to be walked: the names a store of a falsy literal a few
    /// statements before it in its block left so ([`Walker::body`], `flow.rs` `set_flags`).
    falsy_flags: Vec<&'a str>,
    /// The `if` statements being walked, innermost last ([`arms`]).
    if_frames: Vec<arms::IfFrame>,
    /// Where the instance methods of the class being walked run: its `__init__` leaves unless
    /// a test holds (`if not T: raise ...`), so no instance exists elsewhere.
    method_ctx: Option<Ctx<'a>>,
    /// The class whose body is being walked (not its methods' bodies) has a base other than
    /// `object`.
    class_has_base: bool,
    /// The callee of the call being walked: reading it is a call, not an escape.
    callee: Option<TextRange>,
    /// Names read other than as a callee (see [`FileUses::escaping`]).
    escaping: HashSet<&'a str>,
    plain_calls: HashSet<(u32, Option<u32>)>,
    /// The module-level functions the module runs while it is imported.
    import_time: Vec<&'a str>,
    /// Names read without passing them on: the values of module-level dicts of functions (the
    /// dict's calls are theirs, see [`FileUses::tables`]) and the right side of `k in NAME`.
    table_values: HashSet<TextRange>,
    /// Top-level functions that list the parameters of what they are given
    /// (`signature.rs`).
    signature_helpers: HashSet<&'a str>,
    /// Names bound by imports from outside the indexed packages (`flags.rs`).
    imported: HashSet<&'a str>,
    /// Module-level names exported as version flags (`flags.rs`).
    flag_names: HashSet<String>,
    /// `self.x = <version condition>` in methods: the condition, or `None` once `self.x` is
    /// also set to something that may be true without it (`state.rs`).
    self_flags: HashMap<String, Option<VersionHelper>>,
    /// Names a fallback import's handler sets to `None` (`except ImportError: f = None`):
    /// the path imported and the test the handler runs under (`reads.rs`: `f is None`).
    sentinels: HashMap<String, (String, PathTest)>,
    /// The tests each method's class stores once on its instances, by the method's start
    /// (`instance_tests.rs`).
    instance_tests: HashMap<TextSize, std::rc::Rc<Vec<(String, Bound)>>>,
    /// What each module-level name holds as the module runs: the path it is bound to, or
    /// `None` for any other value ([`Walker::note_module_value`]).
    module_values: HashMap<String, Option<String>>,
    /// Where a module-level name last came to hold a path other than before, or stopped
    /// holding one.
    rebound_at: HashMap<String, TextSize>,
    /// The module's flags that hold one constant ([`constants`]): truth, where set.
    constant_flags: HashMap<String, (bool, TextSize)>,
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

/// `importlib.metadata.version` as called (also imported as `version`).
fn is_metadata_version(callee: &str) -> bool {
    callee == "version" || callee.ends_with("metadata.version")
}

/// `a.b.c` for a chain of names and attributes (bounded: longer chains give `None`).
pub(crate) fn dotted(expr: &Expr) -> Option<String> {
    apicompat_extract::consts::dotted(expr)
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
    // ----- uses -----

    /// Records on the import use just emitted the module its statement imports.
    fn imported_module(&mut self, module: &str) {
        if let Some(u) = self.out.uses.last_mut() {
            if matches!(u.kind, UseKind::Import) && u.module.is_none() {
                u.module = Some(module.to_string());
            }
        }
    }

    fn emit(&mut self, kind: UseKind, path: String, range: TextRange, via: Option<&Bound>) {
        // A name bound in several arms: a use of each binding.
        if let Some(Bound::Either(arms)) = via {
            let base = arms.last().map_or("", |a| a.path());
            let rest = path.strip_prefix(base).unwrap_or("").to_string();
            for arm in arms.iter() {
                let p = format!("{}{rest}", arm.path());
                self.emit(kind.clone(), p, range, Some(&arm.bound));
            }
            return;
        }
        if matches!(
            kind,
            UseKind::Import | UseKind::Attribute | UseKind::Getattr | UseKind::Store
        ) && is_dunder(last_segment(&path))
        {
            return;
        }
        // What follows a dunder (`nn.__dict__.items()`, `torch.__version__.split(".")`) is
        // a member of a builtin object (a dict, a string), not of the package.
        if path.contains(".__") {
            let segments: Vec<&str> = path.split('.').collect();
            if segments.len() > 2 && segments[1..segments.len() - 1].iter().any(|s| is_dunder(s)) {
                return;
            }
        }
        // A guard of the binding (an import in `try: ... except ImportError`, under `hasattr`)
        // covers the bound path itself; a use of more than that is guarded only by what tests
        // it (releases that lack the bound path are left to the import's finding).
        let (base, mut guarded, mut versions, bound_requires) = match via {
            Some(Bound::Path {
                path: bound,
                guarded,
                versions,
                requires,
            }) => {
                let same =
                    *bound == path && !matches!(kind, UseKind::Keyword(_) | UseKind::Call(_));
                (
                    Some(bound.clone()),
                    *guarded && same,
                    versions.clone(),
                    &requires[..],
                )
            }
            _ => (None, false, Vec::new(), &[][..]),
        };
        guarded |= self.ctx.try_guard || self.has_guard(&path);
        guarded |= self.ctx.call_guard && matches!(kind, UseKind::Keyword(_) | UseKind::Call(_));
        // `if "k" in inspect.signature(f).parameters:` guards `f(k=...)`.
        if let UseKind::Keyword(k) = &kind {
            guarded |= self.ctx.has.contains(&format!("{path}({k}=)"));
        }
        versions.extend(self.ctx.versions.iter().cloned());
        if self.ctx.fallback {
            if let Ok(i) = u32::try_from(self.out.uses.len()) {
                self.out.fallbacks.push(i);
            }
        }
        self.out.uses.push(Use {
            kind,
            base,
            module: None,
            range,
            stmt_start: self.stmt_start,
            reach: self.reach(),
            guarded,
            versions,
            receiver: None,
            func: self.ctx.func,
            guard_at: self.ctx.guard_at.map(|range| GuardAt { range, file: None }),
            requires: match bound_requires {
                [] => PathTest::for_use(&self.ctx.requires, &path),
                more => {
                    let mut all = self.ctx.requires.clone();
                    all.extend(
                        more.iter()
                            .filter(|t| !self.ctx.requires.contains(t))
                            .cloned(),
                    );
                    PathTest::for_use(&all, &path)
                }
            },
            path,
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
        let bound = self.reaching(self.lookup_raw(n.id.as_str())?)?;
        let path = match &bound {
            Bound::Path { path, .. } => path,
            Bound::Either(arms) => arms.last()?.path(),
            _ => return None,
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
        Some((full, bound))
    }

    fn is_builtin(&self, expr: &Expr, name: &str) -> bool {
        matches!(expr, Expr::Name(n) if n.id.as_str() == name) && self.lookup(name).is_none()
    }

    // ----- statements -----

    /// A block. After an `if` whose branches all leave the block but one (`if not
    /// hasattr(torch, "x"): return`, `if torch.__version__ < "2.4": raise ...`), the rest of
    /// the block runs only where that branch's condition holds.
    fn body(&mut self, body: &'a [Stmt]) {
        self.block = self.block.saturating_add(1);
        let mut outer: Option<Ctx<'a>> = None;
        // Names set to a falsy literal in this block and not stored since, with where.
        let mut falsy: Vec<(&'a str, usize)> = Vec::new();
        for (i, stmt) in body.iter().enumerate() {
            if !falsy.is_empty() {
                falsy.retain(|&(_, at)| i - at <= flow::SET_FLAG_WINDOW);
                if matches!(stmt, Stmt::If(_)) {
                    self.falsy_flags = falsy.iter().map(|&(n, _)| n).collect();
                }
            }
            self.visit_stmt(stmt);
            self.falsy_flags.clear();
            flow::note_falsy_store(stmt, i, &mut falsy);
            if let Some(rest) = self.continuation.take() {
                let before = std::mem::replace(&mut self.ctx, rest);
                outer.get_or_insert(before);
            }
        }
        if let Some(ctx) = outer {
            self.ctx = ctx;
        }
        self.end_block();
        self.block = self.block.saturating_sub(1);
    }

    fn with_ctx(&mut self, ctx: Ctx<'a>, f: impl FnOnce(&mut Self)) {
        let saved = std::mem::replace(&mut self.ctx, ctx);
        f(self);
        self.ctx = saved;
    }

    fn import(&mut self, imp: &'a ast::StmtImport) {
        for alias in &imp.names {
            let full = alias.name.as_str();
            let root = full.split('.').next().unwrap_or(full);
            let bound_name = alias.asname.as_ref().map_or(root, |a| a.as_str());
            if !self.roots.contains(root) {
                self.project_import(0, Some(full), Vec::new(), imp.range());
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
            self.imported_module(full);
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
        if !indexed {
            self.project_import(
                imp.level,
                imp.module.as_ref().map(|m| m.as_str()),
                imp.names.iter().map(|a| a.name.to_string()).collect(),
                imp.range(),
            );
        }
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
                    self.imported.insert(name.as_str());
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
                    self.imported_module(module);
                }
                continue;
            }
            let bound_name = alias.asname.as_ref().map_or(name, |a| a.as_str());
            if !indexed {
                self.store(bound_name);
                self.imported.insert(bound_name);
                continue;
            }
            let path = format!("{module}.{name}");
            self.emit(UseKind::Import, path.clone(), alias.range(), None);
            self.imported_module(module);
            let b = self.path_binding(path, None);
            self.bind(bound_name, b);
        }
    }

    // ----- conditions -----
}

/// Names a function body binds once to a string: where the binding ends, and the string.
type BodyStrings<'a> = HashMap<&'a str, (TextSize, String)>;

/// Whether a block ends the program's work the way a failure would: it ends with `raise` or
/// with `sys.exit(...)` / `exit()` / `quit()` / `os._exit(...)` / `os.abort()`. A handler that
/// does (`except ImportError: print("install transformers==4.46.0"); sys.exit()`) is no guard:
/// the failure still happens, with another message.
pub(super) fn fails_again(body: &[Stmt]) -> bool {
    match body.last() {
        Some(Stmt::Raise(_)) => true,
        Some(Stmt::Expr(e)) => match &*e.value {
            Expr::Call(call) => dotted(&call.func).is_some_and(|name| {
                matches!(
                    name.as_str(),
                    "sys.exit" | "exit" | "quit" | "os._exit" | "os.abort"
                )
            }),
            _ => false,
        },
        _ => false,
    }
}

/// Whether a block never falls through to what follows it: it ends with `return`, `raise`,
/// `continue`, `break`, `sys.exit(...)` / `exit()` / `os._exit(...)`, a test framework's call
/// that raises (`pytest.skip(...)`, `pytest.fail`, `pytest.xfail`, `pytest.exit`, unittest's
/// `self.skipTest(...)` / `self.fail(...)`), or an `if` whose every branch (an `else`
/// included) does.
fn leaves(body: &[Stmt]) -> bool {
    match body.last() {
        Some(Stmt::Return(_) | Stmt::Continue(_) | Stmt::Break(_)) => true,
        _ if fails_again(body) => true,
        Some(Stmt::Expr(e)) => match &*e.value {
            Expr::Call(call) => dotted(&call.func).is_some_and(|name| {
                matches!(
                    name.as_str(),
                    "pytest.skip"
                        | "pytest.fail"
                        | "pytest.xfail"
                        | "pytest.exit"
                        | "self.skipTest"
                        | "self.fail"
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
