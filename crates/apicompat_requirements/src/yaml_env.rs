//! conda `environment.yml`: the `pip:` list under `dependencies:`, and the conda packages
//! of that list with their names mapped to PyPI's (see [`conda_requirement`]).
//!
//! A small reader for that one shape (block-style YAML lists), not a YAML parser.

use std::path::{Path, PathBuf};

use crate::declared::{Collector, Severity};
use crate::reqtxt;

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// Removes a YAML comment (` #` outside quotes) and surrounding quotes.
fn scalar(text: &str) -> String {
    let mut quote: Option<char> = None;
    let mut prev_ws = true;
    let mut end = text.len();
    for (i, ch) in text.char_indices() {
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None if (ch == '"' || ch == '\'') && prev_ws => quote = Some(ch),
            None if ch == '#' && prev_ws => {
                end = i;
                break;
            }
            None => {}
        }
        prev_ws = ch.is_whitespace();
    }
    let t = text[..end].trim();
    let unquoted = t
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')));
    unquoted.unwrap_or(t).to_string()
}

/// The pip entries of an environment.yml, each with its 1-based line.
#[cfg(test)]
pub(crate) fn pip_entries(text: &str) -> Vec<(u32, String)> {
    entries(text).0
}

/// Entries of a list, each with its 1-based line.
type Entries = Vec<(u32, String)>;

/// (pip entries, conda entries) of an environment.yml.
fn entries(text: &str) -> (Entries, Entries) {
    let mut out = Vec::new();
    let mut conda = Vec::new();
    let mut in_deps = false;
    // Column of the `- pip:` dash while inside the pip list.
    let mut pip_dash: Option<usize> = None;
    for (idx, raw) in text.split('\n').enumerate() {
        let line_no = u32::try_from(idx + 1).unwrap_or(u32::MAX);
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = indent_of(line);
        if indent == 0 && !trimmed.starts_with('-') {
            in_deps = scalar(trimmed) == "dependencies:";
            pip_dash = None;
            continue;
        }
        if !in_deps {
            continue;
        }
        let Some(item) = trimmed.strip_prefix('-') else {
            continue;
        };
        let item = scalar(item);
        if let Some(dash) = pip_dash {
            if indent > dash {
                if !item.is_empty() {
                    out.push((line_no, item));
                }
                continue;
            }
            pip_dash = None;
        }
        if item == "pip:" {
            pip_dash = Some(indent);
        } else if !item.is_empty() {
            conda.push((line_no, item));
        }
    }
    (out, conda)
}

/// Conda package names whose PyPI distribution has another name, for the indexed packages.
/// Source: the `pytorch` package of the `pytorch` and `conda-forge` channels installs the
/// `torch` distribution (its `site-packages/torch-*.dist-info`); `torchvision` and
/// `colossalai` keep their names. Other conda names are read as PyPI names.
const CONDA_TO_PYPI: &[(&str, &str)] = &[("pytorch", "torch")];

/// A conda match spec (`pytorch >= 1.13`, `pytorch=2.1`, `conda-forge::numpy==1.26=py311h0`)
/// as a PEP 508 requirement on the PyPI name: `=V` is `==V.*`, a build string is dropped.
/// None for `python`, `pip` and specs this reader does not understand.
pub(crate) fn conda_requirement(spec: &str) -> Option<String> {
    let (name, version) = conda_spec(spec)?;
    if matches!(name, "python" | "pip") {
        return None;
    }
    let name = CONDA_TO_PYPI
        .iter()
        .find(|(conda, _)| *conda == name)
        .map_or(name, |(_, pypi)| pypi);
    let text = format!("{name}{version}");
    crate::declared::parse_requirement(&text).ok().map(|_| text)
}

/// A conda match spec's name and its version as PEP 440 specifiers (empty for none).
fn conda_spec(spec: &str) -> Option<(&str, String)> {
    let spec = spec.rsplit("::").next()?.trim();
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let (name, rest) = spec.split_at(end);
    if name.is_empty() {
        return None;
    }
    let rest = rest.trim();
    let version = if rest.is_empty() {
        String::new()
    } else if let Some(v) = rest.strip_prefix("==") {
        format!("=={}", v.split(['=', ' ']).next()?.trim())
    } else if rest.starts_with(['<', '>', '!', '~']) {
        rest.replace(' ', "")
    } else {
        // `=V`, `=V=build`, `V`, `V build`: the release series V.
        let v = rest
            .trim_start_matches('=')
            .split(['=', ' '])
            .next()?
            .trim();
        if v.is_empty() {
            return None;
        }
        if v.ends_with('*') {
            format!("=={v}")
        } else {
            format!("=={v}.*")
        }
    };
    Some((name, version))
}

/// Whether a file of this name may be a conda environment file: YAML named `environment*`,
/// `env`, `env_*`/`env-*`, `requirements*` or with `conda` in its name (`conda_env.yml`,
/// `environment-gpu.yaml`, mdlm's `requirements.yaml`).
pub fn is_conda_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let Some(stem) = lower
        .strip_suffix(".yml")
        .or_else(|| lower.strip_suffix(".yaml"))
    else {
        return false;
    };
    stem.starts_with("environment")
        || stem == "env"
        || stem.starts_with("env_")
        || stem.starts_with("env-")
        || stem.contains("conda")
        || stem.starts_with("requirements")
}

/// The conda environment files of `dir`, sorted: the main one (`environment.yml`, else
/// `environment.yaml`, else the only one), and the others (each a scope named by its stem).
/// Another file that does not list `dependencies:` is not one.
pub(crate) fn conda_files(dir: &Path) -> (Option<PathBuf>, Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (None, Vec::new());
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| is_conda_name(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .filter(|p| {
            // `environment.yml` is read whatever it holds (and reported when unreadable).
            let exact = p
                .file_name()
                .is_some_and(|f| f == "environment.yml" || f == "environment.yaml");
            exact || (p.is_file() && lists_dependencies(p))
        })
        .collect();
    found.sort();
    let named = |n: &str| {
        found
            .iter()
            .position(|p| p.file_name().is_some_and(|f| f == n))
    };
    let main = named("environment.yml")
        .or_else(|| named("environment.yaml"))
        .or_else(|| (found.len() == 1).then_some(0));
    let main = main.map(|i| found.remove(i));
    (main, found)
}

/// Whether a file has a top-level `dependencies:` key (read up to the declared files' limit).
fn lists_dependencies(path: &Path) -> bool {
    crate::safe_read::read_regular_file(path, crate::declared::MAX_FILE_BYTES).is_ok_and(|b| {
        crate::lines::decode(&b)
            .lines()
            .any(|l| l.trim_end().starts_with("dependencies:"))
    })
}

/// Whether `dir` holds a conda environment file ([`conda_files`]).
pub fn has_conda_file(dir: &Path) -> bool {
    let (main, others) = conda_files(dir);
    main.is_some() || !others.is_empty()
}

/// The Python versions the main conda environment file in `dir` asks for (`- python=3.9`,
/// `- python>=3.8, <3.10`), as PEP 440 specifiers, with the file's name and line.
pub(crate) fn conda_python(dir: &Path) -> Option<(String, String, u32)> {
    conda_python_of(&conda_files(dir).0?, dir)
}

/// The Python versions the conda environment file `path` asks for, with the file's path
/// relative to `dir` and the line.
pub(crate) fn conda_python_of(path: &Path, dir: &Path) -> Option<(String, String, u32)> {
    let bytes = crate::safe_read::read_regular_file(path, crate::declared::MAX_FILE_BYTES).ok()?;
    let name = path
        .strip_prefix(dir)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned();
    let text = crate::lines::decode(&bytes);
    entries(&text)
        .1
        .into_iter()
        .find_map(|(line, spec)| Some((conda_python_spec(&spec)?, name.clone(), line)))
}

/// The Python versions a conda match spec asks for (`python=3.9`: `==3.9.*`); `None` for
/// another package or `python` without a version.
pub(crate) fn conda_python_spec(spec: &str) -> Option<String> {
    let (n, version) = conda_spec(spec)?;
    (n == "python" && !version.is_empty()).then_some(version)
}

pub(crate) fn read(c: &mut Collector, path: &Path) {
    let Some(text) = c.read_text(path, None) else {
        return;
    };
    let (entries, conda) = entries(&text);
    for (line, spec) in conda {
        if let Some(req) = conda_requirement(&spec) {
            c.push_requirement(
                &req,
                &crate::declared::Declaration {
                    file: path,
                    line,
                    group: None,
                    is_constraint: false,
                    extra: false,
                },
            );
        }
    }
    // `- pip: [torch]` (flow form) or a `pip:` key outside a `- pip:` item.
    let flow = text.lines().any(|l| {
        l.trim()
            .strip_prefix("- pip:")
            .is_some_and(|rest| !scalar(rest).is_empty())
    });
    if entries.is_empty() && text.contains("pip:") && (flow || !text.contains("- pip:")) {
        c.diag(
            path,
            None,
            Severity::Error,
            "a `pip:` entry was found but not in the block-list form this reader understands; \
             its requirements were not read"
                .to_string(),
        );
    }
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    for (line, entry) in entries {
        reqtxt::process_line(c, path, &base, line, &entry, false);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn conda_specs() {
        use super::conda_requirement as r;
        assert_eq!(r("pytorch >= 1.13").as_deref(), Some("torch>=1.13"));
        assert_eq!(r("pytorch=2.1").as_deref(), Some("torch==2.1.*"));
        assert_eq!(
            r("pytorch::pytorch==2.1.0=py3.10_cuda11.8_0").as_deref(),
            Some("torch==2.1.0")
        );
        assert_eq!(r("torchvision").as_deref(), Some("torchvision"));
        assert_eq!(
            r("pytorch-cuda=11.7").as_deref(),
            Some("pytorch-cuda==11.7.*")
        );
        assert_eq!(r("python >= 3.8"), None);
        assert_eq!(r("pip"), None);
    }

    #[test]
    fn conda_python_versions() {
        let p = |spec: &str| super::conda_spec(spec).map(|(n, v)| format!("{n} {v}"));
        assert_eq!(
            p("python>=3.8, < 3.10").as_deref(),
            Some("python >=3.8,<3.10")
        );
        assert_eq!(p("python=3.9").as_deref(), Some("python ==3.9.*"));
        assert_eq!(
            p("python=3.7.10=h12debd9_4").as_deref(),
            Some("python ==3.7.10.*")
        );
        assert_eq!(p("python 3.9.*").as_deref(), Some("python ==3.9.*"));
        assert_eq!(p("python").as_deref(), Some("python "));
    }

    use super::*;

    #[test]
    fn reads_pip_block_only() {
        let text = "name: train\nchannels:\n  - pytorch\ndependencies:\n  - python=3.10\n  - pip\n  - pip:\n    - torch>=2.3.0  # gpu\n    - \"numpy<2\"\n    - -r requirements.txt\n  - cudatoolkit\nvariables:\n  - x\n";
        assert_eq!(
            pip_entries(text),
            vec![
                (8, "torch>=2.3.0".to_string()),
                (9, "numpy<2".to_string()),
                (10, "-r requirements.txt".to_string()),
            ]
        );
    }
}
