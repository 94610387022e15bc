//! Early-exit guards and version-helper functions, on the fake torch index (releases 1.13.0 -
//! 2.5.0): `pipelining` exists from 2.4.0, `CheckpointPolicy` from 2.5.0,
//! `all_gather_into_tensor` from 2.2.0.

mod asserting;
#[path = "../common/mod.rs"]
mod common;
mod never_called;
mod path_tests;
mod plugins;
mod pytest_gates;
mod version_helpers;

use common::{brief, project, run};
use version_helpers::{op_helper_errors, OP_HELPERS};

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
    // `V.major`, `(V.major, V.minor)`, `V.release` compare the leading components (of a
    // constant too, `Version("2.4.0").release`); after `if
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

def e():
    if V.release >= Version(\"2.4.0\").release:
        return torch.distributed.pipelining.pipeline

def f():
    if V.release >= Version(\"2.3.0\").release:
        return torch.distributed.pipelining.pipeline
",
        )],
        &["torch>=1.13"],
    );
    // `V.minor < 4` is evaluated on each release (`version_terms.rs`): true on 2.0 - 2.3,
    // false on 1.13 (minor 13) and 2.4 - 2.5, so `d` reaches the path on 1.13 only.
    // `V.release >= Version("2.4.0").release` compares the components of both (optimum-quanto,
    // study 24 F-D).
    assert_eq!(
        got,
        [
            "m.py:26:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=1.13.0 - 1.13.1",
            "m.py:34:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
        ]
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

/// A function the project replaces (`torch.load = my_load`): its calls, in that file and in
/// those that import it, bind against the replacement, so their arguments are not judged
/// (SimpleTuner's `dispatch_torchao`, study 26's F-M); other calls are, and so are calls in
/// files that do not import the patch (a test's `monkeypatch.setattr` replaces nothing for
/// the modules it does not import).
#[test]
fn calls_of_a_function_the_project_replaces_are_not_bound_against_the_package() {
    let train = "\
import torch
import patches

def restore(f):
    return torch.load(f, weights_only=True)

def layer():
    return torch.nn.Linear(1, 2, device=None)
";
    let other = "import torch\n\n\ndef restore(f):\n    return torch.load(f, weights_only=True)\n";
    let patched = check_files(
        "replaced_callee",
        &[
            (
                "patches.py",
                "import torch\n\n\ndef my_load(f, **kwargs):\n    return f\n\n\ntorch.load = my_load\n",
            ),
            ("train.py", train),
            ("other.py", other),
        ],
        &["torch==1.13.0"],
    );
    assert_eq!(
        patched,
        [
            "other.py:5:26 AC003 error call-time torch.load(weights_only=) missing=1.13.0",
            "train.py:8:34 AC003 error call-time torch.nn.Linear(device=) missing=1.13.0",
        ]
    );
    let plain = check_files(
        "replaced_callee_control",
        &[("train.py", train)],
        &["torch==1.13.0"],
    );
    assert_eq!(
        plain,
        [
            "train.py:5:26 AC003 error call-time torch.load(weights_only=) missing=1.13.0",
            "train.py:8:34 AC003 error call-time torch.nn.Linear(device=) missing=1.13.0",
        ]
    );
}

/// A plugin class of a framework (Lightning's `Accelerator`; nequip's `XPUAccelerator`, study
/// 26's F-L): the framework asks the class's `is_available()` before it uses an instance, so
/// the instance methods run only where the test it returns holds. Only for a class deriving
/// from a class of an indexed package.
#[test]
fn an_availability_test_of_a_plugin_class_guards_its_methods() {
    let class = |base: &str| {
        format!(
            "\
import torch

class Plugin({base}):
    def setup(self):
        return torch.distributed.pipelining.pipeline

    @staticmethod
    def is_available():
        return hasattr(torch.distributed, \"pipelining\")
"
        )
    };
    let plugin = check_files(
        "availability_plugin",
        &[("plugin.py", &class("torch.nn.Linear"))],
        &["torch>=2.2"],
    );
    assert_eq!(plugin, Vec::<String>::new());
    let plain = check_files(
        "availability_plain",
        &[("plugin.py", &class("object"))],
        &["torch>=2.2"],
    );
    assert_eq!(
        plain,
        ["plugin.py:5:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1"]
    );
}
