//! Declarations under platform markers apply only where their marker holds
//! (`docs/false-alarm-study-14.md`, D1). Real index, offline (`--no-cache`).

mod common;

use common::{check, text};

/// The torch releases `check` targets in the project at `dir` (its JSON summary).
fn torch_targets(dir: &std::path::Path) -> serde_json::Value {
    let o = check(dir, &["--output-format", "json"]);
    let (out, err) = text(&o);
    let report: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    report["summary"]["targets"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["package"] == "torch"))
        .unwrap_or_else(|| panic!("{out}"))["releases"]
        .clone()
}

/// ultralytics' pyproject: `torch>=1.8.0` and `torch>=1.8.0,!=2.4.0; sys_platform ==
/// 'win32'`. On Linux and macOS only the first holds: torch 2.4.0 is checked.
#[test]
fn a_platform_marker_does_not_narrow_other_platforms() {
    let dir = common::project_in(
        "markers",
        "win32-only",
        &[
            ("a.py", "import torch\nx = torch.compile\n"),
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\nversion = \"0.1\"\nrequires-python = \">=3.9\"\ndependencies = [\n    \"torch>=2.3\",\n    \"torch>=2.3,!=2.4.0; sys_platform == 'win32'\",\n]\n",
            ),
        ],
    );
    let torch = torch_targets(&dir);
    let releases: Vec<&str> = torch
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(releases.contains(&"2.4.0"), "{releases:?}");
    assert_eq!(releases.first(), Some(&"2.3.0"), "{releases:?}");
    // A declaration for some platforms only (a lock exported for Linux and macOS) still
    // decides there: `torch==2.5.1` on both is what is checked.
    std::fs::write(
        dir.join("pyproject.toml"),
        "[project]\nname = \"x\"\nversion = \"0.1\"\nrequires-python = \">=3.9\"\ndependencies = [\n    \"torch>=2.3\",\n    \"torch==2.5.1; sys_platform == 'linux' or sys_platform == 'darwin'\",\n]\n",
    )
    .unwrap();
    assert_eq!(torch_targets(&dir), serde_json::json!(["2.5.1"]));
}

/// ColossalChat: `datasets==2.14.7` and a bare `datasets` line. The bare line bounds
/// nothing, so it does not reopen the range when the pin's release is not indexed.
#[test]
fn a_bare_declaration_beside_a_pin_does_not_reopen_the_range() {
    let dir = common::project_in(
        "markers",
        "pin-and-bare",
        &[
            ("a.py", "import datasets\nx = datasets.load_dataset\n"),
            ("requirements.txt", "datasets==2.14.7\ndatasets\n"),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    let all = format!("{out}{err}");
    assert!(
        all.contains("the declared `datasets==2.14.7`, `datasets` admit no indexed release of datasets; add them with `apicompat index fetch 'datasets==2.14.7'`"),
        "{all}"
    );
    assert!(
        all.contains("datasets (not checked: no indexed release"),
        "{all}"
    );
}

/// AReaL's pyproject (`docs/false-alarm-study-25.md`, F-D): `torch>=2.9.1,<2.11` everywhere
/// but on macOS on x86_64, `torch<2.9.1` there. torch has no wheel for macOS on x86_64 after
/// 2.2.2 (the embedded index records each release's wheel platforms), so that line admits
/// up to 2.2.2 only, not 2.3.0 - 2.9.0. (Python 3.10 here: the platforms and the Pythons of
/// a release's wheels are recorded apart, so 1.13.1's Linux-only wheel for 3.11 would count
/// for macOS too.)
#[test]
fn a_platform_line_admits_only_releases_with_wheels_there() {
    let dir = common::project_in(
        "markers",
        "macos-x86",
        &[
            ("a.py", "import torch\nx = torch.compile\n"),
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\nversion = \"0.1\"\nrequires-python = \">=3.10,<3.13\"\ndependencies = [\n    \"torch>=2.9.1,<2.11; sys_platform != 'darwin' or platform_machine != 'x86_64'\",\n    \"torch<2.9.1; sys_platform == 'darwin' and platform_machine == 'x86_64'\",\n]\n",
            ),
        ],
    );
    assert_eq!(
        torch_targets(&dir),
        serde_json::json!([
            "1.13.0", "1.13.1", "2.0.0", "2.0.1", "2.1.0", "2.1.1", "2.1.2", "2.2.0", "2.2.1",
            "2.2.2", "2.9.1", "2.10.0"
        ])
    );
}
