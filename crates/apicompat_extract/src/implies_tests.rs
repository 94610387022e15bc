//! What a package predicate's true result implies (`crate::implies`), on the shapes of
//! accelerate's `utils/imports.py` (0.20 - 1.15).

use apicompat_surface::Surface;

use crate::extract;
use crate::tests::tree;

fn implies(s: &Surface, path: &str) -> Vec<String> {
    s.symbols
        .get(path)
        .unwrap_or_else(|| panic!("{path}"))
        .implies
        .clone()
}

/// accelerate 1.0.1 `is_xpu_available` (version tests and an early `return False`, then two
/// true returns that both read `torch.xpu.is_available`), re-exported by `utils/__init__.py`.
#[test]
fn true_returns_agree_on_what_they_read() {
    let s = extract(
        &tree(&[
            (
                "pkg/__init__.py",
                "from .imports import is_xpu_available, is_npu_available\n",
            ),
            (
                "pkg/imports.py",
                r#"
import importlib.util
import torch
from .versions import is_torch_version

def is_xpu_available(check_device=False):
    if is_torch_version("<=", "2.3"):
        return False
    if check_device:
        try:
            _ = torch.xpu.device_count()
            return torch.xpu.is_available()
        except RuntimeError:
            return False
    return hasattr(torch, "xpu") and torch.xpu.is_available()

def is_npu_available(check_device=False):
    if importlib.util.find_spec("torch_npu") is None:
        return False
    import torch_npu
    return hasattr(torch, "npu") and torch.npu.is_available()

def is_mps_available(min_version="1.12"):
    return is_torch_version(">=", min_version) and torch.backends.mps.is_available()

def device_name():
    return torch.cuda.get_device_name()

def either() -> bool:
    return torch.cuda.is_available() or torch.xpu.is_available()

def shadowed() -> bool:
    torch = object()
    return hasattr(torch, "xpu")

def local_import() -> bool:
    import torch.distributed as dist
    return dist.is_available()

def twice():
    return hasattr(torch, "a") and hasattr(torch, "b")

def own() -> bool:
    import pkg
    return pkg.versions.is_torch_version(">=", "2") and hasattr(pkg, "registered_later")

def twice():
    return hasattr(torch, "b") and hasattr(torch, "c")
"#,
            ),
            ("pkg/versions.py", "def is_torch_version(op, v): ...\n"),
        ]),
        "pkg",
        "1.0",
    );
    assert_eq!(
        implies(&s, "pkg.imports.is_xpu_available"),
        ["torch.xpu.is_available"]
    );
    // The re-export carries its definition's facts.
    assert_eq!(
        implies(&s, "pkg.is_xpu_available"),
        ["torch.xpu.is_available"]
    );
    assert_eq!(
        implies(&s, "pkg.imports.is_npu_available"),
        ["torch.npu", "torch.npu.is_available"]
    );
    assert_eq!(
        implies(&s, "pkg.imports.is_mps_available"),
        ["torch.backends.mps.is_available"]
    );
    // Not a predicate: its result is no truth value.
    assert!(implies(&s, "pkg.imports.device_name").is_empty());
    // `A or B` true read only `A` for sure.
    assert_eq!(
        implies(&s, "pkg.imports.either"),
        ["torch.cuda.is_available"]
    );
    // A name the function binds itself is not the module's import.
    assert!(implies(&s, "pkg.imports.shadowed").is_empty());
    assert_eq!(
        implies(&s, "pkg.imports.local_import"),
        ["torch.distributed.is_available"]
    );
    // Of its own release, only what the release has: a name bound at run time says nothing.
    assert_eq!(
        implies(&s, "pkg.imports.own"),
        ["pkg.versions.is_torch_version"]
    );
    // Either definition may run: what both imply.
    assert_eq!(implies(&s, "pkg.imports.twice"), ["torch.b"]);
}

/// timm 1.0.7 `layers/config.py:30`, `:130`: a module flag set from `hasattr`, read by an early
/// `return False` whose test must be false for the later returns to run.
#[test]
fn module_flags_and_early_exits() {
    let s = extract(
        &tree(&[
            ("pkg/__init__.py", "from .config import use_fused_attn\n"),
            (
                "pkg/config.py",
                r#"
import os
import torch

_EXPORTABLE = False
_HAS_FUSED_ATTN = hasattr(torch.nn.functional, 'scaled_dot_product_attention')
_HAS_BOTH = _HAS_FUSED_ATTN and hasattr(torch, "compile")
_TWICE = hasattr(torch, "a")
_TWICE = hasattr(torch, "b")
_SET_LATER = hasattr(torch, "c")
_READ_ONLY = torch.cuda.is_available()
if 'TIMM_FUSED_ATTN' in os.environ:
    _USE_FUSED_ATTN = int(os.environ['TIMM_FUSED_ATTN'])
else:
    _USE_FUSED_ATTN = 1

def use_fused_attn(experimental: bool = False) -> bool:
    if not _HAS_FUSED_ATTN or _EXPORTABLE:
        return False
    if experimental:
        return _USE_FUSED_ATTN > 1
    return _USE_FUSED_ATTN > 0

def returns_flag() -> bool:
    return _HAS_BOTH

def exit_after() -> bool:
    if _EXPORTABLE:
        return _USE_FUSED_ATTN > 0
    if not _HAS_FUSED_ATTN:
        return False
    return True

def exit_with_else() -> bool:
    if not _HAS_FUSED_ATTN:
        return False
    else:
        pass
    return True

def twice() -> bool:
    return _TWICE

def set_later() -> bool:
    return _SET_LATER

def read_only() -> bool:
    return _READ_ONLY

def shadowed() -> bool:
    _HAS_FUSED_ATTN = False
    return _HAS_FUSED_ATTN

def set_fused(on):
    global _SET_LATER
    _SET_LATER = on
"#,
            ),
        ]),
        "pkg",
        "1.0",
    );
    let sdpa = "torch.nn.functional.scaled_dot_product_attention";
    assert_eq!(implies(&s, "pkg.config.use_fused_attn"), [sdpa]);
    assert_eq!(implies(&s, "pkg.use_fused_attn"), [sdpa]);
    // A flag read by a flag: both parts.
    assert_eq!(
        implies(&s, "pkg.config.returns_flag"),
        ["torch.compile", sdpa]
    );
    // A true return before the exit does not see it.
    assert!(implies(&s, "pkg.config.exit_after").is_empty());
    // An `if` with an `else` is no early exit.
    assert!(implies(&s, "pkg.config.exit_with_else").is_empty());
    // Bound twice, rebound by a `global` statement, or only read: no flag.
    assert!(implies(&s, "pkg.config.twice").is_empty());
    assert!(implies(&s, "pkg.config.set_later").is_empty());
    assert!(implies(&s, "pkg.config.read_only").is_empty());
    // The function's own name is not the module's flag.
    assert!(implies(&s, "pkg.config.shadowed").is_empty());
}
