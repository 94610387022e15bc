//! The requirements file read for a project whose root declares none: its one top-level
//! package's, or its one code-less directory's (`crate::read_project`).

use std::path::{Path, PathBuf};

/// Most entries of the project directory looked at for [`find`].
const MAX_ROOT_ENTRIES: usize = 10_000;

/// For a project whose root declares nothing: the `requirements.txt` of the one top-level
/// package that has one (DomainBed's `domainbed/requirements.txt`), else of the one top-level
/// directory without Python code that has one (the-algorithm-ml's `images/requirements.txt`,
/// which its image installs), with whether it is a package. Documentation's and tests'
/// directories are neither.
pub(crate) fn find(dir: &Path) -> Option<(PathBuf, bool)> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut found: Vec<(PathBuf, bool)> = entries
        .take(MAX_ROOT_ENTRIES)
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().to_ascii_lowercase();
            !name.starts_with('.')
                && !matches!(
                    name.as_str(),
                    "docs" | "doc" | "documentation" | "tests" | "test" | "site"
                )
        })
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .filter(|p| p.join("requirements.txt").is_file())
        .filter_map(|p| {
            let is_package = p.join("__init__.py").is_file();
            (is_package || !holds_python(&p)).then(|| (p.join("requirements.txt"), is_package))
        })
        .collect();
    // A package's file first; a directory without code only when no package has one.
    if found.iter().any(|(_, package)| *package) {
        found.retain(|(_, package)| *package);
    }
    match found.len() {
        1 => found.pop(),
        _ => None,
    }
}

/// Whether a directory holds a Python file directly.
fn holds_python(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .take(MAX_ROOT_ENTRIES)
            .filter_map(Result::ok)
            .any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.ends_with(".py") || name.ends_with(".pyi")
            })
    })
}
