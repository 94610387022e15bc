//! Guarded callers: a use in a function is guarded by what every call of the function runs
//! under (fake torch index, releases 1.13.0 - 2.5.0: `pipelining` exists from 2.4.0).

mod common;

use common::{brief, project, run};

const LIB: &str = "\
import torch
from packaging import version


def is_pippy_available():
    return version.parse(torch.__version__) >= version.parse(\"2.4.0\")


def build(model):
    return torch.distributed.pipelining.pipeline(model)


def prepare(model):
    if not is_pippy_available():
        raise ImportError(\"needs torch>=2.4\")
    return build(model)


def inner():
    return torch.distributed.pipelining.pipeline


def outer():
    return inner()


def entry():
    if is_pippy_available():
        outer()


def loose():
    return torch.distributed.pipelining.Schedule1F1B


def call_loose():
    if version.parse(torch.__version__) >= version.parse(\"2.2.0\"):
        loose()


def everywhere():
    return torch.distributed.pipelining.pipeline


def a():
    if is_pippy_available():
        everywhere()


def b():
    everywhere()


def passed():
    return torch.distributed.pipelining.pipeline


def c(register):
    if is_pippy_available():
        passed()
    register(passed)


def in_try():
    return torch.distributed.pipelining.pipeline


def d():
    try:
        in_try()
    except AttributeError:
        pass


def recursive(n):
    if n:
        return recursive(n - 1)
    return torch.distributed.pipelining.pipeline


def e():
    if is_pippy_available():
        recursive(3)


def rec_plain(n):
    if n:
        return rec_plain(n - 1)
    return torch.distributed.pipelining.pipeline


def g():
    rec_plain(2)


def under_other_test(n):
    if hasattr(n, \"dtype\"):
        return torch.distributed.pipelining.pipeline


def h(n):
    try:
        under_other_test(n)
    except AttributeError:
        pass
";

#[test]
fn uses_in_functions_whose_every_call_is_guarded_are_guarded() {
    let dir = project("callers", &[("lib.py", LIB)]);
    let errors = |target: &str| -> Vec<String> {
        brief(&run(&dir, &[target]), &dir)
            .into_iter()
            .filter(|f| f.contains(" error "))
            .collect()
    };
    // Left: `loose` (its caller admits 2.3.0), `everywhere` (one call is not guarded),
    // `passed` (also handed to `register`). `recursive` is guarded: its own call runs only
    // where it already runs, and its one other call is guarded; `rec_plain` is not (its
    // other call is not guarded).
    assert_eq!(
        errors("torch==2.3.0"),
        [
            "lib.py:33:12 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0",
            "lib.py:42:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "lib.py:55:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "lib.py:89:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
    // The loose guard (>= 2.2) still admits 2.3.0, but no longer 2.1.0.
    let got = errors("torch==2.1.0");
    assert!(!got.iter().any(|f| f.starts_with("lib.py:33:")), "{got:#?}");
    assert!(got.iter().any(|f| f.starts_with("lib.py:42:")), "{got:#?}");
}

/// Calls in other files count, and a call at module level under a version condition too.
#[test]
fn calls_from_other_files_and_module_level() {
    let dir = project(
        "callers_files",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/impl.py",
                "\
import torch


def make():
    return torch.distributed.pipelining.pipeline


def other():
    return torch.distributed.pipelining.pipeline
",
            ),
            (
                "pkg/use.py",
                "\
import torch
from pkg.impl import make, other

if torch.__version__ >= \"2.4\":
    PIPE = make()

OTHER = other()
",
            ),
        ],
    );
    let got = brief(&run(&dir, &["torch==2.3.0"]), &dir);
    assert_eq!(
        got,
        ["pkg/impl.py:9:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0"]
    );
    // The guard of `make` is in the file that calls it.
    let report = common::run_with(&dir, &["torch==2.3.0"], |o| o.show_guarded = true);
    let guard = report
        .findings
        .iter()
        .find(|f| f.line == 5)
        .and_then(|f| f.guard.clone())
        .unwrap_or_default();
    assert!(
        guard.starts_with("`if torch.__version__ >= \"2.4\":` (") && guard.ends_with("use.py:4)"),
        "{guard}"
    );
}

/// `--show-guarded` names the guard of each guarded use: its own, or that of the calls of its
/// function; a use its version condition keeps off the releases that lack it is shown too.
#[test]
fn guarded_uses_name_their_guard() {
    let dir = project("callers_show", &[("lib.py", LIB)]);
    let report = common::run_with(&dir, &["torch==2.3.0"], |o| o.show_guarded = true);
    let guard = |line: u32| -> Option<String> {
        report
            .findings
            .iter()
            .find(|f| f.line == line && f.severity.as_str() == "info")
            .and_then(|f| f.guard.clone())
    };
    // `build`: the early exit of its only caller.
    assert_eq!(
        guard(10).as_deref(),
        Some("`if not is_pippy_available():` (line 14)")
    );
    // `inner`, through `outer`: the condition `entry` calls it under.
    assert_eq!(
        guard(20).as_deref(),
        Some("`if is_pippy_available():` (line 28)")
    );
    // `in_try`: the handler of the `try` it is called in.
    assert_eq!(
        guard(65).as_deref(),
        Some("`except AttributeError:` (line 71)")
    );
    // `under_other_test`: the handler its caller runs it in, not the test it sits under,
    // which says nothing of torch (PoinTr, docs/false-alarm-study-39.md, M1).
    assert_eq!(
        guard(98).as_deref(),
        Some("`except AttributeError:` (line 104)")
    );
    // Not guarded: an error, with no guard.
    assert!(report
        .findings
        .iter()
        .any(|f| f.line == 33 && f.severity.as_str() == "error" && f.guard.is_none()));
}

/// `@classmethod`, `@staticmethod` and `@contextlib.contextmanager` only wrap the function:
/// its callers are still the calls of its name (ultralytics' `_SafeLoad.loading`,
/// `docs/false-alarm-study-14.md` F-B). A decorator of the project may register the
/// function elsewhere: no cover then.
#[test]
fn methods_wrapped_by_the_standard_library_keep_their_callers() {
    let dir = project(
        "wrapped_methods",
        &[(
            "m.py",
            "\
import contextlib

import torch


class SafeLoad:
    @classmethod
    def register(cls):
        return torch.distributed.pipelining.pipeline

    @staticmethod
    def build():
        return torch.distributed.pipelining.Schedule1F1B

    @classmethod
    @contextlib.contextmanager
    def loading(cls):
        yield torch.distributed.pipelining.stage

    @registry.add
    def registered(self):
        return torch.distributed.pipelining.microbatch

    @classmethod
    def load(cls):
        if hasattr(torch.distributed, \"pipelining\"):
            cls.register()
            SafeLoad.build()
            SafeLoad().registered()
            with cls.loading():
                pass
",
        )],
    );
    assert_eq!(
        brief(&run(&dir, &["torch==2.3.0"]), &dir),
        ["m.py:22:16 AC002 error call-time torch.distributed.pipelining.microbatch missing=2.3.0"]
    );
}

/// A function called only where a path exists (`hasattr` true at every call) runs only on
/// the releases that have it: a use of another path there is judged on those releases
/// (ultralytics' `_SafeLoad.loading`, entered only where `get_unsafe_globals_in_checkpoint`
/// exists, calls `add_safe_globals` too). What those releases lack is still reported.
#[test]
fn paths_tested_at_every_call_restrict_the_releases_of_other_uses() {
    let dir = project(
        "callers_requires",
        &[(
            "m.py",
            "\
import torch


class Loader:
    @classmethod
    def register(cls):
        torch.distributed._tensor.Partial
        return torch.utils.checkpoint.CheckpointPolicy


def load():
    if hasattr(torch.distributed, \"pipelining\"):
        Loader.register()
",
        )],
    );
    assert_eq!(
        brief(&run(&dir, &["torch>=2.2"]), &dir),
        [
            "m.py:8:16 AC002 error call-time torch.utils.checkpoint.CheckpointPolicy missing=2.4.0 - 2.4.1",
        ]
    );
}

#[test]
fn functions_called_through_a_dict_take_the_dicts_calls() {
    // simpleRL (study 21 F-G): `_PATCH_NAME_TO_FUNC[model_type]()` after a check that raises;
    // a function also in a dict that is read some other way may run from anywhere.
    let src = "\
import torch
from packaging import version


def patch_a():
    return torch.distributed.pipelining.pipeline


def patch_b():
    return torch.distributed.pipelining.stage


TABLE = {\"a\": patch_a, \"b\": patch_b}
LISTED = {\"b\": patch_b}


def apply(kind):
    if version.parse(torch.__version__) < version.parse(\"2.4.0\"):
        raise ImportError(\"needs torch>=2.4\")
    if kind in TABLE:
        return TABLE[kind]()


def names():
    return list(LISTED)
";
    let dir = project("callers_dict", &[("m.py", src)]);
    assert_eq!(
        brief(&run(&dir, &["torch==2.3.0"]), &dir),
        ["m.py:10:12 AC002 error call-time torch.distributed.pipelining.stage missing=2.3.0"]
    );
}
