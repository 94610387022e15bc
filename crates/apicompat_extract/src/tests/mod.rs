//! Extraction on small fixtures that mirror patterns of real packages.

use apicompat_archive::{SourceFile, SourceTree};
use apicompat_surface::{Kind, ParamKind, Surface};

use crate::extract;

/// A release made of these `(path, source)` files.
pub(crate) fn tree(files: &[(&str, &str)]) -> SourceTree {
    SourceTree {
        files: files
            .iter()
            .map(|(p, s)| SourceFile {
                path: p.to_string(),
                data: s.as_bytes().to_vec(),
            })
            .collect(),
        ..SourceTree::default()
    }
}

fn kind(s: &Surface, path: &str) -> Option<Kind> {
    s.symbols.get(path).map(|sym| sym.kind())
}

#[test]
fn module_level_bindings_of_every_form() {
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", "from .core import Thing as Alias, helper\nimport os\nimport a.b.c\nimport x.y as xy\n"),
            (
                "pkg/core.py",
                r#"
import typing
from typing import TYPE_CHECKING
class Thing:
    attr = 1
    def method(self, a, b=2, *args, c, **kw): ...
    @property
    def prop(self): return 1
    def __init__(self, size: int, *, flag=False):
        self.size = size
        if flag:
            self.extra: int = 0
    class Inner:
        def deep(self): ...
def helper(x, /, y): pass
if TYPE_CHECKING:
    from other import Typed
else:
    Typed = None
try:
    from fast import speedup
except ImportError:
    def speedup(): ...
with open("x") as fh:
    in_with = 1
CONST: int = 3
annotated_only: int
"#,
            ),
        ]),
        "pkg",
        "1.0",
    );
    assert_eq!(kind(&s, "pkg"), Some(Kind::Module));
    assert_eq!(kind(&s, "pkg.core"), Some(Kind::Module));
    assert_eq!(kind(&s, "pkg.core.Thing"), Some(Kind::Class));
    assert_eq!(kind(&s, "pkg.core.Thing.method"), Some(Kind::Function));
    assert_eq!(kind(&s, "pkg.core.Thing.prop"), Some(Kind::Property));
    assert_eq!(kind(&s, "pkg.core.Thing.attr"), Some(Kind::Attribute));
    assert_eq!(kind(&s, "pkg.core.Thing.size"), Some(Kind::Attribute));
    assert_eq!(kind(&s, "pkg.core.Thing.extra"), Some(Kind::Attribute));
    assert_eq!(kind(&s, "pkg.core.Thing.Inner.deep"), Some(Kind::Function));
    assert_eq!(kind(&s, "pkg.core.helper"), Some(Kind::Function));
    assert_eq!(kind(&s, "pkg.core.Typed"), Some(Kind::Unknown));
    assert_eq!(kind(&s, "pkg.core.speedup"), Some(Kind::Unknown));
    assert_eq!(kind(&s, "pkg.core.in_with"), Some(Kind::Attribute));
    assert_eq!(kind(&s, "pkg.core.CONST"), Some(Kind::Attribute));
    assert_eq!(kind(&s, "pkg.core.annotated_only"), None);
    // Re-exports resolve to the definition.
    let alias = &s.symbols["pkg.Alias"];
    assert_eq!(alias.kind(), Kind::Class);
    assert_eq!(alias.canonical.as_deref(), Some("pkg.core.Thing"));
    assert_eq!(kind(&s, "pkg.Thing"), None);
    assert_eq!(s.symbols["pkg.os"].kind(), Kind::Module);
    assert_eq!(s.symbols["pkg.a"].canonical.as_deref(), Some("a"));
    assert_eq!(s.symbols["pkg.xy"].canonical.as_deref(), Some("x.y"));
    // Signatures: `self` dropped, kinds and defaults kept.
    let m = &s.symbols["pkg.core.Thing.method"].signatures[0];
    let kinds: Vec<_> = m
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.kind, p.default))
        .collect();
    assert_eq!(
        kinds,
        [
            ("a", ParamKind::PositionalOrKeyword, false),
            ("b", ParamKind::PositionalOrKeyword, true),
            ("args", ParamKind::VarPositional, false),
            ("c", ParamKind::KeywordOnly, false),
            ("kw", ParamKind::VarKeyword, false),
        ]
    );
    let init = &s.symbols["pkg.core.Thing"].signatures[0];
    assert_eq!(init.render(), "(size: int, *, flag=...)");
    assert_eq!(
        s.symbols["pkg.core.helper"].signatures[0].render(),
        "(x, /, y)"
    );
}

#[test]
fn star_imports_follow_all() {
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", "from .a import *\nfrom .b import *\n"),
            ("pkg/a.py", "__all__ = ['pub', '_listed']\ndef pub(): ...\ndef _listed(): ...\ndef unlisted(): ...\n"),
            ("pkg/b.py", "import os\ndef public(): ...\ndef _private(): ...\n"),
        ]),
        "pkg",
        "1",
    );
    assert_eq!(s.symbols["pkg.pub"].canonical.as_deref(), Some("pkg.a.pub"));
    assert!(s.symbols.contains_key("pkg._listed"));
    assert!(!s.symbols.contains_key("pkg.unlisted"));
    assert_eq!(s.symbols["pkg.public"].kind(), Kind::Function);
    assert!(!s.symbols.contains_key("pkg._private"));
    // Without __all__, public imported names are copied too.
    assert!(s.symbols.contains_key("pkg.os"));
}

#[test]
fn all_forms_and_dynamic_globals() {
    let s = extract(
        &tree(&[
            (
                "pkg/__init__.py",
                r#"
from . import sub
_names = {"alpha": 1, "beta": 2}
__all__ = ["x"] + sub.__all__
__all__ += list(_names.keys())
__all__.extend(["gamma"])
__all__.append("delta")
for _n in ["e1", "e2"]:
    globals()[_n] = object()
globals().update({"f1": 1})
"#,
            ),
            ("pkg/sub.py", "__all__ = ['from_sub']\nfrom_sub = 1\n"),
        ]),
        "pkg",
        "1",
    );
    for name in [
        "x", "from_sub", "alpha", "beta", "gamma", "delta", "e1", "e2", "f1",
    ] {
        assert!(s.symbols.contains_key(&format!("pkg.{name}")), "{name}");
    }
    assert!(!s.symbols["pkg"].open);
}

#[test]
fn open_modules_and_closed_getattr() {
    let s = extract(
        &tree(&[
            (
                "pkg/__init__.py",
                "def __getattr__(name):\n    return name\n",
            ),
            (
                "pkg/lazy.py",
                r#"
_lazy = {"_dynamo", "onnx"}
_deprecated = {"old": None}
def __getattr__(name):
    replacement = _deprecated.get(name)
    if replacement is not None:
        return replacement
    if name in _lazy:
        return 1
    raise AttributeError(f"no attribute {name}")
"#,
            ),
            ("pkg/dyn.py", "for k in compute():\n    globals()[k] = 1\n"),
            (
                "pkg/selfreplace.py",
                "import sys\nsys.modules[__name__] = object()\n",
            ),
        ]),
        "pkg",
        "1",
    );
    assert!(s.symbols["pkg"].open);
    assert!(!s.symbols["pkg.lazy"].open);
    for name in ["_dynamo", "onnx", "old"] {
        assert!(
            s.symbols.contains_key(&format!("pkg.lazy.{name}")),
            "{name}"
        );
    }
    assert!(s.symbols["pkg.dyn"].open);
    assert!(s.symbols["pkg.selfreplace"].open);
}

#[test]
fn registered_modules_alias_their_target() {
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", ""),
            ("pkg/new/__init__.py", "from .mesh import Mesh\n"),
            ("pkg/new/mesh.py", "class Mesh: ...\n"),
            (
                "pkg/old/__init__.py",
                r#"
import sys
from importlib import import_module
submodules = ["mesh"]
for submodule in submodules:
    full = f"pkg.new.{submodule}"
    sys.modules[f"pkg.old.{submodule}"] = import_module(full)
from pkg.new import Mesh
"#,
            ),
        ]),
        "pkg",
        "1",
    );
    let m = &s.symbols["pkg.old.mesh"];
    assert_eq!(m.kind(), Kind::Module);
    assert_eq!(m.canonical.as_deref(), Some("pkg.new.mesh"));
    assert_eq!(
        s.symbols["pkg.old.mesh.Mesh"].canonical.as_deref(),
        Some("pkg.new.mesh.Mesh")
    );
    assert_eq!(
        s.symbols["pkg.old.Mesh"].canonical.as_deref(),
        Some("pkg.new.mesh.Mesh")
    );
}

#[test]
fn extensions_stubs_and_namespaces() {
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", "from ._C import *\n"),
            ("pkg/_C.cpython-312-darwin.so", ""),
            ("pkg/_C/__init__.pyi", "def op(x: int) -> int: ...\n"),
            ("pkg/_ext.cpython-311-x86_64-linux-gnu.so", ""),
            ("pkg/ns/leaf.py", "X = 1\n"),
            ("pkg/bad-name/x.py", "Y = 1\n"),
        ]),
        "pkg",
        "1",
    );
    assert!(s.symbols["pkg._C"].open);
    assert!(!s.symbols["pkg._C"].opaque);
    assert_eq!(s.symbols["pkg.op"].kind(), Kind::Function);
    assert!(s.symbols["pkg._ext"].opaque);
    assert_eq!(kind(&s, "pkg.ns"), Some(Kind::Module));
    assert_eq!(kind(&s, "pkg.ns.leaf.X"), Some(Kind::Attribute));
    assert!(!s.symbols.keys().any(|k| k.contains("bad")));
}

/// A top-level namespace package (no `__init__.py`) is open: another distribution can add
/// modules under it (megatron-core's `megatron` and a Megatron-LM checkout's
/// `megatron.legacy`). A package with an `__init__.py` is not.
#[test]
fn namespace_roots_are_open() {
    let s = extract(&tree(&[("ns/core/__init__.py", "X = 1\n")]), "ns", "1");
    assert!(s.symbols["ns"].open);
    assert!(!s.symbols["ns.core"].open);
    let s = extract(
        &tree(&[("pkg/__init__.py", ""), ("pkg/core/__init__.py", "X = 1\n")]),
        "pkg",
        "1",
    );
    assert!(!s.symbols["pkg"].open);
}

#[test]
fn deprecations_and_overloads() {
    let s = extract(
        &tree(&[(
            "pkg/__init__.py",
            r#"
import warnings
from typing import overload
from typing_extensions import deprecated
@deprecated("use new_thing instead")
def old_thing(): ...
@deprecate_kwarg("cache_params", version="6.0", new_name="past_key_values")
def generate(inputs=None, **kwargs): ...
@_deprecate_arguments(version="1.0", deprecated_args=["token"])
def upload(path, token=None): ...
def older(x):
    """Doc."""
    warnings.warn("older is deprecated, use newer", FutureWarning)
@overload
def f(x: int) -> int: ...
@overload
def f(x: str, *, strict: bool) -> str: ...
def f(x, strict=False): ...
@dataclass
class Config:
    lr: float
    steps: int = 10
"#,
        )]),
        "pkg",
        "1",
    );
    assert_eq!(
        s.symbols["pkg.old_thing"].deprecated.as_deref(),
        Some("use new_thing instead")
    );
    assert_eq!(
        s.symbols["pkg.older"].deprecated.as_deref(),
        Some("older is deprecated, use newer")
    );
    // Decorators that deprecate a parameter leave the function current.
    assert_eq!(s.symbols["pkg.generate"].deprecated, None);
    assert_eq!(s.symbols["pkg.upload"].deprecated, None);
    assert_eq!(s.symbols["pkg.f"].signatures.len(), 3);
    assert_eq!(
        s.symbols["pkg.Config"].signatures[0].render(),
        "(lr: float, steps: int = ...)"
    );
}

#[test]
fn broken_input_is_recorded_not_fatal() {
    let mut t = tree(&[
        (
            "pkg/__init__.py",
            "def ok(): ...\ndef broken(:\n    pass\nclass After: ...\n",
        ),
        (
            "pkg/deep.py",
            &format!("x = {}1{}\n", "[".repeat(5000), "]".repeat(5000)),
        ),
    ]);
    t.files.push(SourceFile {
        path: "pkg/latin.py".into(),
        data: b"name = '\xe9'\ndef f(): ...\n".to_vec(),
    });
    let s = extract(&t, "pkg", "1");
    assert!(s.symbols.contains_key("pkg.ok"));
    assert!(s.symbols.contains_key("pkg.After"));
    assert!(s.symbols.contains_key("pkg.latin.f"));
    assert!(s
        .problems
        .iter()
        .any(|p| p.contains("pkg/__init__.py") && p.contains("syntax error")));
    assert!(s
        .problems
        .iter()
        .any(|p| p.contains("pkg/latin.py") && p.contains("UTF-8")));
}

#[test]
fn stubs_reexport_only_explicit_aliases() {
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", ""),
            (
                "pkg/_ext.pyi",
                "from typing import Dict\nfrom enum import Enum as Enum\nimport os\nimport sys as sys\nfrom .other import *\nclass K(Enum): ...\n",
            ),
            ("pkg/other.py", "def helper(): ...\n"),
        ]),
        "pkg",
        "1",
    );
    assert!(!s.symbols.contains_key("pkg._ext.Dict"));
    assert!(!s.symbols.contains_key("pkg._ext.os"));
    assert!(s.symbols.contains_key("pkg._ext.Enum"));
    assert!(s.symbols.contains_key("pkg._ext.sys"));
    assert!(s.symbols.contains_key("pkg._ext.helper"));
    assert!(s.symbols.contains_key("pkg._ext.K"));
}

#[test]
fn loop_variables_and_imported_submodules_are_bound() {
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", "from ._ops import *\nfor name in ['a', 'b']:\n    pass\nfor k in compute():\n    pass\n"),
            ("pkg/_ops/__init__.py", "from .binary import add\nimport pkg._ops.unary\n"),
            ("pkg/_ops/binary.py", "def add(): ...\n"),
            ("pkg/_ops/unary.py", "def neg(): ...\n"),
            ("pkg/_ops/hidden.py", "def f(): ...\n"),
        ]),
        "pkg",
        "1",
    );
    assert!(s.symbols.contains_key("pkg.name"));
    assert!(s.symbols.contains_key("pkg.k"));
    // Imported submodules are bound in their package and travel with its star export.
    assert_eq!(s.symbols["pkg.binary"].kind(), Kind::Module);
    assert_eq!(s.symbols["pkg.unary"].kind(), Kind::Module);
    assert!(s.symbols.contains_key("pkg.add"));
    assert!(!s.symbols.contains_key("pkg.hidden"));
}

#[test]
fn metaclass_members_belong_to_the_class() {
    let s = extract(
        &tree(&[(
            "pkg/__init__.py",
            "class _Meta(type):\n    @property\n    def WORLD(cls): ...\nclass group(metaclass=_Meta):\n    NON = 1\nclass Plain(metaclass=ABCMeta): ...\n",
        )]),
        "pkg",
        "1",
    );
    // A metaclass is kept apart from the bases: its members are the class object's, not the
    // instances'.
    assert!(s.symbols["pkg.group"].bases.is_empty());
    assert_eq!(
        s.symbols["pkg.group"].metaclass.as_deref(),
        Some("pkg._Meta")
    );
    assert!(s.symbols["pkg.Plain"].bases.is_empty());
    assert_eq!(s.symbols["pkg.Plain"].metaclass.as_deref(), Some("ABCMeta"));
}

#[test]
fn class_getattr_is_classified_by_what_it_answers() {
    let s = extract(
        &tree(&[(
            "pkg/__init__.py",
            r#"
import enum
from enum import Enum
_LAZY = ("x", "y")

class Module:
    def __getattr__(self, name):
        if "_modules" in self.__dict__:
            modules = self.__dict__["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(name)
    def forward(self): ...

class Lazy:
    def __getattr__(self, name):
        if name in _LAZY:
            return self._load(name)
        raise AttributeError(name)

class Proxy:
    def __getattr__(self, name):
        return getattr(self._inner, name)

class Color(Enum):
    RED = 1

class Shade(enum.IntEnum):
    DARK = 1
"#,
        )]),
        "pkg",
        "1",
    );
    let m = &s.symbols["pkg.Module"];
    assert!(m.open && m.open_instance_only);
    let lazy = &s.symbols["pkg.Lazy"];
    assert!(!lazy.open, "a closed __getattr__ answers its names only");
    assert_eq!(kind(&s, "pkg.Lazy.x"), Some(Kind::Attribute));
    assert_eq!(kind(&s, "pkg.Lazy.y"), Some(Kind::Attribute));
    let proxy = &s.symbols["pkg.Proxy"];
    assert!(proxy.open && !proxy.open_instance_only);
    assert!(!proxy.stub_only);
    // Standard-library bases keep their qualified names.
    assert_eq!(s.symbols["pkg.Color"].bases, ["enum.Enum"]);
    assert_eq!(s.symbols["pkg.Shade"].bases, ["enum.IntEnum"]);
}

#[test]
fn stub_bases_from_private_imports_are_qualified() {
    // torch/_C/_profiler.pyi: `from enum import Enum` (not re-exported), `class X(Enum)`.
    let s = extract(
        &tree(&[
            ("pkg/_C.cpython-311-x86_64-linux-gnu.so", ""),
            (
                "pkg/_C.pyi",
                "from enum import Enum\nimport abc\nfrom typing import Generic as G\nclass Activity(Enum):\n    CPU = ...\nclass P(G, metaclass=abc.ABCMeta): ...\n",
            ),
            ("pkg/__init__.py", ""),
        ]),
        "pkg",
        "1",
    );
    assert!(
        !s.symbols.contains_key("pkg._C.Enum"),
        "not a name of the module"
    );
    assert_eq!(s.symbols["pkg._C.Activity"].bases, ["enum.Enum"]);
    assert_eq!(s.symbols["pkg._C.P"].bases, ["typing.Generic"]);
    assert_eq!(
        s.symbols["pkg._C.P"].metaclass.as_deref(),
        Some("abc.ABCMeta")
    );
}

#[test]
fn modules_that_others_extend_at_run_time() {
    let s = extract(
        &tree(&[
            (
                "pkg/__init__.py",
                "import sys\ndef register(name, module):\n    m = sys.modules[__name__]\n    setattr(m, name, module)\n",
            ),
            (
                "pkg/selfcall.py",
                "import sys\ndef _add(name):\n    setattr(sys.modules[__name__], name, 1)\nfor n in compute():\n    _add(n)\n",
            ),
        ]),
        "pkg",
        "1",
    );
    // Names appear only when other code calls `register`: extensible, not open.
    assert!(s.symbols["pkg"].extensible && !s.symbols["pkg"].open);
    // The module calls its own function at import: open.
    assert!(s.symbols["pkg.selfcall"].open);
}

/// deepspeed 0.19.8 `ops/op_builder/__init__.py:46-53`: `this_module = sys.modules[__name__]`,
/// then a loop over the package's modules stores `this_module.__dict__[member_name] = ...`
/// (`AsyncIOBuilder`, `CPUAdamBuilder`, which the package itself imports from there).
#[test]
fn stores_into_the_modules_own_dict_open_it() {
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", ""),
            (
                "pkg/ops.py",
                "import sys
this_module = sys.modules[__name__]
for name in find():
    if name.endswith('Builder'):
        this_module.__dict__[name] = make(name)
",
            ),
            (
                "pkg/direct.py",
                "import sys
for name in find():
    sys.modules[__name__].__dict__[name] = 1
",
            ),
            (
                "pkg/setattr_alias.py",
                "import sys
me = sys.modules[__name__]
for name in find():
    setattr(me, name, 1)
setattr(me, 'KNOWN', 2)
",
            ),
            (
                "pkg/literal.py",
                "import sys
this = sys.modules[__name__]
this.__dict__['ONE'] = 1
",
            ),
            (
                "pkg/updated.py",
                "import sys\nthis = sys.modules[__name__]\nthis.__dict__.update(compute())\n",
            ),
            (
                "pkg/vars_updated.py",
                "import sys\nvars(sys.modules[__name__]).update(compute())\n",
            ),
            (
                "pkg/rebound.py",
                "import sys
this = sys.modules[__name__]
this = {}
for name in find():
    this[name] = 1
",
            ),
        ]),
        "pkg",
        "1",
    );
    assert!(s.symbols["pkg.ops"].open);
    assert!(s.symbols["pkg.direct"].open);
    assert!(s.symbols["pkg.setattr_alias"].open);
    assert!(!s.symbols["pkg.literal"].open);
    assert!(s.symbols.contains_key("pkg.literal.ONE"));
    assert!(s.symbols["pkg.updated"].open);
    assert!(s.symbols["pkg.vars_updated"].open);
    assert!(!s.symbols["pkg.rebound"].open);
}

#[test]
fn files_nested_too_deep_are_recorded_as_open() {
    // 4M unary minus: a 4 MB file (within the parse budget) whose tree used to overflow the
    // walker stack (exit 134).
    let minus = format!("x = {}1\n", "-".repeat(4_000_000));
    let nots = format!("y = {}1\n", "not ".repeat(500_000));
    // Just within the limit: parsed and walked (the walker stacks hold it).
    let depth = crate::nesting::MAX_NESTING_ESTIMATE - 10;
    let within = format!(
        "z = {}1\nw = {}1{}\n",
        "-".repeat(depth),
        "(".repeat(depth / 2),
        ")".repeat(depth / 2)
    );
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", "a = 1\n"),
            ("pkg/minus.py", &minus),
            ("pkg/nots.py", &nots),
            ("pkg/within.py", &within),
        ]),
        "pkg",
        "1.0",
    );
    assert_eq!(kind(&s, "pkg.a"), Some(Kind::Attribute));
    assert!(!s.symbols["pkg.within"].open);
    assert_eq!(kind(&s, "pkg.within.z"), Some(Kind::Attribute));
    for module in ["pkg.minus", "pkg.nots"] {
        assert!(s.symbols[module].open, "{module} is not open");
        let file = format!("{}.py", module.replace('.', "/"));
        assert!(
            s.problems
                .iter()
                .any(|p| p.starts_with(&file) && p.contains("nested too deep")),
            "{:?}",
            s.problems
        );
    }
}

#[test]
fn files_over_the_parse_budget_are_recorded_as_open() {
    let big = "x = 0\n".repeat((crate::MAX_PARSE_FILE_BYTES / 6) + 1);
    let s = extract(
        &tree(&[("pkg/__init__.py", "a = 1\n"), ("pkg/big.py", &big)]),
        "pkg",
        "1.0",
    );
    assert!(s.symbols["pkg.big"].open);
    assert!(!s.symbols.contains_key("pkg.big.x"));
    assert!(
        s.problems
            .iter()
            .any(|p| p.starts_with("pkg/big.py: not parsed") && p.contains("per-file parse budget")),
        "{:?}",
        s.problems
    );
    // Under the parse budget but with more names than a file keeps.
    let names: String = (0..crate::MAX_BINDINGS_PER_FILE + 10)
        .map(|i| format!("n{i} = 0\n"))
        .collect();
    let s = extract(&tree(&[("pkg/names.py", &names)]), "pkg", "1.0");
    assert!(s.symbols["pkg.names"].open);
    assert!(s.symbols.contains_key("pkg.names.n0"));
    assert!(!s
        .symbols
        .contains_key(&format!("pkg.names.n{}", crate::MAX_BINDINGS_PER_FILE + 5)));
    assert!(
        s.problems
            .iter()
            .any(|p| p.starts_with("pkg/names.py: more module-level names")),
        "{:?}",
        s.problems
    );
    // The release budget counts files in path order.
    let t = tree(&[("a.py", "x = 1\n"), ("b.py", "y = 2\n"), ("c.py", "z\n")]);
    let budget = crate::parse_budget(&t, 1 << 20, 10);
    assert!(budget[0].is_ok() && budget[2].is_ok());
    assert!(budget[1]
        .as_ref()
        .is_err_and(|e| e.starts_with("b.py: not parsed") && e.contains("release")));
}

#[test]
fn loops_over_another_modules_dir_copy_all_its_names() {
    // numpy 1.26's `numpy/_core/_dtype.py`, which forwards to `numpy.core._dtype`.
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", ""),
            ("pkg/core.py", "def _kind_name(): ...\nclass Public: ...\n"),
            (
                "pkg/fwd.py",
                "from pkg import core\n_globals = globals()\nfor item in core.__dir__():\n    _globals[item] = getattr(core, item)\n",
            ),
            (
                "pkg/fwd2.py",
                "import pkg.core as c\nfor k in dir(c):\n    globals()[k] = getattr(c, k)\n",
            ),
        ]),
        "pkg",
        "1",
    );
    for m in ["pkg.fwd", "pkg.fwd2"] {
        assert_eq!(kind(&s, &format!("{m}.Public")), Some(Kind::Class), "{m}");
        assert_eq!(
            kind(&s, &format!("{m}._kind_name")),
            Some(Kind::Function),
            "{m}"
        );
        assert!(!s.symbols[m].open, "{m} is closed");
        assert_eq!(kind(&s, &format!("{m}.missing")), None);
    }
}

mod keys;
mod shadowing;
mod stdlib;
