//! `check --diff`, `--fix` and `--unsafe-fixes` as a user runs them, on a project with a
//! moved import (safe fix), a name missing on the older releases with a fallback (unsafe) and
//! a requirement that admits releases where a call breaks (unsafe narrowing).

use std::path::{Path, PathBuf};

mod common;

use common::{check, text};

const CODE: &str = "from torch.optim.adamw import Optimizer\nfrom torch.distributed.tensor import DTensor\n\n\ndef build(model):\n    from torch.distributed.pipelining import pipeline\n    return pipeline(model, ())\n";
const REQUIREMENTS: &str = "# training stack\ntorch>=2.3  # CUDA 12 wheels\nnumpy\n";

fn project(name: &str) -> PathBuf {
    common::project_in(
        "fix-cli",
        name,
        &[("pkg/train.py", CODE), ("requirements.txt", REQUIREMENTS)],
    )
}

fn read(dir: &Path) -> (String, String) {
    (
        std::fs::read_to_string(dir.join("pkg/train.py")).expect("read"),
        std::fs::read_to_string(dir.join("requirements.txt")).expect("read"),
    )
}

#[test]
fn diff_shows_the_three_edits_and_changes_nothing() {
    let dir = project("diff");
    let o = check(&dir, &["--diff", "--unsafe-fixes"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("-from torch.optim.adamw import Optimizer\n")
            && out.contains("+from torch.optim import Optimizer\n"),
        "{out}"
    );
    assert!(
        out.contains("+try:\n+    from torch.distributed.tensor import DTensor\n+except ImportError:  # torch < 2.5\n+    from torch.distributed._tensor import DTensor\n"),
        "{out}"
    );
    assert!(
        out.contains("-torch>=2.3  # CUDA 12 wheels\n+torch>=2.4  # CUDA 12 wheels\n"),
        "{out}"
    );
    assert!(err.contains("Would fix 3 findings in 2 files"), "{err}");
    assert_eq!(read(&dir), (CODE.to_string(), REQUIREMENTS.to_string()));

    // Safe fixes only: the moved import.
    let o = check(&dir, &["--diff"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    let added = out
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .count();
    assert_eq!(added, 1, "{out}");
    assert!(out.contains("+from torch.optim import Optimizer"), "{out}");
}

#[test]
fn fix_applies_the_safe_fix_and_unsafe_fixes_the_rest() {
    let dir = project("fix");
    let o = check(&dir, &["--fix"]);
    let (out, err) = text(&o);
    assert!(err.contains("Fixed 1 finding."), "{out}\n{err}");
    let (code, reqs) = read(&dir);
    assert!(
        code.starts_with(
            "from torch.optim import Optimizer\nfrom torch.distributed.tensor import DTensor\n"
        ),
        "{code}"
    );
    assert_eq!(reqs, REQUIREMENTS);

    let o = check(&dir, &["--fix", "--unsafe-fixes"]);
    let (out, err) = text(&o);
    assert!(err.contains("Fixed 2 findings."), "{out}\n{err}");
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let fixed = read(&dir);
    assert!(
        fixed.1.contains("torch>=2.4  # CUDA 12 wheels"),
        "{}",
        fixed.1
    );

    // No error on any targeted release (the narrowed requirement's, then each one).
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("against torch 2.4.0 - "), "{out}");
    for target in [
        "torch==2.4.0",
        "torch==2.4.1",
        "torch==2.5.0",
        "torch==2.7.0",
    ] {
        let o = check(&dir, &["--target", target]);
        assert_eq!(o.status.code(), Some(0), "{target}: {:?}", text(&o));
    }

    // A second run changes nothing.
    let o = check(&dir, &["--fix", "--unsafe-fixes"]);
    let (_, err) = text(&o);
    assert!(err.contains("Fixed 0 findings."), "{err}");
    assert_eq!(read(&dir), fixed);
    let o = check(&dir, &["--diff", "--unsafe-fixes"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(text(&o).0, "");
}

#[test]
fn findings_show_fix_availability_in_every_format() {
    let dir = project("formats");
    let (out, _) = text(&check(&dir, &[]));
    assert!(
        out.contains("error[AC001]: [*] `torch.optim.adamw.Optimizer`"),
        "{out}"
    );
    assert!(
        out.contains("[*] 1 fixable with --fix (2 more with --unsafe-fixes)."),
        "{out}"
    );

    let (out, _) = text(&check(&dir, &["--output-format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&out).expect("json");
    let fixes: Vec<(String, String)> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| {
            let a = f["fix"]["applicability"].as_str()?;
            Some((f["code"].as_str()?.to_string(), a.to_string()))
        })
        .collect();
    assert_eq!(
        fixes,
        [
            ("AC001".to_string(), "safe".to_string()),
            ("AC001".to_string(), "unsafe".to_string()),
            ("AC008".to_string(), "unsafe".to_string()),
        ]
    );
    let first = &json["findings"][0]["fix"]["edits"][0];
    assert_eq!(first["content"], "torch.optim");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(1), Some(6))
    );

    let (out, _) = text(&check(&dir, &["--output-format", "sarif"]));
    let sarif: serde_json::Value = serde_json::from_str(&out).expect("sarif");
    let result = &sarif["runs"][0]["results"][0];
    let change = &result["fixes"][0]["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], "pkg/train.py");
    let replacement = &change["replacements"][0];
    assert_eq!(replacement["insertedContent"]["text"], "torch.optim");
    assert_eq!(replacement["deletedRegion"]["startColumn"], 6);
    assert_eq!(replacement["deletedRegion"]["endColumn"], 23);
}
