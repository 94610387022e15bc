//! `apicompat range` and `apicompat diff` end to end, on the embedded index.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::Scratch;

fn apicompat(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_apicompat"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("VIRTUAL_ENV")
        .output()
        .expect("run apicompat")
}

fn project(name: &str, files: &[(&str, &str)]) -> Scratch {
    let dir = Scratch::new("apicompat-range", name);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }
    dir
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const TRAIN: &str = "from torch.distributed._tensor import Partial\nfrom torch.distributed.pipelining import pipeline\n\n\ndef policy():\n    from torch.utils.checkpoint import CheckpointPolicy\n    return CheckpointPolicy\n";

#[test]
fn range_text_json_and_exit_codes() {
    let dir = project(
        "one",
        &[
            ("src/train.py", TRAIN),
            ("requirements.txt", "torch>=2.3.0\n"),
        ],
    );
    let o = apicompat(&["--no-cache", "range"], &dir);
    // The declared requirement admits releases that break: exit 1.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("import-time  2.4.0 - "), "{text}");
    assert!(text.contains("call-time    2.5.0 - "), "{text}");
    assert!(
        text.contains("needs >= 2.5.0 because of `torch.utils.checkpoint.CheckpointPolicy` at src/train.py:6, call-time"),
        "{text}"
    );
    assert!(
        text.contains("admits releases that break: 2.3.0, 2.3.1 (importing fails)"),
        "{text}"
    );
    assert!(
        text.contains("Recommended requirements:\n  torch>=2.5\n"),
        "{text}"
    );

    let o = apicompat(
        &["--no-cache", "range", "--output-format", "json", "--cap"],
        &dir,
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["packages"][0]["package"], "torch");
    assert_eq!(v["packages"][0]["import_time"]["releases"][0], "2.4.0");
    assert_eq!(
        v["packages"][0]["declared"][0]["requirement"],
        "torch>=2.3.0"
    );
    assert_eq!(v["packages"][0]["finding"]["code"], "AC008");
    assert!(
        v["recommended"][0]
            .as_str()
            .unwrap()
            .starts_with("torch>=2.5,<"),
        "{v}"
    );

    // Pinned right: exit 0.
    std::fs::write(dir.join("requirements.txt"), "torch>=2.5\n").unwrap();
    let o = apicompat(&["--no-cache", "range", "-q"], &dir);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    // `check` raises the requirement finding too, on the declaration's line.
    std::fs::write(dir.join("requirements.txt"), "torch>=2.3.0\n").unwrap();
    let o = apicompat(&["--no-cache", "check"], &dir);
    assert!(stdout(&o).contains("error[AC008]"), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("--> requirements.txt:1:1"),
        "{}",
        stdout(&o)
    );

    // A path that does not exist is a note, not a crash.
    let o = apicompat(&["--no-cache", "range", "no/such/dir"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains("no/such/dir"), "{}", stdout(&o));
}

#[test]
fn diff_lists_changes_and_the_upgrade_report() {
    let dir = project("diff", &[("train.py", TRAIN)]);
    let o = apicompat(
        &[
            "--no-cache",
            "diff",
            "torch",
            "2.4.1",
            "2.5.0",
            "--output-format",
            "json",
        ],
        &dir,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let added = v["added"].as_array().unwrap();
    assert!(added
        .iter()
        .any(|a| a["path"] == "torch.utils.checkpoint.CheckpointPolicy"));
    let partial = added
        .iter()
        .find(|a| a["path"] == "torch.distributed.tensor.Partial")
        .unwrap();
    assert_eq!(
        partial["same_object_as"][0],
        "torch.distributed._tensor.Partial"
    );
    assert!(v["removed"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["path"] == "torch.utils.checkpoint._pt2_selective_checkpoint_context_fn_gen"));

    let o = apicompat(
        &[
            "--no-cache",
            "diff",
            "torch",
            "2.5.0",
            "2.3.1",
            "--used-by",
            ".",
            "--output-format",
            "markdown",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("### Break on 2.3.1 (3)"), "{md}");
    assert!(
        md.contains("| `train.py:6` | `torch.utils.checkpoint.CheckpointPolicy` (call-time)"),
        "{md}"
    );
    assert!(md.contains("require `torch>=2.5.0`"), "{md}");

    let o = apicompat(&["--no-cache", "diff", "torch", "2.4.1", "7.0.0"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not in the index"), "{}", stderr(&o));
    let o = apicompat(
        &["--no-cache", "diff", "torch", "2.4.1", "not a version"],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    let o = apicompat(
        &[
            "--no-cache",
            "diff",
            "torch",
            "2.4.1",
            "2.5.0",
            "--used-by",
            "nowhere",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nowhere"), "{}", stderr(&o));
}

#[test]
fn upgrade_report_keeps_guarded_lines_additive_signatures_and_star_imports_apart() {
    let dir = project(
        "diff-groups",
        &[(
            "train.py",
            "\
from torch.distributed.checkpoint import *
import torch

try:
    from torch.distributed.pipelining import pipeline
except ImportError:
    pipeline = None


def load(sd):
    model = torch.nn.Linear(2, 2)
    model.load_state_dict(sd, strict=False)
",
        )],
    );
    let json = |from: &str, to: &str| -> serde_json::Value {
        let o = apicompat(
            &[
                "--no-cache",
                "diff",
                "torch",
                from,
                to,
                "--used-by",
                ".",
                "--output-format",
                "json",
            ],
            &dir,
        );
        assert!(o.status.code().is_some_and(|c| c <= 1), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).unwrap()
    };
    // Down to 2.2.0: the pipelining import is gone there, behind `except ImportError`.
    let down = json("2.4.0", "2.2.0");
    let u = &down["used_by"];
    assert_eq!(u["breaks"].as_array().unwrap().len(), 0, "{u:#}");
    let guarded = u["guarded"].as_array().unwrap();
    assert!(
        guarded
            .iter()
            .any(|a| a["symbol"] == "torch.distributed.pipelining.pipeline" && a["line"] == 5),
        "{u:#}"
    );
    // Up from 2.0.1: `load_state_dict` gained an optional `assign`, which breaks no call.
    let up = json("2.0.1", "2.1.0");
    let u = &up["used_by"];
    assert_eq!(u["signature_changes"].as_array().unwrap().len(), 0, "{u:#}");
    assert!(
        u["additive"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["line"] == 12),
        "{u:#}"
    );
    // Up to 2.4.0: the star-imported module's new names, once, with where it is imported.
    let star = json("2.2.0", "2.4.0");
    let s = &star["used_by"]["star_imports"][0];
    assert_eq!(s["module"], "torch.distributed.checkpoint", "{star:#}");
    assert_eq!(s["at"][0], "train.py:1");
    assert!(
        s["added"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "async_save"),
        "{s:#}"
    );
    assert!(!star["added"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["path"] == "torch.distributed.checkpoint.async_save"));
}
