//! Member names: sanitizing, classification, extension-module names.

/// Why a member name was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnsafePath {
    Absolute,
    ParentDir,
    Empty,
    Control,
}

impl std::fmt::Display for UnsafePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UnsafePath::Absolute => "absolute path",
            UnsafePath::ParentDir => "path with `..`",
            UnsafePath::Empty => "empty path",
            UnsafePath::Control => "path with control characters",
        })
    }
}

/// Normalizes an archive member name to a relative `/`-separated path.
///
/// Backslashes count as separators, `.` and empty components are dropped. Absolute paths
/// (`/x`, `C:\x`, `\\server\x`) and any `..` component are refused. A trailing `/` (directory)
/// is dropped.
pub fn sanitize_member_name(name: &str) -> Result<String, UnsafePath> {
    if name.chars().any(|c| c == '\0' || c == '\n' || c == '\r') {
        return Err(UnsafePath::Control);
    }
    let unified = name.replace('\\', "/");
    if unified.starts_with('/') {
        return Err(UnsafePath::Absolute);
    }
    let bytes = unified.as_bytes();
    if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
        return Err(UnsafePath::Absolute);
    }
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err(UnsafePath::ParentDir),
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        return Err(UnsafePath::Empty);
    }
    Ok(parts.join("/"))
}

/// Is `s` a Python identifier (ASCII letters, digits, `_`, or any non-ASCII character;
/// not starting with a digit)?
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c == '_' || c.is_alphabetic() => {}
        _ => return false,
    }
    chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// The kind of a file, judged from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `.py`
    Source,
    /// `.pyi`
    Stub,
    /// `.so` / `.pyd` whose stem is an identifier.
    Extension,
    /// A data file the extractor reads: ATen's operator list,
    /// `.../ATen/native/native_functions.yaml` (torch ships it under `torchgen/packaged/`).
    OpSchema,
    Other,
}

/// The file name of ATen's operator list and the folders it sits in.
const OP_SCHEMA: &str = "ATen/native/native_functions.yaml";

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Classifies a (sanitized) path.
pub fn file_kind(path: &str) -> FileKind {
    if path.split('/').any(|c| c == "__pycache__") {
        return FileKind::Other;
    }
    let name = file_name(path);
    if name.ends_with(".py") && name.len() > 3 {
        FileKind::Source
    } else if name.ends_with(".pyi") && name.len() > 4 {
        FileKind::Stub
    } else if extension_module_path(path).is_some() {
        FileKind::Extension
    } else if path == OP_SCHEMA || path.ends_with(&format!("/{OP_SCHEMA}")) {
        FileKind::OpSchema
    } else {
        FileKind::Other
    }
}

/// The path of a compiled extension module with its ABI tag stripped:
/// `torch/_C.cpython-312-darwin.so` -> `torch/_C.so`, `a/b.cp312-win_amd64.pyd` -> `a/b.pyd`.
/// `None` when the name is not an importable extension module.
pub fn extension_module_path(path: &str) -> Option<String> {
    let name = file_name(path);
    let ext = if name.ends_with(".so") {
        ".so"
    } else if name.ends_with(".pyd") {
        ".pyd"
    } else {
        return None;
    };
    let stem = name.split('.').next().unwrap_or("");
    if !is_identifier(stem) {
        return None;
    }
    let dir = &path[..path.len() - name.len()];
    Some(format!("{dir}{stem}{ext}"))
}

/// PEP 503 normalization: lower case, runs of `-`, `_`, `.` become one `-`.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.trim().chars() {
        if c == '-' || c == '_' || c == '.' {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The import-name form of a project name: `Foo-Bar.baz` -> `foo_bar_baz`.
pub fn import_form(name: &str) -> String {
    normalize_name(name).replace('-', "_")
}

/// Top-level names that are almost never the import packages of a distribution.
pub fn is_non_package_name(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "test",
        "tests",
        "testing",
        "doc",
        "docs",
        "example",
        "examples",
        "benchmark",
        "benchmarks",
        "bench",
        "script",
        "scripts",
        "tool",
        "tools",
        "build",
        "dist",
        "setup",
        "conftest",
        "noxfile",
        "tasks",
        "fabfile",
        "ci",
        "demo",
        "demos",
        "sample",
        "samples",
        "notebooks",
        "tutorial",
        "tutorials",
        "requirements",
        "site",
        "venv",
        "env",
    ];
    let lower = name.to_ascii_lowercase();
    NAMES.contains(&lower.as_str()) || name.starts_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize() {
        assert_eq!(sanitize_member_name("a/./b//c.py").unwrap(), "a/b/c.py");
        assert_eq!(sanitize_member_name("a\\b.py").unwrap(), "a/b.py");
        assert_eq!(sanitize_member_name("dir/").unwrap(), "dir");
        assert_eq!(
            sanitize_member_name("../evil.py"),
            Err(UnsafePath::ParentDir)
        );
        assert_eq!(
            sanitize_member_name("a/../../evil.py"),
            Err(UnsafePath::ParentDir)
        );
        assert_eq!(
            sanitize_member_name("/etc/passwd"),
            Err(UnsafePath::Absolute)
        );
        assert_eq!(sanitize_member_name("C:\\x.py"), Err(UnsafePath::Absolute));
        assert_eq!(
            sanitize_member_name("\\\\srv\\x.py"),
            Err(UnsafePath::Absolute)
        );
        assert_eq!(sanitize_member_name(""), Err(UnsafePath::Empty));
        assert_eq!(sanitize_member_name("a\0b"), Err(UnsafePath::Control));
    }

    #[test]
    fn extensions() {
        assert_eq!(
            extension_module_path("torch/_C.cpython-312-darwin.so").as_deref(),
            Some("torch/_C.so")
        );
        assert_eq!(
            extension_module_path("_x.abi3.so").as_deref(),
            Some("_x.so")
        );
        assert_eq!(
            extension_module_path("a/b.cp312-win_amd64.pyd").as_deref(),
            Some("a/b.pyd")
        );
        assert_eq!(extension_module_path("a/libfoo-1.2.so"), None);
        assert_eq!(extension_module_path("a/x.so.1"), None);
        assert_eq!(file_kind("a/__pycache__/x.py"), FileKind::Other);
        assert_eq!(file_kind("a/x.pyi"), FileKind::Stub);
        assert_eq!(file_kind(".py"), FileKind::Other);
        assert_eq!(
            file_kind("torchgen/packaged/ATen/native/native_functions.yaml"),
            FileKind::OpSchema
        );
        assert_eq!(
            file_kind("torchgen/packaged/ATen/native/tags.yaml"),
            FileKind::Other
        );
        assert_eq!(file_kind("a/native_functions.yaml"), FileKind::Other);
    }

    #[test]
    fn names() {
        assert_eq!(normalize_name("Foo__Bar.-baz"), "foo-bar-baz");
        assert_eq!(import_form("ColossalAI"), "colossalai");
        assert_eq!(import_form("typing-extensions"), "typing_extensions");
        assert!(is_identifier("_C"));
        assert!(!is_identifier("1a"));
        assert!(!is_identifier("a-b"));
    }
}
