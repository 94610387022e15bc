//! Comparators of the project given a package's version (`docs/false-alarm-study-14.md`,
//! F-A), on the fake torch index (releases 1.13.0 - 2.5.0): `pipelining` exists from 2.4.0.
//! Each guarded use is clean on the releases the condition admits and reported on the others
//! when the condition is too weak.

mod common;

use common::{brief, project, run};

fn check_files(name: &str, files: &[(&str, &str)], targets: &[&str]) -> Vec<String> {
    let dir = project(name, files);
    brief(&run(&dir, targets), &dir)
}

/// `def check_version(current, minimum): return parse(current) >= parse(minimum)`.
#[test]
fn a_comparator_of_two_parameters_given_the_version() {
    let got = check_files(
        "two_parameters",
        &[(
            "m.py",
            "\
import torch
from packaging.version import parse

def check_version(current, minimum):
    return parse(current) >= parse(minimum)

TORCH_2_4 = check_version(torch.__version__, \"2.4.0\")
TORCH_2_3 = check_version(torch.__version__, \"2.3.0\")

def f():
    if TORCH_2_4:
        torch.distributed.pipelining.pipeline
    if TORCH_2_3:
        torch.distributed.pipelining.Schedule1F1B
",
        )],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        ["m.py:14:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1"]
    );
}

/// ultralytics' `utils/checks.py` shape: the second parameter a pip-style specifier split on
/// commas, each piece's operator compared; a bare version means `>=`. The version is a name
/// another module binds to `str(torch.__version__)`, the comparator and the flags live in
/// other modules again.
#[test]
fn a_specifier_comparator_across_modules() {
    let checks = "\
import re

def check_version(current=\"0.0.0\", required=\"0.0.0\", hard=False):
    c = tuple(int(x) for x in re.findall(r\"\\d+\", current)[:3])
    for r in required.strip(\",\").split(\",\"):
        op, v = re.match(r\"([^0-9]*)([\\d.]+)\", r).groups()
        v = tuple(int(x) for x in v.split(\".\"))
        if (op in (\"\", \">=\") and c < v) or (op == \"<\" and c >= v) or (op == \"==\" and c != v):
            return False
    return True
";
    let got = check_files(
        "specifier",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/utils/__init__.py",
                "\
try:
    import torch
except ImportError:
    from pkg.utils.files import load_from_libs

    torch = load_from_libs(\"torch\", \"torch/lib/*.so*\")

TORCH_VERSION = str(torch.__version__)
",
            ),
            ("pkg/utils/checks.py", checks),
            (
                "pkg/utils/torch_utils.py",
                "\
from pkg.utils import TORCH_VERSION
from pkg.utils.checks import check_version

TORCH_2_4 = check_version(TORCH_VERSION, \"2.4.0\")
TORCH_2_3 = check_version(TORCH_VERSION, \">=2.3,<3\")
",
            ),
            (
                "pkg/train.py",
                "\
import torch
from pkg.utils import TORCH_VERSION
from pkg.utils.checks import check_version
from pkg.utils.torch_utils import TORCH_2_3, TORCH_2_4

def f():
    if TORCH_2_4:
        torch.distributed.pipelining.pipeline
    if TORCH_2_3:
        torch.distributed.pipelining.Schedule1F1B
    if check_version(TORCH_VERSION, \">=2.4.0\"):
        torch.distributed.pipelining.stage
",
            ),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        ["pkg/train.py:10:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1"]
    );
}

/// A version flag imported inside a function (ultralytics' `utils/patches.py`, `from
/// ultralytics.utils.torch_utils import TORCH_2_9` in `onnx_export_patch`): the flag, as when
/// imported at module level. A function that also stores the name, or a parameter or local of
/// a nested function of that name, hides it.
#[test]
fn a_flag_imported_inside_a_function() {
    let got = check_files(
        "function_import",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/flags.py",
                "\
import torch
from packaging.version import parse

TORCH_2_4 = parse(torch.__version__) >= parse(\"2.4.0\")
",
            ),
            (
                "pkg/use.py",
                "\
import torch


def absolute():
    from pkg.flags import TORCH_2_4

    if TORCH_2_4:
        return torch.distributed.pipelining.pipeline


def relative():
    from .flags import TORCH_2_4

    if not TORCH_2_4:
        return None
    return torch.distributed.pipelining.Schedule1F1B


def closure():
    from pkg.flags import TORCH_2_4

    if TORCH_2_4:
        build = torch.distributed.pipelining.pipeline

        def wrapped(*args, **kwargs):
            return build(*args, **kwargs, split_spec=None)

        return wrapped


def stored():
    from pkg.flags import TORCH_2_4

    if TORCH_2_4:
        torch.distributed.pipelining.stage
    TORCH_2_4 = True


def nested():
    from pkg.flags import TORCH_2_4

    def inner(TORCH_2_4):
        if TORCH_2_4:
            return torch.distributed.pipelining.PipelineStage

    return inner
",
            ),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        [
            "pkg/use.py:35:9 AC002 error call-time torch.distributed.pipelining.stage missing=2.2.0 - 2.3.1",
            "pkg/use.py:44:20 AC002 error call-time torch.distributed.pipelining.PipelineStage missing=2.2.0 - 2.3.1",
        ]
    );
}

/// lightning-utilities' `RequirementCache("torch>=2.8.0")` (torchmetrics,
/// `docs/false-alarm-study-15.md`, F-A): true where the requirement holds, directly and as a
/// module flag read in another module; a requirement on another package, or a weaker one,
/// guards nothing here.
#[test]
fn a_requirement_string_given_to_a_package_helper() {
    let got = check_files(
        "requirement_cache",
        &[
            (
                "imports.py",
                "\
from lightning_utilities.core.imports import RequirementCache

_TORCH_GREATER_EQUAL_2_4 = RequirementCache(\"torch>=2.4.0\")
",
            ),
            (
                "m.py",
                "\
import torch
from lightning_utilities.core.imports import RequirementCache
from imports import _TORCH_GREATER_EQUAL_2_4


def f():
    if _TORCH_GREATER_EQUAL_2_4:
        torch.distributed.pipelining.pipeline
    if RequirementCache(\"torch>=2.4,<3\"):
        torch.distributed.pipelining.pipeline
    if RequirementCache(\"numpy>=2.4\"):
        torch.distributed.pipelining.pipeline
    if RequirementCache(\"torch>=2.3\"):
        torch.distributed.pipelining.pipeline
",
            ),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        [
            "m.py:12:9 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "m.py:14:9 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
        ]
    );
}

/// TinyZero's `is_transformers_version_in_range(min_version, max_version)`: one chained
/// comparison with two parameters, the version read by `importlib.metadata.version` into a
/// local; called from another module before an early exit (docs/false-alarm-study-18.md,
/// F-D). Each call stands for both bounds.
#[test]
fn a_range_helper_of_two_parameters_across_modules() {
    let got = check_files(
        "chained_range",
        &[
            (
                "utils.py",
                "\
import importlib.metadata
from functools import lru_cache
from packaging import version

@lru_cache()
def is_torch_version_in_range(min_version, max_version):
    v = importlib.metadata.version(\"torch\")
    return version.parse(min_version) <= version.parse(v) <= version.parse(max_version)
",
            ),
            (
                "m.py",
                "\
import torch
from utils import is_torch_version_in_range

def f():
    if not is_torch_version_in_range(\"2.4.0\", \"2.5.0\"):
        raise AssertionError(\"needs torch 2.4 - 2.5\")
    torch.distributed.pipelining.pipeline

def g():
    if is_torch_version_in_range(\"2.3.0\", \"2.5.0\"):
        torch.distributed.pipelining.Schedule1F1B
",
            ),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        ["m.py:11:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1"]
    );
}

/// LMFlow's `is_package_version_at_least(package_name, min_version)`: `True` at the end after
/// an early `return False` where the installed version of the named distribution is below the
/// parameter, inside a `try` (docs/false-alarm-study-19.md, F-D). A comparator given the
/// package's name: the call is that condition, and its `else` the negation.
#[test]
fn a_comparator_returning_false_early_by_distribution_name() {
    let got = check_files(
        "exit_comparator",
        &[
            (
                "versioning.py",
                "\
from importlib import metadata

from packaging.version import InvalidVersion, Version


def is_package_version_at_least(package_name, min_version):
    try:
        package_version = metadata.version(package_name)
        if Version(package_version) < Version(min_version):
            return False
    except (metadata.PackageNotFoundError, InvalidVersion):
        return False
    return True
",
            ),
            (
                "m.py",
                "\
import torch
from versioning import is_package_version_at_least

if is_package_version_at_least(\"torch\", \"2.4.0\"):
    from torch.distributed.pipelining import pipeline
else:
    pipeline = None

def f():
    if is_package_version_at_least(\"torch\", \"2.3.0\"):
        torch.distributed.pipelining.Schedule1F1B
",
            ),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        ["m.py:11:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1"]
    );
}

/// `getattr(parse(V), f"__{op}__")(parse(version))` with the operator by keyword (AutoGPTQ's
/// `compare_pytorch_version("v2.0.0", op="ge")`, vendored in OLMo), from this module and
/// from another.
#[test]
fn a_comparison_method_named_by_a_keyword_operator() {
    let helper = "\
from packaging.version import parse as parse_version


def compare_pytorch_version(version: str = \"v2.0.0\", op: str = \"eq\"):
    assert op in [\"eq\", \"lt\", \"le\", \"gt\", \"ge\"]

    from torch import __version__

    return getattr(parse_version(__version__), f\"__{op}__\")(parse_version(version))
";
    let local = format!(
        "{helper}\n\ndef f():\n    if compare_pytorch_version(\"v2.4.0\", op=\"ge\"):\n        return torch.distributed.pipelining.pipeline\n    if compare_pytorch_version(\"v2.3.0\", op=\"ge\"):\n        return torch.distributed.pipelining.Schedule1F1B\n\n\nimport torch\n"
    );
    let got = check_files(
        "dunder_keyword",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/utils.py", helper),
            ("pkg/local.py", &local),
            (
                "pkg/other.py",
                "import torch\n\nfrom .utils import compare_pytorch_version\n\n\ndef g():\n    if compare_pytorch_version(\"v2.4.0\", op=\"ge\"):\n        return torch.distributed.pipelining.pipeline\n    if compare_pytorch_version(\"2.4.0\", op=\"lt\"):\n        return torch.distributed.pipelining.pipeline\n",
            ),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        got,
        [
            "pkg/local.py:16:16 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1",
            "pkg/other.py:10:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
        ]
    );
}
