//! pip requirements files: comments, continuations, `-r`/`-c` includes, options.

use std::path::{Path, PathBuf};

use crate::declared::{Collector, Declaration, Severity};

/// Nesting limit for `-r` includes (a guard besides cycle detection).
const MAX_INCLUDE_DEPTH: usize = 32;

/// pip options that take a value and are irrelevant to which versions are declared.
const OPTIONS_WITH_VALUE: &[&str] = &[
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--trusted-host",
    "--no-binary",
    "--only-binary",
    "--use-feature",
    "--config-settings",
    "--global-option",
    "--install-option",
    "--hash",
    "--progress-bar",
];

/// pip options without a value that are likewise irrelevant.
const FLAG_OPTIONS: &[&str] = &[
    "--no-index",
    "--pre",
    "--prefer-binary",
    "--require-hashes",
    "--no-deps",
    "--upgrade",
    "-U",
    "--user",
    "--no-build-isolation",
];

/// Reads a requirements file (once per project), following its includes.
pub(crate) fn read_file(
    c: &mut Collector,
    path: &Path,
    is_constraint: bool,
    included_from: Option<(&Path, u32)>,
) {
    let report = |c: &mut Collector, severity: Severity, msg: String| match included_from {
        Some((file, line)) => c.diag(file, Some(line), severity, msg),
        None => c.diag(path, None, severity, msg),
    };
    let canonical = match std::fs::canonicalize(path) {
        Ok(p) => p,
        Err(e) => {
            let shown = c.rel(path);
            let msg = if e.kind() == std::io::ErrorKind::NotFound {
                format!("requirements file {} not found", shown.display())
            } else {
                format!("cannot read {}: {e}", shown.display())
            };
            report(c, Severity::Error, msg);
            return;
        }
    };
    if c.stack.iter().any(|(p, _)| *p == canonical) {
        let chain = c
            .stack
            .iter()
            .map(|(_, shown)| shown.as_path())
            .chain(std::iter::once(path))
            .map(|p| c.rel(p).display().to_string())
            .collect::<Vec<_>>()
            .join(" -> ");
        report(
            c,
            Severity::Warning,
            format!("include cycle skipped: {chain}"),
        );
        return;
    }
    if c.stack.len() >= MAX_INCLUDE_DEPTH {
        report(
            c,
            Severity::Error,
            format!("includes nested deeper than {MAX_INCLUDE_DEPTH}; not followed"),
        );
        return;
    }
    if !c.visited.insert((canonical.clone(), is_constraint)) {
        return;
    }
    let Some(text) = c.read_text(path, included_from) else {
        return;
    };
    c.stack.push((canonical, path.to_path_buf()));
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    if is_conda_export(&text) {
        read_conda_export(c, path, &text, is_constraint);
        c.stack.pop();
        return;
    }
    for (line, content) in logical_lines(&text) {
        let content = strip_comment(&content).trim();
        if content.is_empty() {
            continue;
        }
        process_line(c, path, &base, line, content, is_constraint);
    }
    c.stack.pop();
}

/// Whether a requirements file is a conda package list (`conda list --export`: a header
/// `# $ conda create --name <env> --file <this file>`, or every line `name=version=build`),
/// which pip cannot read (DPOT's `requirements.txt`, docs/false-alarm-study-48.md D1).
fn is_conda_export(text: &str) -> bool {
    let header = text
        .lines()
        .take(5)
        .any(|l| l.starts_with('#') && l.contains("conda create") && l.contains("--file"));
    let mut specs = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .peekable();
    let all_exported = specs.peek().is_some()
        && specs.all(|l| {
            let parts: Vec<&str> = l.split('=').collect();
            parts.len() == 3 && parts.iter().all(|p| !p.is_empty() && !p.contains(' '))
        });
    header || all_exported
}

/// Reads a conda package list as conda match specs (`pytorch=2.0.0=py3.9_...`: torch 2.0.0),
/// with a note saying so.
fn read_conda_export(c: &mut Collector, path: &Path, text: &str, is_constraint: bool) {
    c.diag(
        path,
        None,
        Severity::Warning,
        "read as a conda package list (`conda list --export`, for `conda create --file`): each line is a conda match spec, `pytorch` is torch".to_string(),
    );
    let scope = c.scope.clone();
    for (i, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let Some(req) = crate::yaml_env::conda_requirement(l) else {
            continue;
        };
        c.push_requirement(
            &req,
            &Declaration {
                file: path,
                line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                group: scope.as_deref(),
                is_constraint,
                extra: false,
            },
        );
    }
}

/// Joins continuation lines the way pip does; yields (first line number, text).
pub(crate) fn logical_lines(text: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(u32, String)> = None;
    for (idx, line) in text.split('\n').enumerate() {
        let line_no = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let is_comment = line.trim_start().starts_with('#');
        if !line.ends_with('\\') || is_comment {
            match pending.take() {
                Some((first, mut joined)) => {
                    if is_comment {
                        joined.push(' ');
                    }
                    joined.push_str(line);
                    out.push((first, joined));
                }
                None => out.push((line_no, line.to_string())),
            }
        } else {
            let part = line.trim_matches('\\');
            match &mut pending {
                Some((_, joined)) => joined.push_str(part),
                None => pending = Some((line_no, part.to_string())),
            }
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    out
}

/// Removes a comment: `#` at the start or after whitespace, to the end of the line.
pub(crate) fn strip_comment(line: &str) -> &str {
    let mut prev_ws = true;
    for (i, ch) in line.char_indices() {
        if ch == '#' && prev_ws {
            return &line[..i];
        }
        prev_ws = ch.is_whitespace();
    }
    line
}

/// Handles one logical line of a requirements file (or one `pip:` entry of environment.yml).
pub(crate) fn process_line(
    c: &mut Collector,
    file: &Path,
    base: &Path,
    line: u32,
    content: &str,
    is_constraint: bool,
) {
    if content.starts_with('-') {
        process_option(c, file, base, line, content, is_constraint);
        return;
    }
    // As pip: the requirement runs until the first token that starts with `-` (`--hash=...`).
    let args: Vec<&str> = content
        .split_whitespace()
        .take_while(|t| !t.starts_with('-'))
        .collect();
    let text = args.join(" ");
    let scope = c.scope.clone();
    c.push_requirement(
        &text,
        &Declaration {
            file,
            line,
            group: scope.as_deref(),
            is_constraint,
            extra: false,
        },
    );
}

fn process_option(
    c: &mut Collector,
    file: &Path,
    base: &Path,
    line: u32,
    content: &str,
    is_constraint: bool,
) {
    let mut tokens = content.split_whitespace();
    let Some(first) = tokens.next() else {
        return;
    };
    let (name, inline_value) = if first.starts_with("--") {
        match first.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (first.to_string(), None),
        }
    } else {
        let mut chars = first.char_indices();
        chars.next();
        match chars.next() {
            Some((i, ch)) => {
                let end = i + ch.len_utf8();
                let rest = first[end..].trim_start_matches('=');
                (
                    first[..end].to_string(),
                    (!rest.is_empty()).then(|| rest.to_string()),
                )
            }
            None => (first.to_string(), None),
        }
    };
    let rest: Vec<&str> = tokens.collect();
    let value = inline_value.or_else(|| (!rest.is_empty()).then(|| rest.join(" ")));
    match name.as_str() {
        "-r" | "--requirement" | "-c" | "--constraint" => {
            let constraint = is_constraint || matches!(name.as_str(), "-c" | "--constraint");
            let Some(value) = value else {
                c.diag(
                    file,
                    Some(line),
                    Severity::Error,
                    format!("`{name}` needs a file name"),
                );
                return;
            };
            let target = value.trim().trim_matches(['"', '\'']);
            // A `file:` URL names a local file: `-r file:requirements.txt` (conda's
            // `environment.yml`, relative to it), `file:///abs/reqs.txt`.
            let target = match target.get(..5) {
                Some(scheme) if scheme.eq_ignore_ascii_case("file:") => {
                    let rest = &target[5..];
                    rest.strip_prefix("//")
                        .map_or(Some(rest), |r| r.starts_with('/').then_some(r))
                        .unwrap_or(target)
                }
                _ => target,
            };
            if target.contains("://") {
                c.diag(
                    file,
                    Some(line),
                    Severity::Note,
                    format!("remote requirements file `{target}` skipped"),
                );
                return;
            }
            let path: PathBuf = base.join(target);
            read_file(c, &path, constraint, Some((file, line)));
        }
        "-e" | "--editable" => {
            let shown = value.unwrap_or_default();
            if let Some(egg) = crate::declared::egg_name(&shown) {
                let scope = c.scope.clone();
                let at = Declaration {
                    file,
                    line,
                    group: scope.as_deref(),
                    is_constraint,
                    extra: false,
                };
                c.push_direct(egg, &format!("{name} {shown}"), &at);
                return;
            }
            c.diag(
                file,
                Some(line),
                Severity::Note,
                format!("editable requirement `{shown}` skipped"),
            );
        }
        n if OPTIONS_WITH_VALUE.contains(&n) || FLAG_OPTIONS.contains(&n) => {}
        n => c.diag(
            file,
            Some(line),
            Severity::Warning,
            format!("unknown option `{n}` skipped"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_continuations_like_pip() {
        let text = "torch>=2.3 \\\n  ,<2.6\n# c \\\nnumpy\nlast \\";
        let got = logical_lines(text);
        assert_eq!(
            got,
            vec![
                (1, "torch>=2.3   ,<2.6".to_string()),
                (3, "# c \\".to_string()),
                (4, "numpy".to_string()),
                (5, "last ".to_string()),
            ]
        );
    }

    #[test]
    fn strips_comments_only_after_whitespace() {
        assert_eq!(strip_comment("torch>=2.3  # pinned"), "torch>=2.3  ");
        assert_eq!(strip_comment("# whole"), "");
        assert_eq!(
            strip_comment("pkg @ https://x/y.whl#sha256=ab"),
            "pkg @ https://x/y.whl#sha256=ab"
        );
    }

    /// DPOT's `requirements.txt` (docs/false-alarm-study-48.md D1), the output of `conda list
    /// --export`: read as conda match specs, not as pip lines that all fail to parse.
    #[test]
    fn a_conda_package_list_is_read_as_conda_specs() {
        let dir = std::env::temp_dir().join(format!("apicompat-condalist-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("requirements.txt"),
            "# This file may be used to create an environment using:\n# $ conda create --name <env> --file <this file>\n# platform: linux-64\npytorch=2.0.0=py3.9_cuda11.7_cudnn8.5.0_0\naccelerate=0.23.0=pyhd8ed1ab_0\npython=3.9.18=h955ad1f_0\n",
        )
        .unwrap();
        let d = crate::read_project(&dir);
        let got: Vec<(String, u32)> = d
            .requirements
            .iter()
            .map(|r| (format!("{}{}", r.name, r.specifier), r.source.line))
            .collect();
        assert_eq!(
            got,
            [
                ("torch==2.0.0.*".to_string(), 4),
                ("accelerate==0.23.0.*".to_string(), 5)
            ]
        );
        assert!(!d.has_errors(), "{:?}", d.diagnostics);
        // Without the header, every line `name=version=build` says the same.
        std::fs::write(dir.join("requirements.txt"), "pytorch=2.0.0=py3.9_0\n").unwrap();
        assert_eq!(crate::read_project(&dir).requirements.len(), 1);
        // A pip file with one such line is a pip file (and that line an error).
        std::fs::write(
            dir.join("requirements.txt"),
            "numpy==1.26.4\npytorch=2.0.0=py3.9_0\n",
        )
        .unwrap();
        assert!(crate::read_project(&dir).has_errors());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
