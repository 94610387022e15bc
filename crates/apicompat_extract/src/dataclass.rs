//! The `__init__` that `@dataclass`, `typing.NamedTuple` and attrs synthesize from fields.
//!
//! Motivated by torch's FSDP configs: `@dataclass class FullStateDictConfig(StateDictConfig)`
//! declares `rank0_only` only, but its `__init__` takes `offload_to_cpu` too (a field of the
//! dataclass base); `FullStateDictConfig(offload_to_cpu=True)` is valid on every 2.x release.
//!
//! Per class (here): the fields in source order, from annotated class attributes (a
//! `ClassVar` or `field(init=False)` is a field `__init__` does not take; `InitVar` fields are
//! parameters), with a default
//! when a value is given (`field()` only with `default=`/`default_factory=`), keyword-only
//! after `_: KW_ONLY`, with `field(kw_only=True)` or `@dataclass(kw_only=True)`; no
//! `__init__` with `@dataclass(init=False)`. attrs classes (`@define`, `@frozen`,
//! `@attr.s(auto_attribs=True)`...) drop one leading underscore from parameter names.
//! Across classes (`resolve/classes.rs`): the fields of the dataclass bases come first, in
//! reverse method resolution order, a redefined field keeping its first place and taking the
//! new definition whole (default, `init`, `kw_only`; a `ClassVar` drops it from `__init__`), as
//! `dataclasses` does (torch 2.9's `LeafSpec(TreeSpec)` redeclares its base's three fields
//! `field(default=None, init=False)`: `LeafSpec()` takes no argument).

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

/// A field as a class declares it; `init` is false when `__init__` does not take it
/// (`field(init=False)`, `ClassVar`): redeclaring a base's field that way removes the
/// parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub param: Param,
    pub init: bool,
}

/// The field an annotated class attribute makes. `_: KW_ONLY` gives a marker that [`finish`]
/// reads.
pub fn field(a: &ast::StmtAnnAssign, annotation: String) -> Option<Field> {
    let Expr::Name(n) = &*a.target else {
        return None;
    };
    let hidden = |param: Param| Some(Field { param, init: false });
    // Also written as a string (`"ClassVar[int]"`), which `dataclasses` recognises too.
    let bare = annotation.trim_start_matches(['"', '\'']);
    if bare.starts_with("ClassVar") || bare.contains(".ClassVar") {
        return hidden(Param {
            name: n.id.to_string(),
            kind: ParamKind::PositionalOrKeyword,
            default: true,
            annotation: Some(annotation),
        });
    }
    if annotation == "KW_ONLY" || annotation.ends_with(".KW_ONLY") {
        return Some(Field {
            param: Param {
                name: String::new(),
                kind: ParamKind::VarPositional,
                default: false,
                annotation: None,
            },
            init: true,
        });
    }
    let mut init = true;
    let mut kind = ParamKind::PositionalOrKeyword;
    let mut default = a.value.is_some();
    if let Some(Expr::Call(c)) = a.value.as_deref() {
        let callee = consts::dotted(&c.func).unwrap_or_default();
        let last = callee.rsplit('.').next().unwrap_or("");
        if matches!(last, "field" | "ib" | "attrib") {
            let keyword = |k: &str| c.arguments.find_keyword(k).map(|k| &k.value);
            if matches!(keyword("init"), Some(Expr::BooleanLiteral(b)) if !b.value) {
                init = false;
            }
            if matches!(keyword("kw_only"), Some(Expr::BooleanLiteral(b)) if b.value) {
                kind = ParamKind::KeywordOnly;
            }
            default = ["default", "default_factory", "factory"]
                .iter()
                .any(|k| keyword(k).is_some());
        }
    }
    Some(Field {
        param: Param {
            name: n.id.to_string(),
            kind,
            default,
            annotation: Some(annotation),
        },
        init,
    })
}

/// A class's own fields: `KW_ONLY` and `kw_only` applied, attrs names.
pub fn finish(synth: Synth, fields: Vec<Field>) -> Vec<Field> {
    let all_kw = matches!(
        synth,
        Synth::Dataclass { kw_only: true } | Synth::Attrs { kw_only: true }
    );
    let mut after_marker = false;
    let mut out = Vec::with_capacity(fields.len());
    for mut field in fields {
        let p = &mut field.param;
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
        out.push(field);
    }
    out
}

/// The parameters of fields (`__init__`'s own when it has no dataclass base).
pub fn params(fields: &[Field]) -> Vec<Param> {
    merge(std::iter::once(fields))
}

/// The `__init__` parameters of a class's fields after its bases' (`classes` from the most
/// basic to the class itself): a redefined field keeps its place and takes the new definition
/// (its default, `kw_only`, and whether `__init__` takes it). Keyword-only fields go after the
/// others, as `dataclasses` orders them.
pub fn merge<'a>(classes: impl Iterator<Item = &'a [Field]>) -> Vec<Param> {
    let mut out: Vec<&Field> = Vec::new();
    for fields in classes {
        for f in fields {
            match out.iter_mut().find(|p| p.param.name == f.param.name) {
                Some(existing) => *existing = f,
                None => out.push(f),
            }
        }
    }
    let mut params: Vec<Param> = out
        .into_iter()
        .filter(|f| f.init)
        .map(|f| f.param.clone())
        .collect();
    params.sort_by_key(|p| p.kind == ParamKind::KeywordOnly);
    params
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

    /// transformers 5.4+ `configuration_utils.py`: `@strict(accept_kwargs=True)` (from
    /// huggingface_hub) above `@dataclass` replaces `__init__` with one that takes `**kwargs`:
    /// its signature is unknown. A decorator of the release or of the standard library above
    /// it keeps the fields' `__init__`, and a subclass's own `@dataclass` still has the fields.
    #[test]
    fn a_foreign_decorator_above_dataclass_leaves_init_unknown() {
        let src = r#"
from dataclasses import dataclass
import functools
from huggingface_hub.dataclasses import strict
from pkg.reg import register
from typing_extensions import deprecated

@strict(accept_kwargs=True)
@dataclass
class Config:
    hidden_size: int = 8

@register
@functools.total_ordering
@deprecated("use Config")
@dataclass
class Kept:
    size: int = 1

@dataclass
class Sub(Config):
    layers: int = 2
"#;
        let files = [
            ("pkg/__init__.py", ""),
            ("pkg/reg.py", "def register(cls):\n    return cls\n"),
            ("pkg/cfg.py", src),
        ];
        let s = crate::extract(&tree(&files), "pkg", "1.0");
        assert!(s.symbols["pkg.cfg.Config"].signatures.is_empty());
        let names =
            |path: &str| -> Vec<String> { params(&files, path).into_iter().map(|p| p.0).collect() };
        assert_eq!(names("pkg.cfg.Kept"), ["size"]);
        assert_eq!(names("pkg.cfg.Sub"), ["hidden_size", "layers"]);
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

    /// torch 2.9 `torch/utils/_pytree.py:1241-1261`: `LeafSpec(TreeSpec)` redeclares its base's
    /// three fields `field(default=None, init=False)`; torch calls `LeafSpec()`.
    #[test]
    fn a_redeclared_field_takes_the_new_init_kw_only_and_kind() {
        let src = r#"
import dataclasses
from dataclasses import dataclass, field, InitVar
from typing import Any, ClassVar
import typing

@dataclass(init=True, frozen=True)
class TreeSpec:
    type: Any
    context: Any
    children_specs: list

@dataclasses.dataclass(init=True, frozen=True, eq=True, repr=False)
class LeafSpec(TreeSpec):
    type: Any = dataclasses.field(default=None, init=False)
    context: Any = dataclasses.field(default=None, init=False)
    children_specs: list = dataclasses.field(default_factory=list, init=False)

@dataclass
class Base:
    a: int
    b: int = 0
    c: ClassVar[int] = 0
    hidden: int = field(default=0, init=False)

@dataclass
class Sub(Base):
    b: "typing.ClassVar[int]" = 1
    a: int = field(default=1, kw_only=True)
    c: int = 2
    hidden: InitVar[int] = 3

@dataclass
class Again(Sub):
    b: int = 4
"#;
        let files = [("pkg/__init__.py", src)];
        let pk = ParamKind::PositionalOrKeyword;
        let kw = ParamKind::KeywordOnly;
        let p = |n: &str, k, d| (n.to_string(), k, d);
        assert_eq!(params(&files, "pkg.LeafSpec"), vec![]);
        assert_eq!(params(&files, "pkg.TreeSpec").len(), 3);
        assert_eq!(
            params(&files, "pkg.Base"),
            vec![p("a", pk, false), p("b", pk, true)]
        );
        // `b` becomes a `ClassVar` (gone), `a` keyword-only (last), `c` a field in the place
        // of the base's `ClassVar`, `hidden` an `InitVar` (a parameter again).
        assert_eq!(
            params(&files, "pkg.Sub"),
            vec![p("c", pk, true), p("hidden", pk, true), p("a", kw, true)]
        );
        // A field again, in its first place.
        assert_eq!(
            params(&files, "pkg.Again"),
            vec![
                p("b", pk, true),
                p("c", pk, true),
                p("hidden", pk, true),
                p("a", kw, true)
            ]
        );
    }
}
