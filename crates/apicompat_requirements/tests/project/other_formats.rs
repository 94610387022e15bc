//! Conda environment files and Poetry tables.

use super::*;

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

/// asteroid's `environment.yml`: `-r file:requirements.txt` (the form conda documents) names
/// the file beside it; a `file:///` URL names an absolute path; a URL with a host is remote.
#[test]
fn environment_yml_includes_a_file_url() {
    let dir = fixture_dir("conda_env_file_url");
    let abs = dir.join("abs").join("reqs.txt");
    write(&dir, "abs/reqs.txt", "einops\n");
    write(
        &dir,
        "environment.yml",
        &format!(
            "name: asteroid\ndependencies:\n  - pip:\n    - -r file:requirements.txt\n    - -r file://{}\n    - -r file://host/reqs.txt\n    - -e .\n",
            abs.display()
        ),
    );
    write(&dir, "requirements.txt", "torch>=2.0\n");
    let got = read_file(&dir.join("environment.yml"));
    assert_eq!(
        summary(&got),
        vec![
            triple("torch", ">=2.0", "requirements.txt:1"),
            triple("einops", "", "abs/reqs.txt:1"),
        ]
    );
    let said = diags(&got);
    assert!(said.iter().all(|d| d.0 == Severity::Note), "{said:?}");
    assert!(
        said.iter().any(|d| d
            .2
            .contains("remote requirements file `file://host/reqs.txt` skipped")),
        "{said:?}"
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

#[test]
fn a_package_requirements_file_when_the_root_declares_nothing() {
    // DomainBed: the only declaration is `domainbed/requirements.txt`, in the project's
    // package; read, with a warning that says which file.
    let dir = fixture_dir("package_requirements");
    write(&dir, "domainbed/__init__.py", "");
    write(
        &dir,
        "domainbed/requirements.txt",
        "numpy==1.22.4\ntorch==1.12.1\n",
    );
    write(&dir, "scripts/requirements.txt", "pandas\n");
    write(&dir, "README.md", "# x\n");
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        [
            triple("numpy", "==1.22.4", "domainbed/requirements.txt:1"),
            triple("torch", "==1.12.1", "domainbed/requirements.txt:2"),
        ]
    );
    assert_eq!(
        diags(&got),
        [d(
            Severity::Warning,
            "domainbed/requirements.txt",
            "read as the project's requirements: the project root declares none, and this is the requirements file of its package `domainbed`"
        )]
    );
    // A root that declares something keeps to it; two packages with a file: neither.
    write(&dir, "requirements.txt", "einops\n");
    assert_eq!(
        summary(&read_project(&dir)),
        [triple("einops", "", "requirements.txt:1")]
    );
    let dir = fixture_dir("two_package_requirements");
    for pkg in ["a", "b"] {
        write(&dir, &format!("{pkg}/__init__.py"), "");
        write(&dir, &format!("{pkg}/requirements.txt"), "numpy\n");
    }
    assert!(read_project(&dir).requirements.is_empty());
    // No package has one: the one directory without Python code that has one (the image's
    // `images/requirements.txt` of the-algorithm-ml); `docs/` is not it, nor one with code.
    let dir = fixture_dir("image_requirements");
    write(
        &dir,
        "images/requirements.txt",
        "torch==1.13.1
",
    );
    write(
        &dir,
        "images/init_venv.sh",
        "pip install -r requirements.txt
",
    );
    write(
        &dir,
        "docs/requirements.txt",
        "sphinx
",
    );
    write(
        &dir,
        "tools/requirements.txt",
        "pandas
",
    );
    write(&dir, "tools/run.py", "");
    let got = read_project(&dir);
    assert_eq!(
        summary(&got),
        [triple("torch", "==1.13.1", "images/requirements.txt:1")]
    );
    assert_eq!(
        diags(&got),
        [d(
            Severity::Warning,
            "images/requirements.txt",
            "read as the project's requirements: the project root declares none, and this is the requirements file of its directory `images`, which holds no Python code (an image's or an environment's)"
        )]
    );
    write(
        &dir,
        "docker/requirements.txt",
        "torch==2.0.0
",
    );
    assert!(read_project(&dir).requirements.is_empty());
}

#[test]
fn a_conda_file_named_requirements() {
    // mdlm's conda environment is `requirements.yaml`.
    let dir = fixture_dir("conda_requirements_yaml");
    write(
        &dir,
        "requirements.yaml",
        "name: mdlm
channels:
  - conda-forge
dependencies:
  - python=3.9
  - pip:
    - transformers==4.38.2
",
    );
    assert_eq!(
        summary(&read_project(&dir)),
        [triple("transformers", "==4.38.2", "requirements.yaml:7")]
    );
}
