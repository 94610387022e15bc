//! Requirement lines, markers, versions and the project files that declare requirements.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use apicompat_requirements::{
    admits, evaluate_marker, local_label, marker_environment, parse_requirement, parse_specifiers,
    parse_version, read_file, read_project, read_requires_python, release_of, select, version,
    Declared, MarkerEnvironment, Platform, Version,
};

/// Lines read from one input (a longer input is still read by the file readers).
const MAX_LINES: usize = 64;

/// Each line of the input as a PEP 508 requirement, a marker, a version and a specifier set,
/// with what apicompat then asks of each (marker evaluation in two environments, the releases
/// a specifier selects); the input as `requires.txt` and `requirements.txt` member text
/// (`apicompat_archive`); and the input as a pip requirements file read from disk
/// (`read_file`: continuations, comments, options, includes, which never leave the scratch
/// directory the file is in).
pub fn requirements(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let envs = environments();
    let releases = releases();
    for line in text.lines().take(MAX_LINES) {
        one_line(line, &envs, &releases);
        if let Some((_, marker)) = line.split_once(';') {
            for env in &envs {
                let _ = evaluate_marker(marker, env, &["gpu"]);
            }
        }
    }
    let _ = apicompat_archive::parse_requires_txt(data);
    let _ = apicompat_archive::parse_requirements_txt(data);
    with_file("requirements.txt", data, |path, _| {
        walk(&read_file(path), &envs);
    });
}

fn one_line(line: &str, envs: &[MarkerEnvironment], releases: &[Version]) {
    if let Ok(req) = parse_requirement(line) {
        let _ = select(&req.specifier, releases);
        let _ = version::mentions_prerelease(&req.specifier);
        for env in envs {
            let _ = req.marker_tree.evaluate(env, &[]);
        }
        if let Some(marker) = &req.marker {
            // The normalized marker reads back.
            for env in envs {
                let _ = evaluate_marker(marker, env, &["gpu"]);
            }
        }
    }
    for env in envs {
        let _ = evaluate_marker(line, env, &[]);
    }
    if let Ok(v) = parse_version(line) {
        let _ = version::is_prerelease(&v);
        let _ = release_of(&v);
        let _ = local_label(&v);
        let _ = marker_environment(&v, Platform::Windows);
    }
    if let Ok(spec) = parse_specifiers(line) {
        let _ = select(&spec, releases);
        for r in releases {
            let _ = admits(&spec, r);
        }
    }
}

fn environments() -> Vec<MarkerEnvironment> {
    ["3.9.18", "3.13.0rc1"]
        .iter()
        .zip([Platform::Linux, Platform::MacOs])
        .filter_map(|(v, p)| marker_environment(&parse_version(v).ok()?, p).ok())
        .collect()
}

fn releases() -> Vec<Version> {
    [
        "1.0",
        "2.0.0rc1",
        "2.0",
        "2.1.post1",
        "2.3.0+cu121",
        "10!1.0",
    ]
    .iter()
    .filter_map(|v| parse_version(v).ok())
    .collect()
}

/// The project files that declare requirements, read from disk as `check` reads them. The
/// first byte picks the file (`pyproject.toml`, `setup.cfg`, `setup.py`, `environment.yml`,
/// `requirements.txt`: `'0'` to `'4'`), the rest is its text. Reads it alone
/// (`read_file`), as a project (`read_project`) and for its `requires-python`.
pub fn project_files(data: &[u8]) {
    let (pick, body) = data.split_first().unwrap_or((&b'0', &[]));
    let name = match pick.wrapping_sub(b'0') % 5 {
        0 => "pyproject.toml",
        1 => "setup.cfg",
        2 => "setup.py",
        3 => "environment.yml",
        _ => "requirements.txt",
    };
    let envs = environments();
    with_file(name, body, |path, dir| {
        walk(&read_file(path), &envs);
        walk(&read_project(dir), &envs);
        if let Some(Ok(rp)) = read_requires_python(dir) {
            let _ = select(&rp.specifier, &releases());
        }
    });
}

/// What `check` does with declarations: evaluate each marker, show each diagnostic.
fn walk(declared: &Declared, envs: &[MarkerEnvironment]) {
    for r in &declared.requirements {
        for env in envs {
            let _ = r.applies(env, &[]);
        }
        let _ = r.source.to_string();
    }
    for d in &declared.diagnostics {
        let _ = d.to_string();
    }
    let _ = declared.has_errors();
    for r in &declared.tool_config.targets {
        let _ = declared.requirements_for(&r.name);
    }
}

/// Writes `data` as `name` in this thread's scratch directory (emptied first) and calls `f`
/// with the file and the directory.
fn with_file(name: &str, data: &[u8], f: impl FnOnce(&Path, &Path)) {
    SCRATCH.with(|scratch| {
        let dir = scratch.borrow().0.clone();
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p.is_dir() {
                    let _ = std::fs::remove_dir_all(&p);
                } else {
                    let _ = std::fs::remove_file(&p);
                }
            }
        }
        let path = dir.join(name);
        if std::fs::write(&path, data).is_ok() {
            f(&path, &dir);
        }
    });
}

static NEXT_SCRATCH: AtomicUsize = AtomicUsize::new(0);

/// A directory of its own per thread, removed when the thread ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let n = NEXT_SCRATCH.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("apicompat-fuzz-{}-{n}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::new());
}
