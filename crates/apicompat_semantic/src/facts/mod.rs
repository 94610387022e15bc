//! One walk over a parsed module: its scopes and what each binds ([`Def`]), its functions and
//! classes, and the attribute reads whose receiver the model may know ([`Site`]). The syntax
//! tree is dropped afterwards; [`crate::Model`] joins the facts of every module.

use ruff_python_ast::Stmt;
use ruff_text_size::TextRange;

use crate::atom::{atom, identity, interned, Atom};
use crate::ir::Sym;

mod builder;
pub(crate) mod narrow;

pub use narrow::Narrow;

/// Statements nested deeper than this are not followed (the checker reports them).
pub const MAX_STMT_DEPTH: usize = 256;
/// Expressions nested deeper than this are not looked into for sites.
const MAX_EXPR_DEPTH: usize = 256;

pub type ScopeId = u32;
pub type FuncId = u32;
pub type ClassId = u32;

/// What a binding of a name holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Def {
    /// `x = value`.
    Value(Sym),
    /// `x: T` (with or without a value), a parameter annotation: an object of type `T`.
    Declared(Sym),
    /// The item at `index` of `value` (`a, b = value`).
    Unpack(Sym, usize),
    /// `with value as x`: what the manager's `__enter__` gives; known only as far as where
    /// the manager comes from (an object of a package gives one of that package).
    Entered(Sym),
    /// `import a.b as x` binds `x` to module `a.b`; `import a.b` binds `a` to `a`.
    Import(Atom),
    /// `from module import name` (module made absolute).
    ImportFrom {
        module: Atom,
        name: Atom,
    },
    Function(FuncId),
    Class(ClassId),
    /// Parameter `index` of a function (annotated parameters are [`Def::Declared`]).
    Param {
        func: FuncId,
        index: u32,
    },
    /// Anything the model does not follow (`for` targets, `+=`, `with ... as`, `del`).
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Module,
    Class(ClassId),
    Function(FuncId),
    /// Lambdas and comprehensions: their names hide the enclosing ones.
    Hidden,
}

#[derive(Debug, Clone)]
pub struct ScopeFacts {
    pub kind: ScopeKind,
    pub parent: Option<ScopeId>,
    pub bindings: Bindings,
    /// Names declared `global` (or `nonlocal`, treated alike: not local here).
    pub globals: Vec<Atom>,
    /// Items set on a name's mapping here: `options["k"] = v` (`Some("k")`), or changes the
    /// model cannot follow (`None`: a computed key, `del`, `pop`, `clear`).
    pub items: Vec<(Atom, Option<Atom>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// A plain function, or a method whose first parameter is the instance.
    Plain,
    Static,
    Class,
    Property,
}

#[derive(Debug, Clone)]
pub struct ParamFacts {
    pub name: Atom,
    pub annotation: Option<Sym>,
    /// Its default is `None`.
    pub default_none: bool,
}

#[derive(Debug, Clone)]
pub struct FuncFacts {
    pub name: Atom,
    pub range: TextRange,
    /// The scope of the function's body.
    pub scope: ScopeId,
    /// The class whose body defines it, for methods.
    pub class: Option<ClassId>,
    pub kind: MethodKind,
    pub params: Vec<ParamFacts>,
    /// The first `positional` parameters can be given by position.
    pub positional: u32,
    pub returns: Option<Sym>,
    /// `return` values (a bare `return` is [`Sym::None`]); evaluated in [`FuncFacts::scope`].
    pub return_values: Vec<Sym>,
    /// A decorator the model does not know wraps it: its result is unknown.
    pub wrapped: bool,
    /// `yield` or `async def`: a call gives a generator or coroutine.
    pub generator: bool,
}

#[derive(Debug, Clone)]
pub struct ClassFacts {
    pub name: Atom,
    pub range: TextRange,
    /// The scope of the class body (its methods and class attributes).
    pub scope: ScopeId,
    /// Base classes, evaluated in the enclosing scope.
    pub bases: Vec<Sym>,
    pub enclosing: ScopeId,
    /// A metaclass, a class decorator or a base given as `*args`: what it builds is unknown.
    pub unusual: bool,
    /// Attributes may come from anywhere: `__getattr__`, `__getattribute__`,
    /// `setattr(self, <computed>, ...)`, `self.__dict__`.
    pub open: bool,
    /// `self.x = value` / `self.x: T` in its methods: (name, scope of the method, def).
    pub stores: Multimap<(ScopeId, Def)>,
}

/// An attribute read whose receiver is an expression the model may know.
#[derive(Debug, Clone)]
pub struct Site {
    /// The whole `receiver.name` expression.
    pub range: TextRange,
    pub scope: ScopeId,
    pub receiver: Sym,
    pub name: Atom,
    /// When the attribute is called: the keywords given (name and range), the number of
    /// positional arguments, and whether `*args` / `**kwargs` were passed.
    pub call: Option<Box<CallShape>>,
    /// The `isinstance` tests that hold where the read is, on the receiver or a part of it:
    /// an index into [`ModuleFacts::narrowings`] ([`NO_NARROW`] when none).
    pub narrow: u32,
}

/// [`Site::narrow`] when no test applies.
pub const NO_NARROW: u32 = u32::MAX;

/// A `**mapping` argument of a call.
#[derive(Debug, Clone)]
pub struct Splat {
    /// The `**mapping` argument.
    pub range: TextRange,
    pub scope: ScopeId,
    pub callee: Sym,
    pub mapping: Sym,
}

/// A call by name (`f(...)`, `obj.f(...)`) whose arguments the model may know, for the types
/// of the parameters of the project's functions (see [`crate::Model`]).
#[derive(Debug, Clone)]
pub struct CallFacts {
    /// The called name.
    pub name: Atom,
    pub scope: ScopeId,
    pub callee: Sym,
    pub args: Box<[Sym]>,
    pub keywords: Box<[(Atom, Sym)]>,
}

#[derive(Debug, Clone, Default)]
pub struct CallShape {
    /// The whole call.
    pub range: TextRange,
    pub keywords: Vec<(Atom, TextRange)>,
    pub positional: u32,
    pub star: bool,
    pub double_star: bool,
}

/// Everything the model keeps of one module.
#[derive(Debug, Clone, Default)]
pub struct ModuleFacts {
    /// Scope 0 is the module.
    pub scopes: Vec<ScopeFacts>,
    pub functions: Vec<FuncFacts>,
    pub classes: Vec<ClassFacts>,
    pub sites: Vec<Site>,
    pub splats: Vec<Splat>,
    /// Calls by name with an argument the model may know.
    pub calls: Vec<CallFacts>,
    /// Names called with `*args`/`**kwargs` or with no argument the model may know (what
    /// their parameters receive is unknown), distinct.
    pub opaque_calls: Vec<Atom>,
    /// Attribute names the module stores on objects other than `self`, or sets with
    /// `setattr(x, "name", ...)`: such a name may be on any object.
    pub stored_names: Vec<Atom>,
    /// The sets of `isinstance` tests that hold at some sites ([`Site::narrow`]).
    pub narrowings: Vec<Box<[Narrow]>>,
    /// Nesting got too deep somewhere: some facts are missing.
    pub truncated: bool,
}

/// Where a module sits in its project, for relative imports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleName {
    /// Dotted name (`pkg.sub.mod`), if the file is in a package layout the model knows.
    pub name: Option<String>,
    pub is_package: bool,
    /// Other names it is imported by (its path from the project root, for directories
    /// without `__init__.py`).
    pub aliases: Vec<String>,
}

/// Reads a module's facts.
pub fn extract(suite: &[Stmt], module: &ModuleName) -> ModuleFacts {
    extract_with(suite, module, &|_| false, &|_| true)
}

/// [`extract`], told which top-level modules are outside the project (`torch`) and which names
/// the project's functions may have: calls of other functions are never calls of the
/// project's functions and are not kept.
pub fn extract_with(
    suite: &[Stmt],
    module: &ModuleName,
    external: &dyn Fn(&str) -> bool,
    defined: &dyn Fn(&str) -> bool,
) -> ModuleFacts {
    let mut out = builder::read(suite, module);
    // Reads whose receiver can never be known take most of the memory on large projects.
    let sites = std::mem::take(&mut out.sites);
    let mut sites: Vec<Site> = sites
        .into_iter()
        .filter(|s| s.narrow != NO_NARROW || out.may_know(s))
        .collect();
    // Every module's facts are kept until the model is built: no spare capacity.
    sites.shrink_to_fit();
    out.sites = sites;
    out.scopes.shrink_to_fit();
    for s in &mut out.scopes {
        s.globals.shrink_to_fit();
        s.items.shrink_to_fit();
    }
    out.functions.shrink_to_fit();
    for f in &mut out.functions {
        f.params.shrink_to_fit();
        f.return_values.shrink_to_fit();
    }
    out.classes.shrink_to_fit();
    for c in &mut out.classes {
        c.bases.shrink_to_fit();
    }
    out.splats.shrink_to_fit();
    let calls = std::mem::take(&mut out.calls);
    let mut kept = Vec::new();
    for mut c in calls {
        if !defined(c.name) || out.imported_from(c.scope, &c.callee, external) {
            continue;
        }
        // Arguments the model cannot know are kept as unknown (nothing nested).
        let mut known = false;
        for a in c
            .args
            .iter_mut()
            .chain(c.keywords.iter_mut().map(|(_, v)| v))
        {
            if out.may_know_sym(c.scope, a) {
                known = true;
            } else {
                *a = Sym::Unknown;
            }
        }
        if known {
            kept.push(c);
        } else {
            out.opaque_calls.push(c.name);
        }
    }
    kept.shrink_to_fit();
    out.calls = kept;
    out.opaque_calls.sort_unstable();
    out.opaque_calls.dedup();
    out.opaque_calls.shrink_to_fit();
    out.stored_names.sort_unstable();
    out.stored_names.dedup();
    out.stored_names.shrink_to_fit();
    out
}

impl ModuleFacts {
    /// The `isinstance` tests that hold at a site.
    pub fn narrowing(&self, site: &Site) -> &[Narrow] {
        self.narrowings
            .get(site.narrow as usize)
            .map_or(&[], |n| &n[..])
    }

    /// The scope that binds `name` as seen from `scope`, Python's way: a class body is not
    /// visible from the functions inside it; `global` names live in the module.
    pub fn binding_scope(&self, scope: ScopeId, name: &str) -> Option<ScopeId> {
        // A name never interned is bound nowhere.
        let key = identity(interned(name)?);
        let bound = |b: &Bindings| b.contains_identity(key);
        let mut s = scope;
        let mut first = true;
        loop {
            let sc = self.scopes.get(s as usize)?;
            let visible = first || !matches!(sc.kind, ScopeKind::Class(_));
            if visible {
                if sc.globals.iter().any(|g| &**g == name) {
                    return bound(&self.scopes[0].bindings).then_some(0);
                }
                if bound(&sc.bindings) {
                    return Some(s);
                }
            }
            first = false;
            s = sc.parent?;
        }
    }

    /// Whether the model may know a site's receiver: its root name is bound in the module to
    /// something other than an unfollowed binding or an unannotated parameter (the instance
    /// of a method excepted).
    fn may_know(&self, site: &Site) -> bool {
        self.may_know_sym(site.scope, &site.receiver)
    }

    /// Whether an expression is rooted at a name imported from a module outside the project.
    fn imported_from(&self, scope: ScopeId, sym: &Sym, external: &dyn Fn(&str) -> bool) -> bool {
        let mut sym = sym;
        let root = loop {
            match sym {
                Sym::Name(n) => break n,
                Sym::Attr(v, _) => sym = v,
                _ => return false,
            }
        };
        let Some(s) = self.binding_scope(scope, root) else {
            return false;
        };
        let Some(mut defs) = self.scopes[s as usize].bindings.get(root) else {
            return false;
        };
        defs.all(|d| match d {
            Def::Import(m) | Def::ImportFrom { module: m, .. } => {
                external(m.split('.').next().unwrap_or(m))
            }
            _ => false,
        })
    }

    /// [`ModuleFacts::may_know`] for any expression of `scope`: parameters of functions
    /// included (their callers may tell what they hold).
    fn may_know_sym(&self, scope: ScopeId, sym: &Sym) -> bool {
        let mut sym = sym;
        let root = loop {
            match sym {
                Sym::Name(n) => break n,
                Sym::Attr(v, _) | Sym::Subscript(v) => sym = v,
                Sym::Call(c) => sym = &c.func,
                _ => return true,
            }
        };
        let Some(s) = self.binding_scope(scope, root) else {
            // `super()`: the model knows the base of a method's class.
            return &**root == "super";
        };
        let Some(defs) = self.scopes[s as usize].bindings.get(root) else {
            return false;
        };
        let mut defs = defs.peekable();
        defs.peek().is_some()
            && defs.all(|d| match d {
                Def::Unknown => false,
                Def::Param { func, .. } => self
                    .functions
                    .get(*func as usize)
                    .is_some_and(|f| !f.wrapped),
                _ => true,
            })
    }
}

/// Values by name: every (name, value) in source order, sorted by the name's atom once the
/// module is read, so that a name's values are one run found by binary search over integers
/// (a map of vectors took four times the memory on large projects; comparing the strings took
/// a twentieth of `check`'s instructions).
#[derive(Debug, Clone)]
pub struct Multimap<V> {
    entries: Vec<(Atom, V)>,
    sorted: bool,
}

impl<V> Default for Multimap<V> {
    fn default() -> Self {
        Multimap {
            entries: Vec::new(),
            sorted: false,
        }
    }
}

/// The bindings of a scope.
pub type Bindings = Multimap<Def>;

impl<V> Multimap<V> {
    fn push(&mut self, name: &str, value: V) {
        self.entries.push((atom(name), value));
        self.sorted = false;
    }

    fn finish(&mut self) {
        // Stable: a name's values stay in source order.
        self.entries.sort_by_key(|e| identity(e.0));
        self.entries.shrink_to_fit();
        self.sorted = true;
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    /// Removes the entries of each name made before the given count of entries (before
    /// [`Multimap::finish`]: entries are in the order they were pushed).
    fn remove_before(&mut self, before: &apicompat_hash::HashMap<Atom, usize>) {
        let mut i = 0;
        self.entries.retain(|(n, _)| {
            let keep = before.get(n).is_none_or(|&at| i >= at);
            i += 1;
            keep
        });
    }

    /// Where `name`'s run starts and ends (once sorted).
    fn run(&self, name: &str) -> (usize, usize) {
        match interned(name) {
            Some(a) => self.run_of(identity(a)),
            None => (0, 0),
        }
    }

    /// Where the run of the atom of identity `key` starts and ends (once sorted).
    fn run_of(&self, key: usize) -> (usize, usize) {
        let lo = self.entries.partition_point(|(n, _)| identity(n) < key);
        let hi = lo + self.entries[lo..].partition_point(|(n, _)| identity(n) == key);
        (lo, hi)
    }

    /// Whether the atom of identity `key` has values.
    fn contains_identity(&self, key: usize) -> bool {
        if self.sorted {
            let (lo, hi) = self.run_of(key);
            lo < hi
        } else {
            self.entries.iter().any(|(n, _)| identity(n) == key)
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        if self.sorted {
            let (lo, hi) = self.run(name);
            lo < hi
        } else {
            self.entries.iter().any(|(n, _)| &**n == name)
        }
    }

    /// A number that identifies `name` in this map (the start of its run), if it is there.
    pub fn position(&self, name: &str) -> Option<u32> {
        let (lo, hi) = self.run(name);
        (lo < hi).then(|| u32::try_from(lo).unwrap_or(u32::MAX))
    }

    /// The values of `name`, in source order.
    pub fn get(&self, name: &str) -> Option<impl Iterator<Item = &V> + Clone> {
        let (lo, hi) = self.run(name);
        (lo < hi).then(|| self.entries[lo..hi].iter().map(|(_, v)| v))
    }

    /// Every name (grouped, with repeats; not in alphabetical order).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(n, _)| &**n)
    }

    /// Every name with each of its values (grouped; not in alphabetical order).
    pub fn entries(&self) -> impl Iterator<Item = (&str, &V)> {
        self.entries.iter().map(|(n, v)| (&**n, v))
    }
}
