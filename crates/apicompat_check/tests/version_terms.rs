//! Version tests computed from one component of the version string, evaluated per release
//! (`docs/false-alarm-study-17.md`, F-C: GroundingDINO's `float(torchvision.__version__
//! .split(".")[1]) < 7`), on the fake torch index (releases 1.13.0 - 2.5.0; `pipelining`
//! exists from 2.4.0).

mod common;

use common::{brief, project, run};

fn check(name: &str, source: &str) -> Vec<String> {
    let dir = project(name, &[("m.py", source)]);
    brief(&run(&dir, &["torch>=1.13"]), &dir)
}

#[test]
fn a_test_of_the_minor_component_is_exact_on_each_release() {
    let got = check(
        "minor_component",
        "\
import torch

_OLD = float(torch.__version__.split(\".\")[1]) < 4

def f():
    if not _OLD and torch.__version__.split(\".\")[0] == \"2\":
        torch.distributed.pipelining.pipeline
    if _OLD:
        torch.distributed.pipelining.Schedule1F1B
",
    );
    // `not _OLD` holds on 1.13 (13 >= 4) and 2.4 - 2.5; with the major `"2"`, on 2.4 - 2.5
    // only. `_OLD` holds on 2.0 - 2.3 (not on 1.13, whose minor is 13).
    assert_eq!(
        got,
        ["m.py:9:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.0.0 - 2.3.1"]
    );
}

#[test]
fn an_item_of_the_split_version_is_not_the_version() {
    let got = check(
        "split_item",
        "\
import torch

TV = torch.__version__.split(\".\")
MAJOR = int(torch.__version__.split(\".\")[0])

def f():
    if TV[0] == \"2\":
        torch.distributed.pipelining.pipeline
    if MAJOR < 2:
        torch.distributed.pipelining.Schedule1F1B
",
    );
    // Read as the version `2` (only 2.0.0), the first test would hide 2.0.1 - 2.3.1.
    assert_eq!(
        got,
        [
            "m.py:8:9 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.0.0 - 2.3.1",
            "m.py:10:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=1.13.0 - 1.13.1",
        ]
    );
}

#[test]
fn fields_of_a_parsed_version_and_unknown_results() {
    let got = check(
        "parsed_fields",
        "\
import torch
from packaging import version

def f():
    v = version.parse(torch.__version__)
    if v.major == 2 and v.minor >= 4:
        torch.distributed.pipelining.pipeline
    # `int(\"0+cu121\")` raises on Linux wheels: unknown, so not a guard.
    if int(torch.__version__.split(\".\")[2]) >= 9:
        torch.distributed.pipelining.Schedule1F1B
",
    );
    assert_eq!(
        got,
        ["m.py:10:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=1.13.0 - 2.3.1"]
    );
}

/// Components unpacked from the split version (MoE-LLaVA: `a, b, c =
/// transformers.__version__.split('.')[:3]`; `if a == '4' and int(b) <= 31:`, study 25's F-G).
#[test]
fn components_unpacked_from_the_split_version() {
    let got = check(
        "unpacked_components",
        "\
import torch

major, minor, _patch = torch.__version__.split(\".\")[:3]

def f():
    if major == \"2\" and int(minor) >= 4:
        torch.distributed.pipelining.pipeline
    if major == \"2\" and int(minor) >= 3:
        torch.distributed.pipelining.Schedule1F1B
",
    );
    assert_eq!(
        got,
        ["m.py:9:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=2.3.0 - 2.3.1"]
    );
}

/// D-FINE's `if "0.15.2" in importlib.metadata.version("torchvision"):` before the import each
/// release needs (`docs/false-alarm-study-52.md`, F-1): the branch runs on the releases whose
/// version text holds the string, the `else` on the others; `not in` the other way round.
#[test]
fn a_substring_of_the_version_tests_each_release() {
    let got = check(
        "version_substring",
        "\
import importlib.metadata

import torch

if \"2.4\" in importlib.metadata.version(\"torch\"):
    from torch.distributed.pipelining import pipeline
else:
    pipeline = None

def f():
    if \"2.5\" not in torch.__version__:
        torch.distributed.pipelining.Schedule1F1B
    if \"2.3\" in torch.__version__:
        torch.distributed.pipelining.PipelineStage
",
    );
    let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
    assert_eq!(
        errors,
        [
            "m.py:12:9 AC002 error call-time torch.distributed.pipelining.Schedule1F1B missing=1.13.0 - 2.3.1",
            "m.py:14:9 AC002 error call-time torch.distributed.pipelining.PipelineStage missing=2.3.0 - 2.3.1",
        ],
        "{got:?}"
    );
}
