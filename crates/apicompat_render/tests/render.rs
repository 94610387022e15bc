//! Every output format on one report.

use std::path::PathBuf;

use apicompat_check::{Finding, Fix, FixKind, Reach, Report, Severity, Summary, TargetInfo};

fn report() -> Report {
    let path = PathBuf::from("./mypkg/parallel.py");
    let source = "from torch.distributed._tensor import Partial\nimport torch\n";
    let finding = Finding {
        code: "AC001",
        rule: "missing-import",
        severity: Severity::Error,
        path: path.clone(),
        line: 1,
        column: 39,
        end_line: 1,
        end_column: 46,
        symbol: "torch.distributed._tensor.Partial".into(),
        package: "torch".into(),
        missing_in: vec!["2.3.0".into(), "2.3.1".into()],
        present_in: vec!["2.4.0".into(), "2.5.0".into()],
        missing_ranges: vec!["2.3.0 - 2.3.1".into()],
        present_ranges: vec!["2.4.0 - 2.5.0".into()],
        message: "`torch.distributed._tensor.Partial` is not in torch 2.3.0, 2.3.1 (declared `torch>=2.3.0`); it exists from 2.4.0".into(),
        fixes: vec![Fix {
            kind: FixKind::Pin,
            message: "require `torch>=2.4.0`".into(),
            replacement: None,
            releases: vec![],
            requirement: Some("torch>=2.4.0".into()),
        }],
        fix: None,
        reach: Reach::ImportTime,
        target_source: Some("declared `torch>=2.3.0` (requirements.txt:1)".into()),
        guard: None,
    };
    let io = Finding {
        code: "AC006",
        rule: "io-error",
        severity: Severity::Error,
        path: PathBuf::from("missing_dir"),
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 1,
        symbol: String::new(),
        package: String::new(),
        missing_in: vec![],
        present_in: vec![],
        missing_ranges: vec![],
        present_ranges: vec![],
        message: "cannot read `missing_dir`: no such file or directory".into(),
        fixes: vec![],
        fix: None,
        reach: Reach::None,
        target_source: None,
        guard: None,
    };
    Report {
        findings: vec![finding, io],
        summary: Summary {
            files: 3,
            errors: 2,
            targets: vec![TargetInfo {
                package: "torch".into(),
                releases: vec![
                    "2.3.0".into(),
                    "2.3.1".into(),
                    "2.4.0".into(),
                    "2.5.0".into(),
                ],
                origin: "declared",
                description: "declared `torch>=2.3.0` (requirements.txt:1)".into(),
            }],
            io_failure: true,
            ..Summary::default()
        },
        sources: [(path, source.to_string())].into_iter().collect(),
        chains: Default::default(),
        ..Report::default()
    }
}

#[test]
fn import_chains_are_a_json_field_and_a_note() {
    let mut r = report();
    r.chains.insert(
        PathBuf::from("./mypkg/parallel.py"),
        vec![
            "train".into(),
            "mypkg.model".into(),
            "mypkg.parallel".into(),
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&apicompat_render::json(&r)).unwrap();
    assert_eq!(
        v["findings"][0]["chain"],
        serde_json::json!(["train", "mypkg.model", "mypkg.parallel"])
    );
    // Only import-time findings have one.
    assert!(v["findings"][1].get("chain").is_none());
    let out = apicompat_render::text(&r, false);
    assert!(
        out.contains("  = note: imported at start-up: train -> mypkg.model -> mypkg.parallel\n"),
        "{out}"
    );
    // Without chains, no field.
    let v: serde_json::Value = serde_json::from_str(&apicompat_render::json(&report())).unwrap();
    assert!(v["findings"][0].get("chain").is_none());
}

#[test]
fn text_has_code_frames_help_and_a_summary_line() {
    let out = apicompat_render::text(&report(), false);
    let expected = "\
error[AC001]: `torch.distributed._tensor.Partial` is not in torch 2.3.0, 2.3.1 (declared `torch>=2.3.0`); it exists from 2.4.0
 --> mypkg/parallel.py:1:39
  |
1 | from torch.distributed._tensor import Partial
  |                                       ^^^^^^^ import-time: importing this module fails on torch 2.3.0, 2.3.1
  |
  = help: require `torch>=2.4.0`
  = help: checked against declared `torch>=2.3.0` (requirements.txt:1)

error[AC006]: cannot read `missing_dir`: no such file or directory
--> missing_dir:1:1

Found 2 errors (1 import-time) in 2 files; checked 3 files against torch 2.3.0 - 2.5.0 (declared `torch>=2.3.0` (requirements.txt:1)).
";
    assert_eq!(out, expected);
    assert!(!out.contains('\u{1b}'), "no colour unless asked");
    assert!(apicompat_render::text(&report(), true).contains('\u{1b}'));
}

#[test]
fn json_has_the_documented_fields() {
    let v: serde_json::Value = serde_json::from_str(&apicompat_render::json(&report())).unwrap();
    assert_eq!(v["version"], 1);
    let f = &v["findings"][0];
    for key in [
        "code",
        "rule",
        "severity",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "symbol",
        "package",
        "missing_in",
        "present_in",
        "missing_ranges",
        "present_ranges",
        "message",
        "fixes",
        "reach",
        "target_source",
        "display_path",
    ] {
        assert!(f.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(f["severity"], "error");
    assert_eq!(f["reach"], "import-time");
    assert_eq!(f["missing_in"], serde_json::json!(["2.3.0", "2.3.1"]));
    assert_eq!(f["fixes"][0]["kind"], "pin");
    assert_eq!(f["fixes"][0]["requirement"], "torch>=2.4.0");
    assert_eq!(f["display_path"], "mypkg/parallel.py");
    let s = &v["summary"];
    assert_eq!(s["errors"], 2);
    assert_eq!(s["io_failure"], true);
    assert_eq!(s["targets"][0]["origin"], "declared");
}

#[test]
fn sarif_2_1_0_for_code_scanning() {
    let v: serde_json::Value =
        serde_json::from_str(&apicompat_render::sarif(&report(), "0.1.0")).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "apicompat");
    assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "AC001");
    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "AC001");
    assert_eq!(r["level"], "error");
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "mypkg/parallel.py");
    assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(loc["region"]["startLine"], 1);
    assert_eq!(loc["region"]["startColumn"], 39);
    assert_eq!(loc["region"]["endColumn"], 46);
    assert_eq!(run["results"][1]["ruleIndex"], 5);
}

#[test]
fn github_annotations_are_escaped() {
    let out = apicompat_render::github(&report());
    let first = out.lines().next().unwrap();
    assert_eq!(
        first,
        "::error title=AC001 missing-import,file=mypkg/parallel.py,line=1,col=39,endLine=1,endColumn=46::`torch.distributed._tensor.Partial` is not in torch 2.3.0, 2.3.1 (declared `torch>=2.3.0`); it exists from 2.4.0"
    );
    assert_eq!(out.lines().count(), 2);
}

/// A report on a file whose name and string literal were crafted to forge output.
fn hostile_report() -> Report {
    let mut r = report();
    let path = PathBuf::from("pkg/evil\n::warning file=x.py,line=1::forged\u{1b}[2J.py");
    let source =
        "import torch\ngetattr(torch, \"\u{1b}]0;pwned\u{7}\\nx\")  # \u{1b}[31mred\u{202e}\r\n";
    let f = &mut r.findings[0];
    f.path = path.clone();
    f.line = 2;
    f.column = 1;
    f.end_line = 2;
    f.end_column = 10;
    f.message =
        "`torch.\u{1b}]0;pwned\u{7}\nx` is not in torch 2.3.0\n::error file=a.py::forged".into();
    r.sources = [(path, source.to_string())].into_iter().collect();
    r
}

#[test]
fn hostile_names_and_literals_cannot_forge_output() {
    let r = hostile_report();
    let text = apicompat_render::text(&r, false);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'));
    assert!(
        text.lines().all(|l| !l.trim_start().starts_with("::")),
        "a forged line:\n{text}"
    );
    assert!(
        text.contains("pkg/evil\\n::warning file=x.py,line=1::forged\\x1b[2J.py"),
        "{text}"
    );

    let gh = apicompat_render::github(&r);
    // One line per finding, none forged.
    assert_eq!(gh.lines().count(), r.findings.len(), "{gh}");
    assert!(gh.lines().all(|l| l.starts_with("::error ")), "{gh}");
    assert!(!gh.contains('\u{1b}'), "{gh}");
    assert!(
        gh.contains("file=pkg/evil%0A%3A%3Awarning file=x.py%2Cline=1%3A%3Aforged\\x1b[2J.py,"),
        "{gh}"
    );

    let sarif: serde_json::Value =
        serde_json::from_str(&apicompat_render::sarif(&r, "0.1.0")).unwrap();
    let uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        uri,
        "pkg/evil%0A%3A%3Awarning%20file%3Dx.py%2Cline%3D1%3A%3Aforged%1B%5B2J.py"
    );
}

#[test]
fn a_requirement_is_labelled_with_the_releases_it_admits_not_as_a_module() {
    let mut r = report();
    let f = &mut r.findings[0];
    f.code = "AC008";
    f.path = PathBuf::from("./requirements.txt");
    f.line = 1;
    f.column = 1;
    f.end_column = 13;
    f.missing_in = vec![
        "2.0.0".into(),
        "2.1.0".into(),
        "2.2.0".into(),
        "2.3.0".into(),
    ];
    f.missing_ranges = vec!["2.0.0 - 2.3.0".into()];
    r.sources
        .insert(PathBuf::from("./requirements.txt"), "torch>=2.0.0\n".into());
    let out = apicompat_render::text(&r, false);
    assert!(
        out.contains("^^^^^^^^^^^^ admits torch 2.0.0 - 2.3.0, where the project breaks"),
        "{out}"
    );
    assert!(!out.contains("importing this module"), "{out}");
}

#[test]
fn no_errors_names_the_targets_checked_against_nothing() {
    let mut r = Report::default();
    r.summary.files = 11;
    r.summary.targets = vec![
        TargetInfo {
            package: "python".into(),
            releases: vec!["3.11".into()],
            origin: "declared",
            description: "the newest release that `torch==1.8.0` admits".into(),
        },
        TargetInfo {
            package: "torch".into(),
            releases: vec![],
            origin: "declared",
            description: "declared `torch==1.8.0` (requirements.txt:7)".into(),
        },
    ];
    let line = apicompat_render::summary_line(&r);
    assert!(
        line.starts_with("No errors in what was checked (torch not checked); checked 11 files"),
        "{line}"
    );
    r.summary.targets.pop();
    let line = apicompat_render::summary_line(&r);
    assert!(line.starts_with("No errors; checked 11 files"), "{line}");
}
