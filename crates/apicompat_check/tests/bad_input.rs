//! Broken input: clear findings or notes, no panic, the rest still checked.

mod common;

use common::{brief, project, run, run_with};

#[test]
fn syntax_errors_are_findings_and_the_rest_is_checked() {
    let dir = project(
        "syntax",
        &[
            (
                "broken.py",
                "import torch\ndef f(:\n    pass\nfrom torch.distributed.pipelining import pipeline\n",
            ),
            ("ok.py", "from torch.distributed.pipelining import PipelineStage\n"),
        ],
    );
    let got = brief(&run(&dir, &["torch==2.3.0"]), &dir);
    assert_eq!(got[0], "broken.py:2:7 AC005 error none  missing=");
    assert!(got.iter().any(|l| l.starts_with(
        "broken.py:4:42 AC001 error import-time torch.distributed.pipelining.pipeline"
    )));
    assert!(got
        .iter()
        .any(|l| l.starts_with("ok.py:1:42 AC001 error import-time")));
}

#[test]
fn invalid_utf8_is_read_with_replacement_characters() {
    let dir = project("utf8", &[]);
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = b"s = '\xff\xfe'\nfrom torch.distributed.pipelining import pipeline\n".to_vec();
    bytes.extend(b"\n");
    std::fs::write(dir.join("latin.py"), bytes).unwrap();
    let got = brief(&run(&dir, &["torch==2.3.0"]), &dir);
    assert_eq!(
        got,
        [
            "latin.py:1:6 AC007 warning none  missing=",
            "latin.py:2:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
}

#[test]
fn deep_nesting_does_not_overflow() {
    let deep_parens = format!("x = {}1{}\n", "(".repeat(10_000), ")".repeat(10_000));
    let deep_lists = format!("y = {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
    let deep_calls = format!(
        "import torch\nz = {}0{}\n",
        "torch.f(".repeat(10_000),
        ")".repeat(10_000)
    );
    let mut deep_ifs = String::new();
    for i in 0..1_000 {
        deep_ifs.push_str(&" ".repeat(i));
        deep_ifs.push_str("if x:\n");
    }
    deep_ifs.push_str(&" ".repeat(1_000));
    deep_ifs.push_str("pass\n");
    // Read before the walk too (`syspath.rs`: a script that names `sys.path`).
    let deep_syspath = format!("import sys\nsys.path.insert(0, \"lib\")\n{deep_parens}");
    let dir = project(
        "deep",
        &[
            ("syspath.py", &deep_syspath),
            ("parens.py", &deep_parens),
            ("lists.py", &deep_lists),
            ("calls.py", &deep_calls),
            ("ifs.py", &deep_ifs),
            (
                "ok.py",
                "from torch.distributed.pipelining import pipeline\n",
            ),
        ],
    );
    let report = run(&dir, &["torch==2.3.0"]);
    let got = brief(&report, &dir);
    assert!(
        got.iter().any(|l| l.starts_with("ok.py:1:42 AC001")),
        "{got:?}"
    );
    assert_eq!(report.summary.files, 6);
    assert!(
        got.iter()
            .any(|l| l.starts_with("calls.py:") && l.contains(" AC007 warning")),
        "{got:?}"
    );
}

#[test]
fn missing_path_is_an_io_failure_and_the_rest_is_checked() {
    let dir = project(
        "missing",
        &[(
            "ok.py",
            "from torch.distributed.pipelining import pipeline\n",
        )],
    );
    let report = run_with(&dir, &["torch==2.3.0"], |o| {
        o.paths.push(dir.join("no_such_dir"));
    });
    let got = brief(&report, &dir);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].starts_with("no_such_dir:1:1 AC006 error"), "{got:?}");
    assert!(report.findings[0]
        .message
        .contains("no such file or directory"));
    assert!(got[1].starts_with("ok.py:1:42 AC001"));
    assert_eq!(report.exit_code(), 2);
}

#[cfg(unix)]
#[test]
fn dangling_symlink_given_explicitly_is_reported() {
    let dir = project("dangling", &[("ok.py", "import torch\n")]);
    let link = dir.join("gone.py");
    let _ = std::os::unix::fs::symlink(dir.join("nowhere.py"), &link);
    let report = run_with(&dir, &[], |o| {
        o.paths = vec![link.clone(), dir.join("ok.py")]
    });
    assert_eq!(report.exit_code(), 2);
    assert_eq!(report.findings[0].code, "AC006");
}

#[test]
fn malformed_requirement_and_broken_pyproject_are_notes() {
    let dir = project(
        "badreqs",
        &[
            (
                "m.py",
                "from torch.distributed.pipelining import pipeline\n",
            ),
            (
                "requirements.txt",
                "torch >= 2.3.0\nthis is not (a requirement\n",
            ),
            ("pyproject.toml", "[project\nname = 'x'\n"),
        ],
    );
    let report = run(&dir, &[]);
    let got = brief(&report, &dir);
    assert_eq!(
        got,
        [
            "m.py:1:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0 - 2.3.1",
            "requirements.txt:1:1 AC008 error import-time torch >= 2.3.0 missing=2.3.0 - 2.3.1",
        ]
    );
    let notes = report.summary.notes.join("\n");
    assert!(notes.contains("requirements.txt"), "{notes}");
    assert!(notes.contains("pyproject.toml"), "{notes}");
}

#[test]
fn nothing_declared_checks_the_newest_release_and_says_so() {
    let dir = project(
        "newest",
        &[(
            "m.py",
            "from torch.utils.checkpoint import CheckpointPolicy\nimport torch.nope\n",
        )],
    );
    let report = run(&dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:2:8 AC001 error import-time torch.nope missing=2.5.0"]
    );
    assert_eq!(report.summary.targets[0].origin, "newest");
    // One line for the project (not one per package), with how to declare.
    assert!(report.summary.notes[0].contains("declares no package requirements"));
    assert!(report.summary.notes[0].contains("requirements.txt"));
    assert_eq!(report.summary.targets[0].releases, ["2.5.0"]);
    // A setup.py whose `install_requires` is built at run time: the note says why nothing
    // was read (study 12: the reader's note was not shown).
    std::fs::write(
        dir.join("setup.py"),
        "from setuptools import setup\nsetup(install_requires=open('reqs.txt').read().split())\n",
    )
    .expect("write");
    let report = run(&dir, &[]);
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains("`install_requires` in setup.py could not be read statically (not a literal list of strings); skipped"),
        "{notes}"
    );
    assert!(
        notes.contains("declares no package requirements"),
        "{notes}"
    );
}

#[test]
fn a_package_declared_by_a_direct_reference_is_not_checked_against_releases() {
    // A fork installed from git is no release of the package index: its uses are not judged
    // against the releases (which lack what the fork adds), and the note says why.
    let dir = project(
        "direct",
        &[
            ("m.py", "import torch.nope\n"),
            (
                "requirements.txt",
                "torch @ git+https://github.com/example/torch-fork.git@0123abc#egg=torch\n",
            ),
        ],
    );
    let report = run(&dir, &[]);
    assert_eq!(brief(&report, &dir), Vec::<String>::new());
    assert_eq!(report.summary.targets[0].origin, "direct");
    assert!(report.summary.targets[0].releases.is_empty());
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains(
            "torch is declared as `torch @ git+https://github.com/example/torch-fork.git"
        ),
        "{notes}"
    );
    assert!(notes.contains("(requirements.txt:1)"), "{notes}");
    assert!(
        !notes.contains("declares no package requirements"),
        "{notes}"
    );
    // `--target` still checks it against a release.
    let report = run(&dir, &["torch==2.5.0"]);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:1:8 AC001 error import-time torch.nope missing=2.5.0"]
    );
}

#[test]
fn an_exact_pin_on_a_release_the_index_lacks_is_checked_on_its_series() {
    // 2.4.2 is not indexed: 2.4.1 of the same series stands for it, and a note says so; 2.6.0
    // has no indexed series at all.
    let dir = project(
        "pin-series",
        &[
            ("m.py", "import torch.nope\n"),
            ("requirements.txt", "torch==2.4.2\n"),
        ],
    );
    let report = run(&dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:1:8 AC001 error import-time torch.nope missing=2.4.1"]
    );
    let notes = report.summary.notes.join("\n");
    assert!(
        notes.contains("torch 2.4.2 is not indexed; checked against 2.4.1, the indexed release of the same series"),
        "{notes}"
    );
    // A declaration without a version beside the pin (TinyLlama: `lightning==2.1.2` and
    // `lightning[app]`) does not bound it: the same series, not every release.
    std::fs::write(
        dir.join("requirements.txt"),
        "torch==2.4.2\ntorch[opt-einsum]\n",
    )
    .expect("write");
    let report = run(&dir, &[]);
    assert_eq!(
        brief(&report, &dir),
        ["m.py:1:8 AC001 error import-time torch.nope missing=2.4.1"]
    );
    let notes = report.summary.notes.join("\n");
    assert!(!notes.contains("admit no release together"), "{notes}");
    // Nor does a range that admits the pinned release (trlx: `transformers>=4.27.1` in
    // setup.cfg, `transformers==4.32.0` in requirements.txt; study 16, D1).
    std::fs::write(dir.join("requirements.txt"), "torch>=2.3.0\ntorch==2.4.2\n").expect("write");
    let report = run(&dir, &[]);
    assert_eq!(report.summary.targets[0].releases, ["2.4.1"]);
    let notes = report.summary.notes.join("\n");
    assert!(!notes.contains("admit no release together"), "{notes}");
    // Two pins that contradict each other: each is checked, the one the index lacks on its
    // series (xtuner: `==5.14.1` and `==4.56.0`; study 16, D2).
    std::fs::write(dir.join("requirements.txt"), "torch==2.4.2\ntorch==2.3.0\n").expect("write");
    let report = run(&dir, &[]);
    assert_eq!(report.summary.targets[0].releases, ["2.3.0", "2.4.1"]);
    let notes = report.summary.notes.join("\n");
    assert!(notes.contains("admit no release together"), "{notes}");
    assert!(
        notes.contains("torch 2.4.2 is not indexed; checked against 2.4.1"),
        "{notes}"
    );
    // Conda's `pytorch=2.4.2` (`==2.4.2.*`): the same pin (study 17, D1).
    std::fs::write(dir.join("requirements.txt"), "torch==2.4.2.*\n").expect("write");
    let report = run(&dir, &[]);
    assert_eq!(report.summary.targets[0].releases, ["2.4.1"]);
    std::fs::write(dir.join("requirements.txt"), "torch==2.6.0\n").expect("write");
    let report = run(&dir, &[]);
    assert_eq!(brief(&report, &dir), Vec::<String>::new());
    assert!(report.summary.targets[0].releases.is_empty());
    // A pin older than the index beside a range that admits it (nnFormer: `torch==1.8.1` in
    // environment.yml, `torch>=1.6.0a` in setup.py; study 42, F-AB), or ranges that meet only
    // there: they agree on releases the index lacks, so torch is not checked.
    for both in ["torch>=1.6.0a\ntorch==1.8.1\n", "torch>=1.6\ntorch<1.10\n"] {
        std::fs::write(dir.join("requirements.txt"), both).expect("write");
        let report = run(&dir, &[]);
        assert_eq!(brief(&report, &dir), Vec::<String>::new(), "{both}");
        assert!(report.summary.targets[0].releases.is_empty(), "{both}");
        let notes = report.summary.notes.join("\n");
        assert!(!notes.contains("admit no release together"), "{notes}");
        assert!(
            notes.contains("admit no indexed release of torch"),
            "{notes}"
        );
    }
    // A contradiction is still one: each declaration is checked.
    std::fs::write(dir.join("requirements.txt"), "torch>=2.0\ntorch==1.8.1\n").expect("write");
    let report = run(&dir, &[]);
    assert!(!report.summary.targets[0].releases.is_empty());
    let notes = report.summary.notes.join("\n");
    assert!(notes.contains("admit no release together"), "{notes}");
}

#[test]
fn bad_target_and_unknown_rule_are_usage_errors() {
    let dir = project("usage", &[("m.py", "import torch\n")]);
    let opts = |t: &str, s: &str| apicompat_check::Options {
        paths: vec![dir.clone()],
        targets: vec![t.to_string()],
        select: vec![s.to_string()],
        ..Default::default()
    };
    assert!(apicompat_check::check(common::catalog(), &opts("torch>>2", "AC001")).is_err());
    assert!(apicompat_check::check(common::catalog(), &opts("torch>=2", "XYZ9")).is_err());
}

#[test]
fn stdin_source_is_checked() {
    let dir = project("stdin", &[]);
    let report = run_with(&dir, &["torch==2.3.0"], |o| {
        o.paths.clear();
        o.stdin = Some(apicompat_check::StdinSource {
            name: "-".into(),
            bytes: b"import torch.distributed.pipelining\n".to_vec(),
        });
    });
    assert_eq!(
        brief(&report, &dir),
        ["-:1:8 AC001 error import-time torch.distributed.pipelining missing=2.3.0"]
    );
}

#[test]
fn trees_nested_too_deep_to_walk_are_not_built() {
    // 500k `not`s and 2M `+` terms made trees that overflowed the stack when walked or
    // dropped (the process aborted); a 200k-link attribute chain made every level walk the
    // whole chain. Each file is now reported as not checked, and the others are.
    let dir = project(
        "deep",
        &[
            ("nots.py", &format!("x = {}y\n", "not ".repeat(500_000))),
            ("plus.py", &format!("x = {}1\n", "1+".repeat(2_000_000))),
            ("chain.py", &format!("x = a{}\n", ".b".repeat(200_000))),
            (
                "ok.py",
                "from torch.distributed.pipelining import pipeline\n",
            ),
        ],
    );
    let got = brief(&run(&dir, &["torch==2.3.0"]), &dir);
    assert_eq!(
        got,
        [
            "chain.py:1:1 AC007 warning none  missing=",
            "nots.py:1:1 AC007 warning none  missing=",
            "ok.py:1:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
            "plus.py:1:1 AC007 warning none  missing=",
        ]
    );
}

#[test]
fn a_databricks_notebook_is_read_with_its_shell_escapes() {
    // Exported as `.py`, its `!cmd` cells are IPython escapes, not syntax errors (study 21:
    // dolly's `!deepspeed ...` cell gave one error per continuation line); its code is checked.
    let notebook = "# Databricks notebook source\n# MAGIC %md\n# MAGIC ## Train\n\n# COMMAND ----------\n\n!deepspeed --num_gpus=8 \\\n    --module training.trainer\n\n# COMMAND ----------\n\n%pip install torch\n\n# COMMAND ----------\n\nfrom torch.distributed.pipelining import pipeline\n";
    let dir = project(
        "databricks",
        &[("train_nb.py", notebook), ("plain.py", "!ls\n")],
    );
    let got = brief(&run(&dir, &["torch==2.3.0"]), &dir);
    assert_eq!(
        got,
        [
            "plain.py:1:1 AC005 error none  missing=",
            "train_nb.py:16:42 AC001 error import-time torch.distributed.pipelining.pipeline missing=2.3.0",
        ]
    );
}
