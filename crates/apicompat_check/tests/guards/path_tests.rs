//! What a test says about the paths and keywords it names (`hasattr`, `dir`, reads, keyword
//! and field tests, dispatches on names), on the same fake torch index.

use super::check_files;

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
fn keyword_tests_guard_the_keyword_they_test() {
    let got = check_files(
        "keyword_tests",
        &[(
            "m.py",
            "import dataclasses\nimport inspect\nimport torch\n\ndef a(f):\n    if \"weights_only\" in inspect.signature(torch.load).parameters:\n        return torch.load(f, weights_only=True)\n    return torch.load(f)\n\nHAS = \"weights_only\" in inspect.signature(torch.load).parameters\n\ndef b(f):\n    if HAS:\n        return torch.load(f, weights_only=True)\n\ndef c(f):\n    if \"pickle_module\" in inspect.signature(torch.load).parameters:\n        return torch.load(f, weights_only=True)\n\ndef d(f):\n    if \"mmap\" in inspect.signature(torch.load).parameters:\n        return torch.load(f, weights_only=True)\n",
        )],
        &["torch==1.13.1"],
    );
    // The test of another keyword guards nothing; a branch under the test of a keyword the
    // release does not list (`mmap`) does not run there.
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
            "import inspect\nimport torch\n\n\ndef get_func_args(func):\n    \"\"\"Argument names.\"\"\"\n    sig = inspect.signature(func)\n    return [arg.name for arg in sig.parameters.values()]\n\n\ndef names(func):\n    return [\"weights_only\"]\n\n\ndef a(f):\n    if \"weights_only\" in get_func_args(torch.load):\n        return torch.load(f, weights_only=True)\n\n\ndef b(f):\n    if \"pickle_module\" in get_func_args(torch.load):\n        return torch.load(f, weights_only=True)\n\n\ndef c(f):\n    if \"weights_only\" in names(torch.load):\n        return torch.load(f, weights_only=True)\n",
        )],
        &["torch==1.13.1"],
    );
    assert_eq!(
        got,
        [
            "m.py:22:30 AC003 error call-time torch.load(weights_only=) missing=1.13.1",
            "m.py:27:30 AC003 error call-time torch.load(weights_only=) missing=1.13.1",
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

/// A name bound under a test of a path (`if hasattr(m, "n"): from a import x` / `else: from
/// b import x`) carries the test: a use through the `else` binding runs only where `n` is
/// missing, so under the same test it never runs; without it, it is judged there.
#[test]
fn a_name_bound_under_a_path_test_carries_it() {
    let source = |guarded: bool| {
        format!(
            "import torch\n\nif hasattr(torch.distributed, \"pipelining\"):\n    from torch.distributed import pipelining as P\nelse:\n    from torch import utils as P\n\n{}P.pipeline(1)\n",
            if guarded { "if hasattr(torch.distributed, \"pipelining\"):\n    " } else { "" }
        )
    };
    let guarded = check_files(
        "bound-under-test",
        &[("m.py", &source(true))],
        &["torch>=2.2"],
    );
    assert_eq!(guarded, Vec::<String>::new());
    let unguarded = check_files(
        "bound-under-test-not",
        &[("m.py", &source(false))],
        &["torch>=2.2"],
    );
    assert_eq!(
        unguarded,
        ["m.py:8:1 AC002 error import-time torch.utils.pipeline missing=2.2.0 - 2.3.1"]
    );
}

/// A helper whose true result comes only after a `try` of imports whose handler leaves
/// (`except ImportError: return False`) says the imported paths exist; it guards what it
/// tests, also the import of a project module under it (lightly's
/// `torchvision_transforms_v2_available`). A handler that goes on says nothing.
#[test]
fn a_helper_true_only_after_its_imports_guards_what_it_imported() {
    let errors = check_files(
        "helper-after-imports",
        &[
            ("pkg/__init__.py", "from pkg.dep import has_pipelining, loose\n\nif has_pipelining():\n    from pkg.stage import S\n\nif loose():\n    from pkg.other import T\n"),
            ("pkg/dep.py", "import functools\n\n\n@functools.lru_cache(maxsize=1)\ndef has_pipelining():\n    try:\n        from torch.distributed import pipelining\n    except ImportError:\n        return False\n    return True\n\n\ndef loose():\n    try:\n        from torch.distributed import pipelining\n    except ImportError:\n        pass\n    return True\n"),
            ("pkg/stage.py", "from torch.distributed.pipelining import pipeline as S\n"),
            ("pkg/other.py", "from torch.distributed.pipelining import Schedule1F1B as T\n"),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        ["pkg/other.py:1:42 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1"]
    );
}

/// `try: from m import n; FLAG = True` / `except ImportError: FLAG = False`: `if FLAG:` runs
/// where `m.n` exists. A flag the handler sets true as well guards nothing.
#[test]
fn a_flag_set_after_imports_in_a_try_guards_what_they_imported() {
    let errors = check_files(
        "flag-after-imports",
        &[("m.py", "import torch\n\ntry:\n    from torch.distributed import pipelining\n    HAS = True\nexcept ImportError:\n    HAS = False\n\ntry:\n    from torch.distributed import pipelining\n    ANY = True\nexcept ImportError:\n    ANY = True\n\nif HAS:\n    torch.distributed.pipelining.pipeline(1)\n\nif ANY:\n    torch.distributed.pipelining.Schedule1F1B(1)\n")],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        ["m.py:19:5 AC002 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1"]
    );
}

/// `if T: FLAG = True` / `else: FLAG = False` makes `FLAG` the test: a name bound in the `else`
/// is not judged under `if FLAG:` (lightly's `_TRANSFORMS_V2` beside `_tt`); a flag the `else`
/// also sets true says nothing.
#[test]
fn a_flag_set_in_both_branches_of_a_test_is_that_test() {
    let errors = check_files(
        "branch-flags",
        &[("m.py", "import torch\n\nif hasattr(torch.distributed, \"pipelining\"):\n    from torch.distributed import pipelining as P\n    NEW = True\n    ANY = True\nelse:\n    from torch import utils as P\n    NEW = False\n    ANY = True\n\n\ndef run():\n    Q = P\n    if NEW:\n        Q.pipeline(1)\n    if ANY:\n        Q.Schedule1F1B(1)\n")],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        ["m.py:18:9 AC002 error call-time torch.utils.Schedule1F1B missing=2.2.0 - 2.3.1"]
    );
}

/// `@pytest.mark.skipif(not hasattr(...))` on a test class applies to each of its methods.
#[test]
fn a_test_marker_on_a_class_guards_its_methods() {
    let errors = check_files(
        "class-marker",
        &[("test_m.py", "import pytest\nimport torch\n\n\n@pytest.mark.skipif(not hasattr(torch.distributed, \"pipelining\"), reason=\"new\")\nclass TestNew:\n    def test_it(self):\n        torch.distributed.pipelining.pipeline(1)\n\n\nclass TestOld:\n    def test_it(self):\n        torch.distributed.pipelining.Schedule1F1B(1)\n")],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        ["test_m.py:13:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1"]
    );
}

/// A constructor that checks `if not T: raise ...` (or `assert T`) before anything may return
/// leaves no instance where `T` fails: the instance methods run only where it holds; a static
/// method, or a class whose constructor may return before its check, is not covered.
#[test]
fn a_constructor_that_raises_unless_a_test_holds_guards_the_methods() {
    let errors = check_files(
        "ctor-raises",
        &[("m.py", "import torch\n\nOK = hasattr(torch.distributed, \"pipelining\")\n\n\nclass Runner:\n    def __init__(self):\n        \"\"\"Runs.\"\"\"\n        if not OK:\n            raise RuntimeError(\"needs pipelining\")\n        self.n = 1\n\n    def run(self):\n        return torch.distributed.pipelining.pipeline(1)\n\n    @staticmethod\n    def make():\n        return torch.distributed.pipelining.Schedule1F1B(1)\n\n\nclass Late:\n    def __init__(self, fast=False):\n        if fast:\n            return\n        if not OK:\n            raise RuntimeError(\"needs pipelining\")\n\n    def run(self):\n        return torch.distributed.pipelining.PipelineStage(1)\n")],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        [
            "m.py:18:16 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
            "m.py:29:16 AC002 error call-time torch.distributed.pipelining.PipelineStage missing=2.2.0 - 2.3.1",
        ]
    );
}

/// `self.fused = HAS` stored once, with `HAS` a module flag bound to a test, is that test in
/// the class's methods (lightly's `MaskedCausalAttention`).
#[test]
fn an_instance_attribute_set_from_a_flag_is_its_test() {
    let errors = check_files(
        "instance-flag",
        &[("m.py", "import torch\n\nHAS = hasattr(torch.distributed, \"pipelining\")\n\n\nclass Runner:\n    def __init__(self):\n        self.new = HAS\n        self.other = True\n\n    def run(self):\n        if self.new:\n            torch.distributed.pipelining.pipeline(1)\n        if self.other:\n            torch.distributed.pipelining.Schedule1F1B(1)\n")],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        ["m.py:15:13 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1"]
    );
}

/// `DEVICE = get_best_device()` in another module, then `if DEVICE == "npu":`: where the
/// helper returns that constant only after `hasattr(torch.distributed, "pipelining")` held, the
/// branch runs only there; a constant also returned elsewhere says nothing.
#[test]
fn a_constant_a_helper_returns_under_a_test_guards_its_comparison() {
    let errors = check_files(
        "device-helper",
        &[
            ("pkg/__init__.py", ""),
            ("pkg/utils.py", "import torch\n\n\ndef best():\n    if hasattr(torch, \"no_such_device\"):\n        return \"cuda\"\n    elif hasattr(torch.distributed, \"pipelining\"):\n        return \"npu\"\n    return \"cpu\"\n\n\ndef loose():\n    if hasattr(torch.distributed, \"pipelining\"):\n        return \"npu\"\n    for _ in range(2):\n        return \"npu\"\n    return \"cpu\"\n"),
            ("main.py", "import torch\n\nfrom pkg.utils import best, loose\n\nDEVICE = best()\nOTHER = loose()\n\n\ndef run():\n    if DEVICE == \"npu\":\n        torch.distributed.pipelining.pipeline(1)\n    if OTHER == \"npu\":\n        torch.distributed.pipelining.Schedule1F1B(1)\n"),
        ],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        ["main.py:13:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1"]
    );
}

/// A name bound in the arms of an opaque test (`if use_linear:` on a parameter) is each of
/// its bindings: a use under the same test again (or after the arm that leaves) is judged as
/// the agreeing arm's binding only (study 22's `SGD(betas=)`); elsewhere as each binding,
/// so the arm the last binding hid is judged too; a store of what the test reads ends it. A
/// flag set in the arms is their test (lightly's `_TRANSFORMS_V2` beside `_tt`).
#[test]
fn a_name_bound_in_the_arms_of_a_test_is_each_binding() {
    let errors = check_files(
        "arms-of-a-test",
        &[(
            "m.py",
            "\
import torch


def build(use_linear, n):
    if use_linear:
        Make = torch.nn.Linear
    else:
        Make = torch.load
    if use_linear:
        return Make(n, n, bias=False)
    return Make(n, map_location=\"cpu\")


def chain(kind, n):
    if kind == \"linear\":
        Make = torch.nn.Linear
    elif kind == \"load\":
        Make = torch.load
    else:
        Make = None
    if kind == \"linear\":
        Make(n, n, bias=False)
    if kind == \"load\":
        Make(n, map_location=\"cpu\")


def swapped(use_linear, n):
    if not use_linear:
        Make = torch.load
    else:
        Make = torch.nn.Linear
    return Make(n, n, bias=False)


def rebound(use_linear, n):
    if use_linear:
        Make = torch.nn.Linear
    else:
        Make = torch.load
    use_linear = not use_linear
    if use_linear:
        return Make(n, n, bias=False)


def flag(n):
    if config.ready():
        Make = torch.nn.Linear
        READY = True
    else:
        Make = torch.load
        READY = False
    if READY:
        Make(n, n, bias=False)
",
        )],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        [
            "m.py:32:23 AC003 error call-time torch.load(bias=) missing=2.2.0 - 2.5.0",
            "m.py:42:27 AC003 error call-time torch.load(bias=) missing=2.2.0 - 2.5.0",
        ]
    );
}

/// `if T: MODE = "new"` / `else: MODE = "old"`: `MODE == "new"` is `T` and `MODE != "new"`
/// its negation (efficientvit's `ATTENTION_MODE == "flash"`, study 24 F-E); a store of `MODE`
/// ends it, and a comparison with another string says nothing.
#[test]
fn a_string_set_in_both_branches_of_a_test_compares_as_that_test() {
    let errors = check_files(
        "string-flags",
        &[(
            "m.py",
            "\
import torch

if hasattr(torch.distributed, \"pipelining\"):
    MODE = \"pipe\"
else:
    MODE = \"plain\"


def a():
    if MODE == \"pipe\":
        torch.distributed.pipelining.pipeline(1)
    if MODE != \"plain\":
        torch.distributed.pipelining.pipeline(2)
    if MODE == \"plain\":
        return None
    torch.distributed.pipelining.pipeline(3)


def b():
    if MODE == \"other\":
        torch.distributed.pipelining.pipeline(4)


def c():
    MODE = \"pipe\"
    if MODE == \"pipe\":
        torch.distributed.pipelining.pipeline(5)
",
        )],
        &["torch>=2.2"],
    );
    assert_eq!(
        errors,
        [
            "m.py:21:9 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "m.py:27:9 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
        ]
    );
}

/// `A or B`: `B` runs only where `A` is false; `getattr(m, "n", None)` is false where `m.n`
/// is missing (FastVideo's `getattr(np, "trapezoid", None) or np.trapz`, study 25's F-I).
#[test]
fn the_right_side_of_or_runs_where_the_left_is_false() {
    let got = check_files(
        "or_fallback",
        &[(
            "m.py",
            "\
import torch

def old_partial():
    return getattr(torch.distributed, \"pipelining\", None) or torch.distributed._tensor.placement_types._Partial

def also_old():
    return hasattr(torch.distributed, \"pipelining\") or torch.distributed._tensor.placement_types._Partial

def unguarded():
    return getattr(torch.distributed, \"other\", None) or torch.distributed._tensor.placement_types._Partial
",
        )],
        &["torch==2.3.0", "torch==2.4.0"],
    );
    let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
    assert_eq!(errors.len(), 1, "{got:?}");
    assert!(errors[0].starts_with("m.py:10:"), "{got:?}");
}
