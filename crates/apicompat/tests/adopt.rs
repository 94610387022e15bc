//! Adopting `check` on a real codebase: `exclude` / `extend-exclude` / `per-file-ignores`
//! (config and command line, Ruff's semantics), the baseline round trip with shifted lines,
//! `--add-noqa`, the AC004 summary and requirement scopes.

use std::path::{Path, PathBuf};

mod common;

use common::{check, text, BREAKS_ON_23};

fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::project_in("adopt", name, files)
}

/// `check --output-format json ARGS`: (exit code, findings as `path:line:code`, the report).
fn findings(dir: &Path, args: &[&str]) -> (i32, Vec<String>, serde_json::Value) {
    let mut all = vec!["--output-format", "json", "--ignore", "AC008"];
    all.extend_from_slice(args);
    let o = check(dir, &all);
    let (out, err) = text(&o);
    let report: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    let mut list: Vec<String> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{}",
                f["display_path"].as_str().unwrap_or(""),
                f["line"],
                f["code"].as_str().unwrap_or("")
            )
        })
        .collect();
    list.sort();
    (o.status.code().unwrap_or(-1), list, report)
}

const PYPROJECT_EXCLUDES: &str = r#"[project]
name = "p"
dependencies = ["torch>=2.3.0"]

[tool.apicompat]
extend-exclude = ["legacy", "scripts/*.py"]

[tool.apicompat.per-file-ignores]
"tests/*" = ["AC001"]
"__init__.py" = ["AC0"]
"#;

#[test]
fn exclude_and_per_file_ignores_follow_ruff() {
    let dir = project(
        "excludes",
        &[
            ("pyproject.toml", PYPROJECT_EXCLUDES),
            ("pkg/a.py", BREAKS_ON_23),
            ("pkg/__init__.py", BREAKS_ON_23),
            // A name pattern: excluded anywhere.
            ("legacy/b.py", BREAKS_ON_23),
            ("pkg/legacy/c.py", BREAKS_ON_23),
            // A pattern with `/`: relative to the project root only.
            ("scripts/d.py", BREAKS_ON_23),
            ("tools/scripts/e.py", BREAKS_ON_23),
            // Per-file ignores: AC001 off in tests.
            ("tests/t.py", BREAKS_ON_23),
            // Defaults: build/, .venv/, site-packages/ are never walked.
            ("build/x.py", BREAKS_ON_23),
            (".venv/lib/y.py", BREAKS_ON_23),
            ("env/lib/site-packages/z.py", BREAKS_ON_23),
        ],
    );
    let (code, list, _) = findings(&dir, &[]);
    assert_eq!(code, 1);
    assert_eq!(list, ["pkg/a.py:1:AC001", "tools/scripts/e.py:1:AC001"]);

    // The command line: `--extend-exclude` adds, `--exclude` replaces the defaults and the
    // config's `exclude` (its `extend-exclude` still applies, as in Ruff),
    // `--per-file-ignores` replaces the config's.
    let (_, list, _) = findings(&dir, &["--extend-exclude", "tools"]);
    assert_eq!(list, ["pkg/a.py:1:AC001"]);
    let (_, list, _) = findings(&dir, &["--exclude", "pkg,tools,tests,.venv,env"]);
    assert_eq!(list, ["build/x.py:1:AC001"]);
    let (_, list, _) = findings(
        &dir,
        &[
            "--per-file-ignores",
            "pkg/*:AC001",
            "--extend-exclude",
            "tools",
        ],
    );
    assert_eq!(list, ["tests/t.py:1:AC001"]);
    let (_, list, _) = findings(
        &dir,
        &[
            "--extend-per-file-ignores",
            "a.py:AC",
            "--extend-exclude",
            "tools",
        ],
    );
    assert!(list.is_empty(), "{list:?}");

    // A path named on the command line is checked even when excluded, unless --force-exclude.
    let (_, list, _) = findings(&dir, &["scripts/d.py"]);
    assert_eq!(list, ["scripts/d.py:1:AC001"]);
    let (code, list, _) = findings(&dir, &["--force-exclude", "scripts/d.py", "legacy"]);
    assert!(list.is_empty(), "{list:?}");
    assert_eq!(code, 0);

    // A bad glob or code is a note; a malformed pair on the command line is a usage error.
    let (_, _, report) = findings(
        &dir,
        &[
            "--extend-exclude",
            "a[",
            "--extend-per-file-ignores",
            "x:AC999",
        ],
    );
    let notes = report["summary"]["notes"].to_string();
    assert!(notes.contains("invalid glob `a[`"), "{notes}");
    assert!(notes.contains("unknown rule code `AC999`"), "{notes}");
    let o = check(&dir, &["--per-file-ignores", "tests"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("GLOB:CODES"), "{:?}", text(&o));
}

#[test]
fn a_baseline_survives_shifted_lines_and_reports_only_new_findings() {
    let two = "from torch.distributed.pipelining import pipeline\nfrom torch.distributed.pipelining import pipeline\n";
    let dir = project(
        "baseline",
        &[("requirements.txt", "torch>=2.3.0\n"), ("pkg/a.py", two)],
    );
    let o = check(
        &dir,
        &[
            "--select",
            "AC001",
            "--write-baseline",
            "apicompat-baseline.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(text(&o).1.contains("wrote 2 finding(s)"), "{:?}", text(&o));
    let written = std::fs::read_to_string(dir.join("apicompat-baseline.json")).expect("baseline");
    assert!(written.contains("\"path\": \"pkg/a.py\""), "{written}");
    assert!(written.contains("\"count\": 2"), "{written}");

    // The same findings, shifted down by three lines: all known.
    std::fs::write(dir.join("pkg/a.py"), format!("import os\n\n\n{two}")).expect("write");
    let (code, list, report) = findings(
        &dir,
        &["--select", "AC001", "--baseline", "apicompat-baseline.json"],
    );
    assert_eq!(code, 0, "{list:?}");
    assert!(list.is_empty(), "{list:?}");
    assert_eq!(report["summary"]["baseline"]["known"], 2);
    assert_eq!(report["summary"]["baseline"]["disappeared"], 0);

    // A third identical line (a multiset: one is new) and another new use; one old one gone
    // from another file is counted as disappeared.
    std::fs::write(
        dir.join("pkg/a.py"),
        format!("{two}from torch.distributed.pipelining import pipeline\nfrom torch.distributed.pipelining import SplitPoint\n"),
    )
    .expect("write");
    let (code, list, report) = findings(
        &dir,
        &["--select", "AC001", "--baseline", "apicompat-baseline.json"],
    );
    assert_eq!(code, 1);
    assert_eq!(list, ["pkg/a.py:3:AC001", "pkg/a.py:4:AC001"]);
    assert_eq!(report["summary"]["baseline"]["known"], 2);
    std::fs::write(dir.join("pkg/a.py"), "import torch\n").expect("write");
    let o = check(
        &dir,
        &["--select", "AC001", "--baseline", "apicompat-baseline.json"],
    );
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("0 known finding(s) not reported, 2 gone"),
        "{out}"
    );

    // From the configuration, relative to the project root; a missing file is a usage error
    // on the command line, a note from the configuration.
    std::fs::write(dir.join("pkg/a.py"), two).expect("write");
    std::fs::write(
        dir.join("pyproject.toml"),
        "[tool.apicompat]\nbaseline = \"apicompat-baseline.json\"\n",
    )
    .expect("write");
    let (code, list, _) = findings(&dir.join("pkg"), &["--select", "AC001"]);
    assert_eq!((code, list.len()), (0, 0));
    let o = check(&dir, &["--baseline", "nope.json"]);
    assert_eq!(o.status.code(), Some(2), "{:?}", text(&o));
    std::fs::write(
        dir.join("pyproject.toml"),
        "[tool.apicompat]\nbaseline = \"later.json\"\n",
    )
    .expect("write");
    let o = check(&dir, &["--select", "AC001"]);
    assert!(text(&o).0.contains("does not exist yet"), "{:?}", text(&o));
}

#[test]
fn add_noqa_silences_every_finding_once() {
    let src = "import os\nfrom torch.distributed.pipelining import pipeline  # noqa: E402\nx = \"\"\"\n\"\"\"\ndef f():\n    import torch.distributed.pipelining\n";
    let dir = project(
        "noqa",
        &[("requirements.txt", "torch>=2.3.0\n"), ("m.py", src)],
    );
    let o = check(&dir, &["--select", "AC001", "--add-noqa"]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(
        text(&o).1.contains("added 2 noqa code(s) in 1 file(s)"),
        "{:?}",
        text(&o)
    );
    let after = std::fs::read_to_string(dir.join("m.py")).expect("read");
    assert_eq!(
        after,
        "import os\nfrom torch.distributed.pipelining import pipeline  # noqa: E402, AC001\nx = \"\"\"\n\"\"\"\ndef f():\n    import torch.distributed.pipelining  # noqa: AC001\n"
    );
    // Nothing left to report, and a second run changes nothing.
    let (code, list, _) = findings(&dir, &["--select", "AC001"]);
    assert_eq!((code, list.len()), (0, 0));
    let o = check(&dir, &["--select", "AC001", "--add-noqa"]);
    assert!(
        text(&o).1.contains("added 0 noqa code(s)"),
        "{:?}",
        text(&o)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("m.py")).expect("read"),
        after
    );
}

#[test]
fn unindexed_packages_are_one_note_with_file_counts() {
    let dir = project(
        "ac004",
        &[
            ("requirements.txt", "torch==2.5.0\nRequests\n"),
            (
                "a.py",
                "import requests\nimport yaml\nimport PIL.Image\nimport torch\n",
            ),
            ("b.py", "import requests as rq\nfrom PIL import Image\n"),
            ("c.py", "import requests\n"),
        ],
    );
    let (code, list, report) = findings(&dir, &[]);
    assert_eq!(code, 0);
    assert!(list.is_empty(), "{list:?}");
    let notes = report["summary"]["notes"].to_string();
    assert!(
        notes.contains("3 imported package(s) are not in the index, so their uses are not checked: requests (3 files), PIL (2 files), yaml (1 file)"),
        "{notes}"
    );
    assert!(!notes.contains("fetch pil"), "{notes}");
    // Selected by name: one warning per package, on its first import; `PIL`'s distribution
    // (and `yaml`'s) is not known here (no metadata names it), so no `index fetch pil`.
    let (_, list, report) = findings(&dir, &["--select", "AC004"]);
    assert_eq!(list, ["a.py:1:AC004", "a.py:2:AC004", "a.py:3:AC004"]);
    let messages = report["findings"].to_string();
    assert!(
        messages.contains("apicompat index fetch requests"),
        "{messages}"
    );
    assert!(
        messages.contains("its distribution is not known"),
        "{messages}"
    );
    assert!(!messages.to_lowercase().contains("fetch pil"), "{messages}");
    // `--ignore AC004`: no note.
    let (_, _, report) = findings(&dir, &["--ignore", "AC004"]);
    assert!(!report["summary"]["notes"]
        .to_string()
        .contains("not in the index"));
}

#[test]
fn import_names_map_to_distributions_from_installed_metadata() {
    let dir = project(
        "ac004-env",
        &[
            ("a.py", "import PIL.Image\nimport cv2\n"),
            ("venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.4\n"),
            (
                "venv/lib/python3.11/site-packages/pillow-10.4.0.dist-info/METADATA",
                "Metadata-Version: 2.1\nName: pillow\nVersion: 10.4.0\n",
            ),
            (
                "venv/lib/python3.11/site-packages/pillow-10.4.0.dist-info/RECORD",
                "PIL/__init__.py,sha256=x,1\nPIL/Image.py,sha256=x,1\npillow-10.4.0.dist-info/METADATA,,\n",
            ),
            (
                "venv/lib/python3.11/site-packages/opencv_python-4.10.0.84.dist-info/METADATA",
                "Metadata-Version: 2.1\nName: opencv-python\nVersion: 4.10.0.84\n",
            ),
            (
                "venv/lib/python3.11/site-packages/opencv_python-4.10.0.84.dist-info/top_level.txt",
                "cv2\n",
            ),
        ],
    );
    let (_, list, report) = findings(&dir, &["a.py", "--python", "venv", "--select", "AC004"]);
    assert_eq!(list, ["a.py:1:AC004", "a.py:2:AC004"]);
    let messages = report["findings"].to_string();
    assert!(
        messages.contains("apicompat index fetch pillow"),
        "{messages}"
    );
    assert!(
        messages.contains("apicompat index fetch opencv-python"),
        "{messages}"
    );
}

#[test]
fn optional_requirements_are_scopes_not_intersected() {
    let dir = project(
        "scopes",
        &[
            ("pyproject.toml", "[project]\nname = \"p\"\ndependencies = [\"torch>=2.3.0\"]\n\n[project.optional-dependencies]\nnpu = [\"torch==2.10.0\"]\n"),
            ("requirements-dev.txt", "torch==2.5.0\n"),
            ("m.py", BREAKS_ON_23),
        ],
    );
    // The main set: torch>=2.3.0, which admits 2.3.x where the import breaks.
    let (code, list, report) = findings(&dir, &["--select", "AC001"]);
    assert_eq!(code, 1);
    assert_eq!(list, ["m.py:1:AC001"]);
    let notes = report["summary"]["notes"].to_string();
    assert!(notes.contains("requirement scopes not checked"), "{notes}");
    assert!(notes.contains("`dev`: `torch==2.5.0`"), "{notes}");
    assert!(notes.contains("`npu`: `torch==2.10.0`"), "{notes}");
    // A scope adds its requirements to the main ones (pip installs both).
    let (code, list, report) = findings(&dir, &["--select", "AC001", "--scope", "npu"]);
    assert_eq!((code, list.len()), (0, 0), "{report}");
    assert_eq!(
        report["summary"]["targets"][0]["releases"],
        serde_json::json!(["2.10.0"])
    );
    let (_, _, report) = findings(&dir, &["--scope", "gpu"]);
    assert!(report["summary"]["notes"]
        .to_string()
        .contains("no such scope"));
}

/// The extras the README installs the project with are checked with the main requirements
/// (study 43, F-AF), unless it also installs the project without them.
#[test]
fn extras_the_install_instructions_name_are_checked() {
    let files = |readme: &'static str| {
        vec![
            ("pyproject.toml", "[project]\nname = \"p\"\ndependencies = [\"torch\"]\n\n[project.optional-dependencies]\ntrain = [\"torch>=2.4.0\"]\n"),
            ("README.md", readme),
            ("m.py", BREAKS_ON_23),
        ]
    };
    let dir = project(
        "documented-extras",
        &files("```\npip install -e .[train]\n```\n"),
    );
    let (code, list, report) = findings(&dir, &["--select", "AC001"]);
    assert_eq!((code, list.len()), (0, 0), "{report}");
    let notes = report["summary"]["notes"].to_string();
    assert!(
        notes.contains("the extra `train` is checked with the main requirements: the install instructions install the project with it (README.md:2"),
        "{notes}"
    );
    // Also installed without the extra: the main requirements alone are checked.
    let dir = project(
        "documented-extras-and-bare",
        &files("```\npip install -e .\npip install -e \".[train]\"\n```\n"),
    );
    let (code, list, _) = findings(&dir, &["--select", "AC001"]);
    assert_eq!((code, list), (1, vec!["m.py:1:AC001".to_string()]));
}

/// A module that imports a package only an extra declares runs only with that extra: its
/// uses are judged on the releases the main requirements and the extra admit together (Mantis'
/// training scripts and `peft`; study 43, F-AF). A module without that import, or whose import
/// is guarded, keeps the main requirements' releases.
#[test]
fn files_that_need_an_extra_are_judged_with_it() {
    let dir = project(
        "extra-files",
        &[
            ("pyproject.toml", "[project]\nname = \"p\"\ndependencies = [\"torch\"]\n\n[project.optional-dependencies]\ntrain = [\"torch>=2.4.0\", \"peft\"]\n"),
            ("README.md", "```\npip install -e .\npip install -e .[train]\n```\n"),
            ("train.py", "import peft\nfrom torch.distributed.pipelining import pipeline\n"),
            ("guarded.py", "try:\n    import peft\nexcept ImportError:\n    peft = None\nfrom torch.distributed.pipelining import pipeline\n"),
            ("infer.py", BREAKS_ON_23),
        ],
    );
    let (code, list, report) = findings(&dir, &["--select", "AC001"]);
    assert_eq!(code, 1, "{report}");
    assert_eq!(list, ["guarded.py:5:AC001", "infer.py:1:AC001"], "{report}");
}

#[test]
fn a_project_declaring_only_scopes_is_told_how_to_check_them() {
    // generative-models (`docs/false-alarm-study-13.md`): its only declaration is
    // `requirements/pt2.txt`, the scope `pt2`; `--scope` takes the file's path too.
    let dir = project(
        "only-scopes",
        &[
            ("pyproject.toml", "[project]\nname = \"p\"\n"),
            ("requirements/pt2.txt", "torch>=2.3.0\n"),
            ("m.py", BREAKS_ON_23),
        ],
    );
    let (code, list, report) = findings(&dir, &["--select", "AC001"]);
    assert_eq!((code, list.len()), (0, 0), "{report}");
    let notes = report["summary"]["notes"].to_string();
    assert!(
        notes.contains("or check against the requirement scopes it declares (`pt2` (requirements/pt2.txt)): `--scope pt2`"),
        "{notes}"
    );
    for scope in ["pt2", "requirements/pt2.txt"] {
        let (code, list, report) = findings(&dir, &["--select", "AC001", "--scope", scope]);
        assert_eq!(
            (code, list.clone()),
            (1, vec!["m.py:1:AC001".to_string()]),
            "{scope}: {report}"
        );
        assert!(!report["summary"]["notes"]
            .to_string()
            .contains("no such scope"));
    }
}

/// InternEvo (`docs/false-alarm-study-25.md`, F-C): its install guide installs
/// `requirements/runtime.txt` and `requirements/torch.txt`, scopes to the tool. A package named
/// only in scopes is checked against the newest release they admit, not the newest indexed.
#[test]
fn a_package_named_only_in_scopes_gets_their_newest_release() {
    let dir = project(
        "scopes-bound",
        &[
            ("pyproject.toml", "[project]\nname = \"p\"\n"),
            ("requirements/torch.txt", "torch<2.4.0\n"),
            ("requirements/runtime.txt", "numpy\n"),
            ("m.py", BREAKS_ON_23),
        ],
    );
    let (code, list, report) = findings(&dir, &["--select", "AC001"]);
    assert_eq!(
        (code, list),
        (1, vec!["m.py:1:AC001".to_string()]),
        "{report}"
    );
    let torch = report["summary"]["targets"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["package"] == "torch"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(torch["releases"], serde_json::json!(["2.3.1"]), "{report}");
    assert!(
        torch["description"]
            .to_string()
            .contains("the newest release that requirements scope `torch` admits: `torch<2.4.0` (requirements/torch.txt:1)"),
        "{report}"
    );
}

#[test]
fn conda_names_and_projects_without_declarations() {
    let dir = project(
        "conda",
        &[
            ("environment.yml", "name: x\nchannels:\n  - pytorch\ndependencies:\n  - python >= 3.8\n  - pytorch >= 2.4\n  - pytorch-cuda=11.7\n  - pip:\n    - timm\n"),
            ("m.py", BREAKS_ON_23),
        ],
    );
    let (code, _, report) = findings(&dir, &[]);
    assert_eq!(code, 0, "{report}");
    let target = &report["summary"]["targets"][0];
    assert_eq!(target["origin"], "declared");
    assert_eq!(target["releases"][0], "2.4.0");

    let dir = project("undeclared", &[("m.py", BREAKS_ON_23)]);
    let (_, _, report) = findings(&dir, &[]);
    let notes: Vec<String> = report["summary"]["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .map(|n| n.as_str().unwrap_or("").to_string())
        .collect();
    let lines: Vec<&String> = notes
        .iter()
        .filter(|n| n.contains("declares no package requirements"))
        .collect();
    assert_eq!(lines.len(), 1, "{notes:?}");
    assert!(lines[0].contains("pyproject.toml"), "{notes:?}");
    assert!(
        !notes
            .iter()
            .any(|n| n.contains("is not declared or installed")),
        "{notes:?}"
    );
}

#[test]
fn packages_only_extras_require_are_checked_against_what_the_extras_admit() {
    // torch is required only by extras: `gpu` directly, `all` through `p[gpu]` (an extra of
    // the project itself); every install that brings torch in admits 2.3.x only, and pip
    // picks the newest, 2.3.1.
    let dir = project(
        "extras_only",
        &[
            ("pyproject.toml", "[project]\nname = \"P\"\ndependencies = [\"rich\"]\n\n[project.optional-dependencies]\ngpu = [\"torch>=2.3.0,<2.4\"]\nall = [\"p[gpu]\"]\n"),
            ("m.py", BREAKS_ON_23),
        ],
    );
    let (code, list, report) = findings(&dir, &["--select", "AC001"]);
    assert_eq!(
        (code, list),
        (1, vec!["m.py:1:AC001".to_string()]),
        "{report}"
    );
    let target = &report["summary"]["targets"][0];
    assert_eq!(target["origin"], "extras", "{report}");
    assert_eq!(target["releases"], serde_json::json!(["2.3.1"]));
    assert_eq!(
        target["description"],
        "the newest release that extras `all`, `gpu` admit: `torch>=2.3.0,<2.4` (pyproject.toml:6)"
    );
    let notes = report["summary"]["notes"].to_string();
    assert!(!notes.contains("not declared"), "{notes}");
    assert!(!notes.contains("scopes not checked"), "{notes}");
    // `--scope all` brings in `gpu` through the self-reference: a declared target.
    let (_, _, report) = findings(&dir, &["--select", "AC001", "--scope", "all"]);
    let target = &report["summary"]["targets"][0];
    assert_eq!(target["origin"], "declared", "{report}");
    assert_eq!(target["releases"], serde_json::json!(["2.3.0", "2.3.1"]));
    // Two extras with different ranges: the newest release either admits.
    let dir = project(
        "extras_union",
        &[
            ("setup.py", "from setuptools import setup\nsetup(name='p', install_requires=['rich'], extras_require={'a': ['torch==2.3.0'], 'b': ['torch==2.5.0']})\n"),
            ("m.py", BREAKS_ON_23),
        ],
    );
    let (_, _, report) = findings(&dir, &["--select", "AC001"]);
    let target = &report["summary"]["targets"][0];
    assert_eq!(target["releases"], serde_json::json!(["2.5.0"]), "{report}");
    // Only a version-less mention in an extra (a test extra): the newest release, said so.
    let dir = project(
        "extras_unbounded",
        &[
            (
                "setup.py",
                "from setuptools import setup
extras = {}
extras['test'] = ['torch']
setup(name='p', install_requires=['rich'], extras_require=extras)
",
            ),
            ("m.py", BREAKS_ON_23),
        ],
    );
    let (_, _, report) = findings(&dir, &["--select", "AC001"]);
    let target = &report["summary"]["targets"][0];
    assert_eq!(target["origin"], "newest", "{report}");
    let notes = report["summary"]["notes"].to_string();
    assert!(
        notes.contains("torch is declared without a version, in extras only (`test`)"),
        "{notes}"
    );
}

#[test]
fn a_sub_project_takes_the_enclosing_projects_python_and_extras() {
    // `sub/` bounds torch itself, so it is checked as a project of its own; it declares no
    // Python and no transformers: the root's `requires-python` and extras apply to it.
    let dir = project(
        "sub_inherits",
        &[
            ("pyproject.toml", "[project]\nname = \"p\"\nrequires-python = \">=3.10\"\ndependencies = [\"torch>=2.3.0\"]\n\n[project.optional-dependencies]\nhf = [\"transformers>=4.40,<4.46\"]\n"),
            ("main.py", "import torch\n"),
            ("sub/requirements.txt", "torch>=2.4.0\n"),
            ("sub/run.py", "import tomllib\nfrom transformers import Trainer\n\n\ndef f(m):\n    return Trainer(m, processing_class=None)\n"),
        ],
    );
    let (_, list, report) = findings(&dir, &["--select", "AC001,AC003"]);
    assert_eq!(
        list,
        ["sub/run.py:1:AC001", "sub/run.py:6:AC003"],
        "{report}"
    );
    let targets = report["summary"]["targets"].as_array().expect("targets");
    let pythons: Vec<&serde_json::Value> = targets
        .iter()
        .filter(|t| t["package"] == "python")
        .collect();
    assert_eq!(pythons.len(), 1, "{report}");
    assert_eq!(pythons[0]["releases"][0], "3.10", "{report}");
}
