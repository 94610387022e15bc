//! `@overload`s and the implementation (`crate::facts::Function::merged`): a function or
//! method keeps every overload's signature and the implementation's (a `.pyi` has no
//! implementation: every overload), in modules and class bodies alike.

use apicompat_surface::Surface;

use crate::extract;
use crate::tests::tree;

fn rendered(s: &Surface, path: &str) -> Vec<String> {
    let sym = s.symbols.get(path).unwrap_or_else(|| panic!("{path}"));
    sym.signatures.iter().map(|s| s.render()).collect()
}

/// torch 2.11 `torch/nn/modules/module.py:1242-1255`: three `@overload`s of `Module.to`, none
/// taking `memory_format`, then `def to(self, *args, **kwargs)`.
#[test]
fn methods_keep_every_overload_and_the_implementation() {
    let src = r#"
import typing
from typing import overload
from typing_extensions import overload as ov
import typing_extensions as te

class Module:
    @overload
    def to(self, device=..., dtype=..., non_blocking: bool = ...) -> "Module": ...
    @typing.overload
    def to(self, dtype, non_blocking: bool = ...) -> "Module": ...
    @ov
    def to(self, tensor, non_blocking: bool = ...) -> "Module": ...
    def to(self, *args, **kwargs):
        return self

    @te.overload
    def __init__(self, a: int) -> None: ...
    @te.overload
    def __init__(self, a: str, *, strict: bool) -> None: ...
    def __init__(self, a, strict=False): ...

    @property
    def size(self) -> int: ...
    @size.setter
    def size(self, value: int) -> None: ...

class Conv2d(Module):
    pass

def plain(x): ...
"#;
    let s = extract(&tree(&[("pkg/__init__.py", src)]), "pkg", "1");
    let to = rendered(&s, "pkg.Module.to");
    assert_eq!(to.len(), 4, "{to:?}");
    assert_eq!(to[3], "(*args, **kwargs)");
    // The constructor: both overloads and the implementation.
    assert_eq!(
        rendered(&s, "pkg.Module"),
        vec!["(a: int)", "(a: str, *, strict: bool)", "(a, strict=...)"]
    );
    // A property's setter adds no signature to the getter's.
    assert_eq!(rendered(&s, "pkg.Module.size"), vec!["() -> int"]);
    assert_eq!(rendered(&s, "pkg.plain"), vec!["(x)"]);
}

/// A stub has no implementation: every overload, for methods as for functions; a module with
/// a `.py` and a `.pyi` has the signatures of both.
#[test]
fn stub_overloads_are_all_kept() {
    let stub = r#"
from typing import overload
class Tensor:
    @overload
    def view(self, dtype: int) -> Tensor: ...
    @overload
    def view(self, *size: int) -> Tensor: ...
@overload
def zeros(*size: int) -> Tensor: ...
@overload
def zeros(size, *, out=None) -> Tensor: ...
"#;
    let s = extract(&tree(&[("pkg/_C.pyi", stub)]), "pkg", "1");
    assert_eq!(rendered(&s, "pkg._C.Tensor.view").len(), 2);
    assert_eq!(rendered(&s, "pkg._C.zeros").len(), 2);

    let py = "class A:\n    def f(self, x, **kwargs): ...\n";
    let pyi = "from typing import overload\nclass A:\n    @overload\n    def f(self, x: int) -> int: ...\n    @overload\n    def f(self, x: str) -> str: ...\n";
    let s = extract(&tree(&[("pkg/m.py", py), ("pkg/m.pyi", pyi)]), "pkg", "1");
    assert_eq!(rendered(&s, "pkg.m.A.f").len(), 3);
}

/// Inherited through a base, re-exported from a package: the lookup reaches the class that
/// defines the method, whose symbol has every signature.
#[test]
fn overloads_reach_subclasses_and_re_exports() {
    let files = [
        (
            "pkg/__init__.py",
            "from pkg.nn.modules.module import Module as Module\nfrom pkg.nn.conv import Conv2d\n",
        ),
        (
            "pkg/nn/modules/module.py",
            r#"
from typing import overload
class Module:
    @overload
    def to(self, dtype) -> "Module": ...
    def to(self, *args, **kwargs): ...
"#,
        ),
        (
            "pkg/nn/conv.py",
            "from pkg.nn.modules.module import Module\nclass Conv2d(Module):\n    pass\n",
        ),
    ];
    let s = extract(&tree(&files), "pkg", "1");
    assert_eq!(rendered(&s, "pkg.nn.modules.module.Module.to").len(), 2);
    assert_eq!(
        s.symbols["pkg.Module"].canonical.as_deref(),
        Some("pkg.nn.modules.module.Module")
    );
    assert_eq!(
        s.symbols["pkg.nn.conv.Conv2d"].bases,
        vec!["pkg.nn.modules.module.Module".to_string()]
    );
}
