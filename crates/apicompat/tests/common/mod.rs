//! Helpers of the CLI tests: the binary, fixture projects, output as text, a hang guard.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

/// The built `apicompat`, without colour and outside any virtual environment.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_apicompat"));
    c.env("NO_COLOR", "1").env_remove("VIRTUAL_ENV");
    c
}

/// `apicompat --no-cache check ARGS` in `dir`.
pub fn check(dir: &Path, args: &[&str]) -> Output {
    bin()
        .arg("--no-cache")
        .arg("check")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run apicompat")
}

/// A fresh fixture directory `group/name` under the test target's temporary directory.
pub fn project_in(group: &str, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("mkdir");
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
    }
    dir
}

/// Standard output and error as text.
pub fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The `file:line:column` of every finding in a text report (its `--> ` lines), in order.
pub fn locations(out: &str) -> Vec<&str> {
    out.lines()
        .filter_map(|l| l.trim_start().strip_prefix("--> "))
        .collect()
}

/// Waits for a run that takes well under a second; past a minute it is killed and the test
/// fails with `what` (a hang guard, not a timing).
pub fn finish_or_fail(mut child: Child, what: &str) -> Output {
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// `apicompat --no-cache check ARGS` in `dir`, its output captured, under the hang guard.
pub fn check_or_fail(dir: &Path, args: &[&str], what: &str) -> Output {
    let child = bin()
        .arg("--no-cache")
        .arg("check")
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    finish_or_fail(child, what)
}

pub const BREAKS_ON_23: &str = "from torch.distributed.pipelining import pipeline\n";

/// A scratch directory under the system's temporary directory, removed when dropped.
pub struct Scratch(std::path::PathBuf);

impl Scratch {
    /// A fresh, empty directory `prefix-name-PID`.
    pub fn new(prefix: &str, name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("{prefix}-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
