//! Core metadata (`METADATA`, `PKG-INFO`), `requires.txt` and `requirements.txt` readers.

use crate::Metadata;

/// Parses the RFC 822 style header block of `METADATA` / `PKG-INFO`.
///
/// Continuation lines (starting with a space or a tab) are joined to the previous header with
/// one space. The header block ends at the first empty line. Never fails: unknown or malformed
/// lines are ignored.
pub fn parse_metadata(data: &[u8]) -> Metadata {
    let text = String::from_utf8_lossy(data);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut headers: Vec<(String, String)> = Vec::new();
    for raw in text.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        // Only a truly empty line ends the headers: whitespace-only lines are folded
        // continuations (setuptools indents a multi-line `Description` that way).
        if line.is_empty() {
            break;
        }
        if line.starts_with(' ') || line.starts_with('\t') {
            if let Some((_, value)) = headers.last_mut() {
                let cont = line.trim();
                if !cont.is_empty() {
                    if !value.is_empty() {
                        value.push(' ');
                    }
                    value.push_str(cont);
                }
            }
            continue;
        }
        if let Some((key, value)) = line.split_once(':') {
            headers.push((key.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let mut md = Metadata::default();
    for (key, value) in headers {
        match key.as_str() {
            "name" if md.name.is_none() && !value.is_empty() => md.name = Some(value),
            "version" if md.version.is_none() && !value.is_empty() => md.version = Some(value),
            "requires-python" if md.requires_python.is_none() && !value.is_empty() => {
                md.requires_python = Some(value)
            }
            "requires-dist" if !value.is_empty() => md.requires_dist.push(value),
            "provides-extra" if !value.is_empty() => md.provides_extra.push(value),
            _ => {}
        }
    }
    md
}

fn add_marker(req: &str, marker: &str) -> String {
    let marker = marker.trim();
    if marker.is_empty() {
        return req.to_string();
    }
    match req.split_once(';') {
        Some((spec, existing)) if !existing.trim().is_empty() => {
            format!("{}; ({}) and ({})", spec.trim(), existing.trim(), marker)
        }
        Some((spec, _)) => format!("{}; {}", spec.trim(), marker),
        None => format!("{}; {}", req.trim(), marker),
    }
}

/// Parses setuptools' `*.egg-info/requires.txt`.
///
/// Lines before any section are plain requirements. A section `[extra]` adds
/// `extra == "extra"`, `[:marker]` adds the marker and `[extra:marker]` adds both.
pub fn parse_requires_txt(data: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(data);
    let mut section_marker: Option<String> = None;
    let mut out = Vec::new();
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let (extra, marker) = match inner.split_once(':') {
                Some((e, m)) => (e.trim(), m.trim()),
                None => (inner.trim(), ""),
            };
            let mut parts = Vec::new();
            if !marker.is_empty() {
                parts.push(if extra.is_empty() {
                    marker.to_string()
                } else {
                    format!("({marker})")
                });
            }
            if !extra.is_empty() {
                parts.push(format!("extra == \"{extra}\""));
            }
            section_marker = if parts.is_empty() {
                None
            } else {
                Some(parts.join(" and "))
            };
            continue;
        }
        out.push(match &section_marker {
            Some(m) => add_marker(line, m),
            None => line.to_string(),
        });
    }
    out
}

/// Parses a pip `requirements.txt`: joins `\` continuations, drops comments, options
/// (`-r`, `-e`, `--index-url`...), trailing per-line options (`--hash`) and bare URLs or paths.
pub fn parse_requirements_txt(data: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(data);
    let mut logical: Vec<String> = Vec::new();
    let mut current = String::new();
    for raw in text.lines() {
        let mut line = raw.trim_end();
        if !current.is_empty() {
            line = line.trim_start();
        }
        if let Some(stripped) = line.strip_suffix('\\') {
            current.push_str(stripped.trim_end());
            current.push(' ');
            continue;
        }
        current.push_str(line);
        logical.push(std::mem::take(&mut current));
    }
    if !current.is_empty() {
        logical.push(current);
    }
    let mut out = Vec::new();
    for line in logical {
        let mut line = line.trim().to_string();
        // Comments: `#` at the start or after whitespace.
        if line.starts_with('#') {
            continue;
        }
        if let Some(pos) = line.find(" #").or_else(|| line.find("\t#")) {
            line.truncate(pos);
        }
        // Per-requirement options (`--hash=...`, `--global-option`).
        if let Some(pos) = line.find(" --") {
            line.truncate(pos);
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with('-') {
            continue;
        }
        let direct_reference = line.contains('@');
        let looks_like_path = line.starts_with('.')
            || line.starts_with('/')
            || line.starts_with('~')
            || (!direct_reference
                && (line.contains("://")
                    || line.ends_with(".whl")
                    || line.ends_with(".tar.gz")
                    || line.ends_with(".zip")));
        if looks_like_path {
            continue;
        }
        out.push(line.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_headers() {
        let text = b"Metadata-Version: 2.1\r\nName: foo-bar\r\nVersion: 1.0\r\nRequires-Dist: a>=1\r\nRequires-Dist: b;\r\n  extra == \"x\"\r\nrequires-python: >=3.8\r\nProvides-Extra: x\r\nDescription: hello\r\n        \r\n        |Name: nope\r\nRequires-Python: <4\r\n\r\nBody\r\nRequires-Dist: nope\r\n";
        let md = parse_metadata(text);
        assert_eq!(md.name.as_deref(), Some("foo-bar"));
        assert_eq!(md.version.as_deref(), Some("1.0"));
        assert_eq!(md.requires_dist, vec!["a>=1", "b; extra == \"x\""]);
        assert_eq!(md.requires_python.as_deref(), Some(">=3.8"));
        assert_eq!(md.provides_extra, vec!["x"]);
    }

    #[test]
    fn metadata_garbage() {
        let md = parse_metadata(&[0xff, 0xfe, b':', b'\n', b' ', 0x80]);
        assert_eq!(md, Metadata::default());
        assert_eq!(parse_metadata(b""), Metadata::default());
    }

    #[test]
    fn requires_txt() {
        let text = b"numpy\ntorch<2.3.0,>=2.1.0\n\n[dev]\npytest\n\n[:python_version < \"3.8\"]\ntyping-extensions\n\n[gpu:sys_platform == \"linux\"]\ncupy\n";
        assert_eq!(
            parse_requires_txt(text),
            vec![
                "numpy",
                "torch<2.3.0,>=2.1.0",
                "pytest; extra == \"dev\"",
                "typing-extensions; python_version < \"3.8\"",
                "cupy; (sys_platform == \"linux\") and extra == \"gpu\"",
            ]
        );
    }

    #[test]
    fn requirements_txt() {
        let text = b"# comment\n-r base.txt\n--index-url https://x\ntorch>=2.1.0,<2.3.0  # pinned\nnumpy \\\n  >=1.0\n-e .\n./local\nhttps://x/y.whl\nfoo @ https://x/foo.zip\nbar==1 --hash=sha256:abc\n\n";
        assert_eq!(
            parse_requirements_txt(text),
            vec![
                "torch>=2.1.0,<2.3.0",
                "numpy >=1.0",
                "foo @ https://x/foo.zip",
                "bar==1"
            ]
        );
    }
}
