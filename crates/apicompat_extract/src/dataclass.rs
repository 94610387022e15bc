//! The `__init__` that `@dataclass`, `typing.NamedTuple` and attrs synthesize from fields.
//!
//! Motivated by torch's FSDP configs: `@dataclass class FullStateDictConfig(StateDictConfig)`
//! declares `rank0_only` only, but its `__init__` takes `offload_to_cpu` too (a field of the
//! dataclass base); `FullStateDictConfig(offload_to_cpu=True)` is valid on every 2.x release.
//!
//! Per class (here): the fields in source order, from annotated class attributes (not
//! `ClassVar`; `InitVar` fields are parameters; `field(init=False)` is not), with a default
//! when a value is given (`field()` only with `default=`/`default_factory=`), keyword-only
//! after `_: KW_ONLY`, with `field(kw_only=True)` or `@dataclass(kw_only=True)`; no
//! `__init__` with `@dataclass(init=False)`. attrs classes (`@define`, `@frozen`,
//! `@attr.s(auto_attribs=True)`...) drop one leading underscore from parameter names.
//! Across classes (`resolve/classes.rs`): the fields of the dataclass bases come first, in
//! reverse method resolution order, a redefined field keeping its first place.

use ruff_python_ast::{self as ast, Expr};

use apicompat_surface::{Param, ParamKind};

use crate::consts;

/// Which field-based `__init__` a class decorator or base synthesizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synth {
    Dataclass { kw_only: bool },
    Attrs { kw_only: bool },
    NamedTuple,
}

/// The synthesizing decorator of a class, if any (`None` too for `init=False`).
pub fn decorator(d: &ast::Decorator) -> Option<Synth> {
    let (callee, call) = match &d.expression {
        Expr::Call(c) => (&*c.func, Some(c)),
        e => (e, None),
    };
    let name = consts::dotted(callee)?;
    let last = name.rsplit('.').next().unwrap_or("");
    let flag = |key: &str| {
        call.and_then(|c| c.arguments.find_keyword(key))
            .map(|k| matches!(k.value, Expr::BooleanLiteral(ref b) if b.value))
    };
    if flag("init") == Some(false) {
        return None;
    }
    let kw_only = flag("kw_only").unwrap_or(false);
    match (name.as_str(), last) {
        (_, "dataclass") => Some(Synth::Dataclass { kw_only }),
        ("attr.s" | "attr.attrs" | "attrs.define" | "attr.define" | "define", _)
        | ("attrs.frozen" | "attr.frozen" | "frozen" | "attrs.mutable" | "mutable", _) => {
            // `@attr.s` reads annotations only with `auto_attribs=True`.
            let annotated = !name.ends_with(".s") && !name.ends_with(".attrs")
                || flag("auto_attribs") == Some(true);
            annotated.then_some(Synth::Attrs { kw_only })
        }
        _ => None,
    }
}

/// Whether a base written `base` makes a NamedTuple.
pub fn named_tuple_base(base: &str) -> bool {
    matches!(
        base,
        "NamedTuple" | "typing.NamedTuple" | "typing_extensions.NamedTuple"
    )
}

/// The parameter an annotated class attribute makes, or `None` (`ClassVar`,
/// `field(init=False)`). `_: KW_ONLY` gives a marker that [`finish`] reads.
pub fn field(a: &ast::StmtAnnAssign, annotation: String) -> Option<Param> {
    let Expr::Name(n) = &*a.target else {
        return None;
    };
    if annotation.starts_with("ClassVar") || annotation.contains(".ClassVar") {
        return None;
    }
    if annotation == "KW_ONLY" || annotation.ends_with(".KW_ONLY") {
        return Some(Param {
            name: String::new(),
            kind: ParamKind::VarPositional,
            default: false,
            annotation: None,
        });
    }
    let mut kind = ParamKind::PositionalOrKeyword;
    let mut default = a.value.is_some();
    if let Some(Expr::Call(c)) = a.value.as_deref() {
        let callee = consts::dotted(&c.func).unwrap_or_default();
        let last = callee.rsplit('.').next().unwrap_or("");
        if matches!(last, "field" | "ib" | "attrib") {
            let keyword = |k: &str| c.arguments.find_keyword(k).map(|k| &k.value);
            if matches!(keyword("init"), Some(Expr::BooleanLiteral(b)) if !b.value) {
                return None;
            }
            if matches!(keyword("kw_only"), Some(Expr::BooleanLiteral(b)) if b.value) {
                kind = ParamKind::KeywordOnly;
            }
            default = ["default", "default_factory", "factory"]
                .iter()
                .any(|k| keyword(k).is_some());
        }
    }
    Some(Param {
        name: n.id.to_string(),
        kind,
        default,
        annotation: Some(annotation),
    })
}

/// A class's own fields as parameters: `KW_ONLY` and `kw_only` applied, attrs names.
pub fn finish(synth: Synth, fields: Vec<Param>) -> Vec<Param> {
    let all_kw = matches!(
        synth,
        Synth::Dataclass { kw_only: true } | Synth::Attrs { kw_only: true }
    );
    let mut after_marker = false;
    let mut out = Vec::with_capacity(fields.len());
    for mut p in fields {
        if p.kind == ParamKind::VarPositional {
            after_marker = true;
            continue;
        }
        if all_kw || after_marker {
            p.kind = ParamKind::KeywordOnly;
        }
        if matches!(synth, Synth::Attrs { .. }) {
            if let Some(stripped) = p.name.strip_prefix('_') {
                p.name = stripped.to_string();
            }
        }
        out.push(p);
    }
    out
}

/// The fields of a class after its bases' (`classes` from the most basic to the class
/// itself): a redefined field keeps its place and takes the new definition. Keyword-only
/// fields go after the others, as `dataclasses` orders them.
pub fn merge<'a>(classes: impl Iterator<Item = &'a [Param]>) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    for fields in classes {
        for f in fields {
            match out.iter_mut().find(|p| p.name == f.name) {
                Some(existing) => *existing = f.clone(),
                None => out.push(f.clone()),
            }
        }
    }
    out.sort_by_key(|p| p.kind == ParamKind::KeywordOnly);
    out
}

#[cfg(test)]
mod tests {
    use apicompat_surface::ParamKind;

    use crate::tests::tree;

    fn params(files: &[(&str, &str)], path: &str) -> Vec<(String, ParamKind, bool)> {
        let s = crate::extract(&tree(files), "pkg", "1.0");
        let sym = s.symbols.get(path).unwrap_or_else(|| panic!("{path}"));
        match sym.signatures.as_slice() {
            [sig] => sig
                .params
                .iter()
                .map(|p| (p.name.clone(), p.kind, p.default))
                .collect(),
            other => panic!("{path}: {other:?}"),
        }
    }

    /// torch/distributed/fsdp/api.py (2.1): the config dataclasses.
    #[test]
    fn dataclass_init_takes_the_fields_of_its_bases() {
        let src = r#"
from dataclasses import dataclass, field, KW_ONLY, InitVar
from typing import ClassVar, NamedTuple
import attr

@dataclass
class StateDictConfig:
    offload_to_cpu: bool = False

@dataclass
class FullStateDictConfig(StateDictConfig):
    rank0_only: bool = False

@dataclass(kw_only=True)
class Opts(StateDictConfig):
    a: int
    cache: dict = field(default_factory=dict)
    hidden: int = field(init=False, default=0)
    count: ClassVar[int] = 0
    seed: InitVar[int] = 0

@dataclass
class Marker:
    x: int
    _: KW_ONLY
    y: int = 1

class Point(NamedTuple):
    x: int
    y: int = 0

@attr.s(auto_attribs=True)
class A:
    _private: int = attr.ib(default=1)

class Outside(SomethingElse):
    pass

@dataclass
class FromOutside(Outside):
    z: int = 0
"#;
        let files = [("pkg/__init__.py", src)];
        let pk = ParamKind::PositionalOrKeyword;
        let kw = ParamKind::KeywordOnly;
        let p = |n: &str, k, d| (n.to_string(), k, d);
        assert_eq!(
            params(&files, "pkg.FullStateDictConfig"),
            vec![p("offload_to_cpu", pk, true), p("rank0_only", pk, true)]
        );
        assert_eq!(
            params(&files, "pkg.Opts"),
            vec![
                p("offload_to_cpu", pk, true),
                p("a", kw, false),
                p("cache", kw, true),
                p("seed", kw, true)
            ]
        );
        assert_eq!(
            params(&files, "pkg.Marker"),
            vec![p("x", pk, false), p("y", kw, true)]
        );
        assert_eq!(
            params(&files, "pkg.Point"),
            vec![p("x", pk, false), p("y", pk, true)]
        );
        assert_eq!(params(&files, "pkg.A"), vec![p("private", pk, true)]);
        // A base from outside the release: its fields cannot be known, no signature.
        let s = crate::extract(&tree(&files), "pkg", "1.0");
        assert!(s.symbols["pkg.FromOutside"].signatures.is_empty());
    }
}
