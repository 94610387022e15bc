//! Uses behind an earlier failure of their module (`src/behind.rs`): on the fake torch index
//! (releases 1.13.0 - 2.5.0; `pipelining` exists from 2.4.0), with `torch>=2.2`, importing
//! `pkg/a.py` fails at its line 2 on 2.2.0 - 2.3.1; its functions, and what imports it at
//! import time, never run on those releases (its other imports stay errors).

mod common;

use common::{brief, project, run_with};

#[test]
fn uses_after_an_import_time_failure_are_behind_it() {
    let dir = project(
        "behind",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/a.py",
                "\
import torch
from torch.distributed.pipelining import pipeline
from torch.distributed.pipelining import Schedule1F1B

def f():
    return torch.distributed.pipelining.stage
",
            ),
            (
                "pkg/b.py",
                "\
import torch
from pkg import a

def g():
    return torch.distributed.pipelining.pipeline
",
            ),
            (
                "pkg/c.py",
                "\
import torch
try:
    from pkg import a
except ImportError:
    a = None

def h():
    return torch.distributed.pipelining.pipeline
",
            ),
            (
                "pkg/d.py",
                "\
import torch

def k():
    return torch.distributed.pipelining.pipeline

from pkg import b
",
            ),
        ],
    );
    let shown = run_with(&dir, &["torch>=2.2"], |o| o.show_guarded = true);
    assert_eq!(
        brief(&shown, &dir),
        [
            "pkg/a.py:2:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "pkg/a.py:3:42 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
            "pkg/a.py:6:12 AC002 info behind torch.distributed.pipelining.stage missing=2.2.0 - 2.3.1",
            "pkg/b.py:5:12 AC002 info behind torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "pkg/c.py:8:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "pkg/d.py:4:12 AC002 info behind torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
        ]
    );
    let b = &shown.findings[3];
    assert_eq!(
        b.guard.as_deref(),
        Some("`torch.distributed.pipelining.pipeline` (pkg/a.py:2), which fails first")
    );
    // Without `--show-guarded`: the failing module's imports and the guarded import's use.
    let plain = run_with(&dir, &["torch>=2.2"], |_| {});
    assert_eq!(plain.summary.errors, 3, "{:?}", brief(&plain, &dir));
    assert_eq!(plain.summary.behind, 3);
}

/// Two modules that import each other, each failing after that import: which fails first
/// depends on which is imported first, so neither hides the other.
#[test]
fn failures_in_an_import_cycle_do_not_hide_each_other() {
    let dir = project(
        "behind_cycle",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/a.py",
                "import torch\nfrom pkg import b\nfrom torch.distributed.pipelining import pipeline\n",
            ),
            (
                "pkg/b.py",
                "import torch\nfrom pkg import a\nfrom torch.distributed.pipelining import Schedule1F1B\n",
            ),
        ],
    );
    let shown = run_with(&dir, &["torch>=2.2"], |o| o.show_guarded = true);
    assert_eq!(
        brief(&shown, &dir),
        [
            "pkg/a.py:3:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "pkg/b.py:3:42 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
        ]
    );
}

/// A package whose `__init__.py` fails to import on a release: the functions of its modules are
/// never called there, even when the package imports them first (AReaL's `areal/__init__.py`
/// fails through `fsdp_utils/__init__.py:11`, study 25's DZ1); so are the import-time uses of
/// a module the package does not import, while those of one it imports stay errors (here
/// `pkg/__init__.py` imports `pkg.c` first, whose failure is the first).
#[test]
fn call_time_uses_under_a_failing_package_are_behind_it() {
    let dir = project(
        "behind_parent",
        &[
            (
                "pkg/__init__.py",
                "from pkg import c\nfrom torch.distributed.pipelining import pipeline\n",
            ),
            (
                "pkg/sub/c_helper.py",
                "import torch\n\n\ndef g():\n    return torch.distributed.pipelining.stage\n",
            ),
            ("pkg/sub/__init__.py", ""),
            // Not imported by the package: nothing of it runs before the package fails.
            (
                "pkg/other.py",
                "from torch.distributed.pipelining import PipelineStage\n",
            ),
            // A script may run by its path, without the package.
            (
                "pkg/tool.py",
                "from torch.distributed.pipelining import PipelineStage\n\nif __name__ == \"__main__\":\n    print(PipelineStage)\n",
            ),
            (
                "pkg/c.py",
                "import torch\nfrom torch.distributed.pipelining import Schedule1F1B\n\n\ndef f():\n    return torch.distributed.pipelining.PipelineStage\n",
            ),
        ],
    );
    let shown = run_with(&dir, &["torch>=2.2"], |o| o.show_guarded = true);
    assert_eq!(
        brief(&shown, &dir),
        [
            "pkg/__init__.py:2:42 AC001 info behind torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "pkg/c.py:2:42 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
            "pkg/c.py:6:12 AC002 info behind torch.distributed.pipelining.PipelineStage missing=2.2.0 - 2.3.1",
            "pkg/other.py:1:42 AC001 info behind torch.distributed.pipelining.PipelineStage missing=2.2.0 - 2.3.1",
            "pkg/sub/c_helper.py:5:12 AC002 info behind torch.distributed.pipelining.stage missing=2.2.0 - 2.3.1",
            "pkg/tool.py:1:42 AC001 error import-time torch.distributed.pipelining.PipelineStage missing=2.2.0 - 2.3.1",
        ]
    );
}

/// An import under an `if` (verl's `if is_npu_available: from .models.transformers import
/// npu_patch`) may not run: its module's failure puts nothing behind it.
#[test]
fn an_import_under_an_if_puts_nothing_behind_it() {
    let dir = project(
        "behind_parent_if",
        &[
            (
                "pkg/__init__.py",
                "import os\n\nif os.environ.get(\"NPU\"):\n    from pkg import c\n",
            ),
            (
                "pkg/c.py",
                "from torch.distributed.pipelining import Schedule1F1B\n",
            ),
            (
                "pkg/d.py",
                "import torch\n\n\ndef g():\n    return torch.distributed.pipelining.stage\n",
            ),
        ],
    );
    let shown = run_with(&dir, &["torch>=2.2"], |o| o.show_guarded = true);
    assert_eq!(
        brief(&shown, &dir),
        [
            "pkg/c.py:1:42 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
            "pkg/d.py:5:12 AC002 error call-time torch.distributed.pipelining.stage missing=2.2.0 - 2.3.1",
        ]
    );
}

/// A statement of a function's body that fails on a release hides what comes after it in the
/// function on those releases (study 20: dlrm's caffe2 script, six calls after one that fails);
/// a failure that may be skipped (in an `if`, a conditional expression) hides nothing.
#[test]
fn uses_after_a_failing_statement_of_the_function_are_behind_it() {
    let dir = project(
        "behind_function",
        &[(
            "m.py",
            "\
import torch


def f(cond):
    torch.distributed.pipelining.pipeline(1)
    torch.distributed.pipelining.Schedule1F1B(1)
    if cond:
        x = torch.distributed.pipelining.stage
    return torch.distributed.pipelining.PipelineStage


def g(cond):
    if cond:
        torch.distributed.pipelining.pipeline(1)
    torch.distributed.pipelining.Schedule1F1B(1)
    x = torch.distributed.pipelining.stage if cond else None
    torch.distributed.pipelining.PipelineStage(1)


def h():
    torch.distributed.pipelining.pipeline(1)


def k():
    torch.distributed.pipelining.Schedule1F1B(1)
",
        )],
    );
    let shown = run_with(&dir, &["torch>=2.2"], |o| o.show_guarded = true);
    assert_eq!(
        brief(&shown, &dir),
        [
            "m.py:5:5 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "m.py:6:5 AC002 info behind torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
            "m.py:8:13 AC002 info behind torch.distributed.pipelining.stage missing=2.2.0 - 2.3.1",
            "m.py:9:12 AC002 info behind torch.distributed.pipelining.PipelineStage missing=2.2.0 - 2.3.1",
            "m.py:14:9 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "m.py:15:5 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
            "m.py:16:9 AC002 info behind torch.distributed.pipelining.stage missing=2.2.0 - 2.3.1",
            "m.py:17:5 AC002 info behind torch.distributed.pipelining.PipelineStage missing=2.2.0 - 2.3.1",
            "m.py:21:5 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "m.py:25:5 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
        ]
    );
    assert_eq!(
        shown.findings[1].guard.as_deref(),
        Some("`torch.distributed.pipelining.pipeline` (m.py:5), which fails first")
    );
}

/// A failure in a nested block hides the rest of that block only; a later argument of the
/// same call is behind an earlier one, and so is a later part of an assignment's value, but
/// not its target (which runs after the value); a comprehension may run nothing; a statement
/// over several lines joined by brackets is a failure in front.
#[test]
fn uses_behind_a_failure_in_the_same_block_or_statement() {
    let dir = project(
        "behind_block",
        &[(
            "m.py",
            "\
import torch

P = torch.distributed


def nested(cond):
    if cond:
        P.pipelining.pipeline(1)
        P.pipelining.stage(1)
    P.pipelining.PipelineStage(1)


def arguments():
    P.pipelining.Schedule1F1B(P.pipelining.PipelineStage, P.pipelining.stage)


def target(d):
    d[P.pipelining.pipeline] = P.pipelining.stage(P.pipelining.PipelineStage)


def comprehension(xs):
    y = [P.pipelining.pipeline(x) for x in xs]
    P.pipelining.stage(y)


def lines(d):
    d.update(
        P.pipelining.pipeline(1),
    )
    P.pipelining.stage(2)
",
        )],
    );
    let shown = run_with(&dir, &["torch>=2.2"], |o| o.show_guarded = true);
    let m = "missing=2.2.0 - 2.3.1";
    let p = "torch.distributed.pipelining";
    assert_eq!(
        brief(&shown, &dir),
        [
            format!("m.py:8:9 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:9:9 AC002 info behind {p}.stage {m}"),
            format!("m.py:10:5 AC002 error call-time {p}.PipelineStage {m}"),
            format!("m.py:14:5 AC002 error call-time {p}.Schedule1F1B {m}"),
            format!("m.py:14:31 AC002 info behind {p}.PipelineStage {m}"),
            format!("m.py:14:59 AC002 info behind {p}.stage {m}"),
            format!("m.py:18:7 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:18:32 AC002 error call-time {p}.stage {m}"),
            format!("m.py:18:51 AC002 info behind {p}.PipelineStage {m}"),
            format!("m.py:22:10 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:23:5 AC002 error call-time {p}.stage {m}"),
            format!("m.py:28:9 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:30:5 AC002 info behind {p}.stage {m}"),
        ]
    );
}

/// A call that does not take a keyword fails once its arguments have run: each keyword it
/// does not take is reported, none behind an argument that fails first, and no argument is
/// behind the call; a later statement is.
#[test]
fn keywords_of_one_call_are_all_reported() {
    let dir = project(
        "behind_keywords",
        &[(
            "m.py",
            "\
import torch


def build():
    torch.nn.Linear(3, 3, device=torch.distributed.pipelining, dtype=None)
    torch.nn.Linear(3, 3, device=None)
",
        )],
    );
    let shown = run_with(&dir, &["torch>=1.13"], |o| o.show_guarded = true);
    assert_eq!(
        brief(&shown, &dir),
        [
            "m.py:5:27 AC003 error call-time torch.nn.Linear(device=) missing=1.13.0 - 1.13.1",
            "m.py:5:34 AC002 error call-time torch.distributed.pipelining missing=1.13.0 - 2.3.1",
            "m.py:5:64 AC003 error call-time torch.nn.Linear(dtype=) missing=1.13.0 - 1.13.1",
            "m.py:6:27 AC003 info behind torch.nn.Linear(device=) missing=1.13.0 - 1.13.1",
        ]
    );
}

/// A function the module calls at its top level runs while the module is imported
/// (SimpleTuner's `diffusers_overrides.py:612` calling the patch at `:129`, study 26's R1):
/// its uses are import-time, a failure among them fails the import at the line of the call,
/// and what imports the module is behind it (its other functions too). A use under an `if`
/// in that function is import-time but fails nothing at import; a function called only under
/// an `if` is not run at import.
#[test]
fn a_function_called_at_import_fails_the_import() {
    let dir = project(
        "behind_import_call",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/patches.py",
                "\
import os
import torch

def patch():
    torch.distributed.pipelining.pipeline.hook = None
    if os.environ.get(\"X\"):
        torch.distributed.pipelining.stage.hook = None

def maybe():
    torch.distributed.pipelining.Schedule1F1B.hook = None

def later():
    return torch.distributed.pipelining.SplitPoint

patch()
if os.environ.get(\"X\"):
    maybe()
",
            ),
            (
                "pkg/user.py",
                "import torch\nfrom pkg import patches\n\ndef g():\n    return torch.distributed.pipelining.pipeline\n",
            ),
        ],
    );
    let shown = run_with(&dir, &["torch>=2.2"], |o| o.show_guarded = true);
    assert_eq!(
        brief(&shown, &dir),
        [
            "pkg/patches.py:5:5 AC002 error import-time torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
            "pkg/patches.py:7:9 AC002 error import-time torch.distributed.pipelining.stage missing=2.2.0 - 2.3.1",
            "pkg/patches.py:10:5 AC002 info behind torch.distributed.pipelining.Schedule1F1B missing=2.2.0 - 2.3.1",
            "pkg/patches.py:13:12 AC002 info behind torch.distributed.pipelining.SplitPoint missing=2.2.0 - 2.3.1",
            "pkg/user.py:5:12 AC002 info behind torch.distributed.pipelining.pipeline missing=2.2.0 - 2.3.1",
        ]
    );
    assert_eq!(
        shown.findings[4].guard.as_deref(),
        Some("`torch.distributed.pipelining.pipeline` (pkg/patches.py:5), which fails first")
    );
}

/// In a statement that may run only in part (an `if` header with `and`), a failing use is in
/// front of what follows it in that statement with nothing between that may skip a part
/// (granite-tsfm's `isinstance(v, (np.dtypes.A, np.dtypes.B, ...))`, study 45's DZ5 rows), and
/// of nothing after the statement. A conditional expression between them, or around the first
/// only (`(a if c else F), G`), or a `lambda` around the first, keeps the second an error.
#[test]
fn a_failure_in_part_of_a_statement_is_in_front_of_what_follows_it_there() {
    let dir = project(
        "behind_in_part",
        &[(
            "m.py",
            "\
import torch

P = torch.distributed


def header(x, y):
    if x and not isinstance(
        y,
        (
            P.pipelining.pipeline,
            P.pipelining.stage,
        ),
    ):
        return 1
    P.pipelining.PipelineStage(x)


def conditional(x, y):
    return P.pipelining.pipeline(x) if y else P.pipelining.stage


def deferred(f):
    f(lambda: P.pipelining.pipeline, P.pipelining.stage)


def grouped(c):
    return (1 if c else P.pipelining.pipeline), P.pipelining.stage


def listed(c):
    return [P.pipelining.pipeline, P.pipelining.stage]
",
        )],
    );
    let shown = run_with(&dir, &["torch>=2.2"], |o| o.show_guarded = true);
    let m = "missing=2.2.0 - 2.3.1";
    let p = "torch.distributed.pipelining";
    assert_eq!(
        brief(&shown, &dir),
        [
            format!("m.py:10:13 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:11:13 AC002 info behind {p}.stage {m}"),
            format!("m.py:15:5 AC002 error call-time {p}.PipelineStage {m}"),
            format!("m.py:19:12 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:19:47 AC002 error call-time {p}.stage {m}"),
            format!("m.py:23:15 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:23:38 AC002 error call-time {p}.stage {m}"),
            format!("m.py:27:25 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:27:49 AC002 error call-time {p}.stage {m}"),
            format!("m.py:31:13 AC002 error call-time {p}.pipeline {m}"),
            format!("m.py:31:36 AC002 info behind {p}.stage {m}"),
        ]
    );
}
