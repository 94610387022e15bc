//! Object states that a constructor ties to releases (`collect/state.rs`): after `if
//! self.version == 2: if not <torch >= 2.4>: raise`, a test `x.version == 2` (or a property
//! returning it) guards what needs torch 2.4 (fake torch index, releases 1.13.0 - 2.5.0:
//! `pipelining` exists from 2.4.0).

mod common;

use common::{brief, project, run};

const PLUGIN: &str = "\
import torch
from packaging import version


def is_torch_at_least(v):
    return version.parse(torch.__version__) >= version.parse(v)


class Plugin:
    def __init__(self, mode, loose):
        self.mode = mode
        self.loose = loose
        if self.mode == 2:
            if not is_torch_at_least(\"2.4.0\"):
                raise ImportError(\"mode 2 needs torch >= 2.4\")
        if self.loose == \"new\" and not is_torch_at_least(\"2.2.0\"):
            raise ImportError(\"needs torch >= 2.2\")

    def build(self):
        if self.mode == 2:
            return torch.distributed.pipelining.pipeline
        return None


class State:
    def __init__(self, plugin):
        self.plugin = plugin

    @property
    def is_mode2(self):
        return self.plugin is not None and self.plugin.mode == 2


class Front:
    def __init__(self, plugin):
        self.state = State(plugin)

    @property
    def is_mode2(self):
        return self.state.is_mode2
";

const USE: &str = "\
import torch


def guarded(plugin):
    if plugin.mode == 2:
        return torch.distributed.pipelining.pipeline


def through_property(front):
    if front.is_mode2:
        return torch.distributed.pipelining.pipeline


def other_state(plugin):
    if plugin.mode == 1:
        return torch.distributed.pipelining.pipeline


def negated(front):
    if not front.is_mode2:
        return torch.distributed.pipelining.pipeline


def loose(plugin):
    if plugin.loose == \"new\":
        return torch.distributed.pipelining.pipeline
";

fn errors(dir: &std::path::Path, target: &str) -> Vec<String> {
    brief(&run(dir, &[target]), dir)
        .into_iter()
        .filter(|f| f.contains(" error "))
        .collect()
}

#[test]
fn states_a_constructor_ties_to_releases_guard_their_tests() {
    let dir = project("state_guards", &[("plugin.py", PLUGIN), ("use.py", USE)]);
    // Guarded: `self.mode == 2` in the class, `plugin.mode == 2` elsewhere, the property
    // through a delegating property. Left: another state, the negated property (nothing is
    // assumed where it is false) and a state tied to 2.2 in front of a 2.4 API.
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        [
            "use.py:16:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "use.py:21:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "use.py:26:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
    // The loose state excludes what is below 2.2 only.
    let got = errors(&dir, "torch==2.1.0");
    assert!(!got.iter().any(|f| f.starts_with("use.py:26:")), "{got:#?}");
    assert!(got.iter().any(|f| f.starts_with("use.py:16:")), "{got:#?}");
}

/// Two classes that tie the same state to different releases: neither fact counts.
#[test]
fn conflicting_states_guard_nothing() {
    let other = "\
import torch


class Other:
    def __init__(self, mode):
        self.mode = mode
        if self.mode == 2 and torch.__version__ < \"2.0\":
            raise ImportError(\"needs torch 2.0\")
";
    let dir = project(
        "state_guards_conflict",
        &[("plugin.py", PLUGIN), ("other.py", other), ("use.py", USE)],
    );
    let got = errors(&dir, "torch==2.3.0");
    assert!(got.iter().any(|f| f.starts_with("use.py:6:")), "{got:#?}");
    assert!(
        got.iter().any(|f| f.starts_with("plugin.py:21:")),
        "{got:#?}"
    );
}

#[test]
fn attributes_set_to_a_version_condition_guard_their_tests() {
    // `self.new_torch` holds `torch >= 2.4` (or `False`); `self.spoiled` is also set to a
    // value that may be true on any release.
    let src = "\
import torch
from packaging import version


class Runner:
    def __init__(self, force):
        self.new_torch = version.parse(torch.__version__) >= version.parse(\"2.4.0\")
        if force is None:
            self.new_torch = False
        self.spoiled = version.parse(torch.__version__) >= version.parse(\"2.4.0\")

    def enable(self, value):
        self.spoiled = value

    def run(self):
        if self.new_torch:
            return torch.distributed.pipelining.pipeline
        if self.spoiled:
            return torch.distributed.pipelining.PipelineStage
";
    let dir = project("self_flags", &[("runner.py", src)]);
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        ["runner.py:19:20 AC002 error call-time torch.distributed.pipelining.PipelineStage missing=2.3.0"]
    );
}

/// A class attribute bound to a test (`SUPPORTED = hasattr(...)` in the class body, ultralytics'
/// `_SafeLoad`, `docs/false-alarm-study-14.md` F-B): `C.SUPPORTED` is that test.
#[test]
fn a_class_attribute_bound_to_a_test() {
    let dir = project(
        "class_attribute_test",
        &[(
            "m.py",
            "\
import torch


class SafeLoad:
    SUPPORTED = hasattr(torch.distributed, \"pipelining\")
    NEW = torch.__version__ >= \"2.5\"
    NAME = \"x\"


def load():
    if SafeLoad.SUPPORTED:
        torch.distributed.pipelining.pipeline
    if SafeLoad.NEW:
        torch.distributed.pipelining.Schedule1F1B
    if SafeLoad.NAME:
        torch.distributed.pipelining.stage
",
        )],
    );
    assert_eq!(
        brief(&run(&dir, &["torch==2.3.0"]), &dir),
        ["m.py:16:9 AC002 error call-time torch.distributed.pipelining.stage missing=2.3.0"]
    );
}

/// A local flag cleared under a negated test (`if x and not T: x = False`, ultralytics'
/// `torch_safe_load`, `docs/false-alarm-study-14.md` F-B, third part): where `x` is true later,
/// `T` held. Also `if not T: x = None`, `if not T and x:`, a version flag, the rest of a block
/// after `if not x: return`, and a closure reading `x` defined after. Not when `x` is stored
/// again (before the test, in a loop, by a closure), set to a true value, cleared only in one
/// branch, under a test with another conjunct, or read false.
#[test]
fn a_local_flag_cleared_under_a_negated_test() {
    let src = "\
import torch

SUPPORTED = hasattr(torch.distributed, \"pipelining\")
NEW = torch.__version__ >= \"2.4\"


class SafeLoad:
    SUPPORTED = hasattr(torch.distributed, \"pipelining\")


def ok_and(x=False):
    if x and not SUPPORTED:
        x = False
    if x:
        return torch.distributed.pipelining.pipeline


def ok_alone(x=False):
    if not SafeLoad.SUPPORTED:
        x = None
    if x:
        return torch.distributed.pipelining.Schedule1F1B


def ok_version(x=False):
    if not NEW and x:
        x = False
    if not x:
        return None
    return torch.distributed.pipelining.stage


def ok_closure(x=None):
    if x is None:
        x = True
    if x and not SUPPORTED:
        x = False

    def load():
        if x:
            return torch.distributed.pipelining.PipelineStage

    return load()


def stored_again(x=False, y=True):
    if x and not SUPPORTED:
        x = False
    x = y
    if x:
        return torch.distributed.pipelining.pipeline


def stored_in_loop(xs, x=False):
    if x and not SUPPORTED:
        x = False
    for a in xs:
        if x:
            return torch.distributed.pipelining.pipeline
        x = a


def stored_by_closure(x=False):
    if x and not SUPPORTED:
        x = False

    def load():
        if x:
            return torch.distributed.pipelining.pipeline

    x = True
    return load()


def set_true(x=False):
    if x and not SUPPORTED:
        x = True
    if x:
        return torch.distributed.pipelining.pipeline


def in_a_branch(c, x=False):
    if c:
        if x and not SUPPORTED:
            x = False
    if x:
        return torch.distributed.pipelining.pipeline


def another_conjunct(x=False, y=False):
    if x and y and not SUPPORTED:
        x = False
    if x:
        return torch.distributed.pipelining.pipeline


def read_false(x=False):
    if x and not SUPPORTED:
        x = False
    if not x:
        return torch.distributed.pipelining.pipeline
";
    let dir = project("cleared_flags", &[("m.py", src)]);
    assert_eq!(
        errors(&dir, "torch==2.3.0"),
        [
            "m.py:51:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "m.py:59:20 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "m.py:69:20 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "m.py:79:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "m.py:87:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "m.py:94:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "m.py:101:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
    // `--show-guarded` names the test that cleared the flag.
    let report = common::run_with(&dir, &["torch==2.3.0"], |o| o.show_guarded = true);
    let guard = report
        .findings
        .iter()
        .find(|f| f.line == 15)
        .and_then(|f| f.guard.clone());
    assert_eq!(
        guard.as_deref(),
        Some("`if x and not SUPPORTED:` (line 12)")
    );
}
