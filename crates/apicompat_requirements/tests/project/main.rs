use std::fs;
use std::path::{Path, PathBuf};

use apicompat_requirements::{
    marker_environment, read_file, read_project, Declared, Platform, Severity, Source,
};

mod other_formats;
mod setup_py;

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
    // `git+https://github.com/huggingface/peft.git@v0.11.1`: peft, from that source.
    let direct: Vec<(&str, String)> = got
        .direct
        .iter()
        .map(|r| (r.name.as_str(), r.source.to_string()))
        .collect();
    assert_eq!(direct, [("peft", "requirements.txt:11".to_string())]);

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
                Severity::Warning,
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

/// A VCS URL without `#egg=` at a revision names its distribution by the repository
/// (ai-toolkit's `git+https://github.com/huggingface/diffusers.git@<commit>`); one without a
/// revision installs the repository's head (alpaca-lora's `git+https://github.com/huggingface/
/// peft.git`: checked as undeclared, its newest release), one for a sub-directory of the
/// repository, or that is no VCS URL, is skipped; each with a note.
#[test]
fn vcs_urls_without_egg_are_named_by_their_repository() {
    let dir = fixture_dir("vcs_repository_names");
    write(
        &dir,
        "requirements.txt",
        "git+https://github.com/huggingface/diffusers.git@c943837899b16cbae2f619b8dd4f7bb6f07dd81a\n\
         git+ssh://git@github.com/org/Some_Tool@v1.2\n\
         git+https://github.com/huggingface/peft.git\n\
         git+https://github.com/org/mono.git#subdirectory=pkgs/a\n\
         https://example.com/pkg/archive/main\n",
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
            ("diffusers", "requirements.txt:1".to_string()),
            ("some-tool", "requirements.txt:2".to_string())
        ]
    );
    let notes: Vec<String> = diags(&got).into_iter().map(|(_, at, _)| at).collect();
    assert_eq!(
        notes,
        [
            "requirements.txt:3",
            "requirements.txt:4",
            "requirements.txt:5"
        ]
    );
    assert!(diags(&got)[0]
        .2
        .contains("installs the head of peft's repository"));
}
