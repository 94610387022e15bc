//! A tree that holds other projects (`subprojects.rs`): a directory with declarations that
//! bound a package differently is checked against them, completed by the root's; the root
//! project's packages are read with it (fake torch index: `pipelining` exists from 2.4.0).

mod common;

use common::{brief, project, run_with};

const USE: &str =
    "import torch\n\n\ndef build():\n    return torch.distributed.pipelining.pipeline\n";

#[test]
fn sub_projects_are_checked_against_their_own_bounds() {
    let helper_use = "import torch\nfrom mypkg import has_pipelining\n\n\ndef build():\n    if has_pipelining():\n        return torch.distributed.pipelining.pipeline\n";
    let dir = project(
        "subprojects",
        &[
            ("requirements.txt", "torch>=2.3.0\n"),
            (
                "mypkg/__init__.py",
                "import torch\n\n\ndef has_pipelining():\n    return torch.__version__ >= \"2.4\"\n",
            ),
            ("mypkg/train.py", USE),
            // Bounds torch itself: checked on 2.4.0+ only.
            ("newer/requirements.txt", "torch>=2.4.0\nnumpy\n"),
            ("newer/run.py", USE),
            // A bare `torch`: the root's bound stays, nothing is split off.
            ("bare/requirements.txt", "torch\n"),
            ("bare/run.py", USE),
            // Its own bound, and a guard from the root's package (read with it).
            ("guarded/requirements.txt", "torch>=2.0.0\n"),
            ("guarded/run.py", helper_use),
            ("guarded/plain.py", USE),
        ],
    );
    let report = run_with(&dir, &[], |o| o.project = None);
    let mut got = brief(&report, &dir);
    got.retain(|f| !f.contains("AC008"));
    assert_eq!(
        got,
        [
            "bare/run.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
            "guarded/plain.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.0.0 - 2.3.1",
            "mypkg/train.py:5:12 AC002 error call-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
        ]
    );
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains("`newer` has declarations of its own"),
        "{notes}"
    );
    assert!(
        notes.contains("`guarded` has declarations of its own: its 2 file(s)"),
        "{notes}"
    );
    assert!(!notes.contains("`bare` has declarations"), "{notes}");
    // Given explicitly, the project is one.
    let report = run_with(&dir, &[], |_| {});
    assert!(brief(&report, &dir)
        .iter()
        .any(|f| f.starts_with("newer/run.py")));
}
