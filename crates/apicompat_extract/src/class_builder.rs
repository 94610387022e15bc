//! Class bases written as a call of a function that builds a class from its arguments.
//!
//! Motivated by torch 1.13's `class Function(with_metaclass(FunctionMeta, _C._FunctionBase,
//! FunctionCtx, _HookMixin))` (`torch/autograd/function.py`, with `torch._six.with_metaclass`,
//! six's idiom): the call returns a temporary class whose own metaclass replaces it, at class
//! creation, by `meta(name, bases, d)`, so `Function`'s bases are the later arguments and its
//! metaclass the first. The extractor dropped the base: `Function` had no bases and every
//! member of the compiled `_FunctionBase` (`apply`) was absent.
//!
//! **Shape read** (per module-level function `f` of the release, [`builder`]): somewhere in
//! its body (nested functions and classes included, to [`MAX_DEPTH`] levels; a nested
//! function's parameters shadow `f`'s) either a call `M(name, B, ns)` with exactly three
//! positional arguments, `M` a positional parameter of `f` or `type`, or a class statement
//! `class C(B..., metaclass=M)`, `M` a positional parameter; `B` is `f`'s `*args` parameter,
//! a tuple of its positional parameters (`(base,)`, optionally ending in `*args`), or, in the
//! class statement, those parameters written as bases. Such an `f` builds a class whose bases
//! are the arguments given for `B` and whose metaclass is the one given for `M` (six's
//! `with_metaclass(meta, *bases)`, its older `with_metaclass(meta, base=object)`, future's
//! and `torch._six`'s copies all have this shape). Six's helper metaclass `class
//! metaclass(meta)` has no `metaclass=` keyword and is not taken for the result.
//!
//! **Rule** (applied in `resolve.rs`, `Resolver::expand_base_calls`): a class base that calls
//! such a function of the release, with dotted arguments only, is replaced by the bases and
//! metaclass the call gives. Any other call as a base (a function from outside the release,
//! one of another shape, arguments that are not dotted names) becomes a base the index does
//! not know, `f(...)`: the class's missing members are unknown, never absent.

use ruff_python_ast::{self as ast, Expr, Stmt};

use crate::facts::Value;

/// Statements and expressions deeper than this in the function are not read.
const MAX_DEPTH: usize = 64;

/// What a class-building function makes of its arguments (indexes of positional parameters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassBuilder {
    /// The parameter that is the metaclass; None for `type(...)`.
    pub meta: Option<usize>,
    /// Parameters that are bases, in order.
    pub bases: Vec<usize>,
    /// The arguments of `*args` are bases too, after those (from this positional index on).
    pub rest: Option<usize>,
}

/// A class base written as a call with positional arguments: `f(a, b.c, ...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseCall {
    /// Where it stands among the class's other bases.
    pub at: usize,
    /// The function, as a dotted reference in the defining scope.
    pub func: String,
    /// Each argument as a dotted reference; None for anything else (then the call cannot be
    /// read and the base is unknown). Also None when the call has keywords or `*`/`**`.
    pub args: Option<Vec<String>>,
}

/// The call base `expr` at position `at`, when it is a call of a dotted function.
pub(crate) fn base_call(expr: &Expr, at: usize) -> Option<BaseCall> {
    let Expr::Call(call) = expr else {
        return None;
    };
    let func = crate::consts::dotted(&call.func)?;
    let args = if call.arguments.keywords.is_empty() {
        call.arguments
            .args
            .iter()
            .map(crate::consts::dotted)
            .collect::<Option<Vec<String>>>()
    } else {
        None
    };
    Some(BaseCall { at, func, args })
}

/// The bases and metaclass that `call` gives through `builder`; None when an argument the
/// builder needs is missing.
pub(crate) fn apply(
    builder: &ClassBuilder,
    call: &BaseCall,
) -> Option<(Vec<String>, Option<String>)> {
    let args = call.args.as_ref()?;
    let mut bases = Vec::new();
    for &i in &builder.bases {
        bases.push(args.get(i)?.clone());
    }
    if let Some(from) = builder.rest {
        bases.extend(args.iter().skip(from).cloned());
    }
    let meta = match builder.meta {
        Some(i) => Some(args.get(i)?.clone()),
        None => None,
    };
    Some((bases, meta))
}

/// Sets `class_builder` on the module-level functions of `suite` that build a class.
pub(crate) fn mark_builders(bindings: &mut [(String, Value)], suite: &[Stmt]) {
    let found: Vec<(&str, ClassBuilder)> = suite
        .iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(f) => builder(f).map(|b| (f.name.as_str(), b)),
            _ => None,
        })
        .collect();
    if found.is_empty() {
        return;
    }
    for (name, v) in bindings {
        if let Value::Function(f) = v {
            if let Some((_, b)) = found.iter().find(|(n, _)| n == name) {
                f.class_builder = Some(b.clone());
            }
        }
    }
}

/// What `f` builds, when its body has one of the shapes of the module docs.
pub(crate) fn builder(f: &ast::StmtFunctionDef) -> Option<ClassBuilder> {
    let p = &f.parameters;
    let positional = crate::consts::positional_names(p);
    let vararg = p.vararg.as_ref().map(|v| v.name.as_str());
    let mut reader = Reader {
        positional,
        vararg,
        shadowed: Vec::new(),
        found: None,
    };
    reader.body(&f.body, 0);
    reader.found
}

struct Reader<'a> {
    positional: Vec<&'a str>,
    vararg: Option<&'a str>,
    /// Names rebound by the nested functions being read.
    shadowed: Vec<&'a str>,
    found: Option<ClassBuilder>,
}

impl<'a> Reader<'a> {
    fn param(&self, name: &str) -> Option<usize> {
        if self.shadowed.contains(&name) {
            return None;
        }
        self.positional.iter().position(|p| *p == name)
    }

    fn is_vararg(&self, name: &str) -> bool {
        !self.shadowed.contains(&name) && self.vararg == Some(name)
    }

    /// Bases written as `elements`: positional parameters, optionally ending in `*args`.
    fn bases(&self, elements: &[Expr]) -> Option<(Vec<usize>, Option<usize>)> {
        let mut bases = Vec::new();
        let mut rest = None;
        for (k, e) in elements.iter().enumerate() {
            match e {
                Expr::Name(n) => bases.push(self.param(n.id.as_str())?),
                Expr::Starred(s) if k + 1 == elements.len() => match &*s.value {
                    Expr::Name(n) if self.is_vararg(n.id.as_str()) => {
                        rest = Some(self.positional.len());
                    }
                    _ => return None,
                },
                _ => return None,
            }
        }
        Some((bases, rest))
    }

    fn body(&mut self, body: &'a [Stmt], depth: usize) {
        for s in body {
            if self.found.is_some() {
                return;
            }
            self.stmt(s, depth + 1);
        }
    }

    fn stmt(&mut self, s: &'a Stmt, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match s {
            Stmt::FunctionDef(f) => {
                let p = &f.parameters;
                let before = self.shadowed.len();
                self.shadowed.extend(
                    p.posonlyargs
                        .iter()
                        .chain(&p.args)
                        .chain(&p.kwonlyargs)
                        .map(|a| a.parameter.name.as_str())
                        .chain(p.vararg.iter().map(|v| v.name.as_str()))
                        .chain(p.kwarg.iter().map(|v| v.name.as_str())),
                );
                self.body(&f.body, depth);
                self.shadowed.truncate(before);
            }
            Stmt::ClassDef(c) => {
                if let Some(args) = &c.arguments {
                    let meta = args.find_keyword("metaclass").and_then(|k| match &k.value {
                        Expr::Name(n) => self.param(n.id.as_str()),
                        _ => None,
                    });
                    if let (Some(meta), Some((bases, rest))) = (meta, self.bases(&args.args)) {
                        self.found = Some(ClassBuilder {
                            meta: Some(meta),
                            bases,
                            rest,
                        });
                        return;
                    }
                }
                self.body(&c.body, depth);
            }
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.expr(v, depth);
                }
            }
            Stmt::Expr(e) => self.expr(&e.value, depth),
            Stmt::Assign(a) => self.expr(&a.value, depth),
            Stmt::If(i) => {
                self.body(&i.body, depth);
                for c in &i.elif_else_clauses {
                    self.body(&c.body, depth);
                }
            }
            Stmt::Try(t) => {
                self.body(&t.body, depth);
                for h in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = h;
                    self.body(&h.body, depth);
                }
                self.body(&t.orelse, depth);
            }
            _ => {}
        }
    }

    /// A call `M(name, B, ns)` (also inside a returned or assigned expression's calls).
    fn expr(&mut self, e: &'a Expr, depth: usize) {
        if depth > MAX_DEPTH || self.found.is_some() {
            return;
        }
        let Expr::Call(call) = e else {
            return;
        };
        let args = &call.arguments;
        if args.keywords.is_empty() && args.args.len() == 3 {
            let meta = match &*call.func {
                Expr::Name(n) if n.id.as_str() == "type" && !self.shadowed.contains(&"type") => {
                    Some(None)
                }
                Expr::Name(n) => self.param(n.id.as_str()).map(Some),
                _ => None,
            };
            let bases = match &args.args[1] {
                Expr::Name(n) if self.is_vararg(n.id.as_str()) => {
                    Some((Vec::new(), Some(self.positional.len())))
                }
                Expr::Tuple(t) => self.bases(&t.elts),
                _ => None,
            };
            if let (Some(meta), Some((bases, rest))) = (meta, bases) {
                if !bases.is_empty() || rest.is_some() {
                    self.found = Some(ClassBuilder { meta, bases, rest });
                    return;
                }
            }
        }
        for a in args.args.iter() {
            self.expr(a, depth + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder_of(src: &str) -> Option<ClassBuilder> {
        let parsed = ruff_python_parser::parse_module(src).ok()?;
        parsed.syntax().body.iter().find_map(|s| match s {
            Stmt::FunctionDef(f) => builder(f),
            _ => None,
        })
    }

    #[test]
    fn six_with_metaclass_gives_vararg_bases_and_first_parameter_as_metaclass() {
        let six = "def with_metaclass(meta, *bases):\n    class metaclass(type):\n        def __new__(cls, name, this_bases, d):\n            return meta(name, bases, d)\n        @classmethod\n        def __prepare__(cls, name, this_bases):\n            return meta.__prepare__(name, bases)\n    return type.__new__(metaclass, 'temporary_class', (), {})\n";
        assert_eq!(
            builder_of(six),
            Some(ClassBuilder {
                meta: Some(0),
                bases: vec![],
                rest: Some(1)
            })
        );
    }

    #[test]
    fn older_shapes_and_class_statements_are_read() {
        let old =
            "def with_metaclass(meta, base=object):\n    return meta('NewBase', (base,), {})\n";
        assert_eq!(
            builder_of(old),
            Some(ClassBuilder {
                meta: Some(0),
                bases: vec![1],
                rest: None
            })
        );
        let stmt =
            "def make(m, *bs):\n    class C(*bs, metaclass=m):\n        pass\n    return C\n";
        assert_eq!(
            builder_of(stmt),
            Some(ClassBuilder {
                meta: Some(0),
                bases: vec![],
                rest: Some(1)
            })
        );
    }

    #[test]
    fn helper_metaclass_and_shadowed_or_unrelated_calls_are_not_builders() {
        // Six's helper subclasses `meta` but has no `metaclass=`: not the result.
        let helper = "def f(meta, *bases):\n    class metaclass(meta):\n        pass\n    return metaclass\n";
        assert_eq!(builder_of(helper), None);
        // The nested function's own `bases` parameter hides the outer one.
        let shadow = "def f(meta, *bases):\n    def g(name, bases, d):\n        return meta(name, bases, d)\n    return g\n";
        assert_eq!(builder_of(shadow), None);
        let unrelated = "def f(fn, *args):\n    return fn(1, 2, 3)\n";
        assert_eq!(builder_of(unrelated), None);
    }

    #[test]
    fn calls_map_their_arguments_or_give_nothing() {
        let b = ClassBuilder {
            meta: Some(0),
            bases: vec![],
            rest: Some(1),
        };
        let call = BaseCall {
            at: 0,
            func: "with_metaclass".into(),
            args: Some(vec!["M".into(), "_C.Base".into(), "Mixin".into()]),
        };
        assert_eq!(
            apply(&b, &call),
            Some((vec!["_C.Base".into(), "Mixin".into()], Some("M".into())))
        );
        let unreadable = BaseCall { args: None, ..call };
        assert_eq!(apply(&b, &unreadable), None);
    }

    const SIX: &str = "def with_metaclass(meta: type, *bases) -> type:\n    class metaclass(meta):\n        def __new__(cls, name, this_bases, d):\n            return meta(name, bases, d)\n    return type.__new__(metaclass, 'temporary_class', (), {})\n";

    /// torch 1.13's `Function`: the call's arguments become the bases and the metaclass; the
    /// compiled base whose stub body is `...` is open, one that lists members is not.
    #[test]
    fn a_call_of_a_release_class_builder_gives_the_bases_and_metaclass() {
        let s = crate::extract(
            &crate::tests::tree(&[
                ("pkg/__init__.py", ""),
                ("pkg/_C.cpython-311-x86_64-linux-gnu.so", ""),
                (
                    "pkg/_C.pyi",
                    "class _FunctionBase(object):\n    ...\nclass _Doc:\n    \"\"\"Only a docstring.\"\"\"\nclass Listed:\n    def f(self) -> None: ...\nclass FloatTensor(Listed):\n    pass\n",
                ),
                ("pkg/_six.py", SIX),
                (
                    "pkg/function.py",
                    "from pkg._six import with_metaclass\nfrom pkg import _C\nclass Meta(type):\n    pass\nclass Mixin:\n    def hook(self): ...\nclass Function(with_metaclass(Meta, _C._FunctionBase, Mixin)):\n    def forward(self): ...\n",
                ),
            ]),
            "pkg",
            "1",
        );
        let f = &s.symbols["pkg.function.Function"];
        assert_eq!(f.bases, ["pkg._C._FunctionBase", "pkg.function.Mixin"]);
        assert_eq!(f.metaclass.as_deref(), Some("pkg.function.Meta"));
        let base = &s.symbols["pkg._C._FunctionBase"];
        assert!(base.open && base.stub_only, "{base:?}");
        assert!(s.symbols["pkg._C._Doc"].open);
        let listed = &s.symbols["pkg._C.Listed"];
        assert!(listed.stub_only && !listed.open, "{listed:?}");
        // An empty stub subclass has its base's members: not open.
        let sub = &s.symbols["pkg._C.FloatTensor"];
        assert!(sub.stub_only && !sub.open, "{sub:?}");
        // A Python class with an empty body is not open: only stubs say nothing.
        assert!(!s.symbols["pkg.function.Meta"].open);
    }

    /// A builder from outside the release, or a call of another shape: a base the index does
    /// not know, so missing members are unknown rather than absent.
    #[test]
    fn other_call_bases_are_unknown_bases() {
        let s = crate::extract(
            &crate::tests::tree(&[
                ("pkg/__init__.py", ""),
                (
                    "pkg/m.py",
                    "from six import with_metaclass\ndef make(x):\n    return x\nclass Meta(type):\n    pass\nclass A(with_metaclass(Meta, object)):\n    pass\nclass B(make(Meta)):\n    pass\nclass C(Meta, make(Meta, k=1)):\n    pass\n",
                ),
            ]),
            "pkg",
            "1",
        );
        assert_eq!(s.symbols["pkg.m.A"].bases, ["with_metaclass(...)"]);
        assert_eq!(s.symbols["pkg.m.A"].metaclass, None);
        assert_eq!(s.symbols["pkg.m.B"].bases, ["make(...)"]);
        assert_eq!(s.symbols["pkg.m.C"].bases, ["pkg.m.Meta", "make(...)"]);
    }
}
