//! The acceptance fixtures of issue 3, on the fake torch index.

mod common;

use common::{brief, project, run, run_with};

const PARALLEL: &str = "\
from torch.distributed._tensor import Partial
from torch.distributed.pipelining import pipeline, PipelineStage


def checkpoint_policy():
    from torch.utils.checkpoint import CheckpointPolicy
    return CheckpointPolicy
";

#[test]
fn fixture_1_declared_range_is_checked_release_by_release() {
    let dir = project(
        "fixture1",
        &[
            (
                "mypkg/__init__.py",
                "from .parallel import checkpoint_policy\n",
            ),
            ("mypkg/parallel.py", PARALLEL),
            ("requirements.txt", "torch >= 2.3.0\n"),
        ],
    );
    let report = run(&dir, &[]);
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
    let f = &report.findings[0];
    assert_eq!(f.missing_in, ["2.3.0", "2.3.1"]);
    assert_eq!(f.present_in, ["2.4.0", "2.4.1", "2.5.0"]);
    assert_eq!(f.package, "torch");
    assert_eq!(
        f.message,
        "`torch.distributed._tensor.Partial` is not in torch 2.3.0, 2.3.1 (declared `torch >= 2.3.0`); it exists from 2.4.0"
    );
    assert!(f
        .fixes
        .iter()
        .any(|x| x.requirement.as_deref() == Some("torch>=2.4.0")));
    let p = &report.findings[1];
    assert!(
        p.message
            .contains("`torch.distributed.pipelining` does not exist there"),
        "{}",
        p.message
    );
    let c = &report.findings[3];
    assert_eq!(c.missing_in, ["2.3.0", "2.3.1", "2.4.0", "2.4.1"]);
    assert_eq!(c.present_in, ["2.5.0"]);
    // AC008 on the declaration: the pin admits releases that break.
    let pin = &report.findings[4];
    assert_eq!(pin.code, "AC008");
    assert_eq!(pin.fixes[0].requirement.as_deref(), Some("torch>=2.5"));
    assert_eq!(report.summary.errors, 5);
    assert_eq!(report.exit_code(), 1);
    assert_eq!(report.summary.targets.len(), 1);
    assert_eq!(
        report.summary.targets[0].releases,
        ["2.3.0", "2.3.1", "2.4.0", "2.4.1", "2.5.0"]
    );

    let pinned = run(&dir, &["torch==2.5.0"]);
    assert!(pinned.findings.is_empty(), "{:?}", brief(&pinned, &dir));
    assert_eq!(pinned.exit_code(), 0);
}

#[test]
fn fixture_2_module_imported_by_the_entry_point() {
    let dir = project(
        "fixture2",
        &[
            ("train.py", "from model import build\n\nif __name__ == '__main__':\n    build()\n"),
            (
                "model.py",
                "from torch.distributed._functional_collectives import all_gather_tensor\n\n\ndef build():\n    return all_gather_tensor\n",
            ),
            ("pyproject.toml", "[project]\nname = 'train'\nversion = '0.1'\ndependencies = ['torch>=1.13']\n"),
        ],
    );
    let report = run(&dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        [
            "model.py:1:55 AC001 error import-time torch.distributed._functional_collectives.all_gather_tensor missing=1.13.0 - 2.0.1",
            "pyproject.toml:4:18 AC008 error import-time torch>=1.13 missing=1.13.0 - 2.0.1",
        ]
    );
    assert_eq!(
        report.findings[0].missing_in,
        ["1.13.0", "1.13.1", "2.0.0", "2.0.1"]
    );
}

#[test]
fn fixture_3_guarded_import_is_no_error() {
    let dir = project(
        "fixture3",
        &[
            (
                "model.py",
                "try:\n    from torch.distributed._functional_collectives import all_gather_tensor\nexcept ImportError:\n    all_gather_tensor = None\n",
            ),
            ("requirements.txt", "torch>=1.13\n"),
        ],
    );
    let report = run(&dir, &[]);
    assert!(report.findings.is_empty(), "{:?}", brief(&report, &dir));
    assert_eq!(report.summary.guarded, 1);
    assert_eq!(report.exit_code(), 0);
    let shown = run_with(&dir, &[], |o| o.show_guarded = true);
    assert_eq!(
        brief(&shown, &dir),
        ["model.py:2:59 AC001 info guarded torch.distributed._functional_collectives.all_gather_tensor missing=1.13.0 - 2.0.1"]
    );
}
