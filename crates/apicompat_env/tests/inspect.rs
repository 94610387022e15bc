//! Environments written by the tests as dist-info trees: exact pins, local-label mismatches,
//! pip-check problems, Requires-Python, markers, egg-info, broken metadata.

use std::fs;
use std::path::{Path, PathBuf};

use apicompat_env::{inspect, open, EnvReport};
use apicompat_requirements::Platform;

fn env_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("apicompat_env_inspect")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create env dir");
    dir
}

/// A venv-like tree: `pyvenv.cfg` with `version` (when given) and `lib/python3.11/site-packages`.
fn venv(name: &str, version: Option<&str>) -> (PathBuf, PathBuf) {
    let root = env_dir(name);
    let site = root.join("lib/python3.11/site-packages");
    fs::create_dir_all(&site).expect("site-packages");
    let mut cfg = String::from("home = /usr/bin\ninclude-system-site-packages = false\n");
    if let Some(v) = version {
        cfg.push_str(&format!("version = {v}\n"));
    }
    fs::write(root.join("pyvenv.cfg"), cfg).expect("pyvenv.cfg");
    (root, site)
}

/// Writes `NAME-VERSION.dist-info/METADATA` with the given extra header lines.
fn dist(site: &Path, name: &str, version: &str, headers: &[&str]) {
    let dir = site.join(format!("{}-{version}.dist-info", name.replace('-', "_")));
    fs::create_dir_all(&dir).expect("dist-info");
    let mut text = format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n");
    for h in headers {
        text.push_str(h);
        text.push('\n');
    }
    text.push_str("\nA description.\nRequires-Dist: not-a-header\n");
    fs::write(dir.join("METADATA"), text).expect("METADATA");
}

fn report(root: &Path) -> EnvReport {
    let env = open(Some(root), None).expect("open env");
    inspect(&env, Platform::Linux)
}

/// torch as the CUDA wheels ship it: exact pins of its own (triton, nvidia libraries).
fn torch(site: &Path, version: &str) {
    dist(
        site,
        "torch",
        version,
        &[
            "Requires-Python: >=3.8.0",
            "Requires-Dist: filelock",
            "Requires-Dist: nvidia-cublas-cu12 ==12.1.3.1 ; platform_system == \"Linux\"",
            "Requires-Dist: triton ==2.1.0 ; platform_system == \"Linux\"",
            "Provides-Extra: opt-einsum",
            "Requires-Dist: opt-einsum >=3.3 ; extra == 'opt-einsum'",
        ],
    );
    dist(site, "filelock", "3.13.1", &[]);
    dist(site, "nvidia-cublas-cu12", "12.1.3.1", &[]);
    dist(site, "triton", "2.1.0", &["Requires-Dist: filelock"]);
}

#[test]
fn mismatched_cuda_builds_are_reported_with_both_versions() {
    let (root, site) = venv("mismatch", Some("3.11.7"));
    torch(&site, "2.1.2+cu121");
    dist(
        &site,
        "torchvision",
        "0.16.2+cu118",
        &["Requires-Dist: numpy", "Requires-Dist: torch (==2.1.2)"],
    );
    dist(
        &site,
        "torchaudio",
        "2.1.2+cu121",
        &["Requires-Dist: torch ==2.1.2"],
    );
    dist(&site, "numpy", "1.26.4", &["Requires-Python: >=3.9"]);
    let r = report(&root);

    assert!(r.pip_check_lines().is_empty(), "{:?}", r.pip_check_lines());
    assert_eq!(r.label_mismatches.len(), 1, "{:#?}", r.label_mismatches);
    let m = &r.label_mismatches[0];
    assert_eq!(
        (m.reference.package.as_str(), m.reference.version.as_str()),
        ("torch", "2.1.2+cu121")
    );
    assert_eq!(
        (m.other.package.as_str(), m.other.version.as_str()),
        ("torchvision", "0.16.2+cu118")
    );
    assert_eq!(m.via, "torchvision 0.16.2+cu118 requires torch==2.1.2");
    assert_eq!(r.problem_count(), 1);

    // The pins, read from the metadata: torch is pinned by torchaudio and torchvision, and
    // itself pins nvidia-cublas-cu12 and triton.
    let groups: Vec<(&str, Vec<&str>)> = r
        .exact_pins
        .iter()
        .map(|g| {
            (
                g.package.as_str(),
                g.pinned_by.iter().map(|p| p.package.as_str()).collect(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        vec![
            ("nvidia-cublas-cu12", vec!["torch"]),
            ("torch", vec!["torchaudio", "torchvision"]),
            ("triton", vec!["torch"]),
        ]
    );
    let torch = r.distributions.iter().find(|d| d.name == "torch").unwrap();
    assert_eq!(torch.local_label.as_deref(), Some("cu121"));
    assert_eq!(torch.release, "2.1.2");
}

#[test]
fn a_satisfied_environment_reports_nothing() {
    let (root, site) = venv("satisfied", Some("3.11.7"));
    torch(&site, "2.1.2+cu121");
    dist(
        &site,
        "torchvision",
        "0.16.2+cu121",
        &["Requires-Dist: torch (==2.1.2)"],
    );
    dist(
        &site,
        "torchaudio",
        "2.1.2+cu121",
        &["Requires-Dist: torch ==2.1.2"],
    );
    let r = report(&root);
    assert_eq!(r.problem_count(), 0, "{r:#?}");
    assert!(r.label_mismatches.is_empty());
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(r
        .exact_pins
        .iter()
        .all(|g| g.pinned_by.iter().all(|p| p.satisfied)));

    // Unlabelled builds (the package index's default) are not compared with labelled ones.
    let (root, site) = venv("satisfied_unlabelled", Some("3.11.7"));
    torch(&site, "2.1.2");
    dist(
        &site,
        "torchvision",
        "0.16.2+cu121",
        &["Requires-Dist: torch ==2.1.2"],
    );
    assert_eq!(report(&root).problem_count(), 0);
}

#[test]
fn pinners_that_disagree_when_the_pinned_package_has_no_label() {
    let (root, site) = venv("unlabelled_anchor", Some("3.11.7"));
    torch(&site, "2.1.2");
    dist(
        &site,
        "torchvision",
        "0.16.2+cu118",
        &["Requires-Dist: torch ==2.1.2"],
    );
    dist(
        &site,
        "torchaudio",
        "2.1.2+cu121",
        &["Requires-Dist: torch ==2.1.2"],
    );
    let r = report(&root);
    assert_eq!(r.label_mismatches.len(), 1, "{:#?}", r.label_mismatches);
    let m = &r.label_mismatches[0];
    assert_eq!(m.reference.package, "torchaudio");
    assert_eq!(m.other.package, "torchvision");
    assert_eq!(
        m.via,
        "torchaudio 2.1.2+cu121 requires torch==2.1.2; torchvision 0.16.2+cu118 requires torch==2.1.2"
    );
}

#[test]
fn the_rule_is_read_from_the_metadata_not_from_names() {
    // Invented names, ROCm and CPU labels: the same rule applies.
    let (root, site) = venv("generic", Some("3.11.7"));
    dist(&site, "corelib", "3.0.1+rocm6.0", &[]);
    dist(
        &site,
        "corelib-ext",
        "1.4.0+cpu",
        &["Requires-Dist: CoreLib==3.0.1"],
    );
    dist(
        &site,
        "corelib-nightly-ext",
        "1.4.0+rocm6.0.dev1",
        &["Requires-Dist: corelib===3.0.1+rocm6.0"],
    );
    dist(
        &site,
        "corelib-other",
        "0.2+rocm6.1",
        &["Requires-Dist: corelib==3.0.1"],
    );
    // `==3.0.*` is not an exact pin; `>=` neither.
    dist(
        &site,
        "loose",
        "1.0+cu118",
        &["Requires-Dist: corelib ==3.0.*, >=3"],
    );
    let r = report(&root);
    let pairs: Vec<(String, String)> = r
        .label_mismatches
        .iter()
        .map(|m| {
            (
                format!("{} {}", m.reference.package, m.reference.version),
                format!("{} {}", m.other.package, m.other.version),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        vec![
            (
                "corelib 3.0.1+rocm6.0".to_string(),
                "corelib-ext 1.4.0+cpu".to_string()
            ),
            (
                "corelib 3.0.1+rocm6.0".to_string(),
                "corelib-other 0.2+rocm6.1".to_string()
            ),
        ]
    );
    assert_eq!(r.exact_pins.len(), 1);
    assert_eq!(r.exact_pins[0].pinned_by.len(), 3);
    assert_eq!(
        apicompat_env::build_variant("cu121.with.pypi.cudnn"),
        "cu121"
    );
    assert_eq!(apicompat_env::build_variant("ROCm6.0.dev1"), "rocm6.0");
}

#[test]
fn pip_check_problems_markers_and_exact_pins_that_fail() {
    let (root, site) = venv("pipcheck", Some("3.11.7"));
    torch(&site, "2.2.0+cu121");
    dist(
        &site,
        "torchvision",
        "0.16.2+cu121",
        &[
            "Requires-Dist: torch (==2.1.2)",
            "Requires-Dist: typing-extensions >=3.6.4 ; python_version < \"3.8\"",
            "Requires-Dist: pywin32 ; sys_platform == \"win32\"",
            "Requires-Dist: Requests[socks, security] (>= 2.0, <3) ; python_version >= '3.8'",
            "Provides-Extra: scipy",
            "Requires-Dist: scipy ; extra == 'scipy'",
        ],
    );
    dist(&site, "requests", "1.2.0", &[]);
    let r = report(&root);
    assert_eq!(
        r.pip_check_lines(),
        vec![
            "torchvision 0.16.2+cu121 has requirement Requests[security,socks]<3,>=2.0; python_version >= \"3.8\", but you have requests 1.2.0.",
            "torchvision 0.16.2+cu121 has requirement torch==2.1.2, but you have torch 2.2.0+cu121.",
        ]
    );
    let torch_group = r.exact_pins.iter().find(|g| g.package == "torch").unwrap();
    assert!(!torch_group.pinned_by[0].satisfied);

    // Missing ones come first, as pip prints them.
    fs::remove_dir_all(site.join("requests-1.2.0.dist-info")).unwrap();
    let r = report(&root);
    assert_eq!(
        r.pip_check_lines()[0],
        "torchvision 0.16.2+cu121 requires requests, which is not installed."
    );
}

#[test]
fn requires_python_against_the_interpreter() {
    let (root, site) = venv("requires_python", Some("3.11.7"));
    dist(&site, "new-only", "2.0", &["Requires-Python: >=3.12"]);
    dist(&site, "fine", "1.0", &["Requires-Python: >=3.8,!=3.9.*"]);
    let r = report(&root);
    assert_eq!(r.requires_python.len(), 1);
    let m = &r.requires_python[0];
    assert_eq!(
        (
            m.package.as_str(),
            m.requires_python.as_str(),
            m.python.as_str()
        ),
        ("new-only", ">=3.12", "3.11.7")
    );

    // Known only as 3.11 (no pyvenv.cfg version): decided when every 3.11.x agrees.
    let (root, site) = venv("requires_python_partial", None);
    dist(&site, "new-only", "2.0", &["Requires-Python: >=3.12"]);
    dist(&site, "patchy", "1.0", &["Requires-Python: >=3.11.4"]);
    dist(&site, "fine", "1.0", &["Requires-Python: >=3.8"]);
    let r = report(&root);
    assert_eq!(r.environment.python_version.as_deref(), Some("3.11"));
    let names: Vec<&str> = r
        .requires_python
        .iter()
        .map(|m| m.package.as_str())
        .collect();
    assert_eq!(names, vec!["new-only"]);
    assert!(
        r.notes.iter().any(|n| n.contains("patchy 1.0")),
        "{:?}",
        r.notes
    );
}

#[test]
fn egg_info_requires_txt() {
    let (root, site) = venv("egg_info", Some("3.11.7"));
    let egg = site.join("legacy_pkg-0.5-py3.11.egg-info");
    fs::create_dir_all(&egg).unwrap();
    fs::write(
        egg.join("PKG-INFO"),
        "Metadata-Version: 1.1\nName: legacy-pkg\nVersion: 0.5\n",
    )
    .unwrap();
    fs::write(
        egg.join("requires.txt"),
        "six>=1.5\n\n[:sys_platform == \"win32\"]\npywin32\n\n[Test]\npytest\n",
    )
    .unwrap();
    let r = report(&root);
    assert_eq!(
        r.pip_check_lines(),
        vec!["legacy-pkg 0.5 requires six, which is not installed."]
    );
}

#[test]
fn broken_metadata_is_an_error_and_the_rest_is_read() {
    let (root, site) = venv("broken", Some("3.11.7"));
    dist(&site, "fine", "1.0", &["Requires-Dist: six"]);
    let bad = site.join("bad-1.0.dist-info");
    fs::create_dir_all(&bad).unwrap();
    fs::write(bad.join("METADATA"), b"\xff\xfe garbage without headers").unwrap();
    let worse = site.join("worse-1.0.dist-info");
    fs::create_dir_all(&worse).unwrap();
    fs::write(
        worse.join("METADATA"),
        "Name: worse\nVersion: not a version\n",
    )
    .unwrap();
    let r = report(&root);
    assert!(r.has_errors());
    assert_eq!(r.diagnostics.len(), 2, "{:#?}", r.diagnostics);
    assert_eq!(
        r.pip_check_lines(),
        vec!["fine 1.0 requires six, which is not installed."]
    );
}

#[test]
fn bad_paths_and_interpreters() {
    let missing = Path::new(env!("CARGO_TARGET_TMPDIR")).join("apicompat_env_no_such_dir");
    let e = open(Some(&missing), None).unwrap_err();
    assert!(e.0.contains("no such file or directory"), "{e}");

    let dir = env_dir("not_python");
    let text = dir.join("python3");
    fs::write(&text, "hello\n").unwrap();
    let e = open(Some(&text), None).unwrap_err();
    assert!(e.0.contains("not a Python interpreter"), "{e}");
    let empty = dir.join("python");
    fs::write(&empty, "").unwrap();
    assert!(open(Some(&empty), None)
        .unwrap_err()
        .0
        .contains("empty file"));
    let named = dir.join("ls");
    fs::write(&named, b"\x7fELF....").unwrap();
    let e = open(Some(&named), None).unwrap_err();
    assert!(e.0.contains("its name is not python"), "{e}");

    // A directory that is no environment.
    let e = open(Some(&dir), None).unwrap_err();
    assert!(e.0.contains("not a Python environment"), "{e}");
    // Nothing given.
    assert!(open(None, None).unwrap_err().0.contains("VIRTUAL_ENV"));
}
