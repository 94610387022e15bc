//! Hostile project files: symlinks to `/dev/zero`, FIFOs, includes outside the project, a
//! `setup.py` that doubles a list, markers nested 100k deep. Every read ends, quickly, with a
//! diagnostic; nothing of a file outside the project is quoted.
#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use apicompat_requirements::{
    parse_requirement, read_distributions, read_file, read_project, Declared, Severity,
};

fn fixture_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("apicompat_requirements_hostile")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create fixture dir");
    dir
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Runs `f` on another thread and fails the test (instead of hanging it) when `f` has not
/// returned after a minute: before the fix, reading a FIFO blocked forever.
fn finishes<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("reading did not finish (blocked or read forever)")
}

fn messages(d: &Declared) -> Vec<(Severity, String)> {
    d.diagnostics
        .iter()
        .map(|x| (x.severity, x.to_string()))
        .collect()
}

#[test]
fn devices_fifos_and_outside_includes_are_refused() {
    let dir = fixture_dir("project");
    let outside = dir.join("outside.txt");
    fs::write(&outside, "secret-line-one\nsecret line two\n").unwrap();
    let project = dir.join("project");
    fs::create_dir_all(project.join("requirements")).unwrap();
    symlink("/dev/zero", project.join("pyproject.toml")).unwrap();
    mkfifo(&project.join("setup.cfg"));
    mkfifo(&project.join("environment.yml"));
    symlink("/dev/urandom", project.join("requirements/dev.txt")).unwrap();
    fs::write(
        project.join("requirements.txt"),
        "torch>=2.3\n-r /dev/zero\n-r ../outside.txt\n-c fifo.txt\n",
    )
    .unwrap();
    mkfifo(&project.join("fifo.txt"));

    let root = project.clone();
    let declared = finishes(move || read_project(&root));
    let names: Vec<_> = declared
        .requirements
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(names, ["torch"]);
    let got = messages(&declared);
    for (file, what) in [
        ("setup.cfg", "not a regular file (a FIFO); not read"),
        ("environment.yml", "not a regular file (a FIFO); not read"),
        (
            "requirements.txt:4",
            "not a regular file (a FIFO); not read",
        ),
        // Symlinks to /dev/zero resolve outside the project: never read.
        (
            "pyproject.toml",
            "resolves to /dev/zero, outside the project directory",
        ),
        (
            "requirements/dev.txt",
            "resolves to /dev/urandom, outside the project directory",
        ),
        (
            "requirements.txt:2",
            "/dev/zero is outside the project directory",
        ),
        ("requirements.txt:3", "is outside the project directory"),
    ] {
        assert!(
            got.iter()
                .any(|(sev, m)| *sev == Severity::Error && m.starts_with(file) && m.contains(what)),
            "no error for {file} in {got:#?}"
        );
    }
    assert!(
        got.iter()
            .all(|(_, m)| !m.contains("secret-line") && !m.contains("secret line")),
        "a diagnostic quotes a file outside the project: {got:#?}"
    );
    assert!(declared.files.iter().all(|f| f.as_path() != outside));
}

#[test]
fn single_file_that_is_a_fifo() {
    let dir = fixture_dir("single");
    let fifo = dir.join("requirements.txt");
    mkfifo(&fifo);
    let declared = finishes(move || read_file(&fifo));
    let got = messages(&declared);
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].1.contains("not a regular file (a FIFO)"), "{got:#?}");
}

#[test]
fn installed_metadata_that_is_a_device_or_fifo() {
    let dir = fixture_dir("site");
    let site = dir.join("site-packages");
    fs::create_dir_all(site.join("zero-1.0.dist-info")).unwrap();
    fs::create_dir_all(site.join("fifo-1.0.dist-info")).unwrap();
    fs::create_dir_all(site.join("good-1.0.dist-info")).unwrap();
    symlink("/dev/zero", site.join("zero-1.0.dist-info/METADATA")).unwrap();
    mkfifo(&site.join("fifo-1.0.dist-info/METADATA"));
    fs::write(
        site.join("good-1.0.dist-info/METADATA"),
        "Metadata-Version: 2.1\nName: good\nVersion: 1.0\n",
    )
    .unwrap();
    let (dists, diags) = finishes(move || read_distributions(&[site]));
    assert_eq!(
        dists.iter().map(|d| d.name.as_str()).collect::<Vec<_>>(),
        ["good"]
    );
    let msgs: Vec<String> = diags.iter().map(ToString::to_string).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("zero-1.0.dist-info") && m.contains("a character device")),
        "{msgs:#?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("fifo-1.0.dist-info") && m.contains("a FIFO")),
        "{msgs:#?}"
    );
}

#[test]
fn setup_py_that_doubles_a_list_gives_up_on_that_value() {
    let dir = fixture_dir("doubling");
    // 2^24 items from a 600-byte file: x1 = x0 + x0, x2 = x1 + x1, ...
    let mut text = String::from("from setuptools import setup\nx0 = [\"torch\"]\n");
    for i in 1..=24 {
        text.push_str(&format!("x{i} = x{} + x{}\n", i - 1, i - 1));
    }
    text.push_str("setup(name=\"p\", install_requires=x24, extras_require={\"a\": [\"numpy\"]})\n");
    fs::write(dir.join("setup.py"), &text).unwrap();
    let declared = finishes(move || read_project(&dir));
    // The doubled value is given up with a note; the rest of setup() is still read.
    let names: Vec<_> = declared
        .requirements
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(names, ["numpy"]);
    let got = messages(&declared);
    assert!(
        got.iter()
            .any(|(_, m)| m.contains("install_requires") && m.contains("too many")),
        "{got:#?}"
    );
}

#[test]
fn setup_py_with_deep_expressions_is_read_without_overflow() {
    let dir = fixture_dir("deep-setup");
    let depth = 100_000;
    let text = format!(
        "from setuptools import setup\ny = {}1{}\nz = {}1\nsetup(name=\"p\", install_requires=[\"torch\"])\n",
        "(".repeat(depth),
        ")".repeat(depth),
        "-".repeat(depth),
    );
    fs::write(dir.join("setup.py"), &text).unwrap();
    let declared = finishes(move || read_project(&dir));
    let got = messages(&declared);
    assert!(
        got.iter()
            .any(|(sev, m)| *sev == Severity::Error && m.contains("nested too deep")),
        "{got:#?}"
    );
}

#[test]
fn deeply_nested_marker_is_refused() {
    let depth = 100_000;
    let text = format!(
        "torch; {}python_version > \"3\"{}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let err = finishes(move || parse_requirement(&text)).expect_err("refused");
    assert!(
        err.message.contains("nested deeper than"),
        "{}",
        err.message
    );
    assert!(err.input.len() < 200, "the error quotes the whole input");
    // An unbalanced quote before the parentheses does not hide them.
    let text = format!(
        "torch @ https://x/a'b.whl ; {}python_version > '3'{}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let err = finishes(move || parse_requirement(&text)).expect_err("refused");
    assert!(
        err.message.contains("nested deeper than"),
        "{}",
        err.message
    );
    // Shallow nesting still parses.
    let ok = parse_requirement("torch; ((python_version > \"3\") and (os_name == \"posix\"))");
    assert!(ok.is_ok(), "{ok:?}");
}

/// Many extras reading one requirements file (NeMo's `setup.py` reaches
/// `requirements_lightning.txt` dozens of times through extras built from extras): each
/// extra gets the file's lines once. Each read used to copy every earlier copy too, doubling
/// the list per read (NeMo: 1.9 million requirements built for 614 kept, 10 s); here 2^26.
#[test]
fn extras_reading_one_file_many_times_stay_linear() {
    let dir = fixture_dir("setup_shared_many");
    let extras: String = (0..26)
        .map(|i| format!("        \"e{i}\": req_file([\"shared.txt\"]),\n"))
        .collect();
    let setup = format!(
        "import os\nfrom setuptools import setup\n\ndef req_file(filenames, folder=\"requirements\"):\n    ans = []\n    for file in filenames:\n        with open(os.path.join(folder, file)) as f:\n            ans.extend(map(str.strip, f.readlines()))\n    return ans\n\nsetup(\n    name=\"x\",\n    extras_require={{\n{extras}    }},\n)\n"
    );
    fs::write(dir.join("setup.py"), setup).unwrap();
    fs::create_dir_all(dir.join("requirements")).unwrap();
    fs::write(dir.join("requirements/shared.txt"), "torch>=2.0\nnumpy\n").unwrap();
    let got = finishes(move || read_project(&dir));
    assert_eq!(got.requirements.len(), 2 * 26);
    let e7: Vec<&str> = got
        .requirements
        .iter()
        .filter(|r| r.group.as_deref() == Some("e7"))
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(e7, ["torch", "numpy"]);
}
