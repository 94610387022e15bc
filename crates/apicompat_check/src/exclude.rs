//! Which files are checked and which rules each one ignores: `exclude`, `extend-exclude` and
//! `per-file-ignores`, from `[tool.apicompat]` or the command line, with Ruff's semantics.
//!
//! - A pattern without `/` (`.mypy_cache`, `foo_*.py`) matches a file or directory of that
//!   name anywhere in the tree; a pattern with `/` (`tests/fixtures`, `scripts/*.py`) is
//!   relative to the project root (the directory of `pyproject.toml`). Globs follow `globset`
//!   as Ruff uses it: `*` also crosses `/` (`tests/*` is everything under `tests/`), `**`
//!   too, `{a,b}` and `[ab]` work.
//! - An excluded directory is not walked. `exclude` replaces the defaults
//!   ([`DEFAULT_EXCLUDE`], Ruff's list: `.git`, virtual environments, `build`, `dist`,
//!   `node_modules`, `site-packages`...); `extend-exclude` adds to them. A path named on the
//!   command line is checked even when excluded, unless `--force-exclude`.
//! - `per-file-ignores`: `{"tests/*" = ["AC011"]}` ignores those rules (codes or prefixes) in
//!   matching files; a pattern starting with `!` applies to the files it does not match.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// Ruff's default `exclude`.
pub const DEFAULT_EXCLUDE: &[&str] = &[
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
];

/// The settings as given (config and command line already merged by [`FileSettings::merge`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileSettings {
    /// `exclude` (None: [`DEFAULT_EXCLUDE`]).
    pub exclude: Option<Vec<String>>,
    pub extend_exclude: Vec<String>,
    /// (glob, codes): rules ignored in matching files.
    pub per_file_ignores: Vec<(String, Vec<String>)>,
    /// `per_file_ignores` replaces the configured ones (`--per-file-ignores`) instead of
    /// adding to them (`--extend-per-file-ignores`).
    pub replace_per_file_ignores: bool,
    /// Apply the exclusions to paths named on the command line too.
    pub force_exclude: bool,
}

impl FileSettings {
    /// The command line over the configuration: `exclude` and `per-file-ignores` given on the
    /// command line replace the config's, `extend-exclude` and `extend-per-file-ignores` add.
    /// The result is resolved: its `exclude` None means the defaults.
    pub fn merge(config: &apicompat_requirements::ToolConfig, cli: &FileSettings) -> FileSettings {
        let mut per_file_ignores = if cli.replace_per_file_ignores {
            Vec::new()
        } else {
            config.per_file_ignores.clone()
        };
        per_file_ignores.extend(cli.per_file_ignores.iter().cloned());
        FileSettings {
            exclude: cli.exclude.clone().or_else(|| config.exclude.clone()),
            extend_exclude: config
                .extend_exclude
                .iter()
                .chain(&cli.extend_exclude)
                .cloned()
                .collect(),
            per_file_ignores,
            replace_per_file_ignores: false,
            force_exclude: cli.force_exclude,
        }
    }
}

/// One compiled pattern: matched against a path's name and against its path from the root.
#[derive(Debug, Clone)]
struct Pattern {
    /// Matches the file or directory name (the pattern as written).
    name: GlobSet,
    /// Matches the absolute path (the root joined with the pattern).
    absolute: GlobSet,
}

impl Pattern {
    fn new(root: &Path, pattern: &str) -> Result<Pattern, String> {
        let build = |glob: &str| {
            let mut b = GlobSetBuilder::new();
            b.add(Glob::new(glob).map_err(|e| format!("invalid glob `{pattern}`: {e}"))?);
            b.build()
                .map_err(|e| format!("invalid glob `{pattern}`: {e}"))
        };
        let rel = pattern.strip_prefix("./").unwrap_or(pattern);
        let absolute = format!(
            "{}/{}",
            globset::escape(&root.to_string_lossy()).trim_end_matches('/'),
            rel
        );
        Ok(Pattern {
            name: build(pattern)?,
            absolute: build(&absolute)?,
        })
    }

    fn matches(&self, absolute: &Path) -> bool {
        absolute
            .file_name()
            .is_some_and(|n| self.name.is_match(Path::new(n)))
            || self.absolute.is_match(absolute)
    }
}

/// The compiled settings for one project root.
#[derive(Debug, Clone, Default)]
pub struct FileFilter {
    root: PathBuf,
    exclude: Vec<Pattern>,
    /// (pattern, negated, codes).
    ignores: Vec<(Pattern, bool, Vec<String>)>,
    pub force_exclude: bool,
}

impl FileFilter {
    /// Compiles the settings; a glob that does not compile is an error message (the rest
    /// still applies).
    pub fn new(root: &Path, settings: &FileSettings) -> (FileFilter, Vec<String>) {
        let root = anchor(root);
        let mut errors = Vec::new();
        let defaults: Vec<String> = DEFAULT_EXCLUDE.iter().map(|s| s.to_string()).collect();
        let mut exclude = Vec::new();
        for p in settings
            .exclude
            .as_ref()
            .unwrap_or(&defaults)
            .iter()
            .chain(&settings.extend_exclude)
        {
            match Pattern::new(&root, p) {
                Ok(p) => exclude.push(p),
                Err(e) => errors.push(format!("exclude: {e}")),
            }
        }
        let mut ignores = Vec::new();
        for (glob, codes) in &settings.per_file_ignores {
            let (negated, glob) = match glob.strip_prefix('!') {
                Some(g) => (true, g),
                None => (false, glob.as_str()),
            };
            let codes: Vec<String> = codes.iter().map(|c| c.trim().to_uppercase()).collect();
            match Pattern::new(&root, glob) {
                Ok(p) => ignores.push((p, negated, codes)),
                Err(e) => errors.push(format!("per-file-ignores: {e}")),
            }
        }
        let filter = FileFilter {
            root,
            exclude,
            ignores,
            force_exclude: settings.force_exclude,
        };
        (filter, errors)
    }

    /// Whether a path is excluded; `abs` is absolute, with symbolic links resolved as in the
    /// root (see [`anchor`]).
    pub fn excluded(&self, abs: &Path) -> bool {
        self.exclude.iter().any(|p| p.matches(abs))
    }

    /// Whether `path` or a directory between the project root and it is excluded (for a
    /// path named on the command line with `--force-exclude`).
    pub fn excluded_with_parents(&self, path: &Path) -> bool {
        let abs = anchor(path);
        abs.ancestors()
            .take_while(|a| a.starts_with(&self.root) && *a != self.root)
            .any(|a| self.exclude.iter().any(|p| p.matches(a)))
    }

    /// Whether `per-file-ignores` turns rule `code` off in `path`.
    pub fn ignores(&self, path: &Path, code: &str) -> bool {
        if self.ignores.is_empty() {
            return false;
        }
        let abs = anchor(path);
        self.ignores.iter().any(|(p, negated, codes)| {
            p.matches(&abs) != *negated && codes.iter().any(|c| code.starts_with(c.as_str()))
        })
    }

    /// Every code named in `per-file-ignores` (to report unknown ones).
    pub fn codes(&self) -> impl Iterator<Item = &str> {
        self.ignores
            .iter()
            .flat_map(|(_, _, codes)| codes.iter().map(String::as_str))
    }
}

/// The absolute path globs are matched against: symbolic links resolved (as the project root
/// is), else the path made absolute as written.
pub fn anchor(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        abs.components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect()
    })
}

/// Parses `--per-file-ignores GLOB:CODES` (`tests/*:AC011,AC012`).
pub fn parse_per_file_ignore(text: &str) -> Result<(String, Vec<String>), String> {
    let (glob, codes) = text
        .rsplit_once(':')
        .ok_or_else(|| format!("`{text}`: expected GLOB:CODES, such as `tests/*:AC011`"))?;
    let codes: Vec<String> = codes
        .split(',')
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect();
    if glob.is_empty() || codes.is_empty() {
        return Err(format!(
            "`{text}`: expected GLOB:CODES, such as `tests/*:AC011`"
        ));
    }
    Ok((glob.to_string(), codes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(root: &str, settings: FileSettings) -> FileFilter {
        let (f, errors) = FileFilter::new(Path::new(root), &settings);
        assert!(errors.is_empty(), "{errors:?}");
        f
    }

    #[test]
    fn ruff_semantics() {
        let f = filter("/p", FileSettings::default());
        assert!(f.excluded(Path::new("/p/.git")));
        assert!(f.excluded(Path::new("/p/sub/venv")));
        assert!(f.excluded(Path::new("/p/a/site-packages")));
        assert!(!f.excluded(Path::new("/p/src")));
        let f = filter(
            "/p",
            FileSettings {
                extend_exclude: vec!["tests/fixtures".into(), "gen_*.py".into()],
                ..FileSettings::default()
            },
        );
        // Relative to the root: only the top-level `tests/fixtures`.
        assert!(f.excluded(Path::new("/p/tests/fixtures")));
        assert!(!f.excluded(Path::new("/p/pkg/tests/fixtures")));
        // A name pattern: anywhere.
        assert!(f.excluded(Path::new("/p/a/b/gen_x.py")));
        // Defaults kept by extend-exclude, replaced by exclude.
        assert!(f.excluded(Path::new("/p/build")));
        let f = filter(
            "/p",
            FileSettings {
                exclude: Some(vec!["scripts/*.py".into()]),
                ..FileSettings::default()
            },
        );
        assert!(!f.excluded(Path::new("/p/build")));
        assert!(f.excluded(Path::new("/p/scripts/a.py")));
        // `*` crosses `/`, as in Ruff.
        assert!(f.excluded(Path::new("/p/scripts/deep/a.py")));
        assert!(f.excluded_with_parents(Path::new("/p/scripts/x.py")));
    }

    #[test]
    fn per_file_ignores() {
        let f = filter(
            "/p",
            FileSettings {
                per_file_ignores: vec![
                    ("tests/*".into(), vec!["AC011".into()]),
                    ("__init__.py".into(), vec!["ac00".into()]),
                    ("!src/*".into(), vec!["AC012".into()]),
                ],
                ..FileSettings::default()
            },
        );
        assert!(f.ignores(Path::new("/p/tests/a/t.py"), "AC011"));
        assert!(!f.ignores(Path::new("/p/tests/a/t.py"), "AC001"));
        assert!(f.ignores(Path::new("/p/x/__init__.py"), "AC004"));
        assert!(!f.ignores(Path::new("/p/x/__init__.py"), "AC011"));
        assert!(f.ignores(Path::new("/p/tests/t.py"), "AC012"));
        assert!(!f.ignores(Path::new("/p/src/m.py"), "AC012"));
    }

    #[test]
    fn command_line_pairs() {
        assert_eq!(
            parse_per_file_ignore("tests/*:AC011, AC012").unwrap(),
            ("tests/*".to_string(), vec!["AC011".into(), "AC012".into()])
        );
        assert!(parse_per_file_ignore("tests").is_err());
        assert!(parse_per_file_ignore("tests/*:").is_err());
        let (_, errors) = FileFilter::new(
            Path::new("/p"),
            &FileSettings {
                extend_exclude: vec!["a[".into()],
                ..FileSettings::default()
            },
        );
        assert_eq!(errors.len(), 1);
    }
}
