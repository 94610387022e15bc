//! Finding the project's Python files (gitignore-aware), reading and parsing them.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::PySourceType;
use ruff_source_file::LineIndex;
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::collect::{collect, FileUses};
use crate::suppress::Suppressions;

/// Directories never walked into (the same defaults as Ruff's `exclude`).
const EXCLUDED_DIRS: &[&str] = &[
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

/// Files larger than this are not read.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// What the walk found.
#[derive(Debug, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// Paths that could not be walked, with the reason.
    pub errors: Vec<(PathBuf, String)>,
    /// Top-level names of the project's own modules (directory names and file stems).
    pub first_party: HashSet<String>,
}

/// The Python files under the given paths: directories are walked (respecting `.gitignore`,
/// `.ignore` and hidden files); files named explicitly are always taken.
pub fn discover(paths: &[PathBuf]) -> Discovered {
    let mut out = Discovered::default();
    let mut files = BTreeSet::new();
    for root in paths {
        let meta = match std::fs::metadata(root) {
            Ok(m) => m,
            Err(e) => {
                out.errors.push((root.clone(), describe_io(&e)));
                continue;
            }
        };
        if !meta.is_dir() {
            note_first_party(
                &mut out.first_party,
                root,
                root.parent().unwrap_or(Path::new("")),
            );
            files.insert(root.clone());
            continue;
        }
        if let Some(name) = std::fs::canonicalize(root)
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        {
            out.first_party.insert(name);
        }
        let walker = ignore::WalkBuilder::new(root)
            .require_git(false)
            .filter_entry(|e| {
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                !(is_dir
                    && e.depth() > 0
                    && EXCLUDED_DIRS.contains(&e.file_name().to_string_lossy().as_ref()))
            })
            .build();
        for entry in walker {
            match entry {
                Ok(e) => {
                    let is_file = e.file_type().is_some_and(|t| t.is_file());
                    let path = e.path();
                    let py = path.extension().is_some_and(|x| x == "py" || x == "pyi");
                    if is_file && py {
                        note_first_party(&mut out.first_party, path, root);
                        files.insert(path.to_path_buf());
                    }
                }
                Err(e) => {
                    let path = match &e {
                        ignore::Error::WithPath { path, .. } => path.clone(),
                        _ => root.clone(),
                    };
                    out.errors.push((path, e.to_string()));
                }
            }
        }
    }
    out.files = files.into_iter().collect();
    out
}

fn note_first_party(names: &mut HashSet<String>, file: &Path, root: &Path) {
    let rel = file.strip_prefix(root).unwrap_or(file);
    for comp in rel.components() {
        if let std::path::Component::Normal(c) = comp {
            let c = c.to_string_lossy();
            let stem = c
                .strip_suffix(".pyi")
                .or_else(|| c.strip_suffix(".py"))
                .unwrap_or(&c);
            names.insert(stem.to_string());
        }
    }
}

pub fn describe_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// One file, read and walked.
#[derive(Debug)]
pub struct Analyzed {
    pub path: PathBuf,
    pub text: String,
    pub line_index: LineIndex,
    pub uses: FileUses,
    pub syntax_errors: Vec<(TextRange, String)>,
    pub suppressions: Suppressions,
    /// Not valid UTF-8: the byte offset of the first bad byte.
    pub bad_utf8_at: Option<usize>,
    /// Could not be read.
    pub io_error: Option<String>,
}

impl Analyzed {
    fn failed(path: PathBuf, message: String) -> Analyzed {
        Analyzed {
            path,
            text: String::new(),
            line_index: LineIndex::from_source_text(""),
            uses: FileUses::default(),
            syntax_errors: Vec::new(),
            suppressions: Suppressions::default(),
            bad_utf8_at: None,
            io_error: Some(message),
        }
    }

    /// 1-based (line, column) of an offset; columns count characters.
    pub fn position(&self, offset: TextSize) -> (u32, u32) {
        let offset = offset.min(TextSize::try_from(self.text.len()).unwrap_or_default());
        let lc = self.line_index.line_column(offset, &self.text);
        (
            u32::try_from(lc.line.get()).unwrap_or(u32::MAX),
            u32::try_from(lc.column.get()).unwrap_or(u32::MAX),
        )
    }
}

/// Reads a file from disk and analyzes it.
pub fn analyze_path(path: &Path, roots: &HashSet<String>) -> Analyzed {
    match std::fs::metadata(path) {
        Ok(m) if m.len() > MAX_FILE_BYTES => {
            return Analyzed::failed(
                path.to_path_buf(),
                format!("larger than {} MiB; not read", MAX_FILE_BYTES >> 20),
            )
        }
        _ => {}
    }
    match std::fs::read(path) {
        Ok(bytes) => analyze_bytes(path.to_path_buf(), &bytes, roots),
        Err(e) => Analyzed::failed(path.to_path_buf(), describe_io(&e)),
    }
}

/// Parses source bytes (any encoding problem is noted and read with replacement characters).
pub fn analyze_bytes(path: PathBuf, bytes: &[u8], roots: &HashSet<String>) -> Analyzed {
    let (text, bad_utf8_at) = match std::str::from_utf8(bytes) {
        Ok(t) => (t.to_string(), None),
        Err(e) => (
            String::from_utf8_lossy(bytes).into_owned(),
            Some(e.valid_up_to()),
        ),
    };
    let is_stub = path.extension().is_some_and(|x| x == "pyi");
    let source_type = if is_stub {
        PySourceType::Stub
    } else {
        PySourceType::Python
    };
    let line_index = LineIndex::from_source_text(&text);
    let parsed = ruff_python_parser::parse_unchecked_source(&text, source_type);
    let mut syntax_errors: Vec<(TextRange, String)> = parsed
        .errors()
        .iter()
        .map(|e| (e.location, e.error.to_string()))
        .collect();
    syntax_errors.sort_by_key(|(r, _)| (r.start(), r.end()));
    let mut suppressions = Suppressions::default();
    for token in parsed.tokens().iter() {
        if token.kind() == TokenKind::Comment {
            let range = token.range();
            if let Some(comment) = text.get(range.start().to_usize()..range.end().to_usize()) {
                let line = line_index.line_index(range.start()).get();
                suppressions.add_comment(u32::try_from(line).unwrap_or(u32::MAX), comment);
            }
        }
    }
    let uses = collect(parsed.suite(), roots);
    drop(parsed);
    Analyzed {
        path,
        text,
        line_index,
        uses,
        syntax_errors,
        suppressions,
        bad_utf8_at,
        io_error: None,
    }
}
