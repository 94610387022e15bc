//! What `check` reports: findings, their fixes, and a summary. The JSON form of these types is
//! the stable output schema documented in `crates/apicompat_render/docs/json-schema.md`.

use std::path::PathBuf;

use serde::Serialize;

/// How serious a finding is. Only `error` makes `check` exit with 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// When the use runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reach {
    /// At module top level (class bodies included): importing the module fails.
    ImportTime,
    /// Inside a function or lambda: only a call fails.
    CallTime,
    /// In the module's `if __name__ == "__main__":` block: running the file as a script
    /// fails, importing it does not (counted with the call-time uses where releases are
    /// weighed).
    Script,
    /// Inside `try/except ImportError`, after `hasattr`, or `getattr` with a default: the code
    /// handles the difference.
    Guarded,
    /// Never reached on the releases it names: its module already failed to import there, at
    /// an earlier line or through an import of another module of the project
    /// (`crate::behind`).
    Behind,
    /// Not a use of an API (a syntax or I/O problem of the file itself).
    None,
}

impl Reach {
    pub fn as_str(self) -> &'static str {
        match self {
            Reach::ImportTime => "import-time",
            Reach::CallTime => "call-time",
            Reach::Script => "script",
            Reach::Guarded => "guarded",
            Reach::Behind => "behind",
            Reach::None => "none",
        }
    }

    /// Guarded by the code, or behind an earlier failure: not an error of its own.
    pub fn handled(self) -> bool {
        matches!(self, Reach::Guarded | Reach::Behind)
    }
}

/// A way to fix a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// `moved`, `pin`, `guard` or `rewrite`.
    pub kind: FixKind,
    /// One line for a human.
    pub message: String,
    /// `moved`: the path that names the same object in the releases listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
    /// `moved`: the releases where `replacement` works. `pin`: the releases admitted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub releases: Vec<String>,
    /// `pin`: a requirement that admits only releases that have the symbol (`torch>=2.4.0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FixKind {
    Moved,
    Pin,
    Guard,
    /// Change the code as the message says (no version helps).
    Rewrite,
}

/// Whether applying a fix keeps behaviour (as in Ruff).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Changes behaviour on some targeted release (a fallback import, a narrowed requirement).
    Unsafe,
    /// Behaviour on every targeted release is unchanged or strictly better.
    Safe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Unsafe => "unsafe",
            Applicability::Safe => "safe",
        }
    }
}

/// One replacement of a byte range of the finding's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edit {
    /// Byte offsets in the file (`end` exclusive).
    pub start: usize,
    pub end: usize,
    pub content: String,
    /// 1-based line and character column of `start` and `end`.
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

/// Concrete edits that fix a finding (`check --fix`, `--diff`, the server's code actions).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Autofix {
    pub applicability: Applicability,
    pub message: String,
    /// Edits of the finding's file, in order, not overlapping.
    pub edits: Vec<Edit>,
}

/// One problem at one place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Rule code, `AC001`.
    pub code: &'static str,
    /// Rule name, `missing-import`.
    pub rule: &'static str,
    pub severity: Severity,
    /// The file as given or found by the walk (`-` or `--stdin-filename` for standard input).
    pub path: PathBuf,
    /// 1-based line and column (columns count characters) of the start of the use.
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// The dotted path used (`torch.distributed._tensor.Partial`); for keyword findings the
    /// callee with the keyword (`torch.load(weights_only=)`).
    pub symbol: String,
    /// The distribution (`torch`); empty for file problems.
    pub package: String,
    /// Targeted releases that lack the symbol, oldest first.
    pub missing_in: Vec<String>,
    /// Indexed releases (targeted or not) that have it, oldest first.
    pub present_in: Vec<String>,
    /// `missing_in` and `present_in` as ranges of consecutive indexed releases: `2.3.0 - 2.3.1`.
    pub missing_ranges: Vec<String>,
    pub present_ranges: Vec<String>,
    pub message: String,
    pub fixes: Vec<Fix>,
    /// The edits that apply the first fix that can be written out (`crate::fix`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Autofix>,
    pub reach: Reach,
    /// Where the targeted releases come from (`declared torch>=2.3.0 in requirements.txt:1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_source: Option<String>,
    /// For a guarded use: the guard, as written, and where (`` `if hasattr(torch, "xpu"):`
    /// (train.py:12) ``).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
}

impl Finding {
    /// A finding of `rule` about a file at `at` (line, column, end line, end column).
    pub fn of_file(
        rule: crate::rules::Rule,
        path: &std::path::Path,
        at: (u32, u32, u32, u32),
        message: String,
    ) -> Finding {
        Finding {
            path: path.to_path_buf(),
            line: at.0,
            column: at.1,
            end_line: at.2,
            end_column: at.3,
            message,
            ..Finding::of_use(&rule, false, Reach::None)
        }
    }

    /// A finding of `rule` about a use, with its location and details still empty: a guarded
    /// use is information only, with reach `guarded`.
    pub fn of_use(rule: &crate::rules::Rule, guarded: bool, reach: Reach) -> Finding {
        let (severity, reach) = if guarded {
            (Severity::Info, Reach::Guarded)
        } else {
            (rule.severity, reach)
        };
        Finding {
            code: rule.code,
            rule: rule.name,
            severity,
            path: PathBuf::new(),
            line: 0,
            column: 0,
            end_line: 0,
            end_column: 0,
            symbol: String::new(),
            package: String::new(),
            missing_in: Vec::new(),
            present_in: Vec::new(),
            missing_ranges: Vec::new(),
            present_ranges: Vec::new(),
            message: String::new(),
            fixes: Vec::new(),
            fix: None,
            reach,
            target_source: None,
            guard: None,
        }
    }
}

/// Which releases of one package were checked, and why those.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TargetInfo {
    pub package: String,
    pub releases: Vec<String>,
    /// `declared`, `target`, `config`, `installed` or `newest`.
    pub origin: &'static str,
    /// A sentence: `torch>=2.3.0 declared in requirements.txt:1`.
    pub description: String,
}

/// Counts and context of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Uses that are missing somewhere but guarded (left out unless asked for).
    pub guarded: usize,
    /// Uses that fail only where an earlier failure already stopped the module
    /// (`crate::behind`; left out unless asked for, with the guarded ones).
    pub behind: usize,
    /// Findings silenced by `# noqa` or `# apicompat: ignore` comments.
    pub suppressed: usize,
    pub targets: Vec<TargetInfo>,
    /// Notes about the run: declared requirements that could not be read, targets chosen by
    /// default, packages whose releases are unknown.
    pub notes: Vec<String>,
    /// Whether a file or path could not be read (exit code 2).
    pub io_failure: bool,
    /// Declarations that could not be read (error diagnostics: malformed `pyproject.toml`,
    /// unreadable files); the CLI stops with exit code 2 unless told to go on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bad_declarations: Vec<String>,
    /// With a baseline: the findings it knew (not reported) and those gone since.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineCounts>,
    /// The imported packages that are not indexed (what the CLI fetches on demand).
    #[serde(skip)]
    pub unindexed: Vec<crate::rules::UnindexedImport>,
}

/// What a baseline left out (`check --baseline FILE`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BaselineCounts {
    pub file: String,
    /// Findings of this run recorded in the baseline: not reported.
    pub known: usize,
    /// Findings of the baseline that this run no longer has.
    pub disappeared: usize,
}

/// Everything a run found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    pub findings: Vec<Finding>,
    pub summary: Summary,
    /// The text of each file with findings, for code frames (not serialized).
    #[serde(skip)]
    pub sources: std::collections::BTreeMap<PathBuf, String>,
    /// For each file with import-time findings that an entry point of the project imports
    /// (through other modules of the project): the chain of module names from the entry point
    /// to it. Rendered as the `chain` of those findings.
    #[serde(skip)]
    pub chains: std::collections::BTreeMap<PathBuf, Vec<String>>,
    /// The project directory whose declarations were read (baseline paths are relative to it).
    #[serde(skip)]
    pub project_root: PathBuf,
    /// `[tool.apicompat] baseline`, joined to the project root.
    #[serde(skip)]
    pub config_baseline: Option<PathBuf>,
}

impl Report {
    /// The import chain of a finding: only import-time findings have one.
    pub fn chain(&self, f: &Finding) -> Option<&[String]> {
        if f.reach != Reach::ImportTime {
            return None;
        }
        self.chains.get(&f.path).map(Vec::as_slice)
    }
}

impl Report {
    /// 0 without errors, 1 with errors, 2 when a path could not be read.
    pub fn exit_code(&self) -> u8 {
        if self.summary.io_failure {
            2
        } else if self.summary.errors > 0 {
            1
        } else {
            0
        }
    }
}
