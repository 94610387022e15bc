//! A package's own predicates guard what their true result implies
//! (`docs/false-alarm-study-14.md`, F-E): accelerate's `is_xpu_available()` is true only
//! through `torch.xpu.is_available()` in every release that has it (0.20.3 - 1.15.0,
//! `accelerate/utils/imports.py`), and `torch.xpu` first ships in torch 2.3.0. Real data,
//! offline (`--no-cache`).

mod common;

use common::{bin, check, text};

fn project(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    common::project_in("package_predicates", name, files)
}

const REQUIREMENTS: &str = "torch>=2.2\naccelerate>=0.21\n";

/// llama-cookbook's `finetuning.py` shape, directly and through a project function that
/// returns the predicate; a negated test guards nothing, and the guard says nothing of a
/// name `torch.xpu` lacks in some releases that have it (`memory_allocated`, from 2.5.0).
#[test]
fn a_package_predicate_guards_what_it_implies() {
    let source = "\
import torch
from accelerate.utils import is_xpu_available


def use_xpu():
    return is_xpu_available()


def seed_all(seed):
    if is_xpu_available():
        torch.xpu.manual_seed(seed)
    if use_xpu():
        torch.xpu.set_device(0)
    if not is_xpu_available():
        torch.xpu.empty_cache()
    if is_xpu_available():
        torch.xpu.memory_allocated()
";
    let dir = project(
        "xpu",
        &[("a.py", source), ("requirements.txt", REQUIREMENTS)],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let at = common::locations(&out);
    assert_eq!(
        at,
        ["a.py:15:9", "a.py:17:9", "requirements.txt:1:1"],
        "{out}"
    );
    assert!(
        out.contains("`torch.xpu.empty_cache` is not in torch 2.2.0, 2.2.1, 2.2.2"),
        "{out}"
    );
    assert!(
        out.contains("`torch.xpu.memory_allocated` is not in torch 2.3.0 - 2.4.1"),
        "{out}"
    );
    // `range` reads the guards the same way: only the two uses above restrict torch.
    let o = bin()
        .args(["--no-cache", "range", "."])
        .current_dir(&dir)
        .output()
        .expect("run apicompat");
    let (out, err) = text(&o);
    assert!(
        out.contains("torch (9 use(s), 2 restricting)"),
        "{out}\n{err}"
    );
    assert!(
        !out.contains("a.py:11") && !out.contains("a.py:13"),
        "{out}"
    );
}

/// accelerate installed from its repository (a direct reference, no targeted release): the
/// predicate implies what every indexed release agrees on (LLamaTuner's transformers from git,
/// `docs/false-alarm-study-40.md`, F-V); the use it does not guard stays an error.
#[test]
fn a_package_installed_from_a_repository_keeps_its_predicates() {
    let source = "\
import torch
from accelerate.utils import is_xpu_available


def seed_all(seed):
    if is_xpu_available():
        torch.xpu.manual_seed(seed)
    torch.xpu.empty_cache()
";
    let requirements =
        "torch>=2.2\naccelerate @ git+https://github.com/huggingface/accelerate.git\n";
    let dir = project(
        "xpu-git",
        &[("a.py", source), ("requirements.txt", requirements)],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert_eq!(
        common::locations(&out),
        ["a.py:8:5", "requirements.txt:1:1"],
        "{out}"
    );
}

/// A flag a class stores once from a predicate call guards its methods: a package's (timm
/// 1.0.7's `use_fused_attn()`, `layers/config.py:130`, whose early `return False` tests the
/// module flag `_HAS_FUSED_ATTN = hasattr(torch.nn.functional, "scaled_dot_product_attention")`,
/// `:30`; docs/false-alarm-study-52.md F-2) or the project's. The result of a package function
/// that is no predicate guards nothing.
#[test]
fn a_flag_stored_from_a_predicate_call_guards_the_methods() {
    let source = "\
import torch
import torch.nn.functional as F
from timm.layers import use_fused_attn

def has_sdpa():
    return hasattr(F, \"scaled_dot_product_attention\")

class Timm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fused_attn = use_fused_attn()

    def forward(self, q, k, v):
        if self.fused_attn:
            return F.scaled_dot_product_attention(q, k, v)
        return q

class Own(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fused = has_sdpa()

    def forward(self, q, k, v):
        if self.fused:
            return F.scaled_dot_product_attention(q, k, v)
        return q

class Value(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.device = torch.device(\"cpu\")

    def forward(self, q, k, v):
        if self.device:
            return F.scaled_dot_product_attention(q, k, v)
        return q
";
    let dir = project(
        "stored_flags",
        &[
            ("m.py", source),
            ("requirements.txt", "torch\ntimm==1.0.7\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert_eq!(
        common::locations(&out),
        ["m.py:35:20", "requirements.txt:1:1"],
        "{out}"
    );
}
