//! nequip's forms (`docs/false-alarm-study-26.md`, F-K): a version flag computed through a
//! getter that maps the module's name to its distribution inside a `try`
//! (`get_version_safe(torch.__name__)`), and a function that asserts it, called as a statement
//! before the use (`check_pt2_compile_compatibility()`), in the same file or another. Fake
//! torch index: `pipelining` exists from 2.4.0.

use super::check_files;

const VERSIONS: &str = "\
import importlib.metadata

import packaging.version
import torch

_ALL_PKGS = importlib.metadata.packages_distributions()


def get_version_safe(module_name):
    try:
        if module_name in _ALL_PKGS:
            module_name = _ALL_PKGS[module_name][0]
        return importlib.metadata.version(module_name)
    except importlib.metadata.PackageNotFoundError:
        return None


_TORCH_VERSION = packaging.version.parse(get_version_safe(torch.__name__))
_TORCH_GE_2_4 = packaging.version.parse(_TORCH_VERSION.base_version) >= packaging.version.parse(\"2.4\")


def check_pipelining():
    assert _TORCH_GE_2_4, \"needs torch 2.4\"


def use_flag():
    if _TORCH_GE_2_4:
        return torch.distributed.pipelining.pipeline


def use_local():
    check_pipelining()
    return torch.distributed.pipelining.pipeline
";

#[test]
fn a_call_of_a_function_that_asserts_a_version_guards_the_rest_of_the_block() {
    let got = check_files(
        "asserting",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/versions.py", VERSIONS),
            (
                "pkg/user.py",
                "\
import packaging.version
import torch
from pkg.versions import check_pipelining, get_version_safe


def load():
    check_pipelining()
    return torch.distributed.pipelining.pipeline


def unguarded():
    print(\"no check\")
    return torch.distributed.pipelining.Schedule1F1B


def after_block(flag):
    if flag:
        check_pipelining()
    return torch.distributed.pipelining.SplitPoint


def other_file_getter():
    if packaging.version.parse(get_version_safe(\"torch\")) >= packaging.version.parse(\"2.4\"):
        return torch.distributed.pipelining.PipelineStage
",
            ),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        [
            "pkg/user.py:13:12 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
            "pkg/user.py:19:12 AC002 error call-time torch.distributed.pipelining.SplitPoint missing=2.2.0 - 2.3.1",
        ]
    );
}

/// verl's `third_party/vllm/__init__.py`: `package_name = 'vllm'`, `package_version =
/// get_version(package_name)` (a getter of the file), `if package_version == '0.3.1':` before
/// the imports each release needs.
#[test]
fn a_getter_given_a_name_bound_to_a_package_name_is_that_version() {
    let got = check_files(
        "getter_named",
        &[(
            "m.py",
            "\
from importlib.metadata import version, PackageNotFoundError

import torch


def get_version(pkg):
    try:
        return version(pkg)
    except PackageNotFoundError:
        return None


package_name = 'torch'
package_version = get_version(package_name)

if package_version == '2.4.0':
    from torch.distributed.pipelining import pipeline
elif package_version == '2.3.0':
    from torch.distributed.pipelining import Schedule1F1B
",
        )],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        ["m.py:19:46 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0"]
    );
}

/// VideoSys's attention processors (`docs/false-alarm-study-50.md`, F-2): the constructor
/// checks `hasattr(F, "...")` and raises after storing its arguments. No instance exists where
/// the check fails, so the methods run only where it holds; a check after a statement that may
/// return guards nothing (the constructor may finish before it).
#[test]
fn a_constructor_check_after_other_statements_guards_the_methods() {
    let got = check_files(
        "init_check_later",
        &[(
            "m.py",
            "\
import torch.distributed as dist


class Checked:
    \"\"\"Pipelining.\"\"\"

    def __init__(self, size, rope=False):
        self.size = size
        if size is None:
            raise ValueError(\"size\")
        if not hasattr(dist, \"pipelining\"):
            raise ImportError(\"needs torch 2.4\")

    def __call__(self):
        return dist.pipelining.pipeline


class ReturnsFirst:
    def __init__(self, fast=False):
        if fast:
            return
        if not hasattr(dist, \"pipelining\"):
            raise ImportError(\"needs torch 2.4\")

    def __call__(self):
        return dist.pipelining.Schedule1F1B
",
        )],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        ["m.py:26:16 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1"]
    );
}
