//! Members of objects, judged through the semantic model on the real torch index: each source
//! of a type (a constructor, an annotation, a return annotation, `self.x = ...`, a container of
//! classes, a project subclass, a module global of another file) gives an error on the release
//! that lacks the member or keyword and nothing on the one that has it.

mod common;

use apicompat_index::Catalog;
use common::{brief, project};

fn real_catalog() -> &'static Catalog {
    common::real_catalog(&["torch"])
}

/// The findings of a one-file project (`train.py`), against one torch release.
fn findings(name: &str, source: &str, release: &str) -> Vec<String> {
    let dir = project(name, &[("train.py", source)]);
    let report = common::run_on(
        real_catalog(),
        &dir,
        &[&format!("torch=={release}")],
        |_| {},
    );
    brief(&report, &dir)
}

fn assert_break(name: &str, source: &str, bad: &str, good: &str, expected: &[&str]) {
    assert_eq!(findings(name, source, bad), expected, "on {bad}");
    assert_eq!(
        findings(name, source, good),
        Vec::<String>::new(),
        "on {good}"
    );
}

#[test]
fn constructed_object() {
    assert_break(
        "obj-ctor",
        "import torch\n\ndef train(model):\n    opt = torch.optim.AdamW(model.parameters())\n    opt.register_step_pre_hook(print)\n",
        "1.13.1",
        "2.0.0",
        &["train.py:5:5 AC002 error call-time torch.optim.AdamW.register_step_pre_hook missing=1.13.1"],
    );
}

#[test]
fn return_annotation_of_a_project_function() {
    assert_break(
        "obj-returns",
        "import torch\n\ndef make(params) -> torch.optim.Optimizer:\n    return torch.optim.SGD(params, lr=0.1)\n\ndef train(model):\n    opt = make(model.parameters())\n    opt.register_step_post_hook(print)\n",
        "1.13.1",
        "2.0.0",
        &["train.py:8:5 AC002 error call-time torch.optim.Optimizer.register_step_post_hook missing=1.13.1"],
    );
}

#[test]
fn attribute_stored_on_self() {
    assert_break(
        "obj-self",
        "from torch import nn\n\nclass Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.proj = nn.Linear(3, 3)\n\n    def load(self, sd):\n        self.proj.load_state_dict(sd, assign=True)\n",
        "2.0.1",
        "2.1.0",
        &["train.py:9:39 AC003 error call-time torch.nn.Linear.load_state_dict(assign=) missing=2.0.1"],
    );
}

#[test]
fn string_and_optional_parameter_annotations() {
    assert_break(
        "obj-annotation",
        "from typing import Optional\nimport torch\n\ndef step(opt: Optional[\"torch.optim.Optimizer\"] = None):\n    if opt is not None:\n        opt.register_step_pre_hook(print)\n\ndef other(opt: torch.optim.Optimizer | None):\n    opt.register_step_post_hook(print)\n",
        "1.13.1",
        "2.0.0",
        &[
            "train.py:6:9 AC002 error call-time torch.optim.Optimizer.register_step_pre_hook missing=1.13.1",
            "train.py:9:5 AC002 error call-time torch.optim.Optimizer.register_step_post_hook missing=1.13.1",
        ],
    );
}

#[test]
fn container_of_classes_and_project_subclasses() {
    assert_break(
        "obj-container",
        "import torch\n\nclass Lion(torch.optim.Optimizer):\n    def step(self, closure=None):\n        pass\n\nOPTIMIZERS = {\"adamw\": torch.optim.AdamW, \"lion\": Lion}\n\ndef build(name, params):\n    opt = OPTIMIZERS[name](params)\n    opt.register_step_pre_hook(print)\n    return opt\n",
        "1.13.1",
        "2.0.0",
        // Two classes (AdamW, and Lion's base Optimizer): missing where both lack it.
        &["train.py:11:5 AC002 error call-time torch.optim.AdamW.register_step_pre_hook missing=1.13.1"],
    );
    assert_break(
        "obj-subclass",
        "import torch\n\nclass Lion(torch.optim.Optimizer):\n    def step(self, closure=None):\n        pass\n\ndef build(params):\n    opt = Lion(params, {})\n    opt.register_step_pre_hook(print)\n    opt.step()\n",
        "1.13.1",
        "2.0.0",
        &["train.py:9:5 AC002 error call-time torch.optim.Optimizer.register_step_pre_hook missing=1.13.1"],
    );
}

#[test]
fn module_global_of_another_file() {
    let dir = project(
        "obj-global",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/state.py",
                "import torch\n\nOPT = torch.optim.AdamW([torch.zeros(1)])\n",
            ),
            (
                "pkg/train.py",
                "from .state import OPT\n\ndef go():\n    OPT.register_step_pre_hook(print)\n",
            ),
        ],
    );
    let run = |r: &str| brief(&common::run_on(real_catalog(), &dir, &[r], |_| {}), &dir);
    assert_eq!(
        run("torch==1.13.1"),
        ["pkg/train.py:4:5 AC002 error call-time torch.optim.AdamW.register_step_pre_hook missing=1.13.1"]
    );
    assert_eq!(run("torch==2.0.0"), Vec::<String>::new());
}

/// Arguments flow into the parameters of the project's functions, across files: the union
/// of every call (a default `None` when a call leaves it out), as a bound. A call that passes
/// something unknown, or a function whose name is handed on, learns nothing.
#[test]
fn parameters_typed_by_their_callers() {
    let dir = project(
        "obj-callers",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/utils.py",
                "\
def add_hooks(model, optimizer=None):
    if optimizer is not None:
        optimizer.register_step_pre_hook(print)
    return model.load_state_dict({}, assign=True)


def run(thing):
    return thing.register_step_pre_hook(None)


def handed_on(opt):
    return opt.register_step_pre_hook(None)
",
            ),
            (
                "train.py",
                "\
import torch
from pkg.utils import add_hooks, handed_on, run


def main(callbacks):
    model = torch.nn.Linear(3, 3)
    opt = torch.optim.AdamW(model.parameters())
    add_hooks(model, optimizer=opt)
    add_hooks(model)
    run(opt)
    run(object())
    handed_on(opt)
    callbacks.append(handed_on)
",
            ),
        ],
    );
    let run = |r: &str| brief(&common::run_on(real_catalog(), &dir, &[r], |_| {}), &dir);
    assert_eq!(
        run("torch==1.13.1"),
        [
            "pkg/utils.py:3:9 AC002 error call-time torch.optim.AdamW.register_step_pre_hook missing=1.13.1",
            "pkg/utils.py:4:38 AC003 error call-time torch.nn.Linear.load_state_dict(assign=) missing=1.13.1",
        ]
    );
    assert_eq!(
        run("torch==2.0.1"),
        ["pkg/utils.py:4:38 AC003 error call-time torch.nn.Linear.load_state_dict(assign=) missing=2.0.1"]
    );
    assert_eq!(run("torch==2.1.0"), Vec::<String>::new());
}

#[test]
fn init_parameters_typed_by_the_constructions_of_their_class() {
    let dir = project(
        "obj-init",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/trainer.py",
                "\
class Trainer:
    def __init__(self, model, optimizer=None):
        self.model = model
        self.optimizer = optimizer

    def hooks(self):
        self.optimizer.register_step_pre_hook(print)

    def load(self):
        self.model.load_state_dict({}, assign=True)


class Registered:
    def __init__(self, optimizer):
        optimizer.register_step_pre_hook(print)


class Built:
    def __init__(self, optimizer):
        optimizer.register_step_pre_hook(print)

    @classmethod
    def make(cls):
        return cls(object())


class Base:
    def __init__(self, optimizer):
        optimizer.register_step_pre_hook(print)


class Sub(Base):
    pass
",
            ),
            (
                "train.py",
                "\
import torch
from pkg.trainer import Base, Built, Registered, Trainer

REGISTRY = {\"r\": Registered}


def main():
    model = torch.nn.Linear(3, 3)
    opt = torch.optim.AdamW(model.parameters())
    Trainer(model, optimizer=opt).hooks()
    Trainer(model, opt)
    Registered(opt)
    Built(opt)
    Base(opt)
",
            ),
        ],
    );
    let run = |r: &str| brief(&common::run_on(real_catalog(), &dir, &[r], |_| {}), &dir);
    // Only `Trainer` is built by its calls alone: `Registered` escapes into a registry,
    // `Built` builds itself (`cls(...)`), `Base` is built by its subclass's calls too.
    assert_eq!(
        run("torch==1.13.1"),
        [
            "pkg/trainer.py:7:9 AC002 error call-time torch.optim.AdamW.register_step_pre_hook missing=1.13.1",
            "pkg/trainer.py:10:40 AC003 error call-time torch.nn.Linear.load_state_dict(assign=) missing=1.13.1",
        ]
    );
    assert_eq!(
        run("torch==2.0.1"),
        ["pkg/trainer.py:10:40 AC003 error call-time torch.nn.Linear.load_state_dict(assign=) missing=2.0.1"]
    );
    assert_eq!(run("torch==2.1.0"), Vec::<String>::new());
}

#[test]
fn honesty_exact_bound_and_guards() {
    let src = "import torch\n\ndef f(params, declared: torch.optim.Optimizer):\n    built = torch.optim.AdamW(params)\n    built.not_a_member_anywhere()\n    declared.not_a_member_anywhere()\n    if hasattr(built, \"register_step_pre_hook\"):\n        built.register_step_pre_hook(print)\n    try:\n        declared.register_step_post_hook(print)\n    except AttributeError:\n        pass\n    built.set_by_the_project = 1\n    built.set_by_the_project\n";
    // Built here: a member no release has is missing; declared: a subclass may have it.
    // Guarded reads and names the project stores give nothing.
    assert_eq!(
        findings("obj-honesty", src, "1.13.1"),
        ["train.py:5:5 AC002 error call-time torch.optim.AdamW.not_a_member_anywhere missing=1.13.1"]
    );
}

#[test]
fn unknown_receivers_give_nothing() {
    let src = "import torch\n\ndef f(opt, flag):\n    opt.register_step_pre_hook(print)\n    x = torch.optim.AdamW([]) if flag else opt\n    x.register_step_pre_hook(print)\n    for o in [torch.optim.AdamW([])]:\n        o.register_step_pre_hook(print)\n    y = torch.optim.AdamW([])\n    y = make_something(y)\n    y.register_step_pre_hook(print)\n";
    assert_eq!(findings("obj-unknown", src, "1.13.1"), Vec::<String>::new());
}

#[test]
fn keywords_of_a_mapping_passed_with_double_star() {
    let src = "from torch.distributed.checkpoint.state_dict import StateDictOptions\n\ndef opts(full):\n    options = {\"full_state_dict\": full}\n    options[\"flatten_optimizer_state_dict\"] = True\n    return StateDictOptions(**options)\n\ndef other():\n    kw = dict(strict=False)\n    return StateDictOptions(**kw)\n\ndef unknown(kw):\n    kw[\"flatten_optimizer_state_dict\"] = True\n    return StateDictOptions(**kw)\n";
    assert_break(
        "obj-splat",
        src,
        "2.3.1",
        "2.4.0",
        &["train.py:6:29 AC003 error call-time torch.distributed.checkpoint.state_dict.StateDictOptions(flatten_optimizer_state_dict=) missing=2.3.1"],
    );
}

fn colossalai_findings(name: &str, source: &str, release: &str) -> Vec<String> {
    let catalog = common::real_catalog(&["colossalai"]);
    let dir = project(name, &[("train.py", source)]);
    let report = common::run_on(catalog, &dir, &[&format!("colossalai=={release}")], |_| {});
    brief(&report, &dir)
}

#[test]
fn calls_that_stop_binding_when_a_parameter_is_required_or_dropped() {
    // colossalai 0.3.8 dropped the required `config` parameter of `launch_from_torch`.
    let src = "import colossalai\n\ndef main():\n    colossalai.launch_from_torch()\n    colossalai.launch_from_torch({}, seed=1)\n";
    assert_eq!(
        colossalai_findings("bind-new", src, "0.3.6"),
        ["train.py:4:5 AC013 error call-time colossalai.launch_from_torch() missing=0.3.6"]
    );
    assert_eq!(
        colossalai_findings("bind-new", src, "0.4.0"),
        Vec::<String>::new()
    );
    // A call that binds in no release is not judged (its signature may be misread).
    let nowhere =
        "import colossalai\n\ndef main():\n    colossalai.launch_from_torch(1, 2, 3, 4, 5, 6)\n";
    assert_eq!(
        colossalai_findings("bind-nowhere", nowhere, "0.4.0"),
        Vec::<String>::new()
    );
}

#[test]
fn module_members_and_tensors_from_return_annotations() {
    // `nn.Module.__getattr__` answers only registered parameters, buffers and submodules: a
    // method missing from a release is missing. `torch.zeros` returns a `Tensor` (its stub
    // imports the name from `torch`).
    // (Two functions: in one, the second line is behind the first on 1.13.1.)
    let src = "import torch\nfrom torch import nn\n\ndef f(m):\n    lin = nn.Linear(2, 2)\n    lin.set_submodule(\"x\", m)\n\ndef g():\n    t = torch.zeros(3)\n    t.untyped_storage()\n";
    assert_eq!(
        findings("obj-module", src, "1.13.1"),
        [
            "train.py:6:5 AC002 error call-time torch.nn.Linear.set_submodule missing=1.13.1",
            "train.py:10:5 AC002 error call-time torch._tensor.Tensor.untyped_storage missing=1.13.1",
        ]
    );
    assert_eq!(
        findings("obj-module", src, "2.4.1"),
        ["train.py:6:5 AC002 error call-time torch.nn.Linear.set_submodule missing=2.4.1"]
    );
    assert_eq!(findings("obj-module", src, "2.5.0"), Vec::<String>::new());
}

#[test]
fn a_union_of_classes_breaks_only_where_every_class_lacks_the_member() {
    let src = "import torch\n\ndef f(params, flag):\n    opt = torch.optim.AdamW(params) if flag else torch.optim.SGD(params, lr=0.1)\n    opt.register_step_pre_hook(print)\n    opt.zero_grad()\n    either = torch.optim.AdamW(params) if flag else torch.nn.Linear(1, 1)\n    either.register_step_pre_hook(print)\n";
    // `either` may be a Linear, which has no such method in any release but is open
    // (`Module.__getattr__` answers registered submodules): unknown, so nothing.
    assert_break(
        "obj-union",
        src,
        "1.13.1",
        "2.0.0",
        &["train.py:5:5 AC002 error call-time torch.optim.AdamW.register_step_pre_hook missing=1.13.1"],
    );
}

#[test]
fn a_declared_bound_takes_what_its_subclasses_override() {
    // torch 1.13's `Optimizer.step(self, closure)` requires `closure`; every optimizer
    // overrides it with `closure=None`. On a declared bound the object may be any of them.
    let bound = "import torch\n\ndef train(opt: torch.optim.Optimizer):\n    opt.step()\n";
    assert_eq!(
        findings("bound-override", bound, "1.13.1"),
        Vec::<String>::new()
    );
    // An object built from the base class itself is exactly that class; torch 1.13's
    // `optimizer.pyi` beside the `.py` declares `step(self, closure=...)`, and the index keeps
    // the signatures of both (a call any of them binds is not reported).
    let exact = "import torch\n\ndef train(params):\n    opt = torch.optim.Optimizer(params, {})\n    opt.step()\n";
    assert_eq!(
        findings("bound-exact", exact, "1.13.1"),
        Vec::<String>::new()
    );
    // A member no subclass defines is still missing on the bound.
    let hook = "import torch\n\ndef train(opt: torch.optim.Optimizer):\n    opt.register_step_pre_hook(print)\n";
    assert_eq!(
        findings("bound-no-override", hook, "1.13.1"),
        ["train.py:4:5 AC002 error call-time torch.optim.Optimizer.register_step_pre_hook missing=1.13.1"]
    );
}

#[test]
fn hasattr_false_on_an_object_counts_its_instance_attributes() {
    // `param_groups` is set on every optimizer by `Optimizer.__init__`: where `hasattr(opt,
    // "param_groups")` is false nothing runs. On the class it is false (an instance
    // attribute), so the class test keeps its branch.
    let src = "import torch\n\ndef f(params):\n    opt = torch.optim.AdamW(params)\n    if hasattr(opt, \"param_groups\"):\n        return opt\n    else:\n        opt.not_a_member_anywhere()\n\ndef g(params):\n    opt = torch.optim.AdamW(params)\n    if not hasattr(opt, \"param_groups\"):\n        opt.not_a_member_anywhere()\n\ndef h(params):\n    opt = torch.optim.AdamW(params)\n    if not hasattr(torch.optim.AdamW, \"param_groups\"):\n        opt.not_a_member_anywhere()\n\ndef k(params, other):\n    opt = torch.optim.AdamW(params)\n    if not hasattr(other, \"param_groups\"):\n        opt.not_a_member_anywhere()\n";
    assert_eq!(
        findings("obj-hasattr-false", src, "2.5.0"),
        [
            "train.py:18:9 AC002 error call-time torch.optim.AdamW.not_a_member_anywhere missing=2.5.0",
            "train.py:23:9 AC002 error call-time torch.optim.AdamW.not_a_member_anywhere missing=2.5.0",
        ]
    );
}

#[test]
fn isinstance_tests_type_what_they_test() {
    // `for m in model.modules()` binds what the model cannot know; the test tells it.
    assert_break(
        "obj-isinstance",
        "import torch\n\ndef train(model, optimizers):\n    for opt in optimizers:\n        if not isinstance(opt, torch.optim.Optimizer):\n            continue\n        opt.register_step_pre_hook(print)\n    for m in model.modules():\n        if isinstance(m, torch.nn.Linear):\n            m.load_state_dict({}, assign=True)\n",
        "2.0.1",
        "2.1.0",
        &["train.py:10:35 AC003 error call-time torch.nn.Linear.load_state_dict(assign=) missing=2.0.1"],
    );
    assert_eq!(
        findings(
            "obj-isinstance-13",
            "import torch\n\ndef train(opt):\n    if isinstance(opt, torch.optim.Optimizer):\n        opt.register_step_pre_hook(print)\n",
            "1.13.1"
        ),
        ["train.py:5:9 AC002 error call-time torch.optim.Optimizer.register_step_pre_hook missing=1.13.1"]
    );
}

#[test]
fn a_try_handler_runs_where_its_one_object_read_is_missing() {
    // The handler runs only where the body's one read fails: as the `else` of `hasattr`
    // (study 20 F-B: `try: cache.get_max_cache_shape() except: cache.get_max_length()`).
    let src = "import torch\n\ndef f(params):\n    opt = torch.optim.AdamW(params)\n    try:\n        n = opt.param_groups\n    except AttributeError:\n        opt.not_a_member_anywhere()\n\ndef g(params):\n    opt = torch.optim.AdamW(params)\n    try:\n        n = opt.not_a_member_anywhere()\n    except AttributeError:\n        opt.also_not_a_member()\n\ndef h(params, other):\n    opt = torch.optim.AdamW(params)\n    try:\n        n = other.param_groups\n    except AttributeError:\n        opt.not_a_member_anywhere()\n\ndef k(params):\n    opt = torch.optim.AdamW(params)\n    try:\n        n = opt.param_groups\n        m = opt.defaults\n    except AttributeError:\n        opt.not_a_member_anywhere()\n";
    assert_eq!(
        findings("obj-try-read", src, "2.5.0"),
        [
            "train.py:15:9 AC002 error call-time torch.optim.AdamW.also_not_a_member missing=2.5.0",
            "train.py:22:9 AC002 error call-time torch.optim.AdamW.not_a_member_anywhere missing=2.5.0",
            "train.py:30:9 AC002 error call-time torch.optim.AdamW.not_a_member_anywhere missing=2.5.0",
        ]
    );
}

#[test]
fn a_test_expecting_the_failure_guards_it() {
    // `with pytest.raises(TypeError):` expects the call to fail (study 21: SegFormer's test of
    // a misspelt keyword); `assertRaises(AttributeError)` the read; another exception does not.
    let src = "import pytest\nimport torch\nfrom torch.utils.data import DataLoader\n\n\ndef test_a():\n    with pytest.raises(TypeError):\n        DataLoader([1], num_worker=0)\n\n\ndef test_b(self):\n    with self.assertRaises((AttributeError, KeyError)):\n        torch.not_a_member_anywhere\n\n\ndef test_c():\n    with pytest.raises(ValueError):\n        DataLoader([1], num_worker=0)\n";
    let got = findings("pytest-raises", src, "2.5.0");
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("train.py:18:25 AC003 error call-time"),
        "{got:?}"
    );
}

#[test]
fn a_try_handler_runs_where_a_package_path_of_the_body_is_missing() {
    // `try: np.get_include() except AttributeError: np.get_numpy_include()` (study 21
    // CenterNet): where the body's paths all exist, the handler does not run. A handler that
    // also catches a call's `TypeError` may run anywhere the call is given arguments.
    let src = "import torch\n\n\ndef f():\n    try:\n        x = torch.zeros\n    except AttributeError:\n        x = torch.compile\n    try:\n        y = torch.export\n    except AttributeError:\n        y = torch.compile\n    try:\n        z = torch.zeros(2, 2)\n    except Exception:\n        z = torch.compile\n";
    let got = findings("try-package-read", src, "1.13.1");
    assert_eq!(
        got.iter()
            .map(|f| &f[..f.find(" AC").unwrap_or(0)])
            .collect::<Vec<_>>(),
        ["train.py:12:13", "train.py:16:13"],
        "{got:?}"
    );
}

#[test]
fn a_return_annotation_types_the_result_only_where_the_release_declares_it() {
    // torch 2.14 declares `all_reduce(...) -> Work`; 1.13 - 2.13 declare no return there, and
    // the hand-written stub of the compiled `Work` leaves out `get_future` before 2.3 (the
    // binding exists since 1.8): what the call gives on 1.13 - 2.2 is not known, so nothing.
    // `torch.zeros` declares `-> Tensor` in every release: `untyped_storage` (from 2.0) is
    // still missing on 1.13.
    let src = "import torch\n\ndef hook(buf):\n    return torch.distributed.all_reduce(buf, async_op=True).get_future()\n\ndef g():\n    t = torch.zeros(3)\n    t.untyped_storage()\n";
    let dir = project("obj-declared-by", &[("train.py", src)]);
    let report = common::run_on(real_catalog(), &dir, &["torch>=1.13"], |_| {});
    assert_eq!(
        brief(&report, &dir),
        ["train.py:8:5 AC002 error call-time torch._tensor.Tensor.untyped_storage missing=1.13.0 - 1.13.1"]
    );
    // Where every targeted release declares the return, the bound holds: `get_future`'s own
    // result (`-> Future`, from 2.3) typed on 2.14 - 2.15 only.
    let newer = "import torch\n\ndef hook(buf):\n    return torch.distributed.all_reduce(buf, async_op=True).get_future().wait()\n";
    let dir = project("obj-declared-by-newer", &[("train.py", newer)]);
    let report = common::run_on(real_catalog(), &dir, &["torch>=2.14"], |_| {});
    assert_eq!(brief(&report, &dir), Vec::<String>::new());
}
