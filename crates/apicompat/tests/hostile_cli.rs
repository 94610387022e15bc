//! `apicompat check` on hostile or unlucky input, as a user runs it: a reader that closes the
//! pipe early, declarations that cannot be read (fail closed, exit 2, unless
//! `--ignore-bad-declarations`), a `--target` package that is not indexed, file names crafted
//! to forge output lines.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

mod common;

use common::{bin, check, check_or_fail, text, BREAKS_ON_23};

fn project(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::project_in("hostile-cli", name, files)
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // Many findings: more output than a pipe buffer holds.
    let body = BREAKS_ON_23.repeat(1000);
    let dir = project(
        "pipe",
        &[("m.py", &body), ("requirements.txt", "torch>=2.3.0\n")],
    );
    let mut child = bin()
        .args(["--no-cache", "check"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Read a little, then close the pipe, as `| head -1` does.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout);
    let o = child.wait_with_output().expect("wait");
    let (_, err) = text(&o);
    assert!(!err.contains("panicked"), "{err}");
    // Quietly, exit 0 as for every subcommand; not a panic (101).
    assert_eq!(o.status.code(), Some(0), "{err}");
}

#[test]
fn unreadable_declarations_fail_closed() {
    let dir = project(
        "bad-pyproject",
        &[
            ("m.py", BREAKS_ON_23),
            (
                "pyproject.toml",
                "[project\ndependencies = [\"torch>=2.3\"]\n",
            ),
        ],
    );
    let o = check(&dir, &["-q"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("pyproject.toml is not valid TOML"), "{err}");
    assert!(err.contains("--ignore-bad-declarations"), "{err}");
    assert!(out.is_empty(), "{out}");
    // Opted out: checked without them (against the newest release, with a note).
    let o = check(&dir, &["--ignore-bad-declarations"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("pyproject.toml is not valid TOML"), "{out}");

    let dir = project(
        "bad-environment-yml",
        &[
            ("m.py", BREAKS_ON_23),
            (
                "environment.yml",
                "dependencies:\n  - pip: [\"torch>=2.3\"]\n",
            ),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("environment.yml"), "{err}");
}

#[test]
fn a_target_that_is_not_indexed_is_an_error() {
    let dir = project("unknown-target", &[("m.py", "import torch\n")]);
    let o = check(&dir, &["--target", "not-a-package-anyone-indexed>=1"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(
        err.contains("`not-a-package-anyone-indexed` is not in the index"),
        "{err}"
    );
}

#[test]
fn crafted_file_names_cannot_forge_annotations() {
    let name = "m\n::error file=forged.py,line=1::forged.py";
    let dir = project(
        "forge",
        &[(name, BREAKS_ON_23), ("requirements.txt", "torch>=2.3.0\n")],
    );
    let o = check(&dir, &[name, "--output-format", "github"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    // Two annotations (AC001 on the file, AC008 on the requirement), none forged.
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        out.lines().all(|l| l.starts_with("::error title=")),
        "{out}"
    );
    assert!(!out.contains("\n::error file=forged"), "{out}");
    let o = check(&dir, &[name]);
    let (out, _) = text(&o);
    assert!(
        out.lines().all(|l| !l.starts_with("::error")),
        "a forged line in text output:\n{out}"
    );
}

/// `pyproject.toml` a FIFO, `requirements.txt` a link to /dev/zero: `check` used to block or
/// read forever; now both are refused and the run stops with exit 2.
#[cfg(unix)]
#[test]
fn project_files_that_are_fifos_or_devices_do_not_hang() {
    let dir = project("fifo", &[("m.py", "import torch\n")]);
    let fifo = dir.join("pyproject.toml");
    let status = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(status.success());
    std::os::unix::fs::symlink("/dev/zero", dir.join("requirements.txt")).expect("symlink");
    let o = check_or_fail(
        &dir,
        &[],
        "check did not finish: a FIFO or /dev/zero was read",
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(
        err.contains("pyproject.toml") && err.contains("a FIFO"),
        "{err}"
    );
    assert!(
        err.contains("requirements.txt resolves to /dev/zero"),
        "{err}"
    );
}

#[test]
fn python_files_that_are_fifos_or_devices_do_not_hang() {
    let dir = project("fifo-py", &[("ok.py", "import torch\n")]);
    let status = Command::new("mkfifo")
        .arg(dir.join("pipe.py"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.py")).expect("symlink");
    // Named on the command line (a directory walk leaves them out).
    let o = check_or_fail(
        &dir,
        &["--target", "torch==2.5.0", "ok.py", "pipe.py", "zero.py"],
        "check did not finish: a FIFO or /dev/zero was read as Python",
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(out.contains("pipe.py") && out.contains("a FIFO"), "{out}");
    assert!(
        out.contains("zero.py") && out.contains("not a regular file"),
        "{out}"
    );
}

#[test]
fn ignore_files_that_are_fifos_or_devices_do_not_hang() {
    let dir = project(
        "fifo-gitignore",
        &[("ok.py", "import torch\n"), ("sub/m.py", "import torch\n")],
    );
    let status = Command::new("mkfifo")
        .arg(dir.join("sub/.gitignore"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let o = check_or_fail(
        &dir,
        &["--target", "torch==2.5.0", "."],
        "check did not finish: a FIFO .gitignore was read",
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(
        out.contains("`.gitignore` is not a regular file; the directory is not walked"),
        "{out}"
    );

    // At the top of the walk too: a link to /dev/zero.
    let dir = project("zero-gitignore", &[("ok.py", "import torch\n")]);
    std::os::unix::fs::symlink("/dev/zero", dir.join(".gitignore")).expect("symlink");
    let o = check_or_fail(
        &dir,
        &["--target", "torch==2.5.0", "."],
        "check did not finish: /dev/zero was read as .gitignore",
    );
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(out.contains("`.gitignore` is not a regular file"), "{out}");
}

/// Hundreds of thousands of Python 2 statements on one line: the Python 2 reading of the
/// syntax errors looks at a few of them, each within a bounded window of its line (reading
/// the whole line for every error took minutes).
#[test]
fn many_syntax_errors_on_one_line_do_not_hang() {
    let line = "print \"x\"; ".repeat(200_000);
    let dir = project("py2-one-line", &[("m.py", &line)]);
    let o = check_or_fail(&dir, &[], "a line of 200,000 Python 2 statements hung");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(
            "syntax error: Python 2 code (a `print` statement) and 199999 more syntax errors"
        ),
        "{}",
        &out[..out.len().min(2000)]
    );
}
