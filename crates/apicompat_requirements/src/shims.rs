//! pyenv and asdf shims: `~/.pyenv/shims/python` is a shell script that runs the version
//! pyenv selects. Resolved statically, the way each tool selects (nothing is run):
//!
//! - pyenv: `PYENV_ROOT` from the script's `export PYENV_ROOT="..."`; the version from
//!   `PYENV_VERSION`, else the nearest `.python-version` from the working directory up, else
//!   `$PYENV_ROOT/version`; the interpreter `$PYENV_ROOT/versions/<version>/bin/<shim name>`
//!   (the first version of a `:`/space-separated list that is installed). `system` is not
//!   resolved.
//! - asdf: a script with `asdf exec`; the data directory from `ASDF_DATA_DIR`, else the
//!   shim's `../` (shims live in `$ASDF_DATA_DIR/shims`); the version from
//!   `ASDF_PYTHON_VERSION`, else the nearest `.tool-versions` line `python X` from the working
//!   directory up, else `$HOME/.tool-versions`; the interpreter
//!   `$ASDF_DATA_DIR/installs/python/<version>/bin/<shim name>`.

use std::path::{Path, PathBuf};

use crate::safe_read::read_regular_file;

/// Shims are a few hundred bytes.
const MAX_SHIM_BYTES: u64 = 64 * 1024;
/// Version files are one line; `.tool-versions` a few.
const MAX_VERSION_FILE_BYTES: u64 = 64 * 1024;
/// Directories walked up for a version file.
const MAX_PARENTS: usize = 256;

/// What the environment tells a shim.
#[derive(Debug, Clone, Default)]
pub struct ShimEnv {
    pub cwd: PathBuf,
    pub pyenv_version: Option<String>,
    pub asdf_python_version: Option<String>,
    pub asdf_data_dir: Option<PathBuf>,
    pub home: Option<PathBuf>,
}

impl ShimEnv {
    /// From this process's environment.
    pub fn current() -> ShimEnv {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        ShimEnv {
            cwd: std::env::current_dir().unwrap_or_default(),
            pyenv_version: var("PYENV_VERSION"),
            asdf_python_version: var("ASDF_PYTHON_VERSION"),
            asdf_data_dir: var("ASDF_DATA_DIR").map(PathBuf::from),
            home: var("HOME").map(PathBuf::from),
        }
    }
}

/// The interpreter a pyenv or asdf shim runs, or `None` when `path` is not such a shim or
/// the version cannot be resolved to an installed interpreter.
pub fn resolve_shim(path: &Path, env: &ShimEnv) -> Option<PathBuf> {
    let bytes = read_regular_file(path, MAX_SHIM_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    if !text.starts_with("#!") {
        return None;
    }
    let program = path.file_name()?.to_string_lossy().into_owned();
    if text.contains("pyenv\" exec") || text.contains("pyenv exec") {
        let root = text.lines().find_map(|l| {
            let v = l.trim().strip_prefix("export PYENV_ROOT=")?;
            Some(PathBuf::from(v.trim().trim_matches('"').trim_matches('\'')))
        })?;
        let versions = env
            .pyenv_version
            .clone()
            .or_else(|| nearest(&env.cwd, ".python-version").and_then(|f| first_line(&f)))
            .or_else(|| first_line(&root.join("version")))?;
        return versions
            .split([':', ' ', '\n'])
            .map(str::trim)
            .filter(|v| !v.is_empty() && *v != "system")
            .map(|v| root.join("versions").join(v).join("bin").join(&program))
            .find(|p| p.is_file());
    }
    if text.contains("asdf exec") {
        let data = env
            .asdf_data_dir
            .clone()
            .or_else(|| path.parent()?.parent().map(Path::to_path_buf))?;
        let version = env
            .asdf_python_version
            .clone()
            .or_else(|| nearest(&env.cwd, ".tool-versions").and_then(|f| tool_version(&f)))
            .or_else(|| {
                env.home
                    .as_ref()
                    .and_then(|h| tool_version(&h.join(".tool-versions")))
            })?;
        return version
            .split_whitespace()
            .filter(|v| *v != "system")
            .map(|v| {
                data.join("installs")
                    .join("python")
                    .join(v)
                    .join("bin")
                    .join(&program)
            })
            .find(|p| p.is_file());
    }
    None
}

fn nearest(start: &Path, name: &str) -> Option<PathBuf> {
    start
        .ancestors()
        .take(MAX_PARENTS)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn read_small(path: &Path) -> Option<String> {
    read_regular_file(path, MAX_VERSION_FILE_BYTES)
        .ok()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// pyenv's version file: its versions, one a line, `#` comments left out.
fn first_line(path: &Path) -> Option<String> {
    let text = read_small(path)?;
    let versions: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    (!versions.is_empty()).then(|| versions.join(":"))
}

/// `.tool-versions`: the versions on the `python` line.
fn tool_version(path: &Path) -> Option<String> {
    let text = read_small(path)?;
    text.lines().find_map(|l| {
        let l = l.split('#').next().unwrap_or("").trim();
        let rest = l.strip_prefix("python")?;
        rest.starts_with([' ', '\t'])
            .then(|| rest.trim().to_string())
            .filter(|v| !v.is_empty())
    })
}
