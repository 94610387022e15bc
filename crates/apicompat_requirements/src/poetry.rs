//! Poetry's tables in `pyproject.toml`: `[tool.poetry.dependencies]` (the project's
//! requirements; its `python` entry is the project's Python), `[tool.poetry.group.<g>.
//! dependencies]` and the older `[tool.poetry.dev-dependencies]` (dependency groups), and
//! optional dependencies, named by the extras of `[tool.poetry.extras]` that list them.
//!
//! Poetry's constraints become PEP 440 specifiers: `^1.2.3` is `>=1.2.3,<2.0.0` (the first
//! non-zero component may not grow: `^0.2.3` is `>=0.2.3,<0.3.0`), `~1.2.3` is
//! `>=1.2.3,<1.3.0`, a bare version is `==`, `*` is anything, and comparisons separated by
//! commas or spaces all hold. A constraint with `||` (either of two) cannot be one specifier
//! set: it is reported and the entry is read without a version.

use std::path::Path;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::declared::{Collector, Declaration, Severity};
use crate::lines::LineIndex;

/// Reads the Poetry tables of `tool.poetry`, when there are any.
pub(crate) fn read(c: &mut Collector, path: &Path, index: &LineIndex, poetry: &DeTable<'_>) {
    let extras = extras_of(poetry);
    if let Some(deps) = poetry
        .get("dependencies")
        .and_then(|d| d.get_ref().as_table())
    {
        for (name, value) in entries(deps) {
            if name == "python" {
                continue;
            }
            let optional = is_optional(value.get_ref());
            let extra = optional.then(|| {
                extras
                    .iter()
                    .find(|(_, members)| members.iter().any(|m| same(m, name)))
                    .map_or("optional", |(e, _)| e.as_str())
            });
            read_entry(c, path, index, name, value, extra, extra.is_some());
        }
    }
    if let Some(dev) = poetry
        .get("dev-dependencies")
        .and_then(|d| d.get_ref().as_table())
    {
        for (name, value) in entries(dev) {
            read_entry(c, path, index, name, value, Some("dev"), false);
        }
    }
    if let Some(groups) = poetry.get("group").and_then(|g| g.get_ref().as_table()) {
        for (group, table) in entries(groups) {
            let Some(deps) = table
                .get_ref()
                .as_table()
                .and_then(|t| t.get("dependencies"))
                .and_then(|d| d.get_ref().as_table())
            else {
                continue;
            };
            for (name, value) in entries(deps) {
                read_entry(c, path, index, name, value, Some(group), false);
            }
        }
    }
}

/// `[tool.poetry.dependencies] python`, as a specifier set, and its line.
pub(crate) fn python(text: &str) -> Option<(String, u32)> {
    let doc = DeTable::parse(text).ok()?;
    let value = doc
        .get_ref()
        .get("tool")?
        .get_ref()
        .as_table()?
        .get("poetry")?
        .get_ref()
        .as_table()?
        .get("dependencies")?
        .get_ref()
        .as_table()?
        .get("python")?;
    let raw = value.get_ref().as_str()?;
    let spec = specifiers(raw).ok()?;
    (!spec.is_empty()).then(|| (spec, LineIndex::new(text).line(value.span().start)))
}

/// Entries in file order.
fn entries<'a, 'i>(table: &'a DeTable<'i>) -> Vec<(&'a str, &'a Spanned<DeValue<'i>>)> {
    let mut out: Vec<_> = table.iter().collect();
    out.sort_by_key(|(k, _)| k.span().start);
    out.into_iter()
        .map(|(k, v)| (k.get_ref().as_ref(), v))
        .collect()
}

fn same(a: &str, b: &str) -> bool {
    crate::normalize_name(a) == crate::normalize_name(b)
}

fn is_optional(value: &DeValue<'_>) -> bool {
    value
        .as_table()
        .and_then(|t| t.get("optional"))
        .and_then(|o| o.get_ref().as_bool())
        .unwrap_or(false)
}

/// `[tool.poetry.extras]`: each extra and the distributions it lists.
fn extras_of(poetry: &DeTable<'_>) -> Vec<(String, Vec<String>)> {
    let Some(extras) = poetry.get("extras").and_then(|e| e.get_ref().as_table()) else {
        return Vec::new();
    };
    entries(extras)
        .into_iter()
        .map(|(name, members)| {
            let members = members
                .get_ref()
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|m| m.get_ref().as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            (name.to_string(), members)
        })
        .collect()
}

/// One dependency: `name = "^1.2"`, `name = {version = "^1.2", extras = [...], markers =
/// "...", python = "..."}`, `name = {git = "..."}` (a direct reference), or an array of such
/// tables (one constraint per environment: each is read).
fn read_entry(
    c: &mut Collector,
    path: &Path,
    index: &LineIndex,
    name: &str,
    value: &Spanned<DeValue<'_>>,
    group: Option<&str>,
    extra: bool,
) {
    let line = index.line(value.span().start);
    let at = Declaration {
        file: path,
        line,
        group,
        is_constraint: false,
        extra,
    };
    let items: Vec<&DeValue<'_>> = match value.get_ref().as_array() {
        Some(items) => items.iter().map(|i| i.get_ref()).collect(),
        None => vec![value.get_ref()],
    };
    for item in items {
        match requirement(name, item) {
            Ok(Some(text)) => c.push_requirement(&text, &at),
            Ok(None) => {}
            Err(why) => {
                c.diag(
                    path,
                    Some(line),
                    Severity::Warning,
                    format!("`{name}` in the Poetry dependencies: {why}; read without a version"),
                );
                c.push_requirement(name, &at);
            }
        }
    }
}

/// The PEP 508 requirement of one Poetry entry (`None`: nothing to read).
fn requirement(name: &str, value: &DeValue<'_>) -> Result<Option<String>, String> {
    if let Some(s) = value.as_str() {
        return Ok(Some(format!("{name}{}", specifiers(s)?)));
    }
    let Some(t) = value.as_table() else {
        return Ok(None);
    };
    let get = |k: &str| t.get(k).and_then(|v| v.get_ref().as_str());
    for (key, scheme) in [("git", "git+"), ("url", ""), ("path", "")] {
        if let Some(target) = get(key) {
            let target = if key == "path" {
                format!("file:{target}")
            } else {
                format!("{scheme}{target}")
            };
            return Ok(Some(format!("{name} @ {target}")));
        }
    }
    let extras: Vec<&str> = t
        .get("extras")
        .and_then(|e| e.get_ref().as_array())
        .map(|a| a.iter().filter_map(|x| x.get_ref().as_str()).collect())
        .unwrap_or_default();
    let extras = if extras.is_empty() {
        String::new()
    } else {
        format!("[{}]", extras.join(","))
    };
    let spec = match get("version") {
        Some(v) => specifiers(v)?,
        None => String::new(),
    };
    let mut markers: Vec<String> = Vec::new();
    if let Some(m) = get("markers") {
        markers.push(format!("({m})"));
    }
    if let Some(p) = get("python") {
        let p = specifiers(p)?;
        for piece in p.split(',').filter(|s| !s.is_empty()) {
            let (op, v) = split_op(piece);
            markers.push(format!("python_version {op} \"{v}\""));
        }
    }
    let markers = if markers.is_empty() {
        String::new()
    } else {
        format!(" ; {}", markers.join(" and "))
    };
    Ok(Some(format!("{name}{extras}{spec}{markers}")))
}

/// A PEP 440 specifier's operator and version.
fn split_op(piece: &str) -> (&str, &str) {
    let at = piece
        .find(|c: char| c.is_ascii_alphanumeric())
        .unwrap_or(piece.len());
    (&piece[..at], &piece[at..])
}

/// A Poetry constraint as PEP 440 specifiers (`""` for any version).
pub(crate) fn specifiers(constraint: &str) -> Result<String, String> {
    let c = constraint.trim();
    if c.contains('|') {
        return Err(format!("`{c}` allows either of two ranges"));
    }
    let mut out: Vec<String> = Vec::new();
    // `>= 1.2, < 2` and `>=1.2 <2`: split on commas, then on spaces between comparisons.
    let mut tokens: Vec<String> = Vec::new();
    for part in c.split(',') {
        let mut pending = String::new();
        for word in part.split_whitespace() {
            let is_op = word
                .chars()
                .all(|ch| matches!(ch, '<' | '>' | '=' | '!' | '~' | '^'));
            pending.push_str(word);
            if !is_op {
                tokens.push(std::mem::take(&mut pending));
            }
        }
        if !pending.is_empty() {
            return Err(format!("`{c}` ends in an operator"));
        }
    }
    for t in tokens {
        if t == "*" {
            continue;
        }
        if let Some(v) = t.strip_prefix('^') {
            out.extend(caret(v)?);
        } else if t.starts_with("~=") {
            out.push(t);
        } else if let Some(v) = t.strip_prefix('~') {
            out.extend(tilde(v)?);
        } else if t.starts_with(['<', '>', '=', '!']) {
            out.push(t);
        } else {
            out.push(format!("=={t}"));
        }
    }
    Ok(out.join(","))
}

fn components(v: &str) -> Result<Vec<u64>, String> {
    let parts: Vec<&str> = v.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return Err(format!("`{v}` is not a version"));
    }
    parts
        .iter()
        .map(|p| {
            p.parse::<u64>()
                .map_err(|_| format!("`{v}` is not a version"))
        })
        .collect()
}

/// `^v`: at least `v`, below the next release of its first non-zero component (of its last
/// written one when all are zero).
fn caret(v: &str) -> Result<Vec<String>, String> {
    let parts = components(v)?;
    let at = parts
        .iter()
        .position(|&n| n != 0)
        .unwrap_or(parts.len() - 1);
    Ok(vec![format!(">={v}"), format!("<{}", bump(&parts, at))])
}

/// `~v`: at least `v`, below the next minor release (the next major when only it is
/// written).
fn tilde(v: &str) -> Result<Vec<String>, String> {
    let parts = components(v)?;
    let at = if parts.len() == 1 { 0 } else { 1 };
    Ok(vec![format!(">={v}"), format!("<{}", bump(&parts, at))])
}

/// The version with component `at` increased and the ones after it dropped.
fn bump(parts: &[u64], at: usize) -> String {
    let mut out: Vec<String> = parts[..at].iter().map(u64::to_string).collect();
    out.push((parts[at] + 1).to_string());
    out.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poetry_constraints_as_pep_440() {
        let s = |c: &str| specifiers(c).unwrap();
        assert_eq!(s("^1.2.3"), ">=1.2.3,<2");
        assert_eq!(s("^0.2.3"), ">=0.2.3,<0.3");
        assert_eq!(s("^0.0.3"), ">=0.0.3,<0.0.4");
        assert_eq!(s("^3.11"), ">=3.11,<4");
        assert_eq!(s("~1.2.3"), ">=1.2.3,<1.3");
        assert_eq!(s("~1"), ">=1,<2");
        assert_eq!(s("~=1.2"), "~=1.2");
        assert_eq!(s("1.2.3"), "==1.2.3");
        assert_eq!(s("1.2.*"), "==1.2.*");
        assert_eq!(s("*"), "");
        assert_eq!(s(">= 1.2, < 1.5"), ">=1.2,<1.5");
        assert_eq!(s(">=1.2 <2"), ">=1.2,<2");
        assert!(specifiers("^1.2 || ^2.0").is_err());
        assert!(specifiers("^x").is_err());
    }

    #[test]
    fn tables_give_extras_markers_and_references() {
        let doc = DeTable::parse(
            "a = {version = \"^1.0\", extras = [\"x\"], python = \">=3.8\"}\nb = {git = \"https://h/r.git\"}\n",
        )
        .unwrap();
        let t = doc.get_ref();
        let req = |k: &str| requirement(k, t.get(k).unwrap().get_ref()).unwrap();
        assert_eq!(
            req("a").as_deref(),
            Some("a[x]>=1.0,<2 ; python_version >= \"3.8\"")
        );
        assert_eq!(req("b").as_deref(), Some("b @ git+https://h/r.git"));
    }
}
