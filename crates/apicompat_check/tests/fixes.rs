//! The edits of each fix kind, on the real torch index (`crates/apicompat/index/torch.apix`;
//! skipped, with a message, where it is absent), as insta snapshots of the unified diff
//! `check --diff --unsafe-fixes` prints. Applicability, overlaps and refusals are asserted.

mod common;

use std::path::Path;

use apicompat_check::fix::{apply_edits, plan, unified_diff};
use apicompat_check::{Applicability, Edit, Report};
use common::project;

fn real() -> &'static apicompat_index::Catalog {
    common::real_catalog(&["torch"])
}

fn run(dir: &Path, targets: &[&str]) -> Report {
    common::run_on(real(), dir, targets, |_| {})
}

/// The diff of every file with fixes, paths relative to the project.
fn diff(report: &Report, dir: &Path, unsafe_fixes: bool) -> String {
    plan(report, unsafe_fixes)
        .iter()
        .map(|o| {
            assert!(o.refused.is_none(), "{:?}", o.refused);
            let mut o = o.clone();
            o.path = o.path.strip_prefix(dir).unwrap_or(&o.path).to_path_buf();
            unified_diff(&o)
        })
        .collect()
}

fn applicabilities(report: &Report) -> Vec<(String, Option<Applicability>)> {
    report
        .findings
        .iter()
        .map(|f| (f.symbol.clone(), f.fix.as_ref().map(|x| x.applicability)))
        .collect()
}

#[test]
fn safe_rewrite_keeps_alias_and_comment() {
    let dir = project(
        "fix-safe",
        &[(
            "m.py",
            "import os\nfrom torch.optim.adamw import Optimizer as Opt  # base class\n",
        )],
    );
    let report = run(&dir, &["torch>=2.3"]);
    assert_eq!(
        applicabilities(&report),
        [(
            "torch.optim.adamw.Optimizer".to_string(),
            Some(Applicability::Safe)
        )]
    );
    insta::assert_snapshot!(diff(&report, &dir, false));
}

#[test]
fn safe_rewrite_of_one_name_among_others() {
    let dir = project(
        "fix-safe-split",
        &[(
            "m.py",
            "def f():\n    from torch.optim.adamw import AdamW, Optimizer\n    return AdamW, Optimizer\n",
        )],
    );
    let report = run(&dir, &["torch>=2.3"]);
    insta::assert_snapshot!(diff(&report, &dir, false));
}

#[test]
fn fallback_import_names_the_boundary_release() {
    let dir = project(
        "fix-fallback",
        &[(
            "m.py",
            "if True:\n    from torch.distributed.tensor import DTensor  # noqa: F401\n",
        )],
    );
    let report = run(&dir, &["torch>=2.3"]);
    assert_eq!(
        applicabilities(&report),
        [(
            "torch.distributed.tensor.DTensor".to_string(),
            Some(Applicability::Unsafe)
        )]
    );
    // Unsafe: not in a safe-only diff.
    assert_eq!(diff(&report, &dir, false), "");
    insta::assert_snapshot!(diff(&report, &dir, true));
}

#[test]
fn fallback_of_one_name_among_others() {
    let dir = project(
        "fix-fallback-split",
        &[(
            "m.py",
            "from torch.distributed.tensor import DTensor, Shard\n",
        )],
    );
    let report = run(&dir, &["torch>=2.3"]);
    // Both names have a fix, on the same statement: the second waits for the next round.
    let outcomes = plan(&report, true);
    assert_eq!(outcomes[0].applied, 1, "{outcomes:?}");
    assert_eq!(outcomes[0].deferred, 1, "{outcomes:?}");
    insta::assert_snapshot!(diff(&report, &dir, true));
}

#[test]
fn requirement_files_keep_comments_and_formatting() {
    let code =
        "def run():\n    from torch.distributed.pipelining import pipeline\n    return pipeline\n";
    for (name, file, text) in [
        (
            "fix-req-txt",
            "requirements.txt",
            "# training\nnumpy\ntorch >= 2.3, < 3  # CUDA 12 wheels\n",
        ),
        (
            "fix-req-pyproject",
            "pyproject.toml",
            "[project]\nname = \"p\"\nversion = \"0\"\ndependencies = [\n    \"numpy\",\n    'torch[opt-einsum]>=2.3; python_version >= \"3.9\"',  # pinned by CI\n]\n",
        ),
        (
            "fix-req-setup-cfg",
            "setup.cfg",
            "[metadata]\nname = p\n\n[options]\ninstall_requires =\n    numpy\n    torch>=2.3\n",
        ),
    ] {
        let dir = project(name, &[("m.py", code), (file, text)]);
        let report = run(&dir, &[]);
        let ac008 = report
            .findings
            .iter()
            .find(|f| f.code == "AC008")
            .expect("AC008");
        assert_eq!(
            ac008.fix.as_ref().map(|x| x.applicability),
            Some(Applicability::Unsafe)
        );
        insta::assert_snapshot!(name, diff(&report, &dir, true));
    }
}

fn e(start: usize, end: usize, content: &str) -> Edit {
    Edit {
        start,
        end,
        content: content.to_string(),
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 1,
    }
}

#[test]
fn overlapping_edits_are_resolved_by_position_then_order() {
    let text = "abcdef";
    let (a, b, c) = ([e(0, 2, "X")], [e(1, 3, "Y")], [e(4, 4, "Z")]);
    // `b` overlaps `a`, which starts first: `b` waits, whatever the order given.
    for fixes in [vec![&a[..], &b[..], &c[..]], vec![&c[..], &b[..], &a[..]]] {
        assert_eq!(apply_edits(text, &fixes), ("XcdZef".to_string(), 2, 1));
    }
    // Two insertions at one place have no order: the second waits.
    let (d, f) = ([e(2, 2, "1")], [e(2, 2, "2")]);
    assert_eq!(apply_edits(text, &[&d, &f]), ("ab1cdef".to_string(), 1, 1));
}

#[test]
fn an_edit_that_does_not_parse_is_refused() {
    let dir = project(
        "fix-refused",
        &[("m.py", "from torch.optim.adamw import Optimizer\n")],
    );
    let mut report = run(&dir, &["torch>=2.3"]);
    let fix = report.findings[0].fix.as_mut().expect("a fix");
    fix.edits[0].content = "torch.optim import".to_string();
    let outcomes = plan(&report, false);
    assert_eq!(outcomes.len(), 1);
    let o = &outcomes[0];
    assert!(
        o.refused
            .as_deref()
            .is_some_and(|r| r.contains("would not parse")),
        "{o:?}"
    );
    assert_eq!(o.fixed, o.original);
    assert_eq!(o.applied, 0);
}

/// The pin fix of a finding, as printed.
fn pin_advice(report: &Report, symbol: &str) -> String {
    let f = report
        .findings
        .iter()
        .find(|f| f.symbol == symbol)
        .unwrap_or_else(|| panic!("no finding for {symbol}: {:#?}", report.findings));
    f.fixes
        .iter()
        .find(|x| x.kind == apicompat_check::FixKind::Pin)
        .map(|x| format!("{} | {:?}", x.message, x.requirement))
        .unwrap_or_default()
        .replace(
            &format!("{}/", f.path.parent().unwrap_or(Path::new("")).display()),
            "",
        )
}

#[test]
fn a_pin_that_breaks_another_use_is_not_advised() {
    // `torch._six` is gone from 2.0.0 (pin `torch<2.0.0`); `torch.compile` comes in 2.0.0.
    let both = "import torch\nimport torch._six\n\ndef f(m):\n    return torch.compile(m)\n";
    let dir = project("pin-conflict", &[("m.py", both)]);
    // Within the targets: each pin would leave the other use on no working release.
    let report = run(&dir, &["torch>=1.13"]);
    assert_eq!(
        pin_advice(&report, "torch._six"),
        "no requirement fixes it alone: `torch<2.0.0` would break `torch.compile` (m.py:5), which is missing from every targeted release it admits | None"
    );
    assert_eq!(
        pin_advice(&report, "torch.compile"),
        "no requirement fixes it alone: `torch>=2.0.0` would break `torch._six` (m.py:2), which is missing from every targeted release it admits | None"
    );
    // Outside the targets: `torch<2.0.0` contradicts `>=2.3`, where `torch.compile` works.
    let report = run(&dir, &["torch>=2.3"]);
    let advice = pin_advice(&report, "torch._six");
    assert!(
        advice.starts_with("no requirement fixes it alone: `torch<2.0.0` would break `torch.compile` (m.py:5), which breaks on none of the targeted releases"),
        "{advice}"
    );
    assert!(
        advice.contains("missing from torch 1.13.0 - 1.13.1"),
        "{advice}"
    );
    // Alone, the pin stays.
    let dir = project("pin-alone", &[("m.py", "import torch._six\n")]);
    let report = run(&dir, &["torch>=2.3"]);
    assert_eq!(
        pin_advice(&report, "torch._six"),
        "require `torch<2.0.0` | Some(\"torch<2.0.0\")"
    );
}
