//! Version helpers the project writes (comparators, wrappers, availability helpers, flags,
//! getters, optional bounds), on the same fake torch index.

use super::check_files;

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
pub(crate) const OP_HELPERS: &[(&str, &str)] = &[
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
pub(crate) fn op_helper_errors(
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

/// A comparator given the package's name and an `operator` function (liger-kernel's
/// `compare_version`, copied into VILA's `llava/model/liger/utils.py`; study 25's F-F).
#[test]
fn a_comparator_given_the_package_name_and_an_operator_function() {
    let helper = "\
import importlib
import operator

from packaging.version import Version

def compare_version(package, operator, target):
    try:
        pkg = importlib.import_module(package)
    except ImportError:
        return False
    pkg_version = Version(pkg.__version__)
    return operator(pkg_version, Version(target))
";
    let user = "\
import operator

import torch

from utils import compare_version

if compare_version(\"torch\", operator.ge, \"2.4.0\"):
    from torch.distributed.pipelining import pipeline
if compare_version(\"torch\", operator.ge, \"2.3.0\"):
    from torch.distributed.pipelining import Schedule1F1B
";
    let got = check_files(
        "helper_operator_function",
        &[("utils.py", helper), ("m.py", user)],
        &["torch==2.3.0"],
    );
    let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
    assert_eq!(errors.len(), 1, "{got:?}");
    assert!(errors[0].starts_with("m.py:10:"), "{got:?}");
}

/// A helper that assigns the installed version to a local name and returns its comparison
/// (VILA's `is_transformers_greater_than`: `v = importlib.metadata.version("transformers")`;
/// `return v > version`; study 25's F-F). The string comparison is read as the version one.
#[test]
fn a_helper_comparing_a_local_name_assigned_the_version() {
    let got = check_files(
        "helper_local_version",
        &[(
            "m.py",
            "\
import importlib.metadata

def torch_newer_than(version):
    installed = importlib.metadata.version(\"torch\")
    return installed > version

if torch_newer_than(\"2.3.9\"):
    from torch.distributed.pipelining import pipeline
if torch_newer_than(\"2.2.0\"):
    from torch.distributed.pipelining import Schedule1F1B
",
        )],
        &["torch==2.3.0"],
    );
    let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
    assert_eq!(errors.len(), 1, "{got:?}");
    assert!(errors[0].starts_with("m.py:10:"), "{got:?}");
}

/// A helper comparing the releases' components (`parse(V).release >= parse(P).release`,
/// xDiT's `has_valid_diffusers_version`, `docs/false-alarm-study-50.md` F-1): the bound given
/// is compared as a release tuple, in this file and from another.
#[test]
fn a_helper_comparing_release_components() {
    let helper = "\
import torch
from packaging.version import Version

def has_min_torch(minimum):
    return Version(torch.__version__).release >= Version(minimum).release
";
    let user = "\
from utils import has_min_torch

if has_min_torch(\"2.4.0\"):
    from torch.distributed.pipelining import pipeline
if has_min_torch(\"2.3.0\"):
    from torch.distributed.pipelining import Schedule1F1B
";
    let local = format!(
        "{helper}\n{}",
        user.replace("from utils import has_min_torch\n", "")
    );
    for (name, files) in [
        (
            "helper_release_other",
            vec![("utils.py", helper), ("m.py", user)],
        ),
        ("helper_release_same", vec![("m.py", local.as_str())]),
    ] {
        let got = check_files(name, &files, &["torch>=2.2"]);
        let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
        assert_eq!(errors.len(), 1, "{name}: {got:?}");
        assert!(
            errors[0].contains("Schedule1F1B missing=2.3.0 - 2.3.1"),
            "{name}: {got:?}"
        );
    }
}

/// xDiT's `has_valid_diffusers_version(model_name)` (`docs/false-alarm-study-50.md`, F-1): the
/// bound is the entry of a module-level dict for the key passed, through local names; called
/// from another module with the key. A key whose entry admits the break, or one the dict
/// lacks, guards nothing.
#[test]
fn a_helper_looking_its_bound_up_in_a_dict_of_versions() {
    let versions = "\
import torch
from packaging.version import Version

DEFAULT = \"2.2.0\"
MINIMUM = {\"pipelining\": \"2.4.0\", \"early\": \"2.3.0\"}


def has_valid_torch_version(model_name=None):
    torch_version = torch.__version__
    minimum = MINIMUM.get(model_name, DEFAULT)
    return Version(torch_version).release >= Version(minimum).release
";
    let user = "\
from versions import has_valid_torch_version

if has_valid_torch_version(\"pipelining\"):
    from torch.distributed.pipelining import pipeline


def load():
    if not has_valid_torch_version(\"pipelining\"):
        raise ImportError(\"needs torch 2.4\")
    from torch.distributed.pipelining import SplitPoint
    return SplitPoint


if has_valid_torch_version(\"early\"):
    from torch.distributed.pipelining import Schedule1F1B
if has_valid_torch_version(\"unknown\"):
    from torch.distributed.pipelining import PipelineStage
";
    let got = check_files(
        "helper_dict_table",
        &[("versions.py", versions), ("m.py", user)],
        &["torch>=2.2"],
    );
    let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
    assert_eq!(errors.len(), 2, "{got:?}");
    assert!(
        errors[0].contains("Schedule1F1B missing=2.3.0 - 2.3.1"),
        "{got:?}"
    );
    assert!(
        errors[1].contains("PipelineStage missing=2.2.0 - 2.3.1"),
        "{got:?}"
    );
}
