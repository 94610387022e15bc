//! One fixture per rule and per form of use, on the fake torch index (releases 1.13.0 - 2.5.0).

mod common;

use common::{brief, project, run, run_with};

fn check_source(name: &str, source: &str, targets: &[&str]) -> Vec<String> {
    let dir = project(name, &[("m.py", source)]);
    brief(&run(&dir, targets), &dir)
}

#[test]
fn ac001_import_forms() {
    let got = check_source(
        "imports",
        "\
import torch.distributed.pipelining
import torch.distributed.pipelining as pp
from torch.distributed.pipelining import *
from torch.distributed import pipelining
from . import sibling
from .pipelining import nothing_checked
import torch.nn
",
        &["torch==2.3.0"],
    );
    assert_eq!(
        got,
        [
            "m.py:1:8 AC001 error import-time torch.distributed.pipelining missing=2.3.0",
            "m.py:2:8 AC001 error import-time torch.distributed.pipelining missing=2.3.0",
            "m.py:3:42 AC001 error import-time torch.distributed.pipelining missing=2.3.0",
            "m.py:4:31 AC001 error import-time torch.distributed.pipelining missing=2.3.0",
        ]
    );
}

#[test]
fn ac002_attribute_chains_aliases_class_members_and_getattr() {
    let got = check_source(
        "attributes",
        "\
import torch
import torch.distributed as dist
from torch.distributed._tensor import DTensor
from torch.nn import Linear

torch.distributed.pipelining.Schedule1F1B
dist.all_gather_into_tensor
DTensor.from_local
DTensor.to_local
Linear.forward
Linear.no_such_method
getattr(dist, \"all_gather_into_tensor\")
getattr(dist, \"all_gather_into_tensor\", None)
mod = torch.distributed
mod.all_gather_into_tensor
torch.load('f').whatever
torch.nn.__dict__.items()
dist.__file__.endswith('x')
",
        &["torch==2.1.0"],
    );
    assert_eq!(
        got,
        [
            "m.py:6:1 AC002 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.1.0",
            "m.py:7:1 AC002 error import-time torch.distributed.all_gather_into_tensor missing=2.1.0",
            "m.py:9:1 AC002 error import-time torch.distributed._tensor.DTensor.to_local missing=2.1.0",
            "m.py:11:1 AC002 error import-time torch.nn.Linear.no_such_method missing=2.1.0",
            "m.py:12:1 AC002 error import-time torch.distributed.all_gather_into_tensor missing=2.1.0",
            "m.py:15:1 AC002 error import-time torch.distributed.all_gather_into_tensor missing=2.1.0",
        ]
    );
}

#[test]
fn ac003_keywords_against_signatures() {
    let got = check_source(
        "keywords",
        "\
import torch
from torch.nn import Linear
from torch.distributed._tensor import DTensor

torch.load('f', weights_only=True)
Linear(1, 2, device='cpu')
Linear(1, 2, bias=False)
Linear(1, 2, nonsense=1)
torch.compile_fn(model, anything=1)
DTensor.from_local(x, run_check=True)
",
        &["torch>=1.13,<2.1"],
    );
    assert_eq!(
        got,
        [
            "m.py:5:17 AC003 error import-time torch.load(weights_only=) missing=1.13.0 - 1.13.1",
            "m.py:6:14 AC003 error import-time torch.nn.Linear(device=) missing=1.13.0 - 1.13.1",
            "m.py:8:14 AC003 error import-time torch.nn.Linear(nonsense=) missing=1.13.0 - 2.0.1",
        ]
    );
}

#[test]
fn shadowing_type_checking_and_annotations() {
    let got = check_source(
        "scopes",
        "\
from __future__ import annotations
from typing import TYPE_CHECKING
import torch

if TYPE_CHECKING:
    from torch.distributed.pipelining import PipelineStage

def f(torch):
    return torch.distributed.pipelining

def g() -> torch.distributed.pipelining.PipelineStage:
    torch = object()
    return torch.nothing

def h():
    return torch.distributed.pipelining
",
        &["torch==2.3.0"],
    );
    assert_eq!(
        got,
        ["m.py:16:12 AC002 error call-time torch.distributed.pipelining missing=2.3.0"]
    );
}

#[test]
fn guards_try_hasattr_getattr_default_suppress() {
    let dir = project(
        "guards",
        &[(
            "m.py",
            "\
import contextlib
import torch

try:
    from torch.distributed.pipelining import pipeline
except (ImportError, RuntimeError):
    pipeline = None

if hasattr(torch.distributed, \"pipelining\"):
    torch.distributed.pipelining.pipeline

if not hasattr(torch.distributed, \"pipelining\"):
    pass
else:
    torch.distributed.pipelining.Schedule1F1B

x = getattr(torch.distributed, \"pipelining\", None)

with contextlib.suppress(ImportError):
    import torch.distributed.pipelining

def later():
    return pipeline.something
",
        )],
    );
    let report = run(&dir, &["torch==2.3.0"]);
    assert!(report.findings.is_empty(), "{:?}", brief(&report, &dir));
    // The use through `pipeline` is left to the finding on its import.
    assert_eq!(report.summary.guarded, 5);
    let shown = run_with(&dir, &["torch==2.3.0"], |o| o.show_guarded = true);
    assert!(shown
        .findings
        .iter()
        .all(|f| f.reach == apicompat_check::Reach::Guarded));
}

#[test]
fn version_checks_restrict_the_releases_of_a_branch() {
    let got = check_source(
        "versions",
        "\
import torch
from packaging import version
from packaging.version import Version

TORCH_VERSION = tuple(int(x) for x in torch.__version__.split('.')[:2])
IS_24 = version.parse(torch.__version__) >= Version('2.4')

if torch.__version__ >= '2.4':
    from torch.distributed.pipelining import pipeline
elif torch.__version__ >= '2.2':
    torch.distributed.all_gather_into_tensor
    from torch.distributed.pipelining import PipelineStage
else:
    from torch.distributed._tensor import Partial

if TORCH_VERSION >= (2, 5):
    from torch.utils.checkpoint import CheckpointPolicy

if IS_24:
    import torch.distributed.pipelining

if torch.__version__.startswith('2.5'):
    from torch.utils.checkpoint import CheckpointPolicy

x = torch.distributed.pipelining if version.parse(torch.__version__) >= version.parse('2.4.0') else None
",
        &["torch>=2.0"],
    );
    assert_eq!(
        got,
        [
            "m.py:12:46 AC001 error import-time torch.distributed.pipelining.PipelineStage missing=2.2.0 - 2.3.1",
            "m.py:14:43 AC001 error import-time torch.distributed._tensor.Partial missing=2.0.0 - 2.1.0",
        ]
    );
}

#[test]
fn list_versions_compare_like_tuples() {
    // ClassyVision's form (study 37, F-P): a list of the version's parts against a list
    // literal, as Python compares lists: the second import runs only from 2.4 on (it was
    // reported on 2.0.0 - 2.4.1 when the list was not read).
    let src = "\
import torch

def f():
    if [int(v) for v in torch.__version__.split('.')[:2]] >= [2, 5]:
        from torch.utils.checkpoint import CheckpointPolicy
    else:
        from torch.distributed._tensor import Partial
    if [int(v) for v in torch.__version__.split('.')[:2]] >= [2, 4]:
        from torch.utils.checkpoint import CheckpointPolicy
";
    assert_eq!(
        check_source("list-versions", src, &["torch>=2.0"]),
        [
            "m.py:7:47 AC001 error call-time torch.distributed._tensor.Partial missing=2.0.0 - 2.3.1",
            "m.py:9:44 AC001 error call-time torch.utils.checkpoint.CheckpointPolicy missing=2.4.0 - 2.4.1",
        ]
    );
}

#[test]
fn noqa_and_selection() {
    let dir = project(
        "noqa",
        &[
            (
                "m.py",
                "\
from torch.distributed.pipelining import pipeline  # noqa: AC001
from torch.distributed.pipelining import PipelineStage  # apicompat: ignore[AC001]
from torch.distributed.pipelining import Schedule1F1B  # noqa: AC002
from torch.distributed.pipelining import (  # noqa
    SplitPoint,
)
import numpy
",
            ),
            (
                "pyproject.toml",
                "[project]\nname='x'\nversion='1'\ndependencies=['torch>=2.3']\n\n[tool.apicompat]\nignore = ['AC004']\n",
            ),
        ],
    );
    let report = run(&dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        [
            "m.py:3:42 AC001 error import-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1",
            "pyproject.toml:4:16 AC008 error import-time torch>=2.3 missing=2.3.0 - 2.3.1",
        ]
    );
    assert_eq!(report.summary.suppressed, 3);
    let none = run_with(&dir, &[], |o| o.ignore = vec!["AC0".into()]);
    assert!(none.findings.is_empty());
    let only4 = run_with(&dir, &[], |o| o.select = vec!["AC004".into()]);
    assert!(only4.findings.is_empty(), "the config still ignores AC004");
}

#[test]
fn ac004_unindexed_package_once_stdlib_and_first_party_skipped() {
    let dir = project(
        "foreign",
        &[
            (
                "app/__init__.py",
                "import os, json\nimport numpy as np\nfrom app.util import x\n",
            ),
            ("app/util.py", "import numpy\nimport deepspeed.ops\nx = 1\n"),
            ("requirements.txt", "torch>=2.4\nDeepSpeed>=0.14\n"),
        ],
    );
    // By default one note, with the files importing each package.
    let report = run(&dir, &[]);
    assert!(brief(&report, &dir).is_empty());
    assert!(report.summary.notes.iter().any(|n| n.contains(
        "2 imported package(s) are not in the index, so their uses are not checked: numpy (2 files), deepspeed (1 file)"
    )), "{:?}", report.summary.notes);
    // Selected by name: once per package, on its first import.
    let report = run_with(&dir, &[], |o| o.select = vec!["AC004".into()]);
    assert_eq!(
        brief(&report, &dir),
        [
            "app/__init__.py:2:8 AC004 warning none numpy missing=",
            "app/util.py:2:8 AC004 warning none deepspeed missing=",
        ]
    );
    assert!(report.findings[1]
        .message
        .contains("apicompat index fetch deepspeed"));
    assert_eq!(report.exit_code(), 0);
}

#[test]
fn ac004_a_declared_package_named_like_a_nested_directory_is_the_package() {
    // RAGEN declares `vllm==0.6.3` and vendors shims under `verl/third_party/vllm/`: a
    // directory or file of that name below the top level does not make `import vllm` the
    // project's code (declared `flash-attn` and a nested `tools/flash_attn.py` alike). A
    // top-level package of a declared name (`deepspeed/`) is the project's, a nested
    // directory named like a package the project does not declare (`ray`) stays its own, and
    // so does one beside the script that imports it (xformers' `stubs/torch/`).
    let dir = project(
        "foreign_declared_nested",
        &[
            ("app/__init__.py", "import ray\nimport deepspeed\n"),
            ("app/third_party/__init__.py", ""),
            (
                "app/third_party/vllm/__init__.py",
                "from .shim import Sequence\n",
            ),
            (
                "app/third_party/vllm/shim.py",
                "from vllm.sequence import Sequence\n",
            ),
            ("app/third_party/ray/__init__.py", ""),
            ("app/tools/flash_attn.py", ""),
            ("app/attn.py", "import flash_attn\n"),
            ("deepspeed/__init__.py", ""),
            // A script beside a directory named like a declared, indexed package loads that
            // directory (`crate::local_imports`): no package the index lacks.
            ("stubs/torch/__init__.py", ""),
            ("stubs/check.py", "import torch\n"),
            (
                "requirements.txt",
                "torch>=2.4\nvllm==0.6.3\nflash-attn>=2.5\ndeepspeed\n",
            ),
        ],
    );
    let report = run_with(&dir, &[], |o| o.select = vec!["AC004".into()]);
    assert_eq!(
        brief(&report, &dir),
        [
            "app/attn.py:1:8 AC004 warning none flash_attn missing=",
            "app/third_party/vllm/shim.py:1:1 AC004 warning none vllm missing=",
        ]
    );
    let unindexed: Vec<_> = report
        .summary
        .unindexed
        .iter()
        .map(|u| {
            (
                u.import.as_str(),
                u.distribution.as_deref(),
                u.specifiers.join(","),
            )
        })
        .collect();
    assert_eq!(
        unindexed,
        [
            ("flash_attn", Some("flash-attn"), ">=2.5".to_string()),
            ("vllm", Some("vllm"), "==0.6.3".to_string()),
        ]
    );
}

#[test]
fn moved_objects_are_suggested_from_the_index() {
    // `torch.distributed.tensor` exists from 2.5.0; in 2.4.x the same classes are under
    // `torch.distributed._tensor`.
    let dir = project(
        "moved",
        &[("m.py", "from torch.distributed.tensor import Partial\n")],
    );
    let report = run(&dir, &["torch>=2.4,<2.5"]);
    let f = &report.findings[0];
    assert_eq!(f.missing_in, ["2.4.0", "2.4.1"]);
    let moved: Vec<_> = f
        .fixes
        .iter()
        .filter_map(|x| x.replacement.as_deref())
        .collect();
    assert_eq!(moved, ["torch.distributed._tensor.Partial"]);
}
