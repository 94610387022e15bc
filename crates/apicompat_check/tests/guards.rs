//! Early-exit guards and version-helper functions, on the fake torch index (releases 1.13.0 -
//! 2.5.0): `pipelining` exists from 2.4.0, `CheckpointPolicy` from 2.5.0,
//! `all_gather_into_tensor` from 2.2.0.

mod common;

use common::{brief, project, run};

fn check_files(name: &str, files: &[(&str, &str)], targets: &[&str]) -> Vec<String> {
    let dir = project(name, files);
    brief(&run(&dir, targets), &dir)
}

#[test]
fn early_return_on_a_missing_attribute_guards_the_rest_of_the_function() {
    let got = check_files(
        "early_hasattr",
        &[(
            "m.py",
            "\
import torch

def build():
    if not hasattr(torch.distributed, \"pipelining\"):
        return None
    return torch.distributed.pipelining.pipeline

def build_raise():
    if not hasattr(torch.distributed, \"pipelining\"):
        raise RuntimeError(\"needs torch>=2.4\")
    torch.distributed.pipelining.Schedule1F1B

def unguarded():
    if torch.distributed.is_available():
        return None
    return torch.distributed.pipelining.pipeline
",
        )],
        &["torch==2.3.0"],
    );
    assert_eq!(
        got,
        ["m.py:16:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

/// `"n" in dir(C)` tests what `hasattr(C, "n")` does (mamba `distributed_utils.py:12`,
/// TinyLlama `fused_cross_entropy.py:12`: `if "all_gather_into_tensor" not in dir(
/// torch.distributed): torch.distributed.all_gather_into_tensor = ...`).
#[test]
fn membership_in_dir_tests_like_hasattr() {
    let got = check_files(
        "dir_membership",
        &[(
            "m.py",
            "\
import torch

if \"pipelining\" in dir(torch.distributed):
    torch.distributed.pipelining.pipeline

def build():
    if \"pipelining\" not in dir(torch.distributed):
        return None
    return torch.distributed.pipelining.Schedule1F1B

if \"pipelining\" not in dir(torch.distributed):
    torch.distributed.pipelining.pipeline
",
        )],
        &["torch==2.3.0", "torch==2.4.0"],
    );
    assert_eq!(
        got,
        ["m.py:12:5 AC002 error import-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

#[test]
fn early_exit_on_a_version_check_restricts_the_rest_of_the_block() {
    let got = check_files(
        "early_version",
        &[
            (
                "top.py",
                "\
import torch

if torch.__version__ < \"2.4\":
    raise ImportError(\"this module needs torch 2.4\")

from torch.distributed.pipelining import pipeline

def later():
    from torch.utils.checkpoint import CheckpointPolicy
",
            ),
            (
                "func.py",
                "\
import sys
import torch
from packaging import version

def gather():
    if version.parse(torch.__version__) < version.parse(\"2.2\"):
        return None
    return torch.distributed.all_gather_into_tensor

def policy():
    if torch.__version__ >= \"2.5\":
        from torch.utils.checkpoint import CheckpointPolicy
        return CheckpointPolicy
    else:
        return None
    # unreachable, nothing to check

def loop(xs):
    for x in xs:
        if torch.__version__ < \"2.2\":
            continue
        torch.distributed.all_gather_into_tensor(x)
    torch.distributed.all_gather_into_tensor

if not torch.__version__ >= \"2.5\":
    sys.exit(1)
else:
    pass
from torch.utils.checkpoint import CheckpointPolicy
",
            ),
        ],
        &["torch>=2.0"],
    );
    assert_eq!(
        got,
        [
            "func.py:23:5 AC002 error call-time torch.distributed.all_gather_into_tensor missing=2.0.0 - 2.1.0",
            // `CheckpointPolicy` in `later()`: the module raised on < 2.4, so only 2.4.x lack it.
            "top.py:9:40 AC001 error call-time torch.utils.checkpoint.CheckpointPolicy missing=2.4.0 - 2.4.1",
        ]
    );
}

#[test]
fn a_test_skipped_where_a_condition_fails_runs_only_where_it_holds() {
    // `pytest.skip(...)` and unittest's `self.skipTest(...)` raise: what follows runs only
    // where the test before them is false. A call that does not leave (`print`) guards nothing.
    // `@pytest.mark.skipif(C)` runs the body where `C` is false: what that says of paths too.
    let got = check_files(
        "skips",
        &[(
            "test_m.py",
            "\
import pytest
import torch

def test_a():
    if not hasattr(torch.distributed, \"pipelining\"):
        pytest.skip(\"needs pipelining\")
    torch.distributed.pipelining.pipeline

class T:
    def test_b(self):
        if torch.__version__ < \"2.4\":
            self.skipTest(\"old torch\")
        torch.distributed.pipelining.pipeline

def test_c():
    if not hasattr(torch.distributed, \"pipelining\"):
        print(\"no pipelining\")
    torch.distributed.pipelining.pipeline

@pytest.mark.skipif(not hasattr(torch.distributed, \"pipelining\"), reason=\"old\")
def test_d():
    torch.distributed.pipelining.pipeline
",
        )],
        &["torch==2.3.0"],
    );
    assert_eq!(
        got,
        ["test_m.py:18:5 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

#[test]
fn a_patch_in_a_function_serves_the_reads_after_it_there() {
    // `monkeypatch.setattr(..., raising=False)`, `setattr(...)` and `x.y = v` create the name
    // for the later statements of the same function; pytest's default `raising=True` reads it
    // first. Another function, or a patch under a test the walk does not understand, serves
    // nothing.
    let got = check_files(
        "function_patches",
        &[(
            "test_m.py",
            "\
import torch

def test_a(monkeypatch):
    monkeypatch.setattr(torch.distributed, \"pipelining\", object(), raising=False)
    return torch.distributed.pipelining

def test_b(monkeypatch):
    monkeypatch.setattr(torch.distributed, \"pipelining\", object())
    return torch.distributed.pipelining

def c():
    return torch.distributed.pipelining

def d():
    setattr(torch.distributed, \"pipelining\", None)
    return torch.distributed.pipelining

def e(flag):
    if flag:
        torch.distributed.pipelining = None
    return torch.distributed.pipelining
",
        )],
        &["torch==2.3.0"],
    );
    assert_eq!(
        got,
        [
            "test_m.py:8:44 AC002 error call-time torch.distributed.pipelining missing=2.3.0",
            "test_m.py:12:12 AC002 error call-time torch.distributed.pipelining missing=2.3.0",
            "test_m.py:21:12 AC002 error call-time torch.distributed.pipelining missing=2.3.0",
        ]
    );
}

#[test]
fn version_fields_and_conjuncts_of_earlier_tests_restrict_branches() {
    // `V.major`, `(V.major, V.minor)`, `V.release` compare the leading components; after `if
    // A and B:` is false, `elif A:` runs where `B` is false (unsloth's `if is_distilbert and
    // transformers4: ... elif is_distilbert: <5.x API>`).
    let got = check_files(
        "fields",
        &[(
            "m.py",
            "\
import torch
from packaging.version import Version

V = Version(torch.__version__)

def a():
    if V.major >= 2 and (V.major, V.minor) >= (2, 4):
        return torch.distributed.pipelining.pipeline

def b():
    if V.release >= (2, 4):
        return torch.distributed.pipelining.pipeline

def c(kind):
    old = (V.major, V.minor) < (2, 4)
    if kind == \"x\" and old:
        return None
    elif kind == \"x\":
        return torch.distributed.pipelining.pipeline

def d(kind):
    old = V.minor < 4
    if kind == \"x\" and old:
        return None
    elif kind == \"x\":
        return torch.distributed.pipelining.pipeline
",
        )],
        &["torch>=1.13"],
    );
    // `V.minor < 4` is evaluated on each release (`version_terms.rs`): true on 2.0 - 2.3,
    // false on 1.13 (minor 13) and 2.4 - 2.5, so `d` reaches the path on 1.13 only.
    assert_eq!(
        got,
        ["m.py:26:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 1.13.1"]
    );
}

#[test]
fn an_else_that_leaves_restricts_the_rest_to_the_if_branch() {
    let got = check_files(
        "early_else",
        &[(
            "m.py",
            "\
import torch

def f():
    if torch.__version__ >= \"2.4\":
        pass
    elif torch.__version__ >= \"2.2\":
        return 1
    else:
        raise RuntimeError()
    return torch.distributed.pipelining.pipeline

def g():
    if torch.__version__ >= \"2.4\":
        x = 1
    elif torch.__version__ >= \"2.2\":
        x = 2
    else:
        raise RuntimeError()
    # Two branches go on: nothing is known about the rest.
    return torch.distributed.pipelining.pipeline
",
        )],
        &["torch>=2.0"],
    );
    assert_eq!(
        got,
        ["m.py:20:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.0.0 - 2.3.1"]
    );
}

#[test]
fn version_helpers_defined_in_the_file_are_recognised_by_their_body() {
    let got = check_files(
        "helpers_local",
        &[(
            "m.py",
            "\
import torch
from packaging import version
from packaging.version import Version

def torch_at_least(v):
    \"\"\"Whether torch is at least `v`.\"\"\"
    return version.parse(torch.__version__) >= version.parse(v)

def older_than(minimum, strict=True):
    return Version(minimum) > Version(torch.__version__)

newer = lambda v: torch.__version__ >= v

HAS_POLICY = torch_at_least(\"2.5\")

if torch_at_least(\"2.4\"):
    from torch.distributed.pipelining import pipeline

if not torch_at_least(v=\"2.2\"):
    pass
else:
    torch.distributed.all_gather_into_tensor

if older_than(\"2.4\"):
    pass
else:
    from torch.distributed.pipelining import PipelineStage

if newer(\"2.4\"):
    import torch.distributed.pipelining

if HAS_POLICY:
    from torch.utils.checkpoint import CheckpointPolicy

def not_a_helper(v):
    print(v)
    return torch.__version__ >= v

if not_a_helper(\"2.4\"):
    from torch.distributed.pipelining import Schedule1F1B
",
        )],
        &["torch>=2.0"],
    );
    assert_eq!(
        got,
        [
            "m.py:40:46 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.0.0 - 2.3.1",
        ]
    );
}

#[test]
fn version_helpers_imported_from_another_module_of_the_project() {
    let got = check_files(
        "helpers_imported",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/utils/versions.py",
                "\
import torch
from packaging import version

def is_torch_greater_or_equal(library_version):
    return version.parse(torch.__version__) >= version.parse(library_version)

def is_torch_less_than(library_version):
    return version.parse(torch.__version__) < version.parse(library_version)
",
            ),
            (
                "pkg/utils/__init__.py",
                "from .versions import is_torch_greater_or_equal, is_torch_less_than\n",
            ),
            (
                "pkg/model.py",
                "\
import torch
from . import utils
from .utils import is_torch_greater_or_equal, is_torch_less_than

if is_torch_greater_or_equal(\"2.4\"):
    from torch.distributed.pipelining import pipeline

def policy():
    if is_torch_less_than(\"2.5\"):
        return None
    from torch.utils.checkpoint import CheckpointPolicy
    return CheckpointPolicy

def gather():
    if utils.is_torch_greater_or_equal(\"2.2\"):
        return torch.distributed.all_gather_into_tensor
    # Not a helper of this project: no restriction.
    if unknown_helper(\"2.4\"):
        return torch.distributed.pipelining.Schedule1F1B
",
            ),
            (
                "pkg/other.py",
                "\
# Two different helpers named `same_name` in the project: neither is used by name.
import torch

def same_name(v):
    return torch.__version__ >= v
",
            ),
            (
                "pkg/other2.py",
                "\
import torch

def same_name(v):
    return torch.__version__ < v

def shadowed(v):
    return torch.__version__ >= v
",
            ),
            (
                "pkg/other3.py",
                "\
import torch
from .other import same_name

if same_name(\"2.4\"):
    from torch.distributed.pipelining import PipelineStage

def g():
    # A function of this file that is not a helper: nothing is known, though another file
    # defines a helper of that name.
    if shadowed(\"2.4\"):
        return None
    from torch.distributed.pipelining import pipeline

def shadowed(v):
    return v
",
            ),
        ],
        &["torch>=2.0"],
    );
    assert_eq!(
        got,
        [
            // After `if utils.is_torch_greater_or_equal("2.2"): return`, only < 2.2 is left.
            "pkg/model.py:19:16 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.0.0 - 2.1.0",
            "pkg/other3.py:5:46 AC001 error import-time torch.distributed.pipelining.PipelineStage missing=2.0.0 - 2.3.1",
            "pkg/other3.py:12:46 AC001 error call-time torch.distributed.pipelining.pipeline missing=2.0.0 - 2.3.1",
        ]
    );
}

/// accelerate's helpers (`src/accelerate/utils/versions.py`, `constants.py`): the operator is a
/// string looked up in a table imported from another module, the version compared comes from
/// `importlib.metadata`, a comparator is called by a wrapper, and versions are module-level
/// constants of another file.
const OP_HELPERS: &[(&str, &str)] = &[
    ("pkg/__init__.py", ""),
    (
        "pkg/constants.py",
        "import operator\nSTR_OPERATION_TO_FUNC = {\">\": operator.gt, \">=\": operator.ge, \"==\": operator.eq, \"!=\": operator.ne, \"<=\": operator.le, \"<\": operator.lt}\nPIPELINING_VERSION = \"2.4.0\"\n",
    ),
    (
        "pkg/versions.py",
        "import importlib.metadata\nfrom packaging.version import parse\nfrom .constants import STR_OPERATION_TO_FUNC\n\ntorch_version = parse(importlib.metadata.version(\"torch\"))\n\ndef compare_versions(library_or_version, operation, requirement_version):\n    \"\"\"Compares.\"\"\"\n    if operation not in STR_OPERATION_TO_FUNC.keys():\n        raise ValueError(operation)\n    operation = STR_OPERATION_TO_FUNC[operation]\n    if isinstance(library_or_version, str):\n        library_or_version = parse(importlib.metadata.version(library_or_version))\n    return operation(library_or_version, parse(requirement_version))\n\ndef is_torch_version(operation, version):\n    return compare_versions(torch_version, operation, version)\n",
    ),
    (
        "pkg/use.py",
        "import torch\nfrom .versions import is_torch_version, compare_versions\nfrom .constants import PIPELINING_VERSION\n\ndef guarded():\n    if is_torch_version(\">=\", \"2.4.0\"):\n        return torch.distributed.pipelining.pipeline\n    if is_torch_version(\">=\", PIPELINING_VERSION):\n        return torch.distributed.pipelining.pipeline\n    if compare_versions(\"torch\", \">=\", \"2.4\"):\n        return torch.distributed.pipelining.pipeline\n    if not is_torch_version(\">=\", \"2.4.0\"):\n        return None\n    return torch.distributed.pipelining.pipeline\n\ndef too_old():\n    if is_torch_version(\">=\", \"2.0\"):\n        return torch.distributed.pipelining.pipeline\n\ndef opposite():\n    if is_torch_version(\"<\", \"2.4\"):\n        return torch.distributed.pipelining.pipeline\n",
    ),
];

/// The errors in the files under `prefix` of [`OP_HELPERS`] with `extra` files added.
fn op_helper_errors(
    name: &str,
    extra: &[(&'static str, &'static str)],
    targets: &[&str],
    prefix: &str,
) -> Vec<String> {
    let mut files = OP_HELPERS.to_vec();
    files.extend_from_slice(extra);
    check_files(name, &files, targets)
        .into_iter()
        .filter(|l| l.starts_with(prefix))
        .collect()
}

#[test]
fn version_helpers_that_take_the_operator_as_a_string() {
    let got = check_files("op_helpers", OP_HELPERS, &["torch>=2.3,<2.5"]);
    assert_eq!(
        got,
        [
            "pkg/use.py:18:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
            "pkg/use.py:22:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
        ]
    );
}

#[test]
fn availability_helpers_imply_the_conditions_of_their_early_exits() {
    let mut files = OP_HELPERS.to_vec();
    files.push((
        "pkg/imports.py",
        "import torch\nfrom .versions import is_torch_version\n\ndef is_xpu_available(check_device=False):\n    \"\"\"Checks.\"\"\"\n    if is_torch_version(\"<=\", \"2.3.1\"):\n        return False\n    if check_device:\n        try:\n            return torch.xpu.is_available()\n        except RuntimeError:\n            return False\n    return hasattr(torch, \"xpu\") and torch.xpu.is_available()\n\ndef is_other_available():\n    if torch.cuda.is_available():\n        return True\n    if is_torch_version(\"<=\", \"2.3.1\"):\n        return False\n    return True\n",
    ));
    files.push((
        "pkg/use2.py",
        "import torch\nfrom .imports import is_xpu_available, is_other_available\n\ndef f():\n    if is_xpu_available():\n        return torch.distributed.pipelining.pipeline\n    if is_xpu_available(check_device=True):\n        return torch.distributed.pipelining.pipeline\n    if not is_xpu_available():\n        return torch.distributed.pipelining.pipeline\n\ndef g():\n    if is_other_available():\n        return torch.distributed.pipelining.pipeline\n",
    ));
    let got = check_files("availability", &files, &["torch>=2.3,<2.5"]);
    let of = |file: &str| -> Vec<&String> { got.iter().filter(|l| l.starts_with(file)).collect() };
    // A true result implies torch > 2.3.1; a false one says nothing; a function with a
    // `return True` before its version check implies nothing.
    assert_eq!(
        of("pkg/use2.py"),
        [
            "pkg/use2.py:10:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
            "pkg/use2.py:14:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
        ]
    );
}

#[test]
fn test_markers_type_error_handlers_and_handlers_that_raise_again() {
    let mut files = OP_HELPERS.to_vec();
    files.push((
        "pkg/testing.py",
        "import unittest\nfrom .versions import is_torch_version\n\nrequire_pp = unittest.skipUnless(is_torch_version(\">=\", \"2.4.0\"), \"needs torch 2.4\")\n",
    ));
    files.push((
        "pkg/test_x.py",
        "import unittest\nimport pytest\nimport torch\nfrom .testing import require_pp\nfrom .versions import is_torch_version\n\n@require_pp\ndef test_a():\n    return torch.distributed.pipelining.pipeline\n\n@unittest.skipUnless(is_torch_version(\">=\", \"2.4.0\"), \"x\")\ndef test_b():\n    return torch.distributed.pipelining.pipeline\n\n@pytest.mark.skipif(is_torch_version(\"<\", \"2.4.0\"), reason=\"x\")\ndef test_c():\n    return torch.distributed.pipelining.pipeline\n\n@require_pp\nclass TestD(unittest.TestCase):\n    def test_d(self):\n        return torch.distributed.pipelining.pipeline\n\ndef test_e():\n    try:\n        return torch.load(\"x\", weights_only=True)\n    except TypeError:\n        return torch.load(\"x\")\n\ndef test_f():\n    try:\n        from torch.distributed import pipelining\n    except ImportError:\n        raise ImportError(\"needs a newer torch\")\n    return pipelining\n\n@pytest.mark.skipif(is_torch_version(\">=\", \"2.4.0\"), reason=\"x\")\ndef test_wrong():\n    return torch.distributed.pipelining.pipeline\n",
    ));
    let got = check_files("markers", &files, &["torch>=1.13,<2.5"]);
    let of: Vec<&String> = got
        .iter()
        .filter(|l| l.starts_with("pkg/test_x.py"))
        .collect();
    // Markers here and in another module, `skipUnless`/`skipif`, a class decorator and an
    // `except TypeError` around a keyword guard their uses; a handler that raises again and
    // a marker that skips the wrong releases do not.
    assert_eq!(
        of,
        [
            "pkg/test_x.py:32:39 AC001 error call-time torch.distributed.pipelining missing=1.13.0 - 2.3.1",
            "pkg/test_x.py:39:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 2.3.1",
        ]
    );
}

#[test]
fn asserts_and_and_operands_guard_what_follows() {
    let mut files = OP_HELPERS.to_vec();
    files.push((
        "pkg/use3.py",
        "import torch\nfrom .versions import is_torch_version\n\ndef f():\n    assert is_torch_version(\">=\", \"2.4.0\"), \"needs 2.4\"\n    return torch.distributed.pipelining.pipeline\n\ndef g():\n    return is_torch_version(\">=\", \"2.4.0\") and torch.distributed.pipelining.pipeline\n\ndef h():\n    return torch.distributed.pipelining.pipeline and is_torch_version(\">=\", \"2.4.0\")\n",
    ));
    let got = check_files("asserts", &files, &["torch>=2.3,<2.5"]);
    let of: Vec<&String> = got
        .iter()
        .filter(|l| l.starts_with("pkg/use3.py"))
        .collect();
    // Only the operand before the check is unguarded.
    assert_eq!(
        of,
        ["pkg/use3.py:12:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1"]
    );
}

/// Markers written as functions (`def require_x(test_case): return
/// unittest.skipUnless(C, "...")(test_case)`), defined in another module: what they decorate
/// runs under `C`; a loose marker (`>= 2.0`) guards nothing that needs 2.4.
#[test]
fn marker_functions_guard_what_they_decorate() {
    let testing = "import unittest\nfrom .versions import is_torch_version\n\ndef require_pipelining(test_case):\n    \"\"\"Skips below 2.4.\"\"\"\n    return unittest.skipUnless(is_torch_version(\">=\", \"2.4.0\"), \"needs 2.4\")(test_case)\n\ndef require_two(test_case):\n    return unittest.skipUnless(is_torch_version(\">=\", \"2.0.0\"), \"needs 2.0\")(test_case)\n";
    let test_x = "import unittest\nimport torch\nfrom .testing import require_pipelining, require_two\n\n@require_pipelining\nclass T(unittest.TestCase):\n    def test_a(self):\n        return torch.distributed.pipelining.pipeline\n\n@require_two\ndef test_b():\n    return torch.distributed.pipelining.pipeline\n";
    let of = op_helper_errors(
        "marker_functions",
        &[("pkg/testing.py", testing), ("pkg/test_x.py", test_x)],
        &["torch>=2.3,<2.5"],
        "pkg/test_x.py",
    );
    assert_eq!(
        of,
        ["pkg/test_x.py:12:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1"]
    );
}

#[test]
fn keyword_tests_guard_the_keyword_they_test() {
    let got = check_files(
        "keyword_tests",
        &[(
            "m.py",
            "import dataclasses\nimport inspect\nimport torch\n\ndef a(f):\n    if \"weights_only\" in inspect.signature(torch.load).parameters:\n        return torch.load(f, weights_only=True)\n    return torch.load(f)\n\nHAS = \"weights_only\" in inspect.signature(torch.load).parameters\n\ndef b(f):\n    if HAS:\n        return torch.load(f, weights_only=True)\n\ndef c(f):\n    if \"mmap\" in inspect.signature(torch.load).parameters:\n        return torch.load(f, weights_only=True)\n",
        )],
        &["torch==1.13.1"],
    );
    // The test of another keyword guards nothing.
    assert_eq!(
        got,
        ["m.py:18:30 AC003 error call-time torch.load(weights_only=) missing=1.13.1"]
    );
}

/// `"k" in h(f)` with `h` a function of the module that lists `f`'s parameters (Megatron-LM's
/// `get_func_args`): the keyword tested is guarded; another keyword, or a function that does
/// not list parameters, guards nothing.
#[test]
fn keyword_tests_through_a_function_listing_parameters() {
    let got = check_files(
        "keyword_tests_helper",
        &[(
            "m.py",
            "import inspect\nimport torch\n\n\ndef get_func_args(func):\n    \"\"\"Argument names.\"\"\"\n    sig = inspect.signature(func)\n    return [arg.name for arg in sig.parameters.values()]\n\n\ndef names(func):\n    return [\"weights_only\"]\n\n\ndef a(f):\n    if \"weights_only\" in get_func_args(torch.load):\n        return torch.load(f, weights_only=True)\n    if \"mmap\" in get_func_args(torch.load):\n        return torch.load(f, weights_only=True)\n    if \"weights_only\" in names(torch.load):\n        return torch.load(f, weights_only=True)\n",
        )],
        &["torch==1.13.1"],
    );
    assert_eq!(
        got,
        [
            "m.py:19:30 AC003 error call-time torch.load(weights_only=) missing=1.13.1",
            "m.py:21:30 AC003 error call-time torch.load(weights_only=) missing=1.13.1",
        ]
    );
}

#[test]
fn dataclass_field_tests_guard_the_keyword_they_test() {
    let got = check_files(
        "field_tests",
        &[(
            "m.py",
            "from dataclasses import fields\nimport torch\n\ndef a():\n    has = any(x.name == \"device\" for x in fields(torch.nn.Linear))\n    if has:\n        return torch.nn.Linear(1, 1, device=\"cpu\")\n    return torch.nn.Linear(1, 1, dtype=None)\n",
        )],
        &["torch==1.13.1"],
    );
    // The field tested guards its keyword; another keyword stays checked.
    assert_eq!(
        got,
        ["m.py:8:34 AC003 error call-time torch.nn.Linear(dtype=) missing=1.13.1"]
    );
}

/// A helper that hands its parameter to a comparator of another module, with the version in a
/// local name (accelerate's `is_numpy_available(min_version)`); a function of the same shape
/// that calls something else is no helper.
#[test]
fn helpers_that_call_a_comparator_of_another_module() {
    let got = check_files(
        "comparator_via",
        &[
            (
                "utils/versions.py",
                "\
import importlib.metadata
import operator as op

from packaging.version import parse

OPS = {\">=\": op.ge, \"<\": op.lt}


def compare_versions(library_or_version, operation, requirement_version):
    operation = OPS[operation]
    if isinstance(library_or_version, str):
        library_or_version = parse(importlib.metadata.version(library_or_version))
    return operation(library_or_version, parse(requirement_version))
",
            ),
            (
                "utils/imports.py",
                "\
import importlib.metadata

from packaging.version import parse

from utils.versions import compare_versions


def is_torch_at_least(min_version=\"2.0\"):
    torch_version = parse(importlib.metadata.version(\"torch\"))
    return compare_versions(torch_version, \">=\", min_version)


def shows_the_version(min_version=\"2.0\"):
    torch_version = parse(importlib.metadata.version(\"torch\"))
    return print(torch_version, \">=\", min_version)
",
            ),
            (
                "m.py",
                "\
import torch

from utils.imports import is_torch_at_least, shows_the_version

if is_torch_at_least(\"2.4.0\"):
    torch.distributed.pipelining.pipeline
if shows_the_version(\"2.4.0\"):
    torch.distributed.pipelining.Schedule1F1B
",
            ),
        ],
        &["torch==2.3.0"],
    );
    let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
    assert_eq!(
        errors,
        ["m.py:8:5 AC002 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0"]
    );
}

/// A branch runs only where its test could be evaluated: the paths a test reads for sure
/// restrict its branches to the releases that have them (the test's own read stays reported).
/// Fake torch: `pipelining` from 2.4.0, `_functional_collectives.all_reduce` from 2.0.0,
/// `all_gather_tensor` from 2.1.0.
#[test]
fn a_branch_runs_only_where_its_test_reads_exist() {
    let got = check_files(
        "test_reads",
        &[(
            "m.py",
            "\
import torch

def same_releases():
    if torch.distributed.pipelining.pipeline(None, None):
        return torch.distributed.pipelining.Schedule1F1B
    else:
        return torch.distributed.pipelining.SplitPoint

def narrower_than_the_test():
    if torch.distributed._functional_collectives.all_reduce(1, 2, 3):
        torch.distributed._functional_collectives.all_gather_tensor(1, 2, 3)

def a_test_of_something_else():
    if torch.distributed.is_available():
        return torch.distributed.pipelining.pipeline

def operands():
    if torch.distributed.is_available() and torch.distributed.pipelining.PipelineStage:
        return torch.distributed.pipelining.Schedule1F1B
    else:
        return torch.distributed.pipelining.SplitPoint

def and_operand():
    return torch.distributed.pipelining.pipeline and torch.distributed.pipelining.SplitPoint
",
        )],
        &["torch>=1.13"],
    );
    assert_eq!(
        got,
        [
            "m.py:4:8 AC002 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 2.3.1",
            "m.py:10:8 AC002 error call-time torch.distributed._functional_collectives.all_reduce missing=1.13.0 - 1.13.1",
            "m.py:11:9 AC002 error call-time torch.distributed._functional_collectives.all_gather_tensor missing=2.0.0 - 2.0.1",
            "m.py:15:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 2.3.1",
            "m.py:18:45 AC002 error call-time torch.distributed.pipelining.PipelineStage missing=1.13.0 - 2.3.1",
            "m.py:21:16 AC002 error call-time torch.distributed.pipelining.SplitPoint missing=1.13.0 - 2.3.1",
            "m.py:24:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 2.3.1",
        ]
    );
}

/// A name bound to a test carries what the test read, and a dataclass field test reads the
/// field: `has_x = any(f.name == "x" for f in fields(C))` then `if has_x:` runs only where
/// `C.x` exists (accelerate's `numa_options` test before `torch.numa`).
#[test]
fn names_bound_to_tests_and_field_tests_carry_their_reads() {
    let got = check_files(
        "test_reads_names",
        &[(
            "m.py",
            "\
import dataclasses
import torch

def bound():
    ok = torch.distributed.pipelining.pipeline is not None
    if ok:
        return torch.distributed.pipelining.Schedule1F1B

def field():
    has_begin = any(f.name == \"BEGINNING\" for f in dataclasses.fields(torch.distributed.pipelining.SplitPoint))
    if has_begin:
        return torch.distributed.pipelining.Schedule1F1B

def other_field():
    has_x = any(f.name == \"forward\" for f in dataclasses.fields(torch.nn.Linear))
    if has_x:
        return torch.distributed.pipelining.Schedule1F1B
",
        )],
        &["torch>=1.13"],
    );
    assert_eq!(
        got,
        [
            "m.py:5:10 AC002 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 2.3.1",
            "m.py:10:71 AC002 error call-time torch.distributed.pipelining.SplitPoint missing=1.13.0 - 2.3.1",
            "m.py:17:16 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=1.13.0 - 2.3.1",
        ]
    );
}

/// The `else` of `if hasattr(C, "n"):` runs only on releases whose `C` lacks `n` (a fallback to
/// the old name); a test of another name leaves the gap releases reported. Fake torch:
/// `_tensor._Partial` before 2.4.0, `_tensor.Partial` from 2.4.0, `distributed.tensor` from
/// 2.5.0.
#[test]
fn the_else_of_hasattr_runs_where_the_name_is_missing() {
    let got = check_files(
        "hasattr_else",
        &[(
            "m.py",
            "\
import torch

def fallback():
    if hasattr(torch.distributed._tensor, \"Partial\"):
        return torch.distributed._tensor.Partial
    else:
        return torch.distributed._tensor._Partial

def early():
    if not hasattr(torch.distributed._tensor, \"Partial\"):
        return torch.distributed._tensor._Partial
    return torch.distributed._tensor.Partial

def another_name():
    if hasattr(torch.distributed, \"tensor\"):
        return None
    else:
        return torch.distributed._tensor._Partial

def unguarded():
    return torch.distributed._tensor._Partial
",
        )],
        &["torch>=1.13"],
    );
    assert_eq!(
        got,
        [
            "m.py:18:16 AC002 error call-time torch.distributed._tensor._Partial missing=2.4.0 - 2.4.1",
            "m.py:21:12 AC002 error call-time torch.distributed._tensor._Partial missing=2.4.0 - 2.5.0",
        ]
    );
}

/// Module-level version flags imported from another module of the project
/// (`is_transformers_ge_v5_4_0` in peft's `import_utils.py`): the condition they hold, negation
/// included; a loose flag or a parameter of the same name guards nothing.
#[test]
fn module_level_flags_imported_from_another_module() {
    let got = check_files(
        "flags",
        &[
            (
                "pkg/__init__.py",
                "",
            ),
            (
                "pkg/versions.py",
                "import torch\nfrom packaging import version\n\nIS_24 = version.parse(torch.__version__) >= version.parse(\"2.4\")\nIS_20 = version.parse(torch.__version__) >= version.parse(\"2.0\")\n",
            ),
            (
                "pkg/use.py",
                "\
import torch
from .versions import IS_24, IS_20

def exits():
    if not IS_24:
        raise RuntimeError(\"needs torch 2.4\")
    return torch.distributed.pipelining.pipeline

def loose():
    if IS_20:
        return torch.distributed.pipelining.pipeline

def shadowed(IS_24):
    if IS_24:
        return torch.distributed.pipelining.pipeline
",
            ),
        ],
        &["torch>=1.13"],
    );
    assert_eq!(
        got,
        [
            "pkg/use.py:11:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.0.0 - 2.3.1",
            "pkg/use.py:15:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 2.3.1",
        ]
    );
}

/// A function whose every true result tests or reads a path (`return hasattr(bnb.nn,
/// "Linear4bit")`, peft's `is_bnb_4bit_available`) says that path exists where a call of it
/// is true, from any module; one true result that says nothing, or `not f()`, says nothing.
#[test]
fn functions_whose_true_results_test_a_path() {
    let got = check_files(
        "presence",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/avail.py",
                "\
import torch

def has_pipelining():
    if not torch.distributed.is_available():
        return False
    return hasattr(torch.distributed, \"pipelining\")

def reads_it():
    try:
        return torch.distributed.pipelining.pipeline is not None
    except AttributeError:
        return False

def says_nothing(flag):
    if flag:
        return True
    return hasattr(torch.distributed, \"pipelining\")
",
            ),
            (
                "pkg/use.py",
                "\
import torch
from .avail import has_pipelining, reads_it, says_nothing

def a():
    if has_pipelining():
        return torch.distributed.pipelining.Schedule1F1B

def b():
    if reads_it():
        return torch.distributed.pipelining.Schedule1F1B

def c():
    if says_nothing(True):
        return torch.distributed.pipelining.Schedule1F1B

def d():
    if not has_pipelining():
        return torch.distributed.pipelining.Schedule1F1B
",
            ),
        ],
        &["torch>=1.13"],
    );
    assert_eq!(
        got,
        [
            "pkg/use.py:14:16 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=1.13.0 - 2.3.1",
            "pkg/use.py:18:16 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=1.13.0 - 2.3.1",
        ]
    );
}

#[test]
fn helpers_that_compare_a_version_from_a_getter_of_the_file() {
    // LLaMA-Factory's `extras/packages.py`: the version comes from a function of the file
    // that reads a distribution's installed version by the name it is given.
    let got = check_files(
        "helpers_getter",
        &[
            (
                "pkg/packages.py",
                "\
import importlib.metadata
from functools import lru_cache
from packaging import version

def _get_package_version(name: str):
    try:
        return version.parse(importlib.metadata.version(name))
    except Exception:
        return version.parse(\"0.0.0\")

@lru_cache
def is_torch_version_greater_than(content: str):
    return _get_package_version(\"torch\") >= version.parse(content)

@lru_cache
def is_other_version_greater_than(content: str):
    return _get_package_version(\"not-indexed\") >= version.parse(content)
",
            ),
            (
                "pkg/model.py",
                "\
from .packages import is_other_version_greater_than, is_torch_version_greater_than

if is_torch_version_greater_than(\"2.4.0\"):
    from torch.distributed.pipelining import pipeline

if is_torch_version_greater_than(\"2.0.0\"):
    from torch.utils.checkpoint import CheckpointPolicy

if is_other_version_greater_than(\"2.4.0\"):
    from torch.distributed.pipelining import Schedule1F1B
",
            ),
        ],
        &["torch>=2.3"],
    );
    assert_eq!(
        got,
        [
            "pkg/model.py:7:40 AC001 error import-time torch.utils.checkpoint.CheckpointPolicy missing=2.3.0 - 2.4.1",
            "pkg/model.py:10:46 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1",
        ]
    );
}

#[test]
fn decorators_whose_wrapper_leaves_unless_a_test_holds() {
    let got = check_files(
        "guarding_decorators",
        &[(
            "m.py",
            "\
import warnings
from functools import wraps

import torch
from packaging import version


def requires_pipelining(fn):
    \"\"\"Raises unless torch has pipelining.\"\"\"

    @wraps(fn)
    def wrapper(*args, **kwargs):
        if not hasattr(torch.distributed, \"pipelining\"):
            raise RuntimeError(\"needs torch>=2.4\")
        return fn(*args, **kwargs)

    return wrapper


def requires_new_torch(fn):
    def wrapper(*args, **kwargs):
        if version.parse(torch.__version__) < version.parse(\"2.4\"):
            return None
        return fn(*args, **kwargs)

    return wrapper


def only_warns(fn):
    def wrapper(*args, **kwargs):
        if not hasattr(torch.distributed, \"pipelining\"):
            warnings.warn(\"old torch\")
        return fn(*args, **kwargs)

    return wrapper


@requires_pipelining
def a():
    return torch.distributed.pipelining.pipeline


@requires_new_torch
def b():
    return torch.distributed.pipelining.pipeline


@only_warns
def c():
    return torch.distributed.pipelining.pipeline
",
        )],
        &["torch==2.3.0"],
    );
    assert_eq!(
        got,
        ["m.py:50:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

#[test]
fn a_fallback_import_runs_only_where_the_import_it_replaces_fails() {
    // `_Partial` became `Partial` in 2.4: the handler runs only where `Partial` is missing.
    let got = check_files(
        "fallback_import",
        &[(
            "m.py",
            "\
try:
    from torch.distributed._tensor import Partial
except ImportError:
    from torch.distributed._tensor import _Partial as Partial

try:
    from torch.distributed._tensor import Partial, Shard
    import torch.distributed
except ImportError:
    from torch.distributed._tensor import _Partial

try:
    from torch.distributed._tensor import Partial
    import apex
except ImportError:
    from torch.distributed._tensor import _Partial as Partial

try:
    from torch.distributed._tensor import Partial
    HAS_PARTIAL = True

    def make(kind=\"sum\"):
        return Partial(kind)
except:
    from torch.distributed._tensor import _Partial as Partial
    HAS_PARTIAL = False

try:
    from torch.distributed._tensor import Partial

    @torch.no_grad()
    def make2():
        return Partial()
except:
    from torch.distributed._tensor import _Partial as Partial
",
        )],
        &["torch>=2.3"],
    );
    // Several names: the handler runs where any of them is missing (nowhere from 2.4). A
    // module outside the index in the `try` may fail anywhere; so may a decorator. A literal
    // flag and a plain function beside the import cannot, and a bare `except:` catches the
    // `ImportError` too.
    assert_eq!(
        got,
        [
            "m.py:16:43 AC001 error import-time torch.distributed._tensor._Partial missing=2.4.0 - 2.5.0",
            "m.py:35:43 AC001 error import-time torch.distributed._tensor._Partial missing=2.4.0 - 2.5.0",
        ]
    );
}

#[test]
fn a_dispatch_on_the_name_of_a_module_runs_where_that_module_exists() {
    let got = check_files(
        "dispatch",
        &[(
            "m.py",
            "\
def a(kind):
    if kind == \"pipelining\":
        from torch.distributed.pipelining import pipeline
        return pipeline


def b(kind):
    if kind in (\"pipelining\",):
        import torch.distributed.pipelining.schedules
        return torch


def c(name):
    if name == \"pipeline\":
        from torch.distributed.pipelining import pipeline
        return pipeline


def d(kind):
    if kind == \"other\":
        from torch.distributed.pipelining import pipeline
        return pipeline


def e(kind):
    if \"pipelining\" in kind.name:
        import torch.distributed.pipelining.schedules
        return torch
",
        )],
        &["torch==2.3.0"],
    );
    // The name of the module used (not the name imported, not another name) restricts it.
    assert_eq!(
        got,
        [
            "m.py:15:50 AC001 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "m.py:21:50 AC001 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
}

/// A membership test of several names (EasyR1's `model_type in QWEN3_VL_MODELS`) runs where
/// the module of any of them exists; a test of an object's class name, where that class does.
#[test]
fn a_dispatch_on_several_names_or_a_class_name_runs_where_one_of_them_exists() {
    let got = check_files(
        "dispatch-several",
        &[(
            "m.py",
            "\
KINDS = (\"pipelining\", \"tensor\")


def a(kind):
    if kind in (\"pipelining\", \"tensor\"):
        from torch.distributed.pipelining import pipeline
        return pipeline


def b(kind):
    if kind in KINDS:
        from torch.distributed.pipelining import pipeline
        return pipeline


def c(kind):
    if kind in [\"pipelining\", \"_functional_collectives\"]:
        from torch.distributed.pipelining import pipeline
        return pipeline


def d(schedule):
    if type(schedule).__name__ == \"Schedule1F1B\":
        from torch.distributed.pipelining.schedules import Schedule1F1B
        return Schedule1F1B


def e(schedule):
    if schedule.__class__.__name__ in (\"Schedule1F1B\",):
        from torch.distributed.pipelining.schedules import Schedule1F1B
        return Schedule1F1B


def f(name):
    if name == \"Schedule1F1B\":
        from torch.distributed.pipelining.schedules import Schedule1F1B
        return Schedule1F1B
",
        )],
        &["torch>=1.13"],
    );
    // `_functional_collectives` exists from 2.0.0, `pipelining` from 2.4.0: `c` runs on 2.0.0 -
    // 2.3.x without it. A name tested that is not a class's says nothing of the name imported.
    assert_eq!(
        got,
        [
            "m.py:18:50 AC001 error call-time torch.distributed.pipelining.pipeline missing=2.0.0 - 2.3.1",
            "m.py:36:60 AC001 error call-time torch.distributed.pipelining.schedules.Schedule1F1B missing=1.13.0 - 2.3.1",
        ]
    );
}

/// A test compared with a boolean (`hasattr(x, "n") is True`, whisper) is the test itself, or
/// its negation; a handler of `ImportError or ModuleNotFoundError` catches `ImportError` (NeMo).
#[test]
fn tests_compared_with_booleans_and_handlers_of_or_expressions() {
    let got = check_files(
        "bool-compared",
        &[(
            "m.py",
            "\
import torch


def a():
    if hasattr(torch.distributed, \"pipelining\") is True:
        return torch.distributed.pipelining.pipeline


def b():
    if hasattr(torch.distributed, \"pipelining\") == False:
        return None
    return torch.distributed.pipelining.pipeline


def c():
    if hasattr(torch.distributed, \"pipelining\") is False:
        return torch.distributed.pipelining.pipeline


def d():
    try:
        from torch.distributed.pipelining import pipeline
    except ImportError or ModuleNotFoundError:
        pipeline = None
    return pipeline
",
        )],
        &["torch==2.3.0"],
    );
    assert_eq!(
        got,
        ["m.py:17:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

/// A version compared with a string that is no version (`torch.__version__ == "parrots"`, a
/// test for another framework, LAVIS) is never equal: the branch runs on no release.
#[test]
fn a_version_equal_to_a_string_that_is_no_version_never_holds() {
    let got = check_files(
        "not-a-version",
        &[(
            "m.py",
            "\
import torch


def a():
    if torch.__version__ == \"parrots\":
        return torch.distributed.pipelining.pipeline


def b():
    if torch.__version__ != \"parrots\":
        return torch.distributed.pipelining.pipeline
",
        )],
        &["torch==2.3.0"],
    );
    assert_eq!(
        got,
        ["m.py:11:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
}

#[test]
fn version_helpers_with_optional_bounds() {
    // verl's `is_transformers_version_in_range(min_version=None, max_version=None)`.
    let helper = "\
import importlib.metadata
from typing import Optional

from packaging import version


def is_torch_version_in_range(min_version: Optional[str] = None, max_version: Optional[str] = None) -> bool:
    try:
        torch_version_str = importlib.metadata.version(\"torch\")
    except importlib.metadata.PackageNotFoundError as e:
        raise ModuleNotFoundError(\"torch is not installed\") from e

    torch_version = version.parse(torch_version_str)

    lower_bound_check = True
    if min_version is not None:
        lower_bound_check = version.parse(min_version) <= torch_version

    upper_bound_check = True
    if max_version is not None:
        upper_bound_check = torch_version <= version.parse(max_version)

    return lower_bound_check and upper_bound_check
";
    let user = "\
from pkg.compat import is_torch_version_in_range


def a():
    if is_torch_version_in_range(min_version=\"2.4.0\"):
        from torch.distributed.pipelining import pipeline
        return pipeline


def b():
    if is_torch_version_in_range(max_version=\"2.3.1\"):
        return None
    from torch.distributed.pipelining import Schedule1F1B
    return Schedule1F1B


def c():
    if is_torch_version_in_range(min_version=\"2.0.0\"):
        from torch.utils.checkpoint import CheckpointPolicy
        return CheckpointPolicy
";
    let got = check_files(
        "range_helpers",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/compat.py", helper),
            ("pkg/user.py", user),
        ],
        &["torch>=2.3"],
    );
    // `min_version="2.0.0"` is too low for a 2.5 name: still an error on 2.3 - 2.4.
    assert_eq!(
        got,
        ["pkg/user.py:19:44 AC001 error call-time torch.utils.checkpoint.CheckpointPolicy missing=2.3.0 - 2.4.1"]
    );
    // The helper in the same file as its calls.
    let same = format!(
        "{helper}\n\n{}",
        user.replacen("from pkg.compat import is_torch_version_in_range\n", "", 1)
    );
    let got = check_files(
        "range_helpers_same_file",
        &[("m.py", &same)],
        &["torch>=2.3"],
    );
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].contains("torch.utils.checkpoint.CheckpointPolicy missing=2.3.0 - 2.4.1"),
        "{got:?}"
    );
}

#[test]
fn names_the_project_puts_on_a_module_are_its_own() {
    // `torch.distributed.orig_barrier` is in no release: the project assigns it (in another
    // file), so reading it is not judged. `pipelining` is in releases 2.4.0+: the read that
    // saves the original before the patch still needs it.
    let got = check_files(
        "stored-names",
        &[
            (
                "patch.py",
                "import torch.distributed as dist\n\ndef patch(fn):\n    dist.orig_barrier = dist.all_gather_into_tensor\n    saved = dist.pipelining\n    dist.pipelining = fn\n    return saved\n",
            ),
            (
                "use.py",
                "import torch.distributed as dist\n\ndef run():\n    return dist.orig_barrier()\n",
            ),
        ],
        &["torch>=2.3.0"],
    );
    assert_eq!(
        got,
        ["patch.py:5:13 AC002 error call-time torch.distributed.pipelining missing=2.3.0 - 2.3.1"]
    );
}

#[test]
fn a_fallback_import_gets_no_advice_to_guard_it_again() {
    let dir = project(
        "fallback_advice",
        &[(
            "m.py",
            "try:\n    from torch.distributed._tensor import Partial\n    import apex\nexcept ImportError:\n    from torch.distributed._tensor import _Partial as Partial\n",
        )],
    );
    let report = run(&dir, &["torch>=2.3"]);
    let f = report
        .findings
        .iter()
        .find(|f| f.line == 5)
        .expect("the handler's import breaks from 2.4");
    assert!(
        !f.fixes
            .iter()
            .any(|x| x.message.contains("guard the import")),
        "{:?}",
        f.fixes
    );
    assert!(!f.fixes.is_empty(), "the pin stays");
}

/// A test a class stores once on its instances guards the methods that read it
/// (`collect/instance_tests.rs`; bark's and nanoGPT's `self.flash = hasattr(F, "...")`,
/// docs/false-alarm-study-18.md F-B). Stored twice, or read by another class, it does not.
#[test]
fn a_test_stored_once_on_the_instance_guards_its_methods() {
    let got = check_files(
        "instance_tests",
        &[(
            "m.py",
            "\
import torch

class A:
    def __init__(self, fast=True):
        self.fast = fast and hasattr(torch.distributed, \"pipelining\")
        self.twice = hasattr(torch.distributed, \"pipelining\")
        if fast:
            self.twice = True

    def run(self):
        if self.fast:
            torch.distributed.pipelining.pipeline
        if self.twice:
            torch.distributed.pipelining.Schedule1F1B

class B:
    def run(self):
        if self.fast:
            torch.distributed.pipelining.pipeline
",
        )],
        &["torch>=2.3.0"],
    );
    assert_eq!(
        got,
        [
            "m.py:14:13 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1",
            "m.py:19:13 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
        ]
    );
}

/// RecBole's shim (docs/false-alarm-study-19.md, F-B): a method of another module assigns the
/// removed name from another path of the package. Reads anywhere are judged only where that
/// value is missing too (there the assignment itself fails); a builtin class is accepted by
/// every release. A patch of the project's own (`f = patched(f)`) is no
/// such name: reads of the original are judged as usual.
#[test]
fn a_name_the_project_restores_anywhere_is_judged_where_the_value_is_missing() {
    let got = check_files(
        "restores",
        &[
            (
                "config.py",
                "\
import torch

class Config:
    def __init__(self):
        self.compatibility()

    def compatibility(self):
        torch.distributed.all_gather_into_tensor = torch.distributed._functional_collectives.all_gather_tensor
        torch.distributed.pipelining = object
        torch.distributed.is_available = patched(torch.distributed.is_available)
        torch.utils.checkpoint.CheckpointPolicy = patched(torch.utils.checkpoint.CheckpointPolicy)
",
            ),
            (
                "train.py",
                "\
import torch

def step(out, x):
    torch.distributed.all_gather_into_tensor(out, x)
    torch.utils.checkpoint.CheckpointPolicy(x)
    return torch.distributed.pipelining
",
            ),
        ],
        &["torch>=1.13"],
    );
    assert_eq!(
        got,
        [
            "config.py:8:52 AC002 error call-time torch.distributed._functional_collectives.all_gather_tensor missing=1.13.0 - 2.0.1",
            "config.py:11:59 AC002 error call-time torch.utils.checkpoint.CheckpointPolicy missing=1.13.0 - 2.4.1",
            "train.py:4:5 AC002 error call-time torch.distributed.all_gather_into_tensor missing=1.13.0 - 2.0.1",
            "train.py:5:5 AC002 error call-time torch.utils.checkpoint.CheckpointPolicy missing=1.13.0 - 2.4.1",
        ]
    );
}
