//! `check`'s file selection flags: `--exclude`, `--extend-exclude`, `--per-file-ignores`,
//! `--extend-per-file-ignores`, `--force-exclude` (Ruff's names and semantics; see
//! `apicompat_check::exclude`).

use clap::Args;

use apicompat_check::exclude::{parse_per_file_ignore, FileSettings};

use crate::Failure;

#[derive(Args, Debug, Default)]
pub struct FileArgs {
    /// Globs of paths not checked, replacing the defaults (`.git`, `build`, `dist`, virtual
    /// environments, `site-packages`...) and `[tool.apicompat] exclude`.
    #[arg(long, value_delimiter = ',', value_name = "GLOBS")]
    pub exclude: Option<Vec<String>>,
    /// Globs of paths not checked, in addition to `exclude`.
    #[arg(long, value_delimiter = ',', value_name = "GLOBS")]
    pub extend_exclude: Vec<String>,
    /// `GLOB:CODES`: rules ignored in matching files (repeatable), replacing
    /// `[tool.apicompat.per-file-ignores]`.
    #[arg(long, value_name = "GLOB:CODES")]
    pub per_file_ignores: Vec<String>,
    /// `GLOB:CODES`: rules ignored in matching files, in addition to the configured ones.
    #[arg(long, value_name = "GLOB:CODES")]
    pub extend_per_file_ignores: Vec<String>,
    /// Apply the exclusions to paths named on the command line too (for pre-commit).
    #[arg(long)]
    pub force_exclude: bool,
}

impl FileArgs {
    /// The settings for `apicompat_check::Options::files`.
    pub fn settings(&self) -> Result<FileSettings, Failure> {
        let parse = |list: &[String]| {
            list.iter()
                .map(|t| {
                    parse_per_file_ignore(t)
                        .map_err(|e| Failure::usage(format!("--per-file-ignores {e}")))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let replaced = parse(&self.per_file_ignores)?;
        let extended = parse(&self.extend_per_file_ignores)?;
        Ok(FileSettings {
            exclude: self.exclude.clone(),
            extend_exclude: self.extend_exclude.clone(),
            per_file_ignores: replaced.into_iter().chain(extended).collect(),
            replace_per_file_ignores: !self.per_file_ignores.is_empty(),
            force_exclude: self.force_exclude,
        })
    }
}
