//! Deprecations written on definitions under `if TYPE_CHECKING:` (`crate::defs::
//! merged_deprecation`): those definitions are what type checkers see, so they decide.

use apicompat_surface::Surface;

use crate::extract;
use crate::tests::tree;

fn deprecation<'a>(s: &'a Surface, path: &str) -> Option<&'a str> {
    s.symbols[path].deprecated.as_deref()
}

/// torch 2.6 - 2.15 `torch/_dynamo/external_utils.py` (2.11: lines 44-59) and
/// `torch/_utils.py` (2.11: lines 941-962): `@deprecated` under `if TYPE_CHECKING:` only
/// (TorchScript cannot compile it), a plain definition, or one that warns without a category,
/// in the `else` branch; re-exported by `torch/_dynamo/__init__.py` and imported under another
/// name in a `try` by `torch/distributed/tensor/parallel/_utils.py` (2.6 - 2.8).
const TORCH_SHAPE: &[(&str, &str)] = &[
    (
        "pkg/__init__.py",
        "from .external_utils import is_compiling\n__all__ = ['is_compiling']\n",
    ),
    (
        "pkg/external_utils.py",
        r#"
from typing import TYPE_CHECKING
from typing_extensions import deprecated

import pkg

if TYPE_CHECKING:
    # TorchScript does not support `@deprecated`
    @deprecated(
        "`pkg.external_utils.is_compiling` is deprecated. Use `pkg.compiler.is_compiling` instead.",
        category=FutureWarning,
    )
    def is_compiling() -> bool:
        return pkg.compiler.is_compiling()

else:

    def is_compiling() -> bool:
        return pkg.compiler.is_compiling()
"#,
    ),
    (
        "pkg/_utils.py",
        r#"
import warnings
import typing
from typing_extensions import deprecated

if typing.TYPE_CHECKING:
    @deprecated("`pkg._utils.is_compiling` is deprecated.", category=FutureWarning)
    def is_compiling() -> bool: ...

else:

    def is_compiling() -> bool:
        warnings.warn(  # use `warnings.warn` instead of `@deprecated`
            "`pkg._utils.is_compiling` is deprecated.",
            stacklevel=2,
        )
        return False
"#,
    ),
    (
        "pkg/tp_utils.py",
        r#"
try:
    from pkg.external_utils import is_compiling as is_torchdynamo_compiling
except Exception:

    def is_torchdynamo_compiling():  # type: ignore[misc]
        return False
"#,
    ),
];

#[test]
fn a_deprecation_under_type_checking_is_the_declaration() {
    let s = extract(&tree(TORCH_SHAPE), "pkg", "1");
    let message = Some(
        "`pkg.external_utils.is_compiling` is deprecated. Use `pkg.compiler.is_compiling` instead.",
    );
    assert_eq!(deprecation(&s, "pkg.external_utils.is_compiling"), message);
    assert_eq!(deprecation(&s, "pkg.is_compiling"), message);
    assert_eq!(
        deprecation(&s, "pkg.tp_utils.is_torchdynamo_compiling"),
        message
    );
    assert_eq!(
        deprecation(&s, "pkg._utils.is_compiling"),
        Some("`pkg._utils.is_compiling` is deprecated.")
    );
    // The names and signatures are those of both branches, as before.
    assert_eq!(
        s.symbols["pkg.external_utils.is_compiling"]
            .signatures
            .len(),
        1
    );
}

#[test]
fn type_checking_branches_decide_in_every_form() {
    let s = extract(
        &tree(&[(
            "pkg/__init__.py",
            r#"
from typing import TYPE_CHECKING, overload
from typing_extensions import deprecated
import warnings

# The `else` of `if not TYPE_CHECKING:` is for type checkers.
if not TYPE_CHECKING:
    def negated(): ...
else:
    @deprecated("negated is deprecated")
    def negated(): ...

# Deprecated only at run time: type checkers see a current function.
if TYPE_CHECKING:
    def runtime_only(): ...
else:
    def runtime_only():
        warnings.warn("runtime_only is deprecated", DeprecationWarning)

# Every overload type checkers see is deprecated; the implementation is outside.
if TYPE_CHECKING:
    @overload
    @deprecated("ints are deprecated")
    def all_overloads(x: int) -> int: ...
    @overload
    @deprecated("strs are deprecated")
    def all_overloads(x: str) -> str: ...
def all_overloads(x): ...

# One of them only: that way of calling (rule 1 among the declarations).
if TYPE_CHECKING:
    @overload
    @deprecated("ints are deprecated")
    def one_overload(x: int) -> int: ...
    @overload
    def one_overload(x: str) -> str: ...
def one_overload(x): ...

# `TYPE_CHECKING and ...` runs only for type checkers too.
if TYPE_CHECKING and True:
    @deprecated("conjunction is deprecated")
    def conjunction(): ...
else:
    def conjunction(): ...

# A test of something else: both branches count, as before.
if FLAG:
    @deprecated("flagged is deprecated")
    def flagged(): ...
else:
    def flagged(): ...

if TYPE_CHECKING:
    @deprecated("Old is deprecated")
    class Old: ...
else:
    class Old: ...

# A class defined twice, the run-time one first: its members are both classes'.
if not TYPE_CHECKING:
    class Twice:
        def method(self): ...
else:
    class Twice:
        @deprecated("Twice.method is deprecated")
        def method(self): ...

class Model:
    if TYPE_CHECKING:
        @deprecated("Model.old is deprecated")
        def old(self): ...

        @deprecated("creating a Model is deprecated")
        def __init__(self): ...
    else:
        def old(self): ...

        def __init__(self): ...
"#,
        )]),
        "pkg",
        "1",
    );
    assert_eq!(
        deprecation(&s, "pkg.negated"),
        Some("negated is deprecated")
    );
    assert_eq!(deprecation(&s, "pkg.runtime_only"), None);
    assert_eq!(
        deprecation(&s, "pkg.all_overloads"),
        Some("ints are deprecated")
    );
    assert_eq!(deprecation(&s, "pkg.one_overload"), None);
    assert_eq!(
        deprecation(&s, "pkg.conjunction"),
        Some("conjunction is deprecated")
    );
    assert_eq!(deprecation(&s, "pkg.flagged"), None);
    assert_eq!(deprecation(&s, "pkg.Old"), Some("Old is deprecated"));
    assert_eq!(
        deprecation(&s, "pkg.Twice.method"),
        Some("Twice.method is deprecated")
    );
    assert_eq!(
        deprecation(&s, "pkg.Model.old"),
        Some("Model.old is deprecated")
    );
    assert_eq!(
        deprecation(&s, "pkg.Model"),
        Some("creating a Model is deprecated")
    );
}
