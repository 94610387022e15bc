//! The acceptance fixtures against the real torch index embedded in the CLI
//! (`crates/apicompat/index/torch.apix`). Skipped, with a message, where the file is absent.

mod common;

use apicompat_check::Report;
use apicompat_index::Catalog;
use common::{brief, project};

fn real_catalog() -> &'static Catalog {
    common::real_catalog(&["torch"])
}

fn run(catalog: &Catalog, dir: &std::path::Path, targets: &[&str]) -> Report {
    common::run_on(catalog, dir, targets, |_| {})
}

#[test]
fn real_fixture_1() {
    let catalog = real_catalog();
    let dir = project(
        "real1",
        &[
            ("mypkg/__init__.py", ""),
            (
                "mypkg/parallel.py",
                "from torch.distributed._tensor import Partial\nfrom torch.distributed.pipelining import pipeline, PipelineStage\n\n\ndef policy():\n    from torch.utils.checkpoint import CheckpointPolicy\n    return CheckpointPolicy\n",
            ),
            ("requirements.txt", "torch >= 2.3.0\n"),
        ],
    );
    let report = run(catalog, &dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        [
            "mypkg/parallel.py:1:39 AC001 error import-time torch.distributed._tensor.Partial missing=2.3.0 - 2.3.1",
            "mypkg/parallel.py:2:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
            "mypkg/parallel.py:2:52 AC001 error import-time torch.distributed.pipelining.PipelineStage missing=2.3.0 - 2.3.1",
            "mypkg/parallel.py:6:40 AC001 error call-time torch.utils.checkpoint.CheckpointPolicy missing=2.3.0 - 2.4.1",
            "requirements.txt:1:1 AC008 error import-time torch >= 2.3.0 missing=2.3.0 - 2.4.1",
        ]
    );
    assert_eq!(report.findings[0].missing_in, ["2.3.0", "2.3.1"]);
    assert_eq!(
        report.findings[3].missing_in,
        ["2.3.0", "2.3.1", "2.4.0", "2.4.1"]
    );
    let pinned = run(catalog, &dir, &["torch==2.5.0"]);
    assert!(pinned.findings.is_empty(), "{:?}", brief(&pinned, &dir));
}

#[test]
fn real_fixture_2_and_3() {
    let catalog = real_catalog();
    let import = "from torch.distributed._functional_collectives import all_gather_tensor\n";
    let dir = project(
        "real2",
        &[
            ("train.py", "from model import build\nbuild()\n"),
            (
                "model.py",
                &format!("{import}\n\ndef build():\n    return all_gather_tensor\n"),
            ),
            ("requirements.txt", "torch>=1.13\n"),
        ],
    );
    let report = run(catalog, &dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        [
            "model.py:1:55 AC001 error import-time torch.distributed._functional_collectives.all_gather_tensor missing=1.13.0 - 2.0.1",
            "requirements.txt:1:1 AC008 error import-time torch>=1.13 missing=1.13.0 - 2.0.1",
        ]
    );
    let guarded = project(
        "real3",
        &[
            (
                "model.py",
                "try:\n    from torch.distributed._functional_collectives import all_gather_tensor\nexcept ImportError:\n    all_gather_tensor = None\n",
            ),
            ("requirements.txt", "torch>=1.13\n"),
        ],
    );
    let report = run(catalog, &guarded, &[]);
    assert!(report.findings.is_empty(), "{:?}", brief(&report, &guarded));
    assert_eq!(report.summary.guarded, 1);
}

/// Keyword checks: a function written in Python is checked against its signature; one
/// described only by the stub of a compiled module (torch's C functions, whose argument parser
/// also takes NumPy-style aliases such as `axis=` for `dim=`) is not.
#[test]
fn keywords_of_compiled_functions_are_not_judged_by_their_stubs() {
    let catalog = real_catalog();
    let dir = project(
        "real-kw",
        &[(
            "m.py",
            "import torch\nimport torch.distributed as dist\n\n\ndef f(x):\n    torch.sum(x, axis=0)\n    x.sum(axis=0)\n    dist.all_gather_into_tensor(x, x, bogus=1)\n",
        )],
    );
    let report = run(catalog, &dir, &["torch==2.5.0"]);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:8:39 AC003 error call-time torch.distributed.all_gather_into_tensor(bogus=) missing=2.5.0"]
    );
}

#[test]
fn namespace_packages_of_the_project_are_its_own_code() {
    let catalog = common::real_catalog(&["torch", "colossalai"]);
    // colossalai ships a top-level `extensions`; the project's `extensions/` (no
    // `__init__.py`) is what `from extensions.thunder import ...` loads. A `torch/` directory
    // of the project without `__init__.py` does not hide the installed torch.
    let dir = project(
        "namespace",
        &[
            // Only packages in it, as litgpt's `extensions/` (`thunder/`, `xla/`).
            (
                "extensions/thunder/__init__.py",
                "def compile_model(m):\n    return m\n",
            ),
            ("torch/notes.py", "X = 1\n"),
            (
                "train.py",
                "from extensions.thunder import compile_model\nfrom torch.distributed.pipelining import pipeline\n",
            ),
            ("requirements.txt", "torch==2.3.0\ncolossalai==0.4.0\n"),
        ],
    );
    let report = common::run_on(catalog, &dir, &[], |_| {});
    assert_eq!(
        brief(&report, &dir),
        [
            "requirements.txt:1:1 AC008 error import-time torch==2.3.0 missing=2.3.0",
            "train.py:2:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
    assert!(report
        .summary
        .notes
        .iter()
        .any(|n| n.contains("`extensions` is a package of the project itself")));
}

/// A module-level patch puts a removed name back (`if torch.__version__ >= "2.0": torch._six =
/// ...`, the polyfill form of `np.NaN = np.nan` on numpy 2): reads after it in the same file
/// fail only where the patch does not run and the release lacks the name; a read before it,
/// or a patch whose condition misses releases, is still an error.
#[test]
fn module_level_patches_put_names_back_for_the_reads_after_them() {
    let catalog = real_catalog();
    let polyfill = "import math\nimport types\n\nimport torch\n\nearly = torch._six.inf\n\nif COND:\n    torch._six = types.SimpleNamespace(inf=math.inf)\n\n\ndef clip():\n    return torch._six.inf\n\n\nlate = torch._six.inf\n";
    let check = |name: &str, cond: &str| {
        let dir = project(
            name,
            &[
                ("main.py", &polyfill.replace("COND", cond)),
                ("requirements.txt", "torch>=1.13\n"),
            ],
        );
        let report = run(catalog, &dir, &[]);
        brief(&report, &dir)
            .into_iter()
            .filter(|f| f.starts_with("main.py"))
            .collect::<Vec<_>>()
    };
    let early = "main.py:6:9 AC002 error import-time torch._six.inf missing=2.0.0 - 2.15.0";
    assert_eq!(
        check("patch_version", "torch.__version__ >= \"2.0\""),
        [early]
    );
    assert_eq!(
        check("patch_hasattr", "not hasattr(torch, \"_six\")"),
        [early]
    );
    // A test the walk does not understand: the patch may not run. (The call-time read in
    // `clip` is behind the failure of line 6: `src/behind.rs`.)
    assert_eq!(
        check("patch_opaque", "True or torch"),
        [
            early,
            "main.py:16:8 AC002 error import-time torch._six.inf missing=2.0.0 - 2.15.0",
        ]
    );
    // No test at all (`if True:` is folded away here by writing the patch directly).
    let direct = polyfill.replace("if COND:\n    torch._six", "torch._six");
    let dir = project(
        "patch_direct",
        &[("main.py", &direct), ("requirements.txt", "torch>=1.13\n")],
    );
    let report = run(catalog, &dir, &[]);
    let got: Vec<String> = brief(&report, &dir)
        .into_iter()
        .filter(|f| f.starts_with("main.py"))
        .collect();
    assert_eq!(got, [early]);
    // The patch runs only from 2.5: 2.0 - 2.4.1 still lack the name after it (the read in
    // `clip` is behind line 6 there).
    assert_eq!(
        check("patch_late", "torch.__version__ >= \"2.5\""),
        [
            early,
            "main.py:16:8 AC002 error import-time torch._six.inf missing=2.0.0 - 2.4.1",
        ]
    );
}

/// `try: from a import f` / `except ImportError: f = None`, then `if f is not None: ... else:
/// <old API>`: the `else` branch runs only where the import failed, so it is judged on those
/// releases alone (and the early exit `if f is None: return` the same way).
#[test]
fn a_none_sentinel_of_a_fallback_import_ties_its_branches_to_the_import() {
    let catalog = real_catalog();
    let source = |fallback: &str| {
        format!(
            "try:\n    from torch.distributed.pipelining import pipeline\nexcept ImportError:\n    pipeline = None\n\n\ndef build(m):\n    if pipeline is not None:\n        return pipeline(m, mb_args=())\n    else:\n        from {fallback}\n        return Pipe(m)\n\n\ndef stage(m):\n    if pipeline is None:\n        from {fallback}\n        return Pipe(m)\n    return pipeline(m)\n"
        )
    };
    let check = |name: &str, fallback: &str| {
        let dir = project(
            name,
            &[
                ("main.py", &source(fallback)),
                ("requirements.txt", "torch>=2.1\n"),
            ],
        );
        let report = run(catalog, &dir, &[]);
        brief(&report, &dir)
            .into_iter()
            .filter(|f| f.starts_with("main.py"))
            .collect::<Vec<_>>()
    };
    // The old API exists wherever the new one does not (2.1 - 2.3.1).
    assert!(check("sentinel_ok", "torch.distributed.pipeline.sync import Pipe").is_empty());
    // A fallback that is itself missing where it runs is still reported, on those releases.
    assert_eq!(
        check("sentinel_bad", "torch.distributed.tensor import Shard as Pipe"),
        [
            "main.py:11:46 AC001 error call-time torch.distributed.tensor.Shard missing=2.1.0 - 2.3.1",
            "main.py:17:46 AC001 error call-time torch.distributed.tensor.Shard missing=2.1.0 - 2.3.1",
        ]
    );
}

/// A package's generated `version` module holds its version (diffusers
/// `examples/community/stable_diffusion_tensorrt_img2img.py:84-87`: `if np.version.full_version >=
/// "1.24.0": ... np.bool_ else: ... np.bool`, which numpy 1.24 removed); its `git_revision` is no
/// version.
#[test]
fn names_of_a_version_module_are_the_packages_version() {
    let catalog = common::real_catalog(&["numpy"]);
    let dir = project(
        "version_module",
        &[(
            "m.py",
            "import numpy as np\nfrom numpy.version import short_version\n\nif np.version.full_version >= \"1.24.0\":\n    a = np.bool_\nelse:\n    a = np.bool\nif short_version < \"1.24.0\":\n    b = np.bool\nif np.version.git_revision < \"1.24.0\":\n    c = np.bool\n",
        )],
    );
    let report = run(catalog, &dir, &["numpy==1.23.5", "numpy==1.24.4"]);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:11:9 AC002 error import-time numpy.bool missing=1.24.4"]
    );
}

#[test]
fn a_chain_missing_in_some_releases_and_unknown_in_the_rest_does_not_say_no_release_has_it() {
    // `torch.library.custom_op` is a function from 2.4.0: what its attributes are is not
    // known there, so the message must not claim that no indexed release has the chain
    // (Megatron-DeepSpeed's `Variable._execution_engine.run_backward`,
    // `docs/false-alarm-study-13.md`).
    let catalog = real_catalog();
    let ac002 = |name: &str, source: &str| {
        let dir = project(name, &[("m.py", source)]);
        let report = run(catalog, &dir, &["torch>=2.2"]);
        let f = report.findings.into_iter().find(|f| f.code == "AC002");
        f.expect("an AC002")
    };
    let f = ac002(
        "not-known-elsewhere",
        "import torch\ntorch.library.custom_op.some_attribute\n",
    );
    assert_eq!(f.missing_ranges, ["2.2.0 - 2.3.1"]);
    assert!(
        f.message.ends_with(
            "`torch.library.custom_op` does not exist there; whether the other indexed releases have `torch.library.custom_op.some_attribute` is not known"
        ),
        "{}",
        f.message
    );
    // A name that every release lacks (`torch.xpu` is a closed module from 2.3.0) is still
    // said to be in none.
    let f = ac002("nowhere", "import torch\ntorch.xpu.no_such_thing_here()\n");
    assert!(
        f.message
            .ends_with("`torch.xpu.no_such_thing_here` is in no indexed release"),
        "{}",
        f.message
    );
}

/// Study 14's last two F-A/F-B forms on ultralytics, on the real index: a hasattr test kept in
/// a class attribute, passed through a local flag cleared under its negation (`if safe_only
/// and not _SafeLoad.SUPPORTED: safe_only = False`), read in a closure before a classmethod
/// context manager is entered (`nn/tasks.py`); a version flag imported inside a function
/// (`utils/patches.py`). The same uses, with the flag cleared under the test itself and with
/// no flag, are still reported.
#[test]
fn a_cleared_flag_and_a_flag_imported_in_a_function() {
    let catalog = real_catalog();
    let dir = project(
        "real-ultralytics",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/torch_utils.py",
                "\
import torch
from packaging.version import parse

TORCH_2_9 = parse(torch.__version__) >= parse(\"2.9.0\")
",
            ),
            (
                "pkg/tasks.py",
                "\
import contextlib

import torch


class _SafeLoad:
    SUPPORTED = hasattr(torch.serialization, \"get_unsafe_globals_in_checkpoint\")

    @classmethod
    @contextlib.contextmanager
    def loading(cls, weight):
        needed = torch.serialization.get_unsafe_globals_in_checkpoint(weight)
        torch.serialization.add_safe_globals(needed)
        yield


def torch_safe_load(weight, safe_only=None):
    if safe_only and not _SafeLoad.SUPPORTED:
        safe_only = False

    def _load():
        if safe_only:
            with _SafeLoad.loading(weight):
                return torch.load(weight, weights_only=True)
        return torch.load(weight)

    return _load()


def wrongly_cleared(weight, safe_only=None):
    if safe_only and _SafeLoad.SUPPORTED:
        safe_only = False
    if safe_only:
        return torch.serialization.get_unsafe_globals_in_checkpoint(weight)
",
            ),
            (
                "pkg/patches.py",
                "\
import torch


def onnx_export_patch():
    from pkg.torch_utils import TORCH_2_9

    if TORCH_2_9:
        func = torch.onnx.export

        def torch_export(*args, **kwargs):
            return func(*args, **kwargs, dynamo=False)

        return torch_export


def unguarded_patch():
    func = torch.onnx.export

    def torch_export(*args, **kwargs):
        return func(*args, **kwargs, dynamo=False)

    return torch_export
",
            ),
            ("requirements.txt", "torch>=2.0\n"),
        ],
    );
    let report = run(catalog, &dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        [
            "pkg/patches.py:20:38 AC003 error call-time torch.onnx.export(dynamo=) missing=2.0.0 - 2.3.1",
            "pkg/tasks.py:34:16 AC002 error call-time torch.serialization.get_unsafe_globals_in_checkpoint missing=2.0.0 - 2.5.1",
            "requirements.txt:1:1 AC008 error call-time torch>=2.0 missing=2.0.0 - 2.5.1",
        ]
    );
}

/// torchmetrics' `MetricCollection(...).to(device)` shape (`docs/false-alarm-study-15.md`,
/// F-B): `Module.cuda(self: T, ...) -> T` on an object of a project subclass gives that
/// object back, whose own `update` takes any keyword; the indexed base's `update` does not.
#[test]
fn an_inherited_method_returning_its_receiver_keeps_the_project_class() {
    let catalog = real_catalog();
    let dir = project(
        "receiver_kept",
        &[
            (
                "m.py",
                "\
from torch.nn import ModuleDict


class Collection(ModuleDict):
    def update(self, *args, **kwargs):
        for m in self.values():
            m.update(*args, **kwargs)


def run(metrics, img):
    coll = Collection(metrics).cuda()
    coll.update(img, real=True)
    plain = ModuleDict(metrics).cuda()
    plain.update(img, real=True)
",
            ),
            ("requirements.txt", "torch>=2.0\n"),
        ],
    );
    let report = run(catalog, &dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:14:23 AC003 error call-time torch.nn.ModuleDict.update(real=) missing=2.0.0 - 2.15.0"]
    );
}

/// A name bound to different modules under opposite conditions on another package (`if NEW:
/// from a import x` / `else: from b import x`), then used under `if NEW:`, is judged as the
/// module of that branch: the binding of the other branch never runs there (both conditions
/// on torchvision together admit no release). Unguarded, the use through the `else` binding
/// is still an error where that branch runs.
#[test]
fn a_name_bound_under_opposite_conditions_on_another_package() {
    let catalog = common::real_catalog(&["torch", "torchvision"]);
    let source = |guarded: bool| {
        format!(
            "import torchvision\nfrom packaging import version\n\nNEW = version.parse(torchvision.__version__) >= version.parse(\"0.16\")\n\nif NEW:\n    from torch.nn import functional as F\nelse:\n    from torch import linalg as F\n\n\ndef attend(q, k, v):\n{}    return F.scaled_dot_product_attention(q, k, v)\n",
            if guarded { "    if NEW:\n    " } else { "" }
        )
    };
    let targets = ["torch==2.1.0", "torchvision>=0.15,<0.17"];
    let dir = project("opposite-guarded", &[("m.py", &source(true))]);
    assert_eq!(
        brief(&run(catalog, &dir, &targets), &dir),
        Vec::<String>::new()
    );
    let dir = project("opposite-unguarded", &[("m.py", &source(false))]);
    assert_eq!(
        brief(&run(catalog, &dir, &targets), &dir),
        ["m.py:13:12 AC002 error call-time torch.linalg.scaled_dot_product_attention missing=2.1.0"]
    );
}

/// A method the project never calls that overrides a package's method runs only where the
/// package has (and calls) that method: its delegation to the package's own method is judged
/// there only (`docs/false-alarm-study-28.md`, F-B), also through `super()`, which is an object
/// of the class's one base. torch's `Module.compile` comes in 2.1.0,
/// `register_load_state_dict_pre_hook` in 2.5.0.
#[test]
fn an_override_the_project_never_calls_delegates_only_where_the_base_has_the_method() {
    let catalog = common::real_catalog(&["torch"]);
    let dir = project(
        "hook_override",
        &[
            (
                "m.py",
                "\
import torch
from typing_extensions import override


class Net(torch.nn.Module):
    @override
    def compile(self, *args, **kwargs):
        torch.nn.Module.compile(self, *args, **kwargs)


class Called(torch.nn.Module):
    def register_load_state_dict_pre_hook(self, hook):
        return torch.nn.Module.register_load_state_dict_pre_hook(self, hook)


Called().register_load_state_dict_pre_hook(print)


class Plain:
    def compile(self):
        return torch.nn.Module.compile(self)


class Other(torch.nn.Module):
    def compile(self):
        return torch.compile(self)


class Sup(torch.nn.Module):
    def compile(self):
        return super().compile()

    def go(self):
        return super().register_load_state_dict_pre_hook(print)


Sup().go()
",
            ),
            ("requirements.txt", "torch>=2.0\n"),
        ],
    );
    let report = run(catalog, &dir, &[]);
    let errors: Vec<String> = brief(&report, &dir)
        .into_iter()
        .filter(|f| f.starts_with("m.py"))
        .collect();
    assert_eq!(
        errors,
        [
            "m.py:13:16 AC002 error call-time torch.nn.Module.register_load_state_dict_pre_hook missing=2.0.0 - 2.4.1",
            "m.py:21:16 AC002 error call-time torch.nn.Module.compile missing=2.0.0 - 2.0.1",
            "m.py:34:16 AC002 error call-time torch.nn.Module.register_load_state_dict_pre_hook missing=2.0.0 - 2.4.1",
        ]
    );
}

/// A branch under `"k" in inspect.signature(f).parameters` runs only on the releases whose
/// `f` lists `k` (torch-rechub's ONNX export, docs/false-alarm-study-42.md F-AC):
/// `torch.onnx.export` takes `dynamo` from 2.4.0, `torch.export.Dim` exists from 2.2.0 and
/// `dynamic_shapes` from 2.5.0. The `else` runs where it does not list it (`verbose` of
/// `ReduceLROnPlateau` is gone from 2.7.0).
#[test]
fn a_test_of_a_parameter_limits_its_branch_to_the_releases_that_list_it() {
    let catalog = real_catalog();
    let source = "import inspect\nimport torch\n\n\ndef export(model, x, path, opt):\n    if \"dynamo\" in inspect.signature(torch.onnx.export).parameters:\n        shapes = ({0: torch.export.Dim(\"batch\")},)\n        torch.onnx.export(model, (x,), path, dynamo=True, dynamic_shapes=shapes)\n    else:\n        torch.optim.lr_scheduler.ReduceLROnPlateau(opt, verbose=True)\n";
    let targets = ["torch==2.1.2", "torch==2.4.0", "torch==2.7.0"];
    let dir = project("param_test", &[("m.py", source)]);
    let report = run(catalog, &dir, &targets);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:8:59 AC003 error call-time torch.onnx.export(dynamic_shapes=) missing=2.4.0"]
    );
    // Without the test, every use is judged on every release.
    let unguarded = source.replace(
        "if \"dynamo\" in inspect.signature(torch.onnx.export).parameters:",
        "if x:",
    );
    let dir = project("param_test_control", &[("m.py", &unguarded)]);
    let report = run(catalog, &dir, &targets);
    assert_eq!(
        brief(&report, &dir),
        [
            "m.py:7:23 AC002 error call-time torch.export.Dim missing=2.1.2",
            "m.py:8:59 AC003 error call-time torch.onnx.export(dynamic_shapes=) missing=2.1.2,2.4.0",
            "m.py:10:57 AC003 error call-time torch.optim.lr_scheduler.ReduceLROnPlateau(verbose=) missing=2.7.0",
        ]
    );
    // The signature kept in a name (torch-rechub's `sig = inspect.signature(torch.onnx.export)`)
    // until the name is stored again.
    let named = "import inspect\nimport torch\n\n\ndef export(x):\n    sig = inspect.signature(torch.onnx.export)\n    if \"dynamo\" in sig.parameters:\n        torch.export.Dim(\"a\")\n    sig = x\n    if \"dynamo\" in sig.parameters:\n        torch.export.Dim(\"b\")\n";
    let dir = project("param_test_named", &[("m.py", named)]);
    let report = run(catalog, &dir, &targets);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:11:9 AC002 error call-time torch.export.Dim missing=2.1.2"]
    );
}

/// `FLAG = False` then `if TEST: FLAG = True` (no `else`): `FLAG` is the test, in the function,
/// at a module's top level and imported into another module. `torch.distributed.pipelining`
/// exists from torch 2.4.0. A flag that may be true otherwise (set from a parameter first,
/// stored again after, set in a loop) guards nothing.
#[test]
fn a_flag_set_under_a_test_is_the_test() {
    let catalog = real_catalog();
    let dir = project(
        "set_flags",
        &[
            ("pkg/__init__.py", ""),
            (
                "pkg/utils.py",
                "import torch\nfrom packaging import version\n\nHAS_PIPE = False\nif version.parse(torch.__version__) >= version.parse(\"2.4.0\"):\n    HAS_PIPE = True\n\nif HAS_PIPE:\n    from torch.distributed.pipelining import pipeline\n",
            ),
            (
                "pkg/m.py",
                "import torch\nfrom pkg.utils import HAS_PIPE\n\n\ndef imported():\n    if HAS_PIPE:\n        return torch.distributed.pipelining.Schedule1F1B\n\n\ndef local():\n    use = False\n    n = 1\n    if hasattr(torch.distributed, \"pipelining\"):\n        use = True\n    if use:\n        return torch.distributed.pipelining.pipeline\n\n\ndef from_parameter(y):\n    use = y\n    if hasattr(torch.distributed, \"pipelining\"):\n        use = True\n    if use:\n        return torch.distributed.pipelining.pipeline\n\n\ndef stored_after(y):\n    use = False\n    if hasattr(torch.distributed, \"pipelining\"):\n        use = True\n    use = use or y\n    if use:\n        return torch.distributed.pipelining.pipeline\n\n\ndef in_a_loop(ys):\n    use = False\n    for y in ys:\n        if y:\n            use = True\n    if use:\n        return torch.distributed.pipelining.pipeline\n",
            ),
        ],
    );
    let report = run(catalog, &dir, &["torch==2.3.1", "torch==2.4.0"]);
    assert_eq!(
        brief(&report, &dir),
        [
            "pkg/m.py:24:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.1",
            "pkg/m.py:33:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.1",
            "pkg/m.py:42:16 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.1",
        ]
    );
}
