//! An installed Python environment, read from disk without running Python.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use pep508_rs::{MarkerEnvironment, Requirement};

use crate::declared::{normalize_name, Diagnostic, Severity, MAX_FILE_BYTES};
use crate::lines;
use crate::markers::{marker_environment, Platform};
use crate::safe_read::read_regular_file;
use crate::version::{Version, VersionSpecifiers};

/// Why an environment could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    /// Neither a path was given nor `VIRTUAL_ENV` set.
    #[error("no Python environment given: pass --python PATH or activate a virtual environment (VIRTUAL_ENV is not set)")]
    NotSpecified,
    /// The path does not exist.
    #[error("{0}: no such file or directory")]
    NotFound(PathBuf),
    /// The path exists but no site-packages directory was found for it.
    #[error("{path}: not a Python environment ({reason})")]
    NotAnEnvironment {
        /// The path given.
        path: PathBuf,
        /// What was looked for.
        reason: String,
    },
}

/// Where an environment's packages live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitePackages {
    /// The environment root (the directory holding `pyvenv.cfg`, `bin/`, `lib/`).
    pub root: PathBuf,
    /// The interpreter path, when one was given or found.
    pub interpreter: Option<PathBuf>,
    /// The site-packages (or dist-packages) directories, most specific first.
    pub dirs: Vec<PathBuf>,
    /// The interpreter's version, from `pyvenv.cfg` (`version` / `version_info`) or a
    /// `python3.X` directory or interpreter name (then only `3.X`).
    pub python_version: Option<Version>,
    /// `include-system-site-packages = true` in `pyvenv.cfg` (the base's packages are not read).
    pub include_system_site_packages: bool,
    /// `home` from `pyvenv.cfg`: the base interpreter's directory.
    pub base_home: Option<PathBuf>,
}

/// One installed distribution, from `*.dist-info/METADATA` or `*.egg-info/PKG-INFO`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledDistribution {
    /// Normalized (PEP 503) name.
    pub name: String,
    /// The name as written in the metadata.
    pub display_name: String,
    /// The installed version, with its local label (`2.1.2+cu121`).
    pub version: Version,
    /// `Requires-Dist` entries that parsed (bad ones are diagnostics). For an `.egg-info`
    /// directory whose `PKG-INFO` has none, the entries of its `requires.txt`, with
    /// `[extra:marker]` sections turned into markers (as pip reads them).
    pub requires_dist: Vec<Requirement>,
    /// The text of each entry of `requires_dist` as written (same order), for reports that
    /// quote a requirement the way pip does.
    pub requires_dist_raw: Vec<String>,
    /// `Requires-Python`, when present and valid.
    pub requires_python: Option<VersionSpecifiers>,
    /// `Provides-Extra` names.
    pub provides_extra: Vec<String>,
    /// The metadata file read.
    pub metadata_path: PathBuf,
}

/// An installed environment: where it is and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledEnvironment {
    /// Location and interpreter facts.
    pub site_packages: SitePackages,
    /// Installed distributions sorted by normalized name (the first found wins on duplicates).
    pub distributions: Vec<InstalledDistribution>,
    /// Broken or unreadable metadata, duplicates.
    pub diagnostics: Vec<Diagnostic>,
}

impl InstalledEnvironment {
    /// The installed distribution of that name (any spelling).
    pub fn get(&self, name: &str) -> Option<&InstalledDistribution> {
        let name = normalize_name(name);
        self.distributions
            .binary_search_by(|d| d.name.as_str().cmp(name.as_str()))
            .ok()
            .and_then(|i| self.distributions.get(i))
    }

    /// The marker environment of this interpreter on `platform`, when its version is known.
    pub fn marker_environment(&self, platform: Platform) -> Option<MarkerEnvironment> {
        let version = self.site_packages.python_version.as_ref()?;
        marker_environment(version, platform).ok()
    }
}

/// Opens the environment of `--python PATH`, or of `VIRTUAL_ENV` when no path is given.
pub fn open_environment(python: Option<&Path>) -> Result<InstalledEnvironment, EnvError> {
    match python {
        Some(path) => open_environment_at(path),
        None => match std::env::var_os("VIRTUAL_ENV") {
            Some(v) if !v.is_empty() => open_environment_at(Path::new(&v)),
            _ => Err(EnvError::NotSpecified),
        },
    }
}

/// Opens the environment of an interpreter path or an environment directory and reads the
/// metadata of every distribution installed in it.
pub fn open_environment_at(path: &Path) -> Result<InstalledEnvironment, EnvError> {
    let site_packages = find_site_packages(path)?;
    let (distributions, diagnostics) = read_distributions(&site_packages.dirs);
    Ok(InstalledEnvironment {
        site_packages,
        distributions,
        diagnostics,
    })
}

/// Finds the site-packages of an interpreter path (`.venv/bin/python`,
/// `C:\env\Scripts\python.exe`) or an environment directory (`.venv`, a conda env, a
/// `site-packages` directory itself).
pub fn find_site_packages(path: &Path) -> Result<SitePackages, EnvError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Err(EnvError::NotFound(path.to_path_buf()));
    }
    // A pyenv or asdf shim: the interpreter it would run.
    if !path.is_dir() {
        if let Some(real) = crate::shims::resolve_shim(path, &crate::shims::ShimEnv::current()) {
            return find_site_packages(&real);
        }
    }
    let is_dir = path.is_dir();
    let interpreter = (!is_dir).then(|| path.to_path_buf());

    // A site-packages directory given directly.
    if is_dir && is_site_dir_name(path) {
        return Ok(SitePackages {
            root: path.to_path_buf(),
            interpreter: None,
            dirs: vec![path.to_path_buf()],
            python_version: python_version_from_dir(path),
            include_system_site_packages: false,
            base_home: None,
        });
    }

    let mut roots: Vec<PathBuf> = Vec::new();
    if is_dir {
        roots.push(path.to_path_buf());
    } else {
        // bin/python -> root; Scripts\python.exe -> root; C:\Python311\python.exe -> that dir.
        if let Some(parent) = path.parent() {
            let parent_name = parent
                .file_name()
                .map(|n| n.to_string_lossy().to_ascii_lowercase());
            if matches!(parent_name.as_deref(), Some("bin" | "scripts")) {
                if let Some(root) = parent.parent() {
                    roots.push(root.to_path_buf());
                }
            }
            roots.push(parent.to_path_buf());
        }
        // A symlinked system interpreter: look where it really lives too.
        if let Ok(real) = std::fs::canonicalize(path) {
            if let Some(parent) = real.parent() {
                if let Some(root) = parent.parent() {
                    roots.push(root.to_path_buf());
                }
            }
        }
    }

    let interpreter_version = interpreter.as_deref().and_then(|p| {
        version_from_interpreter_name(p).or_else(|| {
            std::fs::canonicalize(p)
                .ok()
                .and_then(|real| version_from_interpreter_name(&real))
        })
    });
    for root in &roots {
        let cfg = read_pyvenv_cfg(root);
        let cfg_version = cfg.as_ref().and_then(|c| c.version.clone());
        let wanted = cfg_version.as_ref().or(interpreter_version.as_ref());
        let dirs = site_dirs(root, wanted);
        if dirs.is_empty() {
            continue;
        }
        let python_version = cfg_version
            .or_else(|| interpreter_version.clone())
            .or_else(|| {
                let mut found: Vec<Version> = dirs
                    .iter()
                    .filter_map(|d| python_version_from_dir(d))
                    .collect();
                found.dedup();
                (found.len() == 1).then(|| found.remove(0))
            });
        return Ok(SitePackages {
            root: root.clone(),
            interpreter: interpreter.clone(),
            dirs,
            python_version,
            include_system_site_packages: cfg.as_ref().is_some_and(|c| c.include_system),
            base_home: cfg.and_then(|c| c.home),
        });
    }
    let looked = roots
        .iter()
        .map(|r| r.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Err(EnvError::NotAnEnvironment {
        path: path.to_path_buf(),
        reason: format!(
            "no lib/python3.X/site-packages or Lib/site-packages under {}",
            if looked.is_empty() {
                "it".to_string()
            } else {
                looked
            }
        ),
    })
}

fn is_site_dir_name(path: &Path) -> bool {
    matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some("site-packages" | "dist-packages")
    )
}

struct PyvenvCfg {
    version: Option<Version>,
    include_system: bool,
    home: Option<PathBuf>,
}

fn read_pyvenv_cfg(root: &Path) -> Option<PyvenvCfg> {
    let bytes = read_regular_file(&root.join("pyvenv.cfg"), MAX_FILE_BYTES).ok()?;
    let text = lines::decode(&bytes);
    let mut cfg = PyvenvCfg {
        version: None,
        include_system: false,
        home: None,
    };
    let mut version_info = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
        match key.as_str() {
            "version" => cfg.version = parse_python_version(value),
            "version_info" => version_info = parse_python_version(value),
            "include-system-site-packages" => {
                cfg.include_system = value.eq_ignore_ascii_case("true");
            }
            "home" => cfg.home = Some(PathBuf::from(value)),
            _ => {}
        }
    }
    if cfg.version.is_none() {
        cfg.version = version_info;
    }
    Some(cfg)
}

/// `3.11.7`, `3.12.1.final.0` (uv's `version_info`), `3.13.0rc1` -> a version.
fn parse_python_version(text: &str) -> Option<Version> {
    let text = text.trim();
    if let Ok(v) = Version::from_str(text) {
        return Some(v);
    }
    let numbers: Vec<u64> = text
        .split('.')
        .map_while(|p| p.parse::<u64>().ok())
        .take(3)
        .collect();
    (numbers.len() >= 2).then(|| Version::new(numbers))
}

/// `python3.11` / `python3.11.exe` -> 3.11.
fn version_from_interpreter_name(path: &Path) -> Option<Version> {
    let name = path.file_name()?.to_str()?;
    let name = name.strip_suffix(".exe").unwrap_or(name);
    let rest = name.strip_prefix("python")?;
    version_from_x_y(rest)
}

fn version_from_x_y(text: &str) -> Option<Version> {
    let (major, minor) = text.split_once('.')?;
    let major = major.parse::<u64>().ok()?;
    let minor = minor.parse::<u64>().ok()?;
    Some(Version::new([major, minor]))
}

/// A site-packages dir's Python version from its `lib/python3.X` parent.
fn python_version_from_dir(dir: &Path) -> Option<Version> {
    let parent = dir.parent()?.file_name()?.to_str()?;
    version_from_x_y(parent.strip_prefix("python")?)
}

/// The site-packages directories under an environment root. When the version is known,
/// `lib/pythonX.Y` of that version comes first.
fn site_dirs(root: &Path, version: Option<&Version>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for lib in ["lib", "lib64", "Lib"] {
        let lib_dir = root.join(lib);
        if !lib_dir.is_dir() {
            continue;
        }
        // Windows layout: Lib/site-packages.
        let direct = lib_dir.join("site-packages");
        if direct.is_dir() {
            dirs.push(direct);
        }
        let Ok(entries) = std::fs::read_dir(&lib_dir) else {
            continue;
        };
        let mut pythons: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("python"))
            })
            .collect();
        pythons.sort();
        if let Some(v) = version {
            if let [major, minor, ..] = v.release() {
                let wanted = format!("python{major}.{minor}");
                let matching: Vec<PathBuf> = pythons
                    .iter()
                    .filter(|p| p.file_name().and_then(|n| n.to_str()) == Some(wanted.as_str()))
                    .cloned()
                    .collect();
                if !matching.is_empty() {
                    pythons = matching;
                }
            }
        }
        for py in pythons {
            for site in ["site-packages", "dist-packages"] {
                let d = py.join(site);
                if d.is_dir() {
                    dirs.push(d);
                }
            }
        }
    }
    // lib64 is often a symlink to lib: keep each real directory once.
    let mut seen = Vec::new();
    dirs.retain(|d| {
        let key = std::fs::canonicalize(d).unwrap_or_else(|_| d.clone());
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
    dirs
}

/// Reads every `*.dist-info/METADATA` and `*.egg-info/PKG-INFO` (or `*.egg-info` file) in
/// the given directories. Broken metadata becomes a diagnostic; the rest is still read.
pub fn read_distributions(dirs: &[PathBuf]) -> (Vec<InstalledDistribution>, Vec<Diagnostic>) {
    let mut dists: Vec<InstalledDistribution> = Vec::new();
    let mut diags = Vec::new();
    for dir in dirs {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) => {
                diags.push(diag(dir, None, format!("cannot list directory: {e}")));
                continue;
            }
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        paths.sort();
        for entry in paths {
            let Some(name) = entry.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let metadata = if name.ends_with(".dist-info") {
                entry.join("METADATA")
            } else if name.ends_with(".egg-info") {
                if entry.is_dir() {
                    entry.join("PKG-INFO")
                } else {
                    entry.clone()
                }
            } else {
                continue;
            };
            match read_metadata(&metadata, &mut diags) {
                Some(dist) => {
                    if let Some(existing) = dists.iter().find(|d| d.name == dist.name) {
                        diags.push(Diagnostic {
                            file: metadata.clone(),
                            line: None,
                            severity: Severity::Warning,
                            message: format!(
                                "{} {} is installed twice; {} from {} is used",
                                dist.display_name,
                                dist.version,
                                existing.version,
                                existing.metadata_path.display()
                            ),
                        });
                    } else {
                        dists.push(dist);
                    }
                }
                None => continue,
            }
        }
    }
    dists.sort_by(|a, b| a.name.cmp(&b.name));
    (dists, diags)
}

fn diag(file: &Path, line: Option<u32>, message: String) -> Diagnostic {
    Diagnostic {
        file: file.to_path_buf(),
        line,
        severity: Severity::Error,
        message,
    }
}

/// Reads one core-metadata file (RFC 822 style headers; the body after the first blank line
/// is the description and is not read).
fn read_metadata(path: &Path, diags: &mut Vec<Diagnostic>) -> Option<InstalledDistribution> {
    let bytes = match read_regular_file(path, MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(e) => {
            diags.push(diag(path, None, format!("cannot read metadata: {e}")));
            return None;
        }
    };
    let text = lines::decode(&bytes);
    let headers = parse_headers(&text);

    let get = |key: &str| {
        headers
            .iter()
            .find(|(_, k, _)| k.eq_ignore_ascii_case(key))
            .map(|(line, _, v)| (*line, v.as_str()))
    };
    let Some((_, display_name)) = get("Name").filter(|(_, v)| !v.is_empty()) else {
        diags.push(diag(
            path,
            None,
            "metadata has no `Name` field; skipped".to_string(),
        ));
        return None;
    };
    let Some((version_line, version_text)) = get("Version") else {
        diags.push(diag(
            path,
            None,
            "metadata has no `Version` field; skipped".to_string(),
        ));
        return None;
    };
    let version = match Version::from_str(version_text) {
        Ok(v) => v,
        Err(e) => {
            diags.push(diag(
                path,
                Some(version_line),
                format!("invalid version `{version_text}`: {e}; skipped"),
            ));
            return None;
        }
    };
    let mut requires_dist = Vec::new();
    let mut requires_dist_raw = Vec::new();
    let mut provides_extra = Vec::new();
    let mut requires_python = None;
    let egg_requires = if headers
        .iter()
        .any(|(_, k, _)| k.eq_ignore_ascii_case("Requires-Dist"))
    {
        Vec::new()
    } else {
        egg_info_requires(path)
    };
    for (line, key, value) in headers.iter().chain(&egg_requires) {
        if key.eq_ignore_ascii_case("Requires-Dist") {
            let parsed = crate::markers::check_nesting(value)
                .map_err(|m| (m, crate::markers::quote_start(value)))
                .and_then(|()| {
                    crate::pep508_guard::requirement(value)
                        .map_err(|e| (e.message.to_string(), value.clone()))
                });
            match parsed {
                Ok(req) => {
                    requires_dist.push(req);
                    requires_dist_raw.push(value.clone());
                }
                Err((message, value)) => {
                    let first = message.lines().next().unwrap_or("").trim().to_string();
                    diags.push(diag(
                        path,
                        Some(*line),
                        format!("invalid Requires-Dist `{value}`: {first}"),
                    ));
                }
            }
        } else if key.eq_ignore_ascii_case("Provides-Extra") {
            provides_extra.push(value.clone());
        } else if key.eq_ignore_ascii_case("Requires-Python") {
            match VersionSpecifiers::from_str(value) {
                Ok(spec) => requires_python = Some(spec),
                Err(e) => diags.push(diag(
                    path,
                    Some(*line),
                    format!("invalid Requires-Python `{value}`: {e}"),
                )),
            }
        }
    }
    Some(InstalledDistribution {
        name: normalize_name(display_name),
        display_name: display_name.to_string(),
        version,
        requires_dist,
        requires_dist_raw,
        requires_python,
        provides_extra,
        metadata_path: path.to_path_buf(),
    })
}

/// For `X.egg-info/PKG-INFO`: the entries of `X.egg-info/requires.txt` as `Requires-Dist` and
/// `Provides-Extra` header fields (line numbers are those of `requires.txt`), the way pip
/// turns them into requirements: a `[extra:marker]` section gives
/// `req ; (marker) and extra == "extra"`.
fn egg_info_requires(metadata: &Path) -> Vec<(u32, String, String)> {
    let Some(dir) = metadata.parent() else {
        return Vec::new();
    };
    let is_egg_dir = metadata.file_name().is_some_and(|n| n == "PKG-INFO")
        && dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".egg-info"));
    if !is_egg_dir {
        return Vec::new();
    }
    let path = dir.join("requires.txt");
    let Ok(bytes) = read_regular_file(&path, MAX_FILE_BYTES) else {
        return Vec::new();
    };
    let text = lines::decode(&bytes);
    let mut out = Vec::new();
    let (mut extra, mut marker) = (String::new(), String::new());
    for (idx, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line_no = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        if line.starts_with('[') && line.ends_with(']') {
            let inner = line.trim_matches(|c| c == '[' || c == ']');
            let (e, m) = inner.split_once(':').unwrap_or((inner, ""));
            extra = normalize_name(e);
            marker = m.trim().to_string();
            if !extra.is_empty() {
                out.push((line_no, "Provides-Extra".to_string(), extra.clone()));
            }
            continue;
        }
        let full_marker = match (extra.is_empty(), marker.is_empty()) {
            (false, false) => format!("({marker}) and extra == \"{extra}\""),
            (false, true) => format!("extra == \"{extra}\""),
            (true, false) => marker.clone(),
            (true, true) => String::new(),
        };
        let value = if full_marker.is_empty() {
            line.to_string()
        } else {
            format!("{line} ; {full_marker}")
        };
        out.push((line_no, "Requires-Dist".to_string(), value));
    }
    out
}

/// Header fields as (line, key, value), continuation lines joined.
fn parse_headers(text: &str) -> Vec<(u32, String, String)> {
    let mut out: Vec<(u32, String, String)> = Vec::new();
    for (idx, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                last.2.push(' ');
                last.2.push_str(line.trim());
            }
            continue;
        }
        if let Some((key, value)) = line.split_once(':') {
            let line_no = u32::try_from(idx + 1).unwrap_or(u32::MAX);
            out.push((line_no, key.trim().to_string(), value.trim().to_string()));
        }
    }
    out
}
