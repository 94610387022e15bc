//! pytest's version gates: a `conftest.py` that adds test files to `collect_ignore_glob` or
//! `collect_ignore` under a version test (AReaL, study 25's F-A), and
//! `pytest.importorskip(pkg, minversion=)`; a version compared with a name bound to a tuple.

use super::check_files;

const CONFTEST: &str = "\
import torch

_TORCH_VERSION = tuple(int(x) for x in torch.__version__.split(\"+\")[0].split(\".\")[:3])
_MIN_TORCH_VERSION = (2, 4, 0)

collect_ignore_glob = []
collect_ignore = []
if _TORCH_VERSION < _MIN_TORCH_VERSION:
    collect_ignore_glob.append(\"test_pipe*.py\")
    collect_ignore += [\"legacy\"]
";

const PIPE_TEST: &str = "\
import torch
from torch.distributed.pipelining import pipeline


def test_pipeline():
    assert torch.distributed.pipelining.Schedule1F1B
";

#[test]
fn files_a_conftest_ignores_under_a_version_test_are_not_imported_there() {
    let got = check_files(
        "pytest_conftest_gate",
        &[
            ("tests/conftest.py", CONFTEST),
            // Matched by the glob, and by the path of a directory: never imported below 2.4.
            ("tests/test_pipe_a.py", PIPE_TEST),
            ("tests/legacy/test_old.py", PIPE_TEST),
            // Not matched (the glob does not cross into `sub/`, `*` only within the name here).
            ("tests/test_other.py", PIPE_TEST),
            ("tests/sub/test_pipe_b.py", PIPE_TEST),
            // Outside the conftest's directory.
            ("test_pipe_top.py", PIPE_TEST),
        ],
        &["torch>=2.3.0"],
    );
    let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
    let files: Vec<&str> = errors
        .iter()
        .map(|f| f.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        files,
        [
            "test_pipe_top.py",
            "tests/sub/test_pipe_b.py",
            "tests/test_other.py",
        ],
        "{got:?}"
    );
}

#[test]
fn an_unconditional_or_mixed_gate_says_nothing() {
    // Added without a version test: not a version gate (the file is never collected, which
    // is no statement on releases); a test of two packages cannot be told per package.
    let conftest = "\
import sys
import torch

collect_ignore_glob = [\"test_pipe*.py\"]
if torch.__version__ < \"2.4\" and sys.version_info < (3, 10):
    collect_ignore_glob.append(\"test_other*.py\")
";
    let got = check_files(
        "pytest_conftest_ungated",
        &[
            ("tests/conftest.py", conftest),
            ("tests/test_pipe_a.py", PIPE_TEST),
            ("tests/test_other_a.py", PIPE_TEST),
        ],
        &["torch>=2.3.0"],
    );
    let errors = got.iter().filter(|f| f.contains(" error ")).count();
    assert_eq!(errors, 2, "{got:?}");
}

#[test]
fn importorskip_with_a_minimum_version_guards_the_rest_of_the_module() {
    let test = "\
import pytest

torch = pytest.importorskip(\"torch\", minversion=\"2.4.0\")
from torch.distributed.pipelining import pipeline


def test_pipeline():
    assert pipeline
";
    let below = test.replace("2.4.0", "2.3.0");
    let got = check_files(
        "pytest_importorskip",
        &[("test_pipe.py", test), ("test_low.py", &below)],
        &["torch>=2.3.0"],
    );
    let errors: Vec<&String> = got.iter().filter(|f| f.contains(" error ")).collect();
    assert_eq!(errors.len(), 1, "{got:?}");
    assert!(errors[0].starts_with("test_low.py:4:"), "{got:?}");
}
