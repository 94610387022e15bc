//! The API surface of one release of a Python distribution.
//!
//! A surface is a flat map from dotted path to [`Symbol`]: modules (`torch.nn`), the names bound
//! in them (`torch.nn.Linear`) and the members of classes (`torch.nn.Linear.forward`). It is what
//! the extractor produces for one release and what the index merges across releases.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What a dotted path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Module,
    Class,
    Function,
    Property,
    Attribute,
    /// Bound, but what it is cannot be known statically (an import from outside the release,
    /// a name listed in `__all__` whose binding is dynamic).
    Unknown,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Module,
        Kind::Class,
        Kind::Function,
        Kind::Property,
        Kind::Attribute,
        Kind::Unknown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Module => "module",
            Kind::Class => "class",
            Kind::Function => "function",
            Kind::Property => "property",
            Kind::Attribute => "attribute",
            Kind::Unknown => "unknown",
        }
    }

    pub fn from_u8(n: u8) -> Option<Kind> {
        Kind::ALL.get(n as usize).copied()
    }

    pub fn as_u8(self) -> u8 {
        self as u8
    }
}

/// How a parameter can be passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    PositionalOnly,
    PositionalOrKeyword,
    VarPositional,
    KeywordOnly,
    VarKeyword,
}

impl ParamKind {
    pub fn from_u8(n: u8) -> Option<ParamKind> {
        [
            ParamKind::PositionalOnly,
            ParamKind::PositionalOrKeyword,
            ParamKind::VarPositional,
            ParamKind::KeywordOnly,
            ParamKind::VarKeyword,
        ]
        .get(n as usize)
        .copied()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    pub default: bool,
    /// The annotation as written in the source, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation: Option<String>,
}

/// One signature of a function or method (several for `@overload`s).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Signature {
    pub params: Vec<Param>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub returns: Option<String>,
}

impl Signature {
    /// Whether a call may pass `name=` as a keyword.
    pub fn accepts_keyword(&self, name: &str) -> bool {
        self.params.iter().any(|p| {
            p.kind == ParamKind::VarKeyword
                || (p.name == name
                    && matches!(
                        p.kind,
                        ParamKind::PositionalOrKeyword | ParamKind::KeywordOnly
                    ))
        })
    }

    /// `(a, b=..., *, c)` style rendering.
    pub fn render(&self) -> String {
        let mut out = String::from("(");
        let mut star_done = false;
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match p.kind {
                ParamKind::VarPositional => {
                    star_done = true;
                    out.push('*');
                }
                ParamKind::VarKeyword => out.push_str("**"),
                ParamKind::KeywordOnly if !star_done => {
                    star_done = true;
                    out.push_str("*, ");
                }
                _ => {}
            }
            out.push_str(&p.name);
            if let Some(a) = &p.annotation {
                out.push_str(": ");
                out.push_str(a);
            }
            if p.default {
                out.push_str(if p.annotation.is_some() {
                    " = ..."
                } else {
                    "=..."
                });
            }
            let next_not_posonly = self
                .params
                .get(i + 1)
                .is_none_or(|n| n.kind != ParamKind::PositionalOnly);
            if p.kind == ParamKind::PositionalOnly && next_not_posonly {
                out.push_str(", /");
            }
        }
        out.push(')');
        if let Some(r) = &self.returns {
            out.push_str(" -> ");
            out.push_str(r);
        }
        out
    }
}

/// One dotted path of a release.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Symbol {
    pub kind: Option<Kind>,
    /// The path of the definition when this path is a re-export or alias of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signatures: Vec<Signature>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
    /// Base classes (canonical dotted paths where they resolve, as written otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<String>,
    /// A class's `metaclass=` (canonical where it resolves, as written otherwise). Not a base:
    /// its members are attributes of the class object, not of instances.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metaclass: Option<String>,
    /// Modules and classes that answer any attribute (`__getattr__`): a name they don't list is
    /// unknown, not missing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open: bool,
    /// With `open`, for a class: its `__getattr__` answers only from the instance's own data
    /// (`self.__dict__[...]`, `self._modules`...) and raises `AttributeError` otherwise, or a
    /// method sets attributes under names the source does not list (`setattr(self, key, v)`,
    /// `self.__dict__.update(d)`: `apicompat_extract::self_attrs`). A name
    /// that is a method, property or nested class of the class in some release is missing in
    /// a release that lacks it; any other name is still unknown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub open_instance_only: bool,
    /// A class declared only by the stub of a compiled module: the compiled class may have
    /// members the stub omits. A name the class declares in some release is missing in a
    /// release that lacks it; any other name is unknown. With `open`, a module of the
    /// standard library (`apicompat_extract::py_version`): a name it declares in some release
    /// (any kind, a submodule too) is missing in a release that lacks it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stub_only: bool,
    /// Not declared: the release's own code reads it on a compiled object
    /// (`apicompat_extract::evidence`). It says nothing of other releases.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evidence: bool,
    /// It may not exist: unknown there, never missing. With `evidence`: the release's code
    /// reads it only outside import time. Without: bound only by a `try` import of a module
    /// that neither the release nor its requirements provide (`apicompat_extract::fallible`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uncertain: bool,
    /// Compiled modules without a stub: their members are unknown.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub opaque: bool,
    /// A module that `import` accepts under this path (a file, a namespace package, or a name
    /// registered in `sys.modules`), as opposed to a name bound to a module.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub importable: bool,
    /// A module other code can add names to at run time (it has a function that sets computed
    /// names on it): a name no release defines is unknown there, not missing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub extensible: bool,
    /// For a submodule (`triton.runtime.driver`): what attribute access on its package finds
    /// under its name instead of the module, because the package's `__init__` binds the name
    /// by importing it from that very submodule (`from .driver import driver`, or a star
    /// import that exports it): the path of that object's definition. Import statements
    /// (`import a.b`, `from a.b import n`) still find the module through `sys.modules`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow: Option<String>,
    /// For an attribute that some package binds over a submodule (a [`Symbol::shadow`]) and
    /// that is an instance made at module level (`driver = DriverConfig()`): its class
    /// (canonical), whose members are the instance's attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_of: Option<String>,
    /// For a function that returns a truth value: paths (of any package) that exist wherever
    /// it returns true, because every true return reads them (`apicompat_extract::implies`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub implies: Vec<String>,
    /// For a function or module-level flag that compares a package's version: what the
    /// checker's reading of version helpers makes of it, as JSON that only the checker reads
    /// (`apicompat_check::indexed_helpers`, set when the release is indexed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_helper: Option<String>,
}

impl Symbol {
    pub fn kind(&self) -> Kind {
        self.kind.unwrap_or(Kind::Unknown)
    }
}

/// Core metadata of the release.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ReleaseMeta {
    #[serde(default)]
    pub requires_dist: Vec<String>,
    #[serde(default)]
    pub requires_python: Option<String>,
    /// Names a module raises `AttributeError` for with a migration note (numpy's
    /// `__former_attrs__`, `__expired_attributes__`): path -> note.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub removed: BTreeMap<String, String>,
    /// The Pythons the release has wheels for, when it ships only wheels built for some
    /// (no sdist, no `py3` wheel): `3.9`, or `3.8+` for an abi3 wheel (that and every newer).
    /// Empty: installable wherever `requires_python` admits, or not known (a local file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wheel_pythons: Vec<String>,
    /// The platforms the release has wheels for, when it ships only wheels built for some
    /// (no sdist, no `any` wheel): `linux_x86_64`, `macos_arm64`... Empty: installable
    /// anywhere, or not known.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wheel_platforms: Vec<String>,
}

/// The surface of one release.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Surface {
    pub package: String,
    pub version: String,
    pub meta: ReleaseMeta,
    pub symbols: BTreeMap<String, Symbol>,
    /// Files that could not be read or parsed cleanly, with the reason.
    #[serde(default)]
    pub problems: Vec<String>,
}

/// Splits `a.b.c` into (`a.b`, `c`).
pub fn split_parent(path: &str) -> Option<(&str, &str)> {
    path.rsplit_once('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_signature_with_all_kinds() {
        let p = |name: &str, kind, default| Param {
            name: name.into(),
            kind,
            default,
            annotation: None,
        };
        let sig = Signature {
            params: vec![
                p("a", ParamKind::PositionalOnly, false),
                p("b", ParamKind::PositionalOrKeyword, true),
                p("c", ParamKind::KeywordOnly, false),
                p("kw", ParamKind::VarKeyword, false),
            ],
            returns: Some("int".into()),
        };
        assert_eq!(sig.render(), "(a, /, b=..., *, c, **kw) -> int");
        assert!(sig.accepts_keyword("anything"));
        let strict = Signature {
            params: sig.params[..3].to_vec(),
            returns: None,
        };
        assert!(strict.accepts_keyword("b"));
        assert!(strict.accepts_keyword("c"));
        assert!(!strict.accepts_keyword("a"));
        assert!(!strict.accepts_keyword("d"));
    }
}
