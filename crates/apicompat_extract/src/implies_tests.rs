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
