//! `setup.cfg`: `[options] install_requires` and `[options.extras_require]`.

use std::path::Path;

use crate::declared::{Collector, Declaration, Severity};
use crate::reqtxt;

/// One `key = value` of an INI file, with its continuation lines.
struct IniValue {
    section: String,
    key: String,
    /// Non-empty pieces with their lines: the text after `=` then each continuation line.
    parts: Vec<(String, u32)>,
    multiline: bool,
}

fn parse_ini(text: &str) -> Vec<IniValue> {
    let mut out: Vec<IniValue> = Vec::new();
    let mut section = String::new();
    let mut in_value = false;
    for (idx, raw) in text.split('\n').enumerate() {
        let line_no = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if indented && in_value {
            if let Some(last) = out.last_mut() {
                last.parts.push((trimmed.to_string(), line_no));
                last.multiline = true;
            }
            continue;
        }
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            section = trimmed[1..trimmed.len() - 1].trim().to_ascii_lowercase();
            in_value = false;
            continue;
        }
        let split = trimmed.find(['=', ':']);
        match split {
            Some(pos) => {
                let key = trimmed[..pos].trim().to_ascii_lowercase();
                let value = trimmed[pos + 1..].trim();
                let mut parts = Vec::new();
                if !value.is_empty() {
                    parts.push((value.to_string(), line_no));
                }
                out.push(IniValue {
                    section: section.clone(),
                    key,
                    parts,
                    multiline: false,
                });
                in_value = true;
            }
            None => in_value = false,
        }
    }
    out
}

pub(crate) fn read(c: &mut Collector, path: &Path) {
    let Some(text) = c.read_text(path, None) else {
        return;
    };
    for value in parse_ini(&text) {
        let group = match (value.section.as_str(), value.key.as_str()) {
            ("options", "install_requires") => None,
            ("options.extras_require", extra) => {
                c.out.extras.push(crate::normalize_name(extra));
                Some(extra.to_string())
            }
            ("metadata", "name") => {
                if let Some((name, _)) = value.parts.first() {
                    c.out.name.get_or_insert(crate::normalize_name(name));
                }
                continue;
            }
            _ => continue,
        };
        read_list(c, path, &value, group.as_deref());
    }
}

fn read_list(c: &mut Collector, path: &Path, value: &IniValue, group: Option<&str>) {
    // `file: a.txt, b.txt` reads requirement lists from files.
    if let Some((first, line)) = value.parts.first() {
        if let Some(files) = first.strip_prefix("file:") {
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            for name in files.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let before = c.out.requirements.len();
                reqtxt::read_file(c, &base.join(name), false, Some((path, *line)));
                for req in &mut c.out.requirements[before..] {
                    req.group = group.map(str::to_string);
                    req.extra = group.is_some();
                }
            }
            return;
        }
    }
    // As setuptools: one requirement per line, or `;`-separated on a single line.
    let mut items: Vec<(String, u32)> = Vec::new();
    if value.multiline {
        items.extend(value.parts.iter().cloned());
    } else if let Some((text, line)) = value.parts.first() {
        if text.contains(';') {
            c.diag(
                path,
                Some(*line),
                Severity::Warning,
                "a one-line `install_requires` is split at `;` by setuptools; \
                 put each requirement on its own line to use environment markers"
                    .to_string(),
            );
        }
        items.extend(
            text.split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| (s.to_string(), *line)),
        );
    }
    for (text, line) in items {
        let text = reqtxt::strip_comment(&text).trim().to_string();
        if text.is_empty() {
            continue;
        }
        c.push_requirement(
            &text,
            &Declaration {
                file: path,
                line,
                group,
                is_constraint: false,
                extra: group.is_some(),
            },
        );
    }
}
