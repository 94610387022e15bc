use std::fs;
use std::path::{Path, PathBuf};

use apicompat_requirements::{
    marker_environment, read_file, read_project, Declared, Platform, Severity, Source,
};

/// A fresh directory for one test under cargo's per-target temp dir.
fn fixture_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("apicompat_requirements")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create fixture dir");
    dir
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create parent");
    }
    fs::write(path, text).expect("write fixture");
}

/// (name, specifier, source) of each requirement, for compact exact assertions.
/// The group (extra, dependency group) of each requirement, in order.
fn groups_of(got: &Declared) -> Vec<Option<&str>> {
    got.requirements
        .iter()
        .map(|r| r.group.as_deref())
        .collect()
}

fn summary(d: &Declared) -> Vec<(String, String, String)> {
    d.requirements
        .iter()
        .map(|r| {
            (
                r.name.clone(),
                r.specifier.to_string(),
                r.source.to_string(),
            )
        })
        .collect()
}

fn triple(name: &str, spec: &str, src: &str) -> (String, String, String) {
    (name.to_string(), spec.to_string(), src.to_string())
}

/// (severity, "file:line", message) of each diagnostic.
fn diags(d: &Declared) -> Vec<(Severity, String, String)> {
    d.diagnostics
        .iter()
        .map(|x| {
            let at = match x.line {
                Some(l) => format!("{}:{l}", x.file.display()),
                None => x.file.display().to_string(),
            };
            (x.severity, at, x.message.clone())
        })
        .collect()
}

fn d(sev: Severity, at: &str, msg: &str) -> (Severity, String, String) {
    (sev, at.to_string(), msg.to_string())
}

const TRAINING_REQUIREMENTS: &str = "\
# Training stack for the GPT fine-tuning scripts
--extra-index-url https://download.pytorch.org/whl/cu121
torch>=2.3.0
-r requirements/base.txt
numpy>=1.24,<2.0  # ABI of the compiled ops
transformers[torch]==4.41.2 \\
    --hash=sha256:0123456789abcdef
accelerate>=0.30; python_version >= \"3.9\"
-c constraints.txt
-e .
git+https://github.com/huggingface/peft.git@v0.11.1
./third_party/apex
https://download.pytorch.org/whl/cu121/torchvision-0.18.0%2Bcu121-cp311-cp311-linux_x86_64.whl
colossalai >= 0.3.6 \\
  , < 0.4
";

const BASE_REQUIREMENTS: &str = "\
einops
# circular include, as seen in the wild
-r ../requirements.txt
tqdm>=4.66
";

fn training_repo(dir: &Path) {
    write(dir, "requirements.txt", TRAINING_REQUIREMENTS);
    write(dir, "requirements/base.txt", BASE_REQUIREMENTS);
    write(
        dir,
        "requirements/extra.txt",
        "-r missing.txt\nthis is not a requirement!!\ndeepspeed>=0.14.0\n",
    );
    write(dir, "constraints.txt", "torch<2.5  # tested up to 2.4\n");
    write(
        dir,
        "requirements-dev.txt",
        "-r requirements.txt\npytest>=8.0\n--frobnicate\n",
    );
}

#[test]
fn training_repo_requirements_txt() {
    let dir = fixture_dir("training_repo");
    training_repo(&dir);
    let got = read_project(&dir);

    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.3.0", "requirements.txt:3"),
            triple("einops", "", "requirements/base.txt:1"),
            triple("tqdm", ">=4.66", "requirements/base.txt:4"),
            triple("numpy", ">=1.24, <2.0", "requirements.txt:5"),
            triple("transformers", "==4.41.2", "requirements.txt:6"),
            triple("accelerate", ">=0.30", "requirements.txt:8"),
            triple("torch", "<2.5", "constraints.txt:1"),
            triple("torchvision", "==0.18.0+cu121", "requirements.txt:13"),
            triple("colossalai", ">=0.3.6, <0.4", "requirements.txt:14"),
            triple("pytest", ">=8.0", "requirements-dev.txt:2"),
            triple("deepspeed", ">=0.14.0", "requirements/extra.txt:3"),
        ]
    );

    let torch = &got.requirements[0];
    assert_eq!(torch.raw, "torch>=2.3.0");
    assert!(!torch.is_constraint);
    assert_eq!(torch.marker, None);
    assert_eq!(
        torch.source,
        Source {
            file: PathBuf::from("requirements.txt"),
            line: 3
        }
    );
    let transformers = &got.requirements[4];
    assert_eq!(transformers.extras, vec!["torch".to_string()]);
    assert_eq!(transformers.raw, "transformers[torch]==4.41.2");
    let accelerate = &got.requirements[5];
    assert_eq!(
        accelerate.marker.as_deref(),
        Some("python_full_version >= '3.9'")
    );
    assert_eq!(
        accelerate.raw,
        "accelerate>=0.30; python_version >= \"3.9\""
    );
    let constraint = &got.requirements[6];
    assert!(constraint.is_constraint);
    let torchvision = &got.requirements[7];
    assert_eq!(
        torchvision.url.as_deref(),
        Some("https://download.pytorch.org/whl/cu121/torchvision-0.18.0%2Bcu121-cp311-cp311-linux_x86_64.whl")
    );
    let colossalai = &got.requirements[8];
    assert_eq!(colossalai.raw, "colossalai >= 0.3.6 , < 0.4");

    let torch_reqs = got.requirements_for("Torch");
    assert_eq!(torch_reqs.len(), 2);

    assert_eq!(
        diags(&got),
        vec![
            d(
                Severity::Warning,
                "requirements/base.txt:3",
                "include cycle skipped: requirements.txt -> requirements/base.txt -> requirements.txt"
            ),
            d(Severity::Note, "requirements.txt:10", "editable requirement `.` skipped"),
            d(
                Severity::Note,
                "requirements.txt:11",
                "`git+https://github.com/huggingface/peft.git@v0.11.1` is a URL or local path, not a named requirement; skipped"
            ),
            d(
                Severity::Note,
                "requirements.txt:12",
                "`./third_party/apex` is a URL or local path, not a named requirement; skipped"
            ),
            d(Severity::Warning, "requirements-dev.txt:3", "unknown option `--frobnicate` skipped"),
            d(
                Severity::Error,
                "requirements/extra.txt:1",
                "requirements file requirements/missing.txt not found"
            ),
            d(
                Severity::Error,
                "requirements/extra.txt:2",
                "invalid requirement `this is not a requirement!!`: Expected one of `@`, `(`, `<`, `=`, `>`, `~`, `!`, `;`, found `i`"
            ),
        ]
    );
    assert!(got.has_errors());
    assert_eq!(
        got.files,
        vec![
            PathBuf::from("requirements.txt"),
            PathBuf::from("requirements/base.txt"),
            PathBuf::from("constraints.txt"),
            PathBuf::from("requirements-dev.txt"),
            PathBuf::from("requirements/extra.txt"),
        ]
    );
}

const PYPROJECT: &str = r#"[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "my-trainer"
version = "0.1.0"
requires-python = ">=3.9"
dependencies = [
    "torch>=2.3",
    "colossalai>=0.3.6,<0.4; sys_platform == 'linux'",
    "Pillow_SIMD",
    "torch >>= 2",
]

[project.optional-dependencies]
dev = ["pytest>=8", "ruff"]
cuda = [
  "nvidia-cudnn-cu12==8.9.2.26",
]

[dependency-groups]
test = ["coverage>=7", {include-group = "dev"}]

[tool.ruff]
line-length = 100

[tool.apicompat]
targets = ["torch>=2.3", "colossalai>=0.3.6"]
select = ["APC001", "APC1"]
ignore = ["APC201"]
colour = "always"
"#;

#[test]
fn pyproject_with_optional_deps_and_tool_table() {
    let dir = fixture_dir("pyproject");
    write(&dir, "pyproject.toml", PYPROJECT);
    let got = read_project(&dir);

    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.3", "pyproject.toml:10"),
            triple("colossalai", ">=0.3.6, <0.4", "pyproject.toml:11"),
            triple("pillow-simd", "", "pyproject.toml:12"),
            triple("pytest", ">=8", "pyproject.toml:17"),
            triple("ruff", "", "pyproject.toml:17"),
            triple("nvidia-cudnn-cu12", "==8.9.2.26", "pyproject.toml:19"),
            triple("coverage", ">=7", "pyproject.toml:23"),
        ]
    );
    let groups = groups_of(&got);
    assert_eq!(
        groups,
        vec![
            None,
            None,
            None,
            Some("dev"),
            Some("dev"),
            Some("cuda"),
            Some("test")
        ]
    );
    assert_eq!(
        got.requirements[1].marker.as_deref(),
        Some("sys_platform == 'linux'")
    );

    let cfg = &got.tool_config;
    let targets: Vec<(String, String, String)> = cfg
        .targets
        .iter()
        .map(|r| {
            (
                r.name.clone(),
                r.specifier.to_string(),
                r.source.to_string(),
            )
        })
        .collect();
    assert_eq!(
        targets,
        vec![
            triple("torch", ">=2.3", "pyproject.toml:29"),
            triple("colossalai", ">=0.3.6", "pyproject.toml:29"),
        ]
    );
    assert_eq!(cfg.select, vec!["APC001".to_string(), "APC1".to_string()]);
    assert_eq!(cfg.ignore, vec!["APC201".to_string()]);
    assert_eq!(cfg.unknown_keys, vec!["colour".to_string()]);
    assert_eq!(
        cfg.source.as_ref().map(ToString::to_string).as_deref(),
        Some("pyproject.toml:28")
    );

    assert_eq!(
        diags(&got),
        vec![
            d(
                Severity::Error,
                "pyproject.toml:13",
                "invalid requirement `torch >>= 2`: no such comparison operator \">>=\", must be one of ~= == != <= >= < > ==="
            ),
            d(Severity::Warning, "pyproject.toml:32", "unknown key `colour` in [tool.apicompat] ignored"),
        ]
    );

    // Markers evaluate against an environment.
    let linux = marker_environment(&"3.11.7".parse().expect("version"), Platform::Linux)
        .expect("marker env");
    let windows = marker_environment(&"3.11.7".parse().expect("version"), Platform::Windows)
        .expect("marker env");
    assert!(got.requirements[1].applies(&linux, &[]));
    assert!(!got.requirements[1].applies(&windows, &[]));
}

#[test]
fn broken_pyproject_does_not_stop_other_files() {
    let dir = fixture_dir("broken_pyproject");
    write(
        &dir,
        "pyproject.toml",
        "[project]\nname = \"x\"\ndependencies = [\n    \"torch>=2.3\",\n    \"numpy\"\n\n[tool.apicompat]\n",
    );
    write(&dir, "requirements.txt", "torch>=2.3.0\ntorch>=>2\n\n  \n");
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![triple("torch", ">=2.3.0", "requirements.txt:1")]
    );
    let ds = diags(&got);
    assert_eq!(ds.len(), 2, "{ds:?}");
    assert_eq!(ds[0].0, Severity::Error);
    assert_eq!(ds[0].1, "pyproject.toml:7");
    assert!(
        ds[0].2.starts_with("pyproject.toml is not valid TOML: "),
        "{}",
        ds[0].2
    );
    assert!(
        ds[0].2.ends_with("; its requirements were not read"),
        "{}",
        ds[0].2
    );
    assert_eq!(ds[1].0, Severity::Error);
    assert_eq!(ds[1].1, "requirements.txt:2");
    assert!(
        ds[1].2.starts_with("invalid requirement `torch>=>2`: "),
        "{}",
        ds[1].2
    );
}

#[test]
fn pyproject_with_wrong_types_reports_and_continues() {
    let dir = fixture_dir("pyproject_types");
    write(
        &dir,
        "pyproject.toml",
        "[project]\ndependencies = \"torch>=2.3\"\n\n[project.optional-dependencies]\ndev = [\"pytest\", 3]\n\n[tool.apicompat]\ntargets = \"torch\"\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![triple("pytest", "", "pyproject.toml:5")]
    );
    assert_eq!(
        diags(&got),
        vec![
            d(
                Severity::Error,
                "pyproject.toml:2",
                "`project.dependencies` should be an array of strings, found string; skipped"
            ),
            d(
                Severity::Error,
                "pyproject.toml:5",
                "`an item of project.optional-dependencies.dev` should be a string, found integer; skipped"
            ),
            d(
                Severity::Error,
                "pyproject.toml:8",
                "`tool.apicompat.targets` should be an array of strings, found string; skipped"
            ),
        ]
    );
}

const SETUP_PY: &str = r#"import os
from setuptools import find_packages, setup

REQUIRES = [
    "torch>=1.13",
    'numpy',
]

EXTRAS = {
    "vision": ["torchvision>=0.14"],
}

if __name__ == "__main__":
    setup(
        name="legacy",
        packages=find_packages(),
        install_requires=REQUIRES + ["tqdm>=4"],
        extras_require=EXTRAS,
    )
"#;

#[test]
fn setup_py_literal_and_named_lists() {
    let dir = fixture_dir("setup_py");
    write(&dir, "setup.py", SETUP_PY);
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=1.13", "setup.py:5"),
            triple("numpy", "", "setup.py:6"),
            triple("tqdm", ">=4", "setup.py:17"),
            triple("torchvision", ">=0.14", "setup.py:10"),
        ]
    );
    assert_eq!(got.requirements[3].group.as_deref(), Some("vision"));
    assert_eq!(diags(&got), vec![]);

    let dir = fixture_dir("setup_py_dynamic");
    write(
        &dir,
        "setup.py",
        "import setuptools\n\nsetuptools.setup(\n    name='x',\n    install_requires=open('requirements.txt').read().splitlines(),\n)\n",
    );
    let got = read_project(&dir);
    assert_eq!(summary(&got), vec![]);
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Note,
            "setup.py:5",
            "`install_requires` in setup.py could not be read statically (not a literal list of strings); skipped"
        )]
    );

    // A syntax error elsewhere does not hide a literal list.
    let dir = fixture_dir("setup_py_syntax");
    write(
        &dir,
        "setup.py",
        "from setuptools import setup\ndef broken(:\n    pass\nsetup(install_requires=[\"colossalai==0.3.6\"])\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![triple("colossalai", "==0.3.6", "setup.py:4")]
    );
}

/// llm-compressor `setup.py:10,112-125`: `BUILD_TYPE = os.environ.get("BUILD_TYPE", "dev")`
/// and items `("torch>=2.10.0,<=2.13.0" if BUILD_TYPE == "release" else "torch>=2.10.0")`:
/// a plain `pip install .` takes the default, so the `else` item.
#[test]
fn setup_py_conditional_items_follow_what_a_plain_install_takes() {
    let dir = fixture_dir("setup_py_conditional");
    write(
        &dir,
        "setup.py",
        "import os\nfrom setuptools import setup\nBUILD_TYPE = os.environ.get(\"BUILD_TYPE\", \"dev\")\nKIND = \"full\"\nsetup(\n    install_requires=[\n        (\"torch>=2.10.0,<=2.13.0\" if BUILD_TYPE == \"release\" else \"torch>=2.10.0\"),\n        \"numpy>=2\" if KIND in (\"full\", \"all\") else \"numpy\",\n        \"tqdm\" if os.getenv(\"X\", \"a\") != \"a\" else \"tqdm>=4\",\n    ],\n)\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.10.0", "setup.py:7"),
            triple("numpy", ">=2", "setup.py:8"),
            triple("tqdm", ">=4", "setup.py:9"),
        ]
    );
    assert_eq!(diags(&got), vec![]);
    // A test that needs the build's environment (no default) is not decided: not read.
    write(
        &dir,
        "setup.py",
        "import os\nfrom setuptools import setup\nsetup(install_requires=[\"a\" if os.environ[\"B\"] == \"x\" else \"b\"])\n",
    );
    let got = read_project(&dir);
    assert_eq!(summary(&got), vec![]);
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Note,
            "setup.py:3",
            "`install_requires` in setup.py could not be read statically (a condition that depends on the build); skipped"
        )]
    );
}

/// The transformers `setup.py` idiom (alignment-handbook `setup.py:43-115`): a literal list of
/// requirements, a lookup table built from it by a comprehension, and `install_requires` items
/// `deps["accelerate"]`, extras `deps_list("torch", "accelerate")` (diffusers `setup.py:158-260`):
/// each is the list's item for that distribution, at its line.
#[test]
fn setup_py_lookup_table_of_requirements() {
    let dir = fixture_dir("setup_py_deps_table");
    write(
        &dir,
        "setup.py",
        "import re\nfrom setuptools import setup\n_deps = [\n    \"accelerate>=1.9.0\",\n    \"huggingface-hub>=0.33.4,<1.0\",\n    \"torch>=2.6.0\",\n]\ndeps = {b: a for a, b in (re.findall(r\"^(([^!=<>~ ]+)(?:[!=<>~ ].*)?$)\", x)[0] for x in _deps)}\ndef deps_list(*pkgs):\n    return [deps[pkg] for pkg in pkgs]\nextras = {}\nextras[\"torch\"] = deps_list(\"torch\", \"accelerate\")\nextras[\"dev\"] = extras[\"torch\"] + [\"pytest\"]\ninstall_requires = [deps[\"torch\"], deps[\"huggingface_hub\"]]\nsetup(name=\"x\", install_requires=list(install_requires), extras_require=extras)\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.6.0", "setup.py:6"),
            triple("huggingface-hub", ">=0.33.4, <1.0", "setup.py:5"),
            triple("torch", ">=2.6.0", "setup.py:6"),
            triple("accelerate", ">=1.9.0", "setup.py:4"),
            triple("torch", ">=2.6.0", "setup.py:6"),
            triple("accelerate", ">=1.9.0", "setup.py:4"),
            triple("pytest", "", "setup.py:13"),
        ]
    );
    let groups = groups_of(&got);
    assert_eq!(
        groups,
        [
            None,
            None,
            Some("torch"),
            Some("torch"),
            Some("dev"),
            Some("dev"),
            Some("dev")
        ]
    );
    assert_eq!(diags(&got), vec![]);
}

#[test]
fn setup_cfg_install_requires_and_extras() {
    let dir = fixture_dir("setup_cfg");
    write(
        &dir,
        "setup.cfg",
        "[metadata]\nname = legacy-cfg\n\n[options]\npackages = find:\ninstall_requires =\n    torch>=2.0\n    # a comment\n    numpy<2; python_version<\"3.9\"\npython_requires = >=3.8\n\n[options.extras_require]\ndev = pytest; black\ndocs =\n    sphinx>=7\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.0", "setup.cfg:7"),
            triple("numpy", "<2", "setup.cfg:9"),
            triple("pytest", "", "setup.cfg:13"),
            triple("black", "", "setup.cfg:13"),
            triple("sphinx", ">=7", "setup.cfg:15"),
        ]
    );
    let groups = groups_of(&got);
    assert_eq!(
        groups,
        vec![None, None, Some("dev"), Some("dev"), Some("docs")]
    );
    assert_eq!(
        got.requirements[1].marker.as_deref(),
        Some("python_full_version < '3.9'")
    );
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Warning,
            "setup.cfg:13",
            "a one-line `install_requires` is split at `;` by setuptools; put each requirement on its own line to use environment markers"
        )]
    );
}

#[test]
fn environment_yml_pip_section() {
    let dir = fixture_dir("conda_env");
    write(
        &dir,
        "environment.yml",
        "name: colossal\nchannels:\n  - pytorch\n  - nvidia\ndependencies:\n  - python=3.10\n  - pytorch=2.1.0\n  - pip\n  - pip:\n      - colossalai>=0.3.6  # main dependency\n      - \"transformers==4.36.2\"\n      - --index-url https://example.invalid/simple\n      - -r requirements-extra.txt\n",
    );
    write(&dir, "requirements-extra.txt", "sentencepiece\n");
    let got = read_file(&dir.join("environment.yml"));
    assert_eq!(
        summary(&got),
        vec![
            // The conda package `pytorch=2.1.0` is PyPI's torch, release series 2.1.0.
            triple("torch", "==2.1.0.*", "environment.yml:7"),
            triple("colossalai", ">=0.3.6", "environment.yml:10"),
            triple("transformers", "==4.36.2", "environment.yml:11"),
            triple("sentencepiece", "", "requirements-extra.txt:1"),
        ]
    );
    assert_eq!(diags(&got), vec![]);

    // In a project, the requirements file is read once, not again through the include.
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", "==2.1.0.*", "environment.yml:7"),
            triple("colossalai", ">=0.3.6", "environment.yml:10"),
            triple("transformers", "==4.36.2", "environment.yml:11"),
            triple("sentencepiece", "", "requirements-extra.txt:1"),
        ]
    );
    // Included by the main environment.yml: main, not the scope `extra`.
    assert!(got.requirements.iter().all(|r| r.group.is_none()));
}

#[test]
fn missing_project_and_file_are_diagnostics() {
    let dir = fixture_dir("missing");
    let got = read_project(&dir.join("nope"));
    assert_eq!(got.requirements, vec![]);
    assert_eq!(got.diagnostics.len(), 1);
    assert_eq!(got.diagnostics[0].severity, Severity::Error);
    let got = read_file(&dir.join("requirements.txt"));
    assert_eq!(got.diagnostics.len(), 1);
    assert_eq!(got.diagnostics[0].message, "file not found");
}

#[test]
fn garbage_input_never_panics() {
    let dir = fixture_dir("garbage");
    let samples = [
        "\\",
        "\\\n\\\n",
        "-",
        "--",
        "-r",
        "-r ",
        "-c\n",
        "@",
        "a @",
        "a[",
        "a[b",
        "a;",
        "a ; ;",
        "a==",
        "a===b",
        "a~=1",
        "a>=1.0.*",
        "\u{0}",
        "ü>=1",
        "#",
        " # x",
        "a==1 \\",
        "-rX",
        "--requirement=",
        "a @ file:///x",
        "name @ ",
        "[x]",
        ";python_version>'3'",
        "a; python_version ~= 'x'",
        "a (>=1)",
        "a==1;extra=='x' and",
        "\u{feff}torch",
        "\r\n\r\n",
        "a==1.0+",
        "a==1.0+cu 121",
    ];
    for (i, s) in samples.iter().enumerate() {
        write(&dir, &format!("requirements-{i}.txt"), s);
        write(
            &dir,
            "pyproject.toml",
            &format!("[project]\ndependencies = [{s:?}]\n"),
        );
        write(
            &dir,
            "setup.py",
            &format!("setup(install_requires=[{s:?}])\n"),
        );
        write(
            &dir,
            "setup.cfg",
            &format!("[options]\ninstall_requires = {s}\n"),
        );
        write(
            &dir,
            "environment.yml",
            &format!("dependencies:\n  - pip:\n    - {s}\n"),
        );
        let _ = read_project(&dir);
    }
    for junk in [
        "[[[",
        "x = [",
        "\"",
        "[tool.apicompat]\ntargets = [1, {a = 2}]",
        "a = \"\\u\"",
    ] {
        write(&dir, "pyproject.toml", junk);
        write(&dir, "setup.py", junk);
        write(&dir, "setup.cfg", junk);
        write(&dir, "environment.yml", junk);
        let _ = read_project(&dir);
    }
}

#[test]
fn option_spellings_crlf_and_bom() {
    let dir = fixture_dir("spellings");
    write(
        &dir,
        "requirements.txt",
        "\u{feff}--requirement=req-a.txt\r\n-rreq-b.txt\r\n--constraint \"pins.txt\"\r\nTorch_Vision [Extra_One] ~= 0.18.0 ; platform_system != \"Windows\"  # vision\r\n",
    );
    write(&dir, "req-a.txt", "Pillow>=10\n");
    write(&dir, "req-b.txt", "scipy\n-r req-c.txt\n");
    write(&dir, "req-c.txt", "sympy==1.12\n");
    write(&dir, "pins.txt", "numpy==1.26.4\n-r pins-more.txt\n");
    write(&dir, "pins-more.txt", "scipy<1.14\n");
    let got = read_file(&dir.join("requirements.txt"));
    assert_eq!(
        summary(&got),
        vec![
            triple("pillow", ">=10", "req-a.txt:1"),
            triple("scipy", "", "req-b.txt:1"),
            triple("sympy", "==1.12", "req-c.txt:1"),
            triple("numpy", "==1.26.4", "pins.txt:1"),
            triple("scipy", "<1.14", "pins-more.txt:1"),
            triple("torch-vision", "~=0.18.0", "requirements.txt:4"),
        ]
    );
    let constraints: Vec<bool> = got.requirements.iter().map(|r| r.is_constraint).collect();
    assert_eq!(constraints, vec![false, false, false, true, true, false]);
    let vision = &got.requirements[5];
    assert_eq!(vision.extras, vec!["extra-one".to_string()]);
    assert_eq!(
        vision.marker.as_deref(),
        Some("platform_system != 'Windows'")
    );
    assert_eq!(diags(&got), vec![]);
}

#[test]
fn name_normalization() {
    assert_eq!(
        apicompat_requirements::normalize_name("Foo__Bar.baz-Qux"),
        "foo-bar-baz-qux"
    );
    assert_eq!(apicompat_requirements::normalize_name("torch"), "torch");
    let parsed =
        apicompat_requirements::parse_requirement("Foo.Bar[X_Y]>=1; python_version<'3.12'")
            .expect("parses");
    assert_eq!(parsed.name, "foo-bar");
    assert_eq!(parsed.extras, vec!["x-y".to_string()]);
    assert_eq!(parsed.specifier.to_string(), ">=1");
    assert_eq!(
        parsed.marker.as_deref(),
        Some("python_full_version < '3.12'")
    );
    assert!(apicompat_requirements::parse_requirement("torch>=>2").is_err());
}

#[test]
fn extras_and_the_project_name_are_known_and_self_references_expand() {
    let dir = fixture_dir("extras_items");
    write(
        &dir,
        "setup.py",
        "from setuptools import setup\nextra_deps = {}\nextra_deps['nlp'] = [\n    'transformers<4.54',\n]\nextra_deps['all'] = ['Demo_Pkg[nlp]']\nsetup(name='demo-pkg', extras_require=extra_deps)\n",
    );
    let d = read_project(&dir);
    assert_eq!(d.name.as_deref(), Some("demo-pkg"));
    assert_eq!(d.extras, ["nlp", "all"]);
    assert_eq!(
        summary(&d),
        [
            triple("transformers", "<4.54", "setup.py:4"),
            triple("demo-pkg", "", "setup.py:6"),
        ]
    );
    assert_eq!(d.scope_closure(&["all".to_string()]), ["all", "nlp"]);
    let by_extra: Vec<(String, usize)> = d
        .extras_requiring("Transformers")
        .into_iter()
        .map(|(e, reqs)| (e, reqs.len()))
        .collect();
    assert_eq!(by_extra, [("all".to_string(), 1), ("nlp".to_string(), 1)]);
    assert_eq!(d.in_scopes(&["all".to_string()]).requirements.len(), 2);

    let dir = fixture_dir("extras_pyproject");
    write(
        &dir,
        "pyproject.toml",
        "[project]\nname = \"p\"\n[project.optional-dependencies]\nhf = [\"transformers\"]\nbase = [\"p[hf]\"]\n",
    );
    let d = read_project(&dir);
    assert_eq!(d.name.as_deref(), Some("p"));
    assert_eq!(d.extras, ["hf", "base"]);
    assert_eq!(d.scope_closure(&["base".to_string()]), ["base", "hf"]);
}

/// `install_requires` and extras read from requirements files by a function of setup.py
/// (NeMo's `req_file(filename, folder="requirements")`): each file is read as its group.
#[test]
fn setup_py_lists_read_from_files_by_a_helper() {
    let dir = fixture_dir("setup_py_req_file");
    write(
        &dir,
        "setup.py",
        "import setuptools\n\n\ndef req_file(filename, folder=\"requirements\"):\n    with open(f\"{folder}/{filename}\") as f:\n        return [x.strip() for x in f.readlines()]\n\n\nsetuptools.setup(\n    name=\"pkg\",\n    install_requires=req_file(\"requirements.txt\"),\n    extras_require={\"lightning\": req_file(\"requirements_lightning.txt\"), \"none\": req_file(\"missing.txt\")},\n)\n",
    );
    write(&dir, "requirements/requirements.txt", "torch>=2.0\n");
    write(
        &dir,
        "requirements/requirements_lightning.txt",
        "transformers~=4.53.0\n",
    );
    let d = read_project(&dir);
    assert_eq!(
        summary(&d),
        [
            triple("torch", ">=2.0", "requirements/requirements.txt:1"),
            triple(
                "transformers",
                "~=4.53.0",
                "requirements/requirements_lightning.txt:1"
            ),
        ]
    );
    let lightning = &d.requirements[1];
    assert_eq!(lightning.group.as_deref(), Some("lightning"));
    assert!(lightning.extra);
    assert!(d.requirements[0].group.is_none());
    let by_extra: Vec<String> = d
        .extras_requiring("transformers")
        .into_iter()
        .map(|(e, _)| e)
        .collect();
    assert_eq!(by_extra, ["lightning"]);
}

/// fairseq2 `setup.py`: one computed item (`"fairseq2n" + version_spec`) among literal ones:
/// the literal ones are read, the computed one is noted (`docs/false-alarm-study-15.md`, D1).
#[test]
fn setup_py_a_computed_item_leaves_the_others() {
    let dir = fixture_dir("setup_py_computed_item");
    write(
        &dir,
        "setup.py",
        "from setuptools import setup\nspec = \"==0.1\"\nsetup(\n    install_requires=[\n        \"demo-native\" + spec,\n        \"huggingface_hub>=0.32,<1\",\n    ],\n)\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![triple("huggingface-hub", ">=0.32, <1", "setup.py:6")]
    );
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Note,
            "setup.py:5",
            "an item of a requirement list in setup.py could not be read statically (an item is not a string literal); skipped, the other items are read"
        )]
    );
}

/// A VCS URL with `#egg=NAME`, editable or not, declares NAME built from that source (a
/// direct reference: no release stands for it); an editable path without a name is skipped
/// with a note, as before (`docs/false-alarm-study-16.md`, F6).
#[test]
fn egg_fragments_are_direct_references() {
    let dir = fixture_dir("egg_fragments");
    write(
        &dir,
        "requirements.txt",
        "-e git+https://github.com/huggingface/transformers.git@352d5472#egg=transformers\n\
         git+https://github.com/huggingface/peft.git@v0.11.1#egg=PEFT[torch]&subdirectory=x\n\
         -e .\n\
         torch>=2.3\n",
    );
    let got = read_project(&dir);
    let direct: Vec<(&str, String)> = got
        .direct
        .iter()
        .map(|r| (r.name.as_str(), r.source.to_string()))
        .collect();
    assert_eq!(
        direct,
        [
            ("transformers", "requirements.txt:1".to_string()),
            ("peft", "requirements.txt:2".to_string())
        ]
    );
    assert_eq!(
        got.direct[0].raw,
        "-e git+https://github.com/huggingface/transformers.git@352d5472#egg=transformers"
    );
    assert_eq!(
        summary(&got),
        vec![triple("torch", ">=2.3", "requirements.txt:4")]
    );
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Note,
            "requirements.txt:3",
            "editable requirement `.` skipped"
        )]
    );
}

/// tianshou's layout (docs/false-alarm-study-18.md): every requirement in Poetry's tables.
#[test]
fn poetry_tables_are_read() {
    let dir = fixture_dir("poetry");
    write(
        &dir,
        "pyproject.toml",
        r#"[tool.poetry]
name = "x"
version = "0.1"

[tool.poetry.dependencies]
python = "^3.11"
numpy = "^1.24.1"
torch = { version = "~2.1", extras = ["opt"] }
gymnasium = "*"
envpool = { version = "^0.8.2", optional = true }
mylib = { git = "https://example.com/mylib.git" }
bad = "^1.0 || ^2.0"

[tool.poetry.extras]
envs = ["envpool"]

[tool.poetry.group.dev.dependencies]
pytest = ">=7 <9"

[build-system]
requires = ["poetry-core>=1.0.0"]
build-backend = "poetry.core.masonry.api"
"#,
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        vec![
            triple("numpy", ">=1.24.1, <2", "pyproject.toml:7"),
            triple("torch", ">=2.1, <2.2", "pyproject.toml:8"),
            triple("gymnasium", "", "pyproject.toml:9"),
            triple("envpool", ">=0.8.2, <0.9", "pyproject.toml:10"),
            triple("bad", "", "pyproject.toml:12"),
            triple("pytest", ">=7, <9", "pyproject.toml:18"),
        ]
    );
    assert_eq!(
        groups_of(&got),
        vec![None, None, None, Some("envs"), None, Some("dev")]
    );
    assert_eq!(got.direct.len(), 1);
    assert_eq!(
        diags(&got),
        vec![d(
            Severity::Warning,
            "pyproject.toml:12",
            "`bad` in the Poetry dependencies: `^1.0 || ^2.0` allows either of two ranges; read without a version"
        )]
    );
    let rp = apicompat_requirements::read_requires_python(&dir)
        .expect("declared")
        .expect("valid");
    assert_eq!(rp.raw, ">=3.11,<4");
}

/// NeMo's setup.py: two extras read the same requirements file (`core` and `lightning` both
/// name `requirements_lightning.txt`); each extra has its requirements, though the file is
/// read once.
#[test]
fn two_extras_reading_one_file_each_have_its_requirements() {
    let dir = fixture_dir("setup_shared_file");
    write(
        &dir,
        "setup.py",
        "import os\nfrom setuptools import setup\n\ndef req_file(filenames, folder=\"requirements\"):\n    ans = []\n    for file in filenames:\n        with open(os.path.join(folder, file)) as f:\n            ans.extend(map(str.strip, f.readlines()))\n    return ans\n\nsetup(\n    name=\"x\",\n    extras_require={\n        \"core\": req_file([\"requirements_lightning.txt\", \"requirements_automodel.txt\"]),\n        \"lightning\": req_file([\"requirements_lightning.txt\"]),\n    },\n)\n",
    );
    write(
        &dir,
        "requirements/requirements_lightning.txt",
        "lightning>2.2.1\n",
    );
    write(
        &dir,
        "requirements/requirements_automodel.txt",
        "transformers~=4.53.0\n",
    );
    let got = read_project(&dir);
    let mut pairs: Vec<(String, Option<String>)> = got
        .requirements
        .iter()
        .map(|r| (r.name.clone(), r.group.clone()))
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            ("lightning".to_string(), Some("core".to_string())),
            ("lightning".to_string(), Some("lightning".to_string())),
            ("transformers".to_string(), Some("core".to_string())),
        ]
    );
}

#[test]
fn conda_files_by_other_names() {
    // One conda file under another name is the main set (decision-transformer's
    // `gym/conda_env.yml`); YAML without `dependencies:` is not one.
    let dir = fixture_dir("conda_other_name");
    write(
        &dir,
        "conda_env.yml",
        "name: dt\nchannels:\n  - pytorch\ndependencies:\n  - python=3.8\n  - pip:\n    - transformers==4.5.1\n",
    );
    write(&dir, "env_config.yaml", "lr: 0.1\nbatch: 4\n");
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        [triple("transformers", "==4.5.1", "conda_env.yml:7")]
    );
    assert_eq!(groups_of(&got), [None]);
    assert!(apicompat_requirements::is_declaration_file(
        &dir,
        &dir.join("conda_env.yml")
    ));
    let rp = apicompat_requirements::read_requires_python(&dir)
        .expect("declared")
        .expect("valid");
    assert_eq!(rp.source.to_string(), "conda_env.yml:5");
    // Beside `environment.yml`, another conda file is a scope named by its stem.
    let dir = fixture_dir("conda_scoped");
    write(
        &dir,
        "environment.yml",
        "dependencies:\n  - pip:\n    - torch==2.1.0\n",
    );
    write(
        &dir,
        "environment-gpu.yml",
        "dependencies:\n  - pip:\n    - torch==2.2.0\n",
    );
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        [
            triple("torch", "==2.1.0", "environment.yml:3"),
            triple("torch", "==2.2.0", "environment-gpu.yml:3"),
        ]
    );
    assert_eq!(groups_of(&got), [None, Some("environment-gpu")]);
    // Without a main file and with two others, both are scopes.
    let dir = fixture_dir("conda_two");
    write(
        &dir,
        "conda_cpu.yml",
        "dependencies:\n  - pip:\n    - torch==2.1.0\n",
    );
    write(
        &dir,
        "conda_gpu.yml",
        "dependencies:\n  - pip:\n    - torch==2.2.0\n",
    );
    assert_eq!(
        groups_of(&read_project(&dir)),
        [Some("conda_cpu"), Some("conda_gpu")]
    );
}

/// NeMo's setup.py: an extra set again as the chain of itself and other extras
/// (`extras_require['nlp'] = list(chain(extras_require['nlp'], extras_require['core']))`): its
/// last value is read, with the earlier values it names, each line once.
#[test]
fn extras_joined_from_other_extras() {
    let dir = fixture_dir("setup_chained_extras");
    write(
        &dir,
        "setup.py",
        "import os\nfrom itertools import chain\nfrom setuptools import setup\n\ndef req_file(filenames, folder=\"requirements\"):\n    ans = []\n    for file in filenames:\n        with open(os.path.join(folder, file)) as f:\n            ans.extend(map(str.strip, f.readlines()))\n    return ans\n\nextras_require = {\n    \"core\": req_file([\"requirements_core.txt\"]),\n    \"nlp-only\": req_file([\"requirements_nlp.txt\"]),\n}\nextras_require[\"common\"] = list(chain(extras_require[\"core\"], [\"einops\"]))\nextras_require[\"nlp\"] = extras_require[\"nlp-only\"]\nextras_require[\"nlp\"] = list(chain(extras_require[\"nlp\"], extras_require[\"common\"], extras_require[\"core\"]))\nextras_require[\"bad\"] = list(chain(extras_require[\"unset\"]))\n\nsetup(name=\"x\", extras_require=extras_require)\n",
    );
    write(
        &dir,
        "requirements/requirements_core.txt",
        "lightning>2.2.1\n",
    );
    write(&dir, "requirements/requirements_nlp.txt", "megatron_core\n");
    let got = read_project(&dir);
    let mut pairs: Vec<(String, Option<String>)> = got
        .requirements
        .iter()
        .map(|r| (r.name.clone(), r.group.clone()))
        .collect();
    pairs.sort();
    let pair = |n: &str, g: &str| (n.to_string(), Some(g.to_string()));
    assert_eq!(
        pairs,
        [
            pair("einops", "common"),
            pair("einops", "nlp"),
            pair("lightning", "common"),
            pair("lightning", "core"),
            pair("lightning", "nlp"),
            pair("megatron-core", "nlp"),
            pair("megatron-core", "nlp-only"),
        ]
    );
    // An extra naming one never set is not read, and says so.
    assert!(
        diags(&got)
            .iter()
            .any(|(_, _, m)| m.contains("extra `bad`: extra `unset` is not set before")),
        "{:?}",
        diags(&got)
    );
}
