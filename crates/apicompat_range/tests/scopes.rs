//! Issue 14's `range` items against the real indexes embedded in the CLI: the package apart
//! from its tests, the fewest uses that block, requires-python bounded by the releases' own
//! Requires-Python, and the pin of a removed name.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use apicompat_check::{check, Options};
use apicompat_index::Catalog;
use apicompat_range::{range, RangeOptions, RangeReport};

mod common;

/// The indexes embedded in the CLI (committed with the repository: a missing one fails).
fn real_catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let names = ["torch", "torchvision", "numpy", "python"];
        common::embedded_catalog(&names, &names)
    })
}

fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::project("range-scopes", name, files)
}

fn run(dir: &Path) -> RangeReport {
    range(
        real_catalog(),
        &RangeOptions {
            paths: vec![dir.to_path_buf()],
            project: Some(dir.to_path_buf()),
            ..RangeOptions::default()
        },
    )
    .expect("range runs")
}

const PYPROJECT: &str = r#"[project]
name = "mypkg"
version = "0.1"
dependencies = ["torch>=2.4"]

[build-system]
requires = ["setuptools>=61.0"]
build-backend = "setuptools.build_meta"

[tool.setuptools.packages.find]
include = ["mypkg*"]
"#;

/// The shape of torchtitan 69c9bb27b (July 2024): the package needs torch 2.5 (selective
/// checkpointing), a test imports `CommDebugMode` from `torch.distributed._tensor.debug`,
/// which torch 2.5.0 dropped (a class of that name is in `torch.distributed.tensor.debug`
/// from 2.5.0, defined elsewhere).
#[test]
fn the_package_is_recommended_and_the_test_line_named_apart() {
    let dir = project(
        "titan-shape",
        &[
            ("pyproject.toml", PYPROJECT),
            ("mypkg/__init__.py", ""),
            (
                "mypkg/train.py",
                "from torch.utils.checkpoint import CheckpointPolicy\n",
            ),
            (
                "test/test_fused_rms_norm.py",
                "import torch\nfrom torch.distributed._tensor.debug import CommDebugMode\n",
            ),
            // Not shipped, not a named scope.
            ("tools/convert.py", "import torch\nx = torch.zeros(1)\n"),
        ],
    );
    let report = run(&dir);
    assert_eq!(report.main_scope, "package");
    assert!(report.package_source.contains("packages.find"));
    let torch = report
        .packages
        .iter()
        .find(|p| p.package == "torch")
        .expect("torch");
    let last = torch.releases.last().cloned().unwrap_or_default();
    // The package alone: the checkpoint policy exists from 2.5.0.
    assert_eq!(torch.needs.ranges, [format!("2.5.0 - {last}")]);
    assert!(report.recommended.iter().any(|r| r == "torch>=2.5"));
    // The tests need torch < 2.5.0, because of test/test_fused_rms_norm.py:2, named apart.
    let tests = torch
        .scopes
        .iter()
        .find(|s| s.scope == "tests")
        .expect("a tests scope");
    assert!(tests.narrower);
    assert_eq!(tests.needs.ranges, ["2.2.0 - 2.4.1"]);
    // The bound that cuts into the package's releases comes first.
    let upper = &tests.bounds[0];
    assert_eq!((upper.kind, upper.version.as_str()), ("upper", "2.5.0"));
    assert_eq!(upper.uses[0].location(), "test/test_fused_rms_norm.py:2");
    // The index has no same object for it in 2.5.0: a class of the same name, said so.
    assert_eq!(tests.fixes.len(), 1, "{:?}", tests.fixes);
    assert!(
        tests.fixes[0].contains(
            "a different definition of the same name is `torch.distributed.tensor.debug.CommDebugMode` in torch 2.5.0"
        ),
        "{}",
        tests.fixes[0]
    );
    assert!(!tests.fixes[0].contains("the same object in"));
    // `tools/` is a named scope (scripts) that needs nothing more.
    assert!(torch
        .scopes
        .iter()
        .any(|s| s.scope == "scripts" && !s.narrower));
    let text = apicompat_range::render::range_text(&report, false, false);
    assert!(
        text.contains("tests need torch 2.2.0 - 2.4.1 (< 2.5.0 because of test/test_fused_rms_norm.py:2); the package needs 2.5.0 - "),
        "{text}"
    );
}

/// Without packaging metadata the main scope is the whole project but its named scopes.
#[test]
fn a_project_without_packaging_is_one_scope_but_its_tests() {
    let dir = project(
        "no-packaging",
        &[
            (
                "train.py",
                "from torch.distributed.pipelining import pipeline\n",
            ),
            ("test_train.py", "from torch.distributed._spmd import api\n"),
        ],
    );
    let report = run(&dir);
    assert_eq!(report.main_scope, "project");
    let torch = &report.packages[0];
    assert_eq!(torch.uses.counted, 1);
    assert_eq!(torch.scopes.len(), 1);
    assert_eq!(torch.scopes[0].scope, "tests");
}

/// A package used only by the tests is not recommended.
#[test]
fn a_package_only_the_tests_use_is_not_recommended() {
    let dir = project(
        "tests-only",
        &[
            ("pyproject.toml", PYPROJECT),
            ("mypkg/__init__.py", "import torch\n"),
            ("tests/test_vision.py", "import torchvision\n"),
        ],
    );
    let report = run(&dir);
    let tv = report
        .packages
        .iter()
        .find(|p| p.package == "torchvision")
        .expect("torchvision is surveyed");
    assert!(!tv.in_main);
    assert!(!report
        .recommended
        .iter()
        .any(|r| r.starts_with("torchvision")));
}

/// Two uses whose releases never meet: the fewest to fix (one), its fix, and the answer
/// once it is fixed.
#[test]
fn no_release_names_the_blocking_use_and_the_answer_once_fixed() {
    let dir = project(
        "blocking",
        &[(
            "train.py",
            "from torch.distributed._spmd import api\nfrom torch.cuda._annotate_cuda_graph_trace import annotate_trace\n",
        )],
    );
    let report = run(&dir);
    let torch = &report.packages[0];
    assert!(torch.needs.is_empty());
    let b = torch.blocking.as_ref().expect("a blocking set");
    assert_eq!(b.uses.len(), 1, "{:?}", b.uses);
    // The newest release with the fewest blockers: the older private module goes.
    assert_eq!(b.uses[0].at.symbol, "torch.distributed._spmd.api");
    assert!(b.uses[0].fix.contains("ImportError"), "{}", b.uses[0].fix);
    assert_eq!(b.then.ranges, ["2.12.0 - 2.14.1"]);
    assert!(!report.joint.possible);
    let after = report
        .joint_after_fixes
        .as_ref()
        .expect("answer once fixed");
    assert!(after.possible);
    assert!(report
        .recommended_after_fixes
        .iter()
        .any(|r| r == "torch>=2.12,<2.15"));
}

/// `requires-python = ">=3.6"`: no indexed torch supports 3.6, so the answer is for the
/// oldest Python the project admits that the releases support.
#[test]
fn an_old_requires_python_still_gets_an_answer() {
    let dir = project(
        "py36",
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"old\"\nversion = \"1\"\nrequires-python = \">=3.6\"\n",
            ),
            ("old/__init__.py", "import torch\ntorch.compile\n"),
        ],
    );
    let report = run(&dir);
    assert!(report.joint.possible, "{:?}", report.joint.conflicts);
    assert!(report.joint.exact);
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.contains("supports Python 3.6")),
        "{:?}",
        report.notes
    );
    assert!(report
        .recommended
        .iter()
        .any(|r| r.starts_with("torch>=2.")));
}

/// A removed name's pin is capped below the release that removed it, not below the first
/// targeted release (`numpy.float` is gone from 1.24.0; the targets start at 1.26.4).
#[test]
fn the_pin_of_a_removed_name_caps_at_its_removal() {
    let dir = project(
        "pin",
        &[
            ("requirements.txt", "numpy>=1.26.4\n"),
            ("run.py", "import numpy as np\nx = np.float(1)\n"),
        ],
    );
    let checked = check(
        real_catalog(),
        &Options {
            paths: vec![dir.clone()],
            project: Some(dir.clone()),
            ..Options::default()
        },
    )
    .expect("check runs");
    let f = checked
        .findings
        .iter()
        .find(|f| f.symbol == "numpy.float")
        .expect("numpy.float is reported");
    let pins: Vec<&str> = f
        .fixes
        .iter()
        .filter_map(|x| x.requirement.as_deref())
        .collect();
    assert_eq!(pins, ["numpy<1.24.0"], "{:?}", f.fixes);
}

/// "The same object" only where the index links the definitions: `torch.compile` (absent in
/// 1.13) is not offered `NvFuserBackend.compile` (a method); FSDP2's `fully_shard` is, in 2.5.0,
/// the same object as `torch.distributed._composable.fsdp.fully_shard` (the package's attribute,
/// which its `__init__` binds to the function over the submodule of that name), never FSDP1's
/// `torch.distributed._composable.fully_shard.fully_shard`.
#[test]
fn moved_fixes_name_the_same_object_only() {
    let dir = project(
        "same-object",
        &[(
            "t.py",
            "import torch\nm = torch.compile(None)\nfrom torch.distributed.fsdp import fully_shard\n",
        )],
    );
    let checked = check(
        real_catalog(),
        &Options {
            paths: vec![dir.clone()],
            project: Some(dir.clone()),
            targets: vec!["torch==1.13.1".into(), "torch==2.5.0".into()],
            ..Options::default()
        },
    )
    .expect("check runs");
    let fixes = |symbol: &str| {
        checked
            .findings
            .iter()
            .find(|f| f.symbol == symbol)
            .unwrap_or_else(|| panic!("{symbol} is reported"))
            .fixes
            .clone()
    };
    let compile = fixes("torch.compile");
    assert!(
        compile
            .iter()
            .all(|x| !x.message.contains("NvFuserBackend")),
        "{compile:?}"
    );
    let shard = fixes("torch.distributed.fsdp.fully_shard");
    assert!(
        shard
            .iter()
            .all(|x| !x.message.contains("_composable.fully_shard.fully_shard")),
        "{shard:?}"
    );
    let same: Vec<_> = shard
        .iter()
        .filter(|x| x.message.contains("the same object is"))
        .collect();
    assert_eq!(same.len(), 1, "{shard:?}");
    assert_eq!(
        same[0].replacement.as_deref(),
        Some("torch.distributed._composable.fsdp.fully_shard")
    );
}
