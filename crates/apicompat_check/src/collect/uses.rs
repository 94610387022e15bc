//! What the walk of one file produces: its uses of indexed paths with where they run, the
//! functions and calls it records for the rules that join files.

use super::{ImportSite, PathTest};
use crate::model::Reach;
use crate::versions::{Pred, VersionHelper};
use ruff_text_size::{TextRange, TextSize};

/// What a use does with its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UseKind {
    /// `import a.b`, `from a import b` (`path` = `a.b`), `from a import *` (`path` = `a`).
    Import,
    /// `a.b.c` on a name bound by an import.
    Attribute,
    /// `getattr(a, "b")`.
    Getattr,
    /// `a.b.c = v` on a name bound by an import: judged only where `a.b` refuses names it
    /// lacks (a module closed for writes has `__setattr__`, [`crate::judge::store_guard`]);
    /// elsewhere the assignment creates the name.
    Store,
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
    /// For imports: the module the statement imports (`a.b` of `from a.b import c`, all of
    /// `import a.b`), which the import system finds from files only.
    pub module: Option<String>,
    pub range: TextRange,
    /// Start of the statement the use is in (a `# noqa` comment on that line counts too).
    pub stmt_start: TextSize,
    /// Import time or call time.
    pub reach: Reach,
    pub guarded: bool,
    /// Conditions on releases (by top-level module) under which the use runs.
    pub versions: Vec<(String, Pred)>,
    /// For a member of an object: what the semantic model knows of the object.
    pub receiver: Option<Box<ObjectReceiver>>,
    /// The function of the file the use is in ([`FileUses::functions`]), if any.
    pub func: Option<u32>,
    /// The guard or condition that covers the use, if any (for `--show-guarded`).
    pub guard_at: Option<GuardAt>,
    /// What the tests it runs under say about indexed paths (`collect/reads.rs`): it runs only
    /// on releases where each holds (paths read, or tested by `hasattr`).
    pub requires: Vec<PathTest>,
}

/// Where a guard is: a range of the use's file, or of another file of the project (a guarded
/// call of the function the use is in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardAt {
    pub range: TextRange,
    /// The other file, by its position among the analyzed files.
    pub file: Option<u32>,
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
    /// The same member on the other classes the object may be of (`Other.member`): the use
    /// breaks only where none of them has it.
    pub alternatives: Vec<String>,
    /// The indexed functions and properties whose return annotations declared the class: in
    /// a release where one of them declares no return, the object is not known there.
    pub declared_by: Vec<String>,
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
    pub func: Option<u32>,
    pub guard_at: Option<GuardAt>,
    /// See [`Use::requires`].
    pub requires: Box<[PathTest]>,
    /// In an override the project never calls: where it is defined
    /// ([`crate::callers`], `hook_requires`).
    pub hook: Option<GuardAt>,
}

/// What one file uses.
#[derive(Debug, Clone, Default)]
pub struct FileUses {
    pub uses: Vec<Use>,
    /// `pkg.name = value` with `pkg.name` an indexed path and the value another path of the
    /// package or a builtin class (`None`): the path, the value's path, and the statement
    /// ([`crate::evaluate::Restores`]).
    pub restores: Vec<(String, Option<String>, TextRange)>,
    /// The functions the module defines at top level, with the [`VersionHelper`] each is, if
    /// it is one; other files' conditions on helpers are resolved with it ([`crate::link`]).
    pub helpers: Vec<(String, Option<VersionHelper>)>,
    /// Absolute imports whose top-level module is not indexed: (module, where).
    pub foreign: Vec<(String, TextRange)>,
    /// The module-level functions the module calls while it is imported: (the function's
    /// body, from its first statement, the module-level statement that runs it)
    /// ([`super::import_calls`]).
    pub runs_at_import: Vec<(TextRange, TextRange)>,
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
    /// Module-level values computed from a package's version (`TORCH_VERSION = tuple(...)`),
    /// and what its functions without parameters return (`get_torch_version()`, as
    /// `name()`): (name, package, term), for conditions of other files.
    pub values: Vec<(String, String, crate::version_terms::Term)>,
    /// The functions the file defines, in the order met ([`Use::func`] points here).
    pub functions: Vec<FuncEntry>,
    /// Calls by name under a guard or a condition ([`crate::callers`]).
    pub calls: Vec<CallSite>,
    /// Calls by name that run unconditionally in their function: (name key, function),
    /// distinct.
    pub plain_calls: Vec<(u32, Option<u32>)>,
    /// The uses (indices into [`FileUses::uses`], ascending) made in a fallback handler
    /// (`except ImportError: from torch._x import y`).
    pub fallbacks: Vec<u32>,
    /// Each top-level function with what its true results say about paths
    /// ([`crate::presence`]).
    pub presence: Vec<(String, Vec<PathTest>)>,
    /// Keys of names read other than as the callee of a call (`callback=f`, `obj.f` not
    /// called), of functions with decorators and of dunders, distinct: such functions may run
    /// from anywhere.
    pub escaping: Vec<u32>,
    /// Module-level dicts of functions (`DISPATCH = {"llama": patch_llama}`): the key of the
    /// dict's name, the key its calls are recorded under (`DISPATCH[k](...)`,
    /// [`dispatch_key`]) and the keys of its values.
    pub tables: Vec<(u32, u32, Vec<u32>)>,
    /// Keys in `escaping` only as values of those dicts here: the callers analysis follows the
    /// dict's calls for them (the semantic model still sees them escape: a registry's classes
    /// may be built anywhere).
    pub table_only: Vec<u32>,
    /// Every import of a module outside the indexed packages, with what it runs under
    /// ([`crate::callers`]: the guards a module gets from its importers).
    pub project_imports: Vec<ImportSite>,
    /// Modules imported by `importlib.import_module` / `__import__` with a literal name (or
    /// f-string head): they, and the modules under them, may be imported from anywhere.
    pub dynamic_imports: Vec<ModuleImport>,
    /// Files a `conftest.py` keeps pytest from importing under version tests.
    pub collect_gates: Vec<super::CollectGate>,
    /// Every name the module's `__all__` may hold (`importers.rs`: the submodules `from pkg
    /// import *` imports): `Some` when it has none or builds it from string literals only,
    /// `None` when it computes it ([`super::star_names::all_names`]).
    pub all_names: Option<Vec<String>>,
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
    pub func: Option<u32>,
    /// See [`Use::requires`].
    pub requires: Vec<PathTest>,
}

/// A function (or method) the file defines.
#[derive(Debug, Clone)]
pub struct FuncEntry {
    /// Its name's [`name_key`].
    pub key: u32,
    /// A method of a class with a base other than `object`: it may override a package's method.
    pub overrides: bool,
    /// Where its name is defined (the `def`'s name).
    pub at: TextRange,
}

/// A call of a function or method by name (`f(...)`, `obj.f(...)`) where the code restricts
/// when it runs: in a `try` that catches its failure, under a version condition or a
/// `hasattr` test. Calls without any of these are [`FileUses::plain_calls`].
#[derive(Debug, Clone)]
pub struct CallSite {
    /// The called name's [`name_key`].
    pub key: u32,
    /// The function the call is in.
    pub func: Option<u32>,
    pub guarded: bool,
    pub versions: Box<[(String, Pred)]>,
    /// Paths known to exist there.
    pub has: Box<[String]>,
    /// The guard or condition it runs under.
    pub at: TextRange,
}

/// An import statement's target, as written: `import a.b` (`level` 0, `module` `a.b`, no
/// names), `from ..x import y, z` (`level` 2, `module` `x`, names `y`, `z`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleImport {
    pub level: u32,
    pub module: Option<String>,
    pub names: Vec<String>,
}
