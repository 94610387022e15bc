//! Package bindings over submodules, class attributes stored below the class, `__new__`.

use apicompat_surface::{Kind, Surface};

use super::{kind, tree};
use crate::extract;

/// A package `__init__` that imports a name from its own submodule of that name rebinds the
/// package's attribute: `triton.runtime.driver` is a `DriverConfig()` (triton 3.x
/// `runtime/__init__.py:3`, `runtime/driver.py:49`), `torch.distributed._composable.fsdp.
/// fully_shard` a function (torch 2.3+), `torch.ao.quantization.quantize` too (a star import).
fn shadowing_tree() -> Surface {
    extract(
        &tree(&[
            ("pkg/__init__.py", ""),
            (
                "pkg/runtime/__init__.py",
                "from .autotuner import autotune\nfrom .driver import driver\n",
            ),
            ("pkg/runtime/autotuner.py", "def autotune(configs): ...\n"),
            (
                "pkg/runtime/driver.py",
                r#"
class DriverConfig:
    def __init__(self):
        self._active = None
    @property
    def active(self):
        return self._active
    def set_active(self, driver):
        self._active = driver
driver = DriverConfig()
"#,
            ),
            (
                "pkg/dist/_composable/fsdp/__init__.py",
                "from .fully_shard import FSDPModule, fully_shard\n",
            ),
            (
                "pkg/dist/_composable/fsdp/fully_shard.py",
                "from pkg.dist.fsdp import FSDPModule, fully_shard\n",
            ),
            (
                "pkg/dist/fsdp/__init__.py",
                "from ._impl import FSDPModule, fully_shard\n",
            ),
            (
                "pkg/dist/fsdp/_impl.py",
                "class FSDPModule: ...\ndef fully_shard(module, *, mesh=None, reshard_after_forward=True): ...\n",
            ),
            ("pkg/quant/__init__.py", "from .quantize import *\n"),
            (
                "pkg/quant/quantize.py",
                "__all__ = ['quantize', 'prepare']\ndef quantize(model): ...\ndef prepare(model): ...\n",
            ),
            // Not rebound: the name comes from another module (the submodule may be imported
            // after it), the package imports the submodule itself, or a name of it.
            ("pkg/other/__init__.py", "from .impl import sub\nfrom . import mod\nfrom .mod import thing\n"),
            ("pkg/other/impl.py", "def sub(): ...\n"),
            ("pkg/other/sub.py", "x = 1\n"),
            ("pkg/other/mod.py", "thing = 1\nmod = object()\n"),
        ]),
        "pkg",
        "1",
    )
}

#[test]
fn a_package_binding_over_its_submodule_is_the_modules_shadow() {
    let s = shadowing_tree();
    let driver = &s.symbols["pkg.runtime.driver"];
    // Still the module that `import` statements find.
    assert_eq!(driver.kind(), Kind::Module);
    assert!(driver.importable);
    assert_eq!(driver.shadow.as_deref(), Some("pkg.runtime.driver.driver"));
    // The object is an instance of the release's class: its members are its attributes.
    let object = &s.symbols["pkg.runtime.driver.driver"];
    assert_eq!(object.kind(), Kind::Attribute);
    assert_eq!(
        object.instance_of.as_deref(),
        Some("pkg.runtime.driver.DriverConfig")
    );
    assert_eq!(
        kind(&s, "pkg.runtime.driver.DriverConfig.active"),
        Some(Kind::Property)
    );
    // Through re-exports to the definition.
    assert_eq!(
        s.symbols["pkg.dist._composable.fsdp.fully_shard"]
            .shadow
            .as_deref(),
        Some("pkg.dist.fsdp._impl.fully_shard")
    );
    // A star import that exports the name rebinds it too.
    assert_eq!(
        s.symbols["pkg.quant.quantize"].shadow.as_deref(),
        Some("pkg.quant.quantize.quantize")
    );
    for module in [
        "pkg.runtime.autotuner",
        "pkg.other.sub",
        "pkg.other.mod",
        "pkg.dist.fsdp._impl",
    ] {
        assert_eq!(s.symbols[module].shadow, None, "{module}");
    }
}

#[test]
fn only_objects_over_submodules_record_their_class() {
    let s = shadowing_tree();
    // `mod = object()` is not bound over a submodule by its package (and `object` is no class
    // of the release); other instances are not typed.
    assert_eq!(s.symbols["pkg.other.mod.mod"].instance_of, None);
    assert_eq!(s.symbols["pkg.runtime.driver"].instance_of, None);
}

#[test]
fn class_attributes_stored_below_the_class_are_members() {
    // torch 1.13.1 `torch/autograd/variable.py`: the engine is set after the class body.
    let s = extract(
        &tree(&[(
            "pkg/variable.py",
            "from pkg._C import _ImperativeEngine as ImperativeEngine\nclass Variable:\n    pass\nVariable._execution_engine = ImperativeEngine()\nVariable.alias = ImperativeEngine\nimport os\nos.extra = 1\ndef f():\n    Variable.inside = 1\nclass Base:\n    def push(self, repo, *, private=False): ...\nclass Tok(Base):\n    pass\nTok.push = copy_func(Tok.push)\n",
        )]),
        "pkg",
        "1.0",
    );
    assert_eq!(
        kind(&s, "pkg.variable.Variable._execution_engine"),
        Some(Kind::Attribute)
    );
    assert!(kind(&s, "pkg.variable.Variable.alias").is_some());
    // Stores in a function body run later, if ever; another module is not this one's.
    assert_eq!(kind(&s, "pkg.variable.Variable.inside"), None);
    assert_eq!(kind(&s, "pkg.variable.os.extra"), None);
    // A wrapper of what the class already answers leaves it as it was (inherited here).
    assert_eq!(kind(&s, "pkg.variable.Tok.push"), None);
}

/// `__new__` takes the class first whether or not it is marked `@staticmethod` (xformers
/// 0.0.29 - 0.0.31's `LowerTriangularMask`; study 17, F-E): the class's call signature has
/// no `cls`.
#[test]
fn a_static_new_still_takes_the_class() {
    let s = extract(
        &tree(&[(
            "pkg/__init__.py",
            "class Mask:\n    @staticmethod\n    def __new__(cls, *, _subtensor=None, device=\"cpu\", **kwargs):\n        return object.__new__(cls)\n\nclass Other:\n    @staticmethod\n    def make(x):\n        return x\n",
        )]),
        "pkg",
        "1.0",
    );
    assert_eq!(
        s.symbols["pkg.Mask"].signatures[0].render(),
        "(*, _subtensor=..., device=..., **kwargs)"
    );
    assert_eq!(s.symbols["pkg.Other.make"].signatures[0].render(), "(x)");
}
