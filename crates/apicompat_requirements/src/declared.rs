//! The requirements a project directory declares.

use std::collections::HashSet;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use pep508_rs::{ExtraName, MarkerEnvironment, MarkerTree, Requirement, VersionOrUrl};

pub(crate) use crate::urls::egg_name;
use crate::urls::{looks_like_url_or_path, vcs_repository_name, wheel_name_version};
use crate::version::VersionSpecifiers;
use crate::{lines, pyproject, reqtxt, setup_cfg, setup_py, yaml_env};

/// Files larger than this are not read (no real requirements file comes near it).
pub(crate) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Where a declaration came from: a file (relative to the project root when inside it) and a
/// 1-based line. Displays as `requirements.txt:3`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source {
    /// The file, relative to the project root when it lies inside it.
    pub file: PathBuf,
    /// 1-based line number.
    pub line: u32,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)
    }
}

/// How serious a [`Diagnostic`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Something was skipped on purpose (a URL, an editable install, a non-literal setup.py).
    Note,
    /// Something looks wrong but reading went on as well as it could.
    Warning,
    /// Malformed input or an unreadable file; the rest was still read.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A problem found while reading declarations or an environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file concerned, relative to the project root when it lies inside it.
    pub file: PathBuf,
    /// 1-based line, when the problem has one.
    pub line: Option<u32>,
    /// How serious it is.
    pub severity: Severity,
    /// What happened.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: ", self.file.display(), line)?,
            None => write!(f, "{}: ", self.file.display())?,
        }
        write!(f, "{}: {}", self.severity, self.message)
    }
}

/// A PEP 508 requirement string, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedRequirement {
    /// Normalized (PEP 503) distribution name: `Foo_Bar` -> `foo-bar`.
    pub name: String,
    /// Normalized extras (`torch[opt-einsum]`).
    pub extras: Vec<String>,
    /// The version specifier set (empty when the requirement names no version).
    pub specifier: VersionSpecifiers,
    /// The URL of a direct reference (`name @ URL`).
    pub url: Option<String>,
    /// The environment marker, normalized (`python_version >= '3.9'`), if any.
    pub marker: Option<String>,
    /// The parsed marker (always true when there is none).
    pub marker_tree: MarkerTree,
}

/// A requirement string that is not valid PEP 508.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequirementError {
    /// The text that failed to parse.
    pub input: String,
    /// The parser's message (may span several lines, with a caret under the problem).
    pub message: String,
}

impl fmt::Display for RequirementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid requirement `{}`: {}", self.input, self.message)
    }
}

impl std::error::Error for RequirementError {}

/// Parses a PEP 508 requirement such as `torch[opt]>=2.3,<2.6; python_version >= "3.9"`.
pub fn parse_requirement(text: &str) -> Result<ParsedRequirement, RequirementError> {
    let text = text.trim();
    crate::markers::check_nesting(text).map_err(|message| RequirementError {
        input: crate::markers::quote_start(text),
        message,
    })?;
    let req = crate::pep508_guard::requirement::<pep508_rs::VerbatimUrl>(text).map_err(|e| {
        RequirementError {
            input: text.to_string(),
            message: e.message.to_string(),
        }
    })?;
    Ok(from_pep508(&req))
}

impl From<&Requirement> for ParsedRequirement {
    fn from(req: &Requirement) -> Self {
        from_pep508(req)
    }
}

fn from_pep508(req: &Requirement) -> ParsedRequirement {
    let (specifier, url) = match &req.version_or_url {
        None => (VersionSpecifiers::empty(), None),
        Some(VersionOrUrl::VersionSpecifier(spec)) => (spec.clone(), None),
        Some(VersionOrUrl::Url(url)) => (VersionSpecifiers::empty(), Some(url.to_string())),
    };
    ParsedRequirement {
        name: req.name.to_string(),
        extras: req.extras.iter().map(ToString::to_string).collect(),
        specifier,
        url,
        marker: req.marker.try_to_string(),
        marker_tree: req.marker.clone(),
    }
}

/// PEP 503 name normalization: lowercase, runs of `-`, `_` and `.` become one `-`.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            in_sep = true;
        } else {
            if in_sep && !out.is_empty() {
                out.push('-');
            }
            in_sep = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// One requirement a project declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredRequirement {
    /// Normalized (PEP 503) distribution name.
    pub name: String,
    /// Normalized extras requested (`torch[opt-einsum]`).
    pub extras: Vec<String>,
    /// Version specifier set (empty: any version).
    pub specifier: VersionSpecifiers,
    /// The environment marker, normalized, if any.
    pub marker: Option<String>,
    /// The parsed marker (always true when there is none).
    pub marker_tree: MarkerTree,
    /// A direct-reference URL (a wheel URL whose file name gave the version `==X`).
    pub url: Option<String>,
    /// The optional-dependency group, extra or dependency group it belongs to (None: the
    /// project's main requirements).
    pub group: Option<String>,
    /// Declared with `-c`: constrains a version without requiring the package.
    pub is_constraint: bool,
    /// `group` is an extra (`pip install proj[NAME]`), not a dependency group or another
    /// requirements file (they may share a name: `dev`).
    pub extra: bool,
    /// File and line of the declaration.
    pub source: Source,
    /// The requirement text as written (continuations joined, comments and options removed).
    pub raw: String,
}

impl DeclaredRequirement {
    /// Whether the marker holds in `env` with the given extras active.
    pub fn applies(&self, env: &MarkerEnvironment, extras: &[ExtraName]) -> bool {
        self.marker_tree.evaluate(env, extras)
    }
}

/// The `[tool.apicompat]` table of `pyproject.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolConfig {
    /// Where the table starts, when there is one.
    pub source: Option<Source>,
    /// `targets = ["torch>=2.3", ...]`: the packages and releases to check against.
    pub targets: Vec<DeclaredRequirement>,
    /// `select = [...]`: rule codes to enable.
    pub select: Vec<String>,
    /// `ignore = [...]`: rule codes to disable.
    pub ignore: Vec<String>,
    /// `exclude = [...]`: globs of paths not walked (None: the defaults).
    pub exclude: Option<Vec<String>>,
    /// `extend-exclude = [...]`: globs excluded in addition to `exclude`.
    pub extend_exclude: Vec<String>,
    /// `[tool.apicompat.per-file-ignores]`: glob -> rule codes ignored in matching files.
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    /// `baseline = "FILE"`: findings recorded there are not reported (relative to the root).
    pub baseline: Option<String>,
    /// Keys of the table this version does not know (each also reported as a warning).
    pub unknown_keys: Vec<String>,
}

/// Everything read from a project directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    /// The project directory as given.
    pub root: PathBuf,
    /// Requirements in reading order: pyproject.toml, setup.cfg, setup.py, requirements files,
    /// environment.yml.
    pub requirements: Vec<DeclaredRequirement>,
    /// Problems and skipped entries, in reading order.
    pub diagnostics: Vec<Diagnostic>,
    /// `[tool.apicompat]` settings (default when absent).
    pub tool_config: ToolConfig,
    /// Files that were read, relative to the root when inside it.
    pub files: Vec<PathBuf>,
    /// Requirements given by a direct reference with no version (`deepspeed @
    /// git+https://...`): the package comes from that source, not from a release of the
    /// package index. Not in [`Declared::requirements`].
    pub direct: Vec<DirectReference>,
    /// The project's name (`[project] name`, `name=` of `setup()`, `[metadata] name`),
    /// normalized: a requirement on it in an extra (`proj[hf]`) includes that extra.
    pub name: Option<String>,
    /// The scopes that are extras (`pip install proj[NAME]`), normalized; the other scopes
    /// are dependency groups and other requirements files.
    pub extras: Vec<String>,
}

/// A requirement given by a URL or path that names no version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectReference {
    /// Normalized (PEP 503) distribution name.
    pub name: String,
    pub source: Source,
    /// The requirement text as written.
    pub raw: String,
    /// The optional-dependency group, extra or dependency group it belongs to.
    pub group: Option<String>,
}

impl Declared {
    /// The requirements (and constraints) on one distribution, by any spelling of its name.
    pub fn requirements_for(&self, name: &str) -> Vec<&DeclaredRequirement> {
        let name = normalize_name(name);
        self.requirements
            .iter()
            .filter(|r| r.name == name)
            .collect()
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Reads every requirement a project directory declares: `pyproject.toml`, `setup.cfg`,
/// `setup.py`, `requirements*.txt`, `requirements/*.txt` and `environment.yml`.
///
/// Never fails: unreadable or malformed files become diagnostics and the rest is still read.
pub fn read_project(dir: &Path) -> Declared {
    read_project_with(dir, &[])
}

/// [`read_project`], plus the requirements files an enclosing project's install instructions
/// install for this directory (sliders' README: `pip install -r flux-sliders/flux-requirements.txt`),
/// read as its main requirements (each lies directly in `dir`).
pub fn read_project_with(dir: &Path, installed: &[crate::InstalledFile]) -> Declared {
    let mut c = Collector::new(dir);
    if !dir.is_dir() {
        c.diag(
            dir,
            None,
            Severity::Error,
            "not a directory (or it cannot be read)".to_string(),
        );
        return c.out;
    }
    let pyproject = dir.join("pyproject.toml");
    if exists(pyproject.as_path()) {
        pyproject::read(&mut c, &pyproject);
    }
    let setup_cfg = dir.join("setup.cfg");
    if exists(setup_cfg.as_path()) {
        setup_cfg::read(&mut c, &setup_cfg);
    }
    let setup_py = dir.join("setup.py");
    if exists(setup_py.as_path()) {
        setup_py::read(&mut c, &setup_py);
    }
    let mut req_files = list_files(&mut c, dir, is_requirements_name);
    req_files.sort_by_key(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        (name.as_deref() != Some("requirements.txt"), name)
    });
    let sub = dir.join("requirements");
    if sub.is_dir() {
        let mut more = list_files(&mut c, &sub, |name| name.ends_with(".txt"));
        more.sort();
        req_files.extend(more);
    }
    // `requirements.txt` (and what it includes) is the main set, and so is environment.yml
    // (and what its `pip:` list includes); every other file is a named scope
    // (`requirements-dev.txt`: `dev`, `requirements/npu.txt`: `npu`), read last so that a
    // file the main set includes stays main (each file is read once).
    let (main, scoped): (Vec<PathBuf>, Vec<PathBuf>) = req_files
        .into_iter()
        .partition(|f| requirements_scope(f).is_none());
    for file in main {
        reqtxt::read_file(&mut c, &file, false, None);
    }
    crate::install_docs::read_installed(&mut c, dir, installed);
    let (conda, conda_scoped) = yaml_env::conda_files(dir);
    if let Some(path) = conda {
        yaml_env::read(&mut c, &path);
    }
    for file in scoped {
        c.scope = requirements_scope(&file);
        reqtxt::read_file(&mut c, &file, false, None);
    }
    // Other conda files (`environment-gpu.yml`, `conda_cpu.yaml`): a scope each, by stem.
    for file in conda_scoped {
        c.scope = file.file_stem().map(|s| s.to_string_lossy().into_owned());
        yaml_env::read(&mut c, &file);
    }
    c.scope = None;
    // A directory that declares nothing: the scripts that install its environment.
    if c.out.requirements.is_empty() && c.out.direct.is_empty() {
        crate::install_scripts::read(&mut c, dir);
    }
    // Else the environment file its install instructions name.
    if c.out.requirements.is_empty() && c.out.direct.is_empty() {
        crate::install_docs::read(&mut c, dir);
    }
    if c.out.requirements.is_empty() {
        if let Some((file, is_package)) = crate::package_requirements::find(dir) {
            let parent = file
                .parent()
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let whose = if is_package {
                format!("its package `{parent}`")
            } else {
                format!("its directory `{parent}`, which holds no Python code (an image's or an environment's)")
            };
            c.diag(
                &file,
                None,
                Severity::Warning,
                format!(
                    "read as the project's requirements: the project root declares none, and this is the requirements file of {whose}"
                ),
            );
            reqtxt::read_file(&mut c, &file, false, None);
        }
    }
    // Else the versions its README's install commands name.
    if c.out.requirements.is_empty() && c.out.direct.is_empty() {
        crate::readme_pins::read_pins(&mut c, dir);
    }
    if c.out.requirements.iter().any(|r| r.marker.is_some()) {
        if let Some(Ok(python)) = crate::read_requires_python(dir) {
            crate::markers::settle(&mut c.out.requirements, &python.specifier);
        }
    }
    c.out
}

/// A requirements file [`read_project`] reads in the project directory.
fn is_requirements_name(name: &str) -> bool {
    name.starts_with("requirements") && name.ends_with(".txt")
}

/// Whether [`read_project`] of `dir` reads `file` (by its path: the file need not exist).
pub fn is_declaration_file(dir: &Path, file: &Path) -> bool {
    let (Some(parent), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str()))
    else {
        return false;
    };
    if parent == dir {
        matches!(name, "pyproject.toml" | "setup.cfg" | "setup.py")
            || yaml_env::is_conda_name(name)
            || is_requirements_name(name)
    } else {
        (parent == dir.join("requirements") && name.ends_with(".txt"))
            // A package's or an image's file, read when the root declares nothing.
            || (parent.parent() == Some(dir) && name == "requirements.txt")
    }
}

/// The scope of a requirements file found in the project: None for `requirements.txt` and
/// `requirements/requirements.txt`, else the name without `requirements` and separators
/// (`requirements-dev.txt`: `dev`, `requirements_test.txt`: `test`, `requirements/npu.txt`:
/// `npu`).
pub fn requirements_scope(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_string_lossy().into_owned();
    let rest = stem
        .strip_prefix("requirements")
        .unwrap_or(&stem)
        .trim_start_matches(['-', '_', '.']);
    (!rest.is_empty()).then(|| rest.to_string())
}

/// Reads one file, chosen by its name: `pyproject.toml`, `setup.cfg`, `setup.py`, `*.yml` /
/// `*.yaml` (conda environment), anything else as a pip requirements file. Paths in the result
/// are relative to the file's directory.
pub fn read_file(path: &Path) -> Declared {
    let root = path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let mut c = Collector::new(&root);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !exists(path) {
        c.diag(path, None, Severity::Error, "file not found".to_string());
        return c.out;
    }
    match name.as_str() {
        "pyproject.toml" => pyproject::read(&mut c, path),
        "setup.cfg" => setup_cfg::read(&mut c, path),
        "setup.py" => setup_py::read(&mut c, path),
        n if n.ends_with(".yml") || n.ends_with(".yaml") => yaml_env::read(&mut c, path),
        _ => reqtxt::read_file(&mut c, path, false, None),
    }
    c.out
}

/// Whether anything is at `path` (a broken symlink, a FIFO or a device too: reading it then
/// says what is wrong, instead of skipping it silently).
fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// The files in `dir` (anything but directories) whose names `keep` accepts.
fn list_files(c: &mut Collector, dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            c.diag(
                dir,
                None,
                Severity::Error,
                format!("cannot list directory: {e}"),
            );
            return Vec::new();
        }
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| !e.path().is_dir())
        .filter(|e| keep(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect()
}

/// Removes `.` and resolvable `..` components without touching the file system.
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_normal =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_normal {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Shared state while reading a project.
pub(crate) struct Collector {
    pub(crate) root: PathBuf,
    pub(crate) out: Declared,
    /// Canonical paths of requirement files already read (each is read once).
    pub(crate) visited: HashSet<(PathBuf, bool)>,
    /// Requirement files being included right now, as (canonical path, path as reached), for
    /// cycle detection.
    pub(crate) stack: Vec<(PathBuf, PathBuf)>,
    /// The scope of the requirements file being read (None: the main requirements).
    pub(crate) scope: Option<String>,
}

impl Collector {
    pub(crate) fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            out: Declared {
                root: root.to_path_buf(),
                ..Declared::default()
            },
            visited: HashSet::new(),
            stack: Vec::new(),
            scope: None,
        }
    }

    /// The path to show for a file: relative to the root when inside it.
    pub(crate) fn rel(&self, path: &Path) -> PathBuf {
        let path = normalize_lexically(path);
        let root = normalize_lexically(&self.root);
        match path.strip_prefix(&root) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
            _ => path,
        }
    }

    pub(crate) fn source(&self, path: &Path, line: u32) -> Source {
        Source {
            file: self.rel(path),
            line,
        }
    }

    pub(crate) fn diag(
        &mut self,
        path: &Path,
        line: Option<u32>,
        severity: Severity,
        message: String,
    ) {
        let file = self.rel(path);
        self.out.diagnostics.push(Diagnostic {
            file,
            line,
            severity,
            message,
        });
    }

    /// Reads a project file as text, reporting failures as diagnostics: only a regular file
    /// inside the project directory (after following symlinks), at most [`MAX_FILE_BYTES`]
    /// ([`crate::read_regular_file`]). A file outside the project is refused without quoting
    /// anything of it.
    pub(crate) fn read_text(&mut self, path: &Path, at: Option<(&Path, u32)>) -> Option<String> {
        let report = |c: &mut Self, severity: Severity, msg: String| match at {
            Some((file, line)) => c.diag(file, Some(line), severity, msg),
            None => c.diag(path, None, severity, msg),
        };
        let shown = self.rel(path);
        if let Some(target) = self.outside_root(path) {
            let what = if normalize_lexically(path) == target {
                format!("{} is", shown.display())
            } else {
                format!("{} resolves to {},", shown.display(), target.display())
            };
            report(
                self,
                Severity::Error,
                format!(
                    "{what} outside the project directory; not read (files outside the project \
                     are never read)"
                ),
            );
            return None;
        }
        match crate::safe_read::read_regular_file(path, MAX_FILE_BYTES) {
            Ok(bytes) => {
                if !self.out.files.contains(&shown) {
                    self.out.files.push(shown);
                }
                Some(lines::decode(&bytes))
            }
            Err(e) => {
                report(
                    self,
                    Severity::Error,
                    format!("cannot read {}: {e}", shown.display()),
                );
                None
            }
        }
    }

    /// Where `path` leads, symlinks resolved, when that is outside the project directory. A
    /// path that cannot be resolved is not outside (reading it reports why).
    pub(crate) fn outside_root(&self, path: &Path) -> Option<PathBuf> {
        match (
            std::fs::canonicalize(path),
            std::fs::canonicalize(&self.root),
        ) {
            (Ok(file), Ok(root)) if !file.starts_with(&root) => Some(file),
            _ => None,
        }
    }

    /// Parses one requirement string and records it, or records why it was skipped.
    pub(crate) fn add_requirement(
        &mut self,
        text: &str,
        at: &Declaration<'_>,
    ) -> Option<DeclaredRequirement> {
        let text = text.trim();
        let source = self.source(at.file, at.line);
        match parse_requirement(text) {
            Ok(parsed) => {
                let mut specifier = parsed.specifier;
                if let Some(url) = &parsed.url {
                    match wheel_name_version(url) {
                        Some((_, version)) => {
                            specifier = VersionSpecifiers::from(
                                pep440_rs::VersionSpecifier::equals_version(version),
                            );
                        }
                        None => {
                            self.push_direct(parsed.name.clone(), text, at);
                            return None;
                        }
                    }
                }
                Some(DeclaredRequirement {
                    name: parsed.name,
                    extras: parsed.extras,
                    specifier,
                    marker: parsed.marker,
                    marker_tree: parsed.marker_tree,
                    url: parsed.url,
                    group: at.group.map(str::to_string),
                    is_constraint: at.is_constraint,
                    extra: at.extra,
                    source,
                    raw: text.to_string(),
                })
            }
            Err(err) => {
                // `git+https://...@<commit>#egg=NAME`: NAME built from that source.
                if let Some(name) = egg_name(text) {
                    self.push_direct(name, text, at);
                    return None;
                }
                match vcs_repository_name(text) {
                    Some((name, true)) => {
                        self.push_direct(name, text, at);
                        return None;
                    }
                    Some((name, false)) => {
                        self.diag(
                            at.file,
                            Some(at.line),
                            Severity::Warning,
                            format!(
                                "`{text}` installs the head of {name}'s repository, not a \
                                 release: {name} is checked as a package the project does not \
                                 declare (its newest release)"
                            ),
                        );
                        return None;
                    }
                    None => {}
                }
                if let Some((name, version)) = wheel_name_version(text) {
                    return Some(DeclaredRequirement {
                        name,
                        extras: Vec::new(),
                        specifier: VersionSpecifiers::from(
                            pep440_rs::VersionSpecifier::equals_version(version),
                        ),
                        marker: None,
                        marker_tree: MarkerTree::TRUE,
                        url: Some(text.to_string()),
                        group: at.group.map(str::to_string),
                        is_constraint: at.is_constraint,
                        extra: at.extra,
                        source,
                        raw: text.to_string(),
                    });
                }
                // Always said: a dependency the project installs that no check covers.
                if looks_like_url_or_path(text) {
                    self.diag(
                        at.file,
                        Some(at.line),
                        Severity::Warning,
                        format!(
                            "`{text}` is a URL or local path, not a named requirement; skipped"
                        ),
                    );
                } else {
                    let first = err.message.lines().next().unwrap_or("").trim().to_string();
                    self.diag(
                        at.file,
                        Some(at.line),
                        Severity::Error,
                        format!("invalid requirement `{}`: {first}", err.input),
                    );
                }
                None
            }
        }
    }

    /// Records a requirement installed from a source no release stands for (a VCS URL, an
    /// archive, a local path): its uses are not checked against the index.
    pub(crate) fn push_direct(&mut self, name: String, raw: &str, at: &Declaration<'_>) {
        let source = self.source(at.file, at.line);
        self.out.direct.push(DirectReference {
            name,
            source,
            raw: raw.to_string(),
            group: at.group.map(str::to_string),
        });
    }

    /// [`Self::add_requirement`], appending the result to the declared requirements.
    pub(crate) fn push_requirement(&mut self, text: &str, at: &Declaration<'_>) {
        if let Some(req) = self.add_requirement(text, at) {
            self.out.requirements.push(req);
        }
    }
}

/// Where a requirement string was found.
pub(crate) struct Declaration<'a> {
    pub(crate) file: &'a Path,
    pub(crate) line: u32,
    pub(crate) group: Option<&'a str>,
    pub(crate) is_constraint: bool,
    /// `group` is an extra (see [`DeclaredRequirement::extra`]).
    pub(crate) extra: bool,
}

#[cfg(test)]
mod declaration_file_tests;
