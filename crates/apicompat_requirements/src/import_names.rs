//! The top-level import names an installed distribution provides, from its own metadata:
//! `top_level.txt` when present (setuptools writes it), else the first component of each
//! module path in `RECORD` (`PIL/__init__.py` -> `PIL`, `six.py` -> `six`,
//! `_yaml.cpython-311-x86_64-linux-gnu.so` -> `_yaml`). No name is guessed.

use crate::environment::InstalledDistribution;
use crate::safe_read::read_regular_file;

/// Metadata files larger than this are not read.
const MAX_BYTES: u64 = 16 << 20;

/// The import names `dist` installs, sorted, without duplicates.
pub fn import_names(dist: &InstalledDistribution) -> Vec<String> {
    let Some(dir) = dist.metadata_path.parent() else {
        return Vec::new();
    };
    let read = |name: &str| {
        read_regular_file(&dir.join(name), MAX_BYTES)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let mut names: Vec<String> = match read("top_level.txt") {
        Some(text) => text
            .lines()
            .map(str::trim)
            .filter(|l| is_identifier(l))
            .map(str::to_string)
            .collect(),
        None => read("RECORD")
            .map(|text| text.lines().filter_map(record_name).collect())
            .unwrap_or_default(),
    };
    names.sort();
    names.dedup();
    names
}

/// The top-level module of one `RECORD` line, when it installs one.
fn record_name(line: &str) -> Option<String> {
    let path = line.split(',').next()?.trim_matches('"');
    let (first, rest) = match path.split_once('/') {
        Some((f, r)) => (f, Some(r)),
        None => (path, None),
    };
    if first.ends_with(".dist-info") || first.ends_with(".data") || first.starts_with("..") {
        return None;
    }
    let name = match rest {
        // A package directory: only when it holds Python modules.
        Some(r) if r.ends_with(".py") || r.ends_with(".pyi") || r.contains(".so") => first,
        Some(_) => return None,
        None => {
            let stem = first
                .strip_suffix(".py")
                .or_else(|| first.split_once(".cpython-").map(|(s, _)| s))
                .or_else(|| first.strip_suffix(".so"))
                .or_else(|| first.strip_suffix(".pyd"))?;
            stem.split('.').next()?
        }
    };
    is_identifier(name).then(|| name.to_string())
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_lines() {
        assert_eq!(
            record_name("PIL/__init__.py,sha256=x,12").as_deref(),
            Some("PIL")
        );
        assert_eq!(record_name("six.py,sha256=x,1").as_deref(), Some("six"));
        assert_eq!(
            record_name("_yaml.cpython-311-x86_64-linux-gnu.so,,").as_deref(),
            Some("_yaml")
        );
        assert_eq!(record_name("pillow-10.0.dist-info/RECORD,,"), None);
        assert_eq!(record_name("../../bin/tool,,"), None);
        assert_eq!(record_name("pillow.libs/libz.so.1,,"), None);
        assert_eq!(record_name("yaml/__init__.py,,").as_deref(), Some("yaml"));
    }
}
