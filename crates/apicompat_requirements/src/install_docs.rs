//! Install instructions that name the environment file: ClimaX's `docs/install.md` says
//! `conda env create --file docker/environment.yml`, equiformer's `docs/env_setup.md` `conda
//! env create -f env/env_equiformer.yml`, while neither root declares anything
//! (`docs/false-alarm-study-28.md`, F-A). When the root declares nothing, the files the
//! project's README (not its translations), `INSTALL*` and `docs/` pages install with `conda env create -f PATH`
//! (`mamba`, `micromamba`, `conda env update`) or `pip install -r PATH` are its requirements.
//! Only paths inside the project that exist are read; the first conda file named wins, and
//! every requirements file named is read. A path written with alternatives for the reader to
//! choose from (rlkit's `environment/[linux-cpu|linux-gpu|mac]-env.yml`, `{a,b}`) stands
//! for the first of them the project has.

use std::path::{Component, Path, PathBuf};

use crate::declared::Collector;
use crate::Severity;

/// Documents looked at, at most.
const MAX_DOCUMENTS: usize = 32;
/// Bytes of one document read, at most.
const MAX_DOCUMENT_BYTES: u64 = 512 * 1024;
/// Entries of a directory listed, at most.
const MAX_ENTRIES: usize = 10_000;
/// Paths one written path with alternatives stands for, at most.
const MAX_ALTERNATIVES: usize = 64;

/// What a command installs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Conda,
    Pip,
}

/// A file a document's command installs: the document's line, the path as written, its kind.
type Named = (u32, String, Kind);

/// The documents that may say how to install the project: `README*` and `INSTALL*` at the
/// root, then the Markdown and reStructuredText pages of `docs/` (or `doc/`), by name.
fn documents(dir: &Path) -> Vec<PathBuf> {
    let list = |d: &Path, keep: &dyn Fn(&str) -> bool| -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(d) else {
            return Vec::new();
        };
        let mut found: Vec<PathBuf> = entries
            .take(MAX_ENTRIES)
            .filter_map(Result::ok)
            .filter(|e| keep(&e.file_name().to_string_lossy().to_ascii_lowercase()))
            .map(|e| e.path())
            .collect();
        found.sort();
        found
    };
    let page = |n: &str| n.ends_with(".md") || n.ends_with(".rst") || n.ends_with(".txt");
    // `README.md`, not its translations (`README_zh-hans.md`): they repeat the commands.
    let mut out = list(dir, &|n| {
        (n.starts_with("readme.") || n.starts_with("install")) && page(n)
    });
    for docs in ["docs", "doc"] {
        out.extend(list(&dir.join(docs), &|n| page(n)));
    }
    out.truncate(MAX_DOCUMENTS);
    out
}

/// The files a document's commands install, in order (see the module doc).
fn named_files(text: &str) -> Vec<Named> {
    let mut out = Vec::new();
    let mentions = |t: &str| t.contains("pip") || t.contains("conda") || t.contains("mamba");
    if !mentions(text) {
        return out;
    }
    for (i, line) in text.lines().enumerate() {
        // Most lines of a README name neither: they are not split into words.
        if !mentions(line) {
            continue;
        }
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let line = line.replace('`', " ");
        for command in commands(&line) {
            let words: Vec<&str> = command
                .split_whitespace()
                .skip_while(|w| matches!(*w, "$" | ">" | "#" | "%" | "!" | "-" | "*"))
                .map(|w| w.trim_start_matches(['$', '!', '%']))
                .collect();
            if let Some(start) = crate::install_scripts::install_args(&words) {
                out.extend(
                    option_values(&words[start..], &["-r", "--requirement"])
                        .map(|p| (line_no, p, Kind::Pip)),
                );
            } else if let Some(start) = conda_create_args(&words) {
                out.extend(
                    option_values(&words[start..], &["-f", "--file"])
                        .map(|p| (line_no, p, Kind::Conda)),
                );
            }
        }
    }
    out
}

/// The commands of a line: split at `;`, `&` and `|`, but not inside brackets or braces,
/// where `|` separates alternatives.
fn commands(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, ch) in line.char_indices() {
        match ch {
            '[' | '{' => depth += 1,
            ']' | '}' => depth = depth.saturating_sub(1),
            ';' | '&' | '|' if depth == 0 => {
                out.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&line[start..]);
    out
}

/// The paths a written path stands for: each choice of its groups of alternatives
/// (`[a|b]`, `{a,b}`), in the order written; the path itself when it has none.
fn alternatives(written: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut rest = written;
    while let Some(open) = rest.find(['[', '{']) {
        let close = if rest.as_bytes()[open] == b'[' {
            ']'
        } else {
            '}'
        };
        let Some(len) = rest[open + 1..].find(close) else {
            break;
        };
        let inner = &rest[open + 1..open + 1 + len];
        let choices: Vec<&str> = inner.split(['|', ',']).map(str::trim).collect();
        if out.len() * choices.len() > MAX_ALTERNATIVES {
            return Vec::new();
        }
        let head = &rest[..open];
        out = out
            .iter()
            .flat_map(|p| choices.iter().map(move |c| format!("{p}{head}{c}")))
            .collect();
        rest = &rest[open + 1 + len + 1..];
    }
    out.iter().map(|p| format!("{p}{rest}")).collect()
}

/// Where the arguments of `conda env create` / `conda env update` (`mamba`, `micromamba
/// create`) start in a command's words.
fn conda_create_args(words: &[&str]) -> Option<usize> {
    let at = words
        .iter()
        .position(|w| matches!(*w, "conda" | "mamba" | "micromamba"))?;
    match (words.get(at + 1), words.get(at + 2)) {
        (Some(&"env"), Some(&("create" | "update"))) => Some(at + 3),
        (Some(&"create"), _) if words[at] == "micromamba" => Some(at + 2),
        _ => None,
    }
}

/// The values of the options `names` among `args` (`-f PATH`, `--file=PATH`), unquoted.
fn option_values<'w>(args: &'w [&'w str], names: &'w [&str]) -> impl Iterator<Item = String> + 'w {
    args.iter().enumerate().filter_map(move |(i, w)| {
        let value = if names.contains(w) {
            args.get(i + 1).copied()?
        } else {
            names
                .iter()
                .find_map(|n| w.strip_prefix(n)?.strip_prefix('='))?
        };
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        (!value.is_empty() && !value.starts_with('-')).then(|| value.to_string())
    })
}

/// `written` as a file inside `dir`, if it is a relative path without `..` to a file there,
/// outside the documentation's own directory (`docs/requirements.txt` builds the pages).
fn inside(dir: &Path, written: &str) -> Option<PathBuf> {
    let path = Path::new(written);
    if !path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return None;
    }
    let first = path
        .components()
        .find(|c| matches!(c, Component::Normal(_)))?;
    if matches!(first.as_os_str().to_str(), Some("docs" | "doc")) && path.components().count() > 1 {
        return None;
    }
    let full = dir.join(path);
    full.is_file().then_some(full)
}

/// The files the install instructions name, in the order [`read`] takes them: the document,
/// its line and the kind of each.
fn chosen_files(dir: &Path) -> Vec<(PathBuf, PathBuf, u32, Kind)> {
    let mut chosen: Vec<(PathBuf, PathBuf, u32, Kind)> = Vec::new();
    for doc in documents(dir) {
        let Ok(bytes) = crate::safe_read::read_regular_file(&doc, MAX_DOCUMENT_BYTES) else {
            continue;
        };
        for (line, written, kind) in named_files(&crate::lines::decode(&bytes)) {
            let Some(file) = alternatives(&written)
                .iter()
                .find_map(|path| inside(dir, path))
            else {
                continue;
            };
            let conda_taken = kind == Kind::Conda && chosen.iter().any(|x| x.3 == Kind::Conda);
            if conda_taken || chosen.iter().any(|x| x.0 == file) {
                continue;
            }
            chosen.push((file, doc.clone(), line, kind));
        }
    }
    chosen
}

/// The Python the conda file the install instructions name asks for (`- python=3.11`), as
/// [`crate::yaml_env::conda_python`] reads it.
pub(crate) fn documented_python(dir: &Path) -> Option<(String, String, u32)> {
    let (file, ..) = chosen_files(dir).into_iter().find(|x| x.3 == Kind::Conda)?;
    crate::yaml_env::conda_python_of(&file, dir)
}

/// Reads the environment files the project's install instructions name as its main
/// requirements, with a note naming each and the line that installs it. Returns whether one
/// was read.
pub(crate) fn read(c: &mut Collector, dir: &Path) -> bool {
    let chosen = chosen_files(dir);
    for (file, doc, line, kind) in &chosen {
        let command = match kind {
            Kind::Conda => "conda env create",
            Kind::Pip => "pip install -r",
        };
        let doc = c.rel(doc).display().to_string();
        c.diag(
            file,
            None,
            Severity::Warning,
            format!(
                "read as the project's requirements: the project root declares none, and the install instructions install this file (`{command}`, {doc}:{line})"
            ),
        );
        match kind {
            Kind::Conda => crate::yaml_env::read(c, file),
            Kind::Pip => crate::reqtxt::read_file(c, file, false, None),
        }
    }
    !chosen.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_commands_name_their_files() {
        let text = "\
# Install
```bash
$ conda env create --file docker/environment.yml
conda activate climax && pip install -e .
mamba env update -f=env/gpu.yaml; pip install -r requirements/base.txt
`micromamba create -f 'env.yml'`
conda create -n x python=3.10
pip install -r
```
";
        let got = named_files(text);
        assert_eq!(
            got,
            [
                (3, "docker/environment.yml".to_string(), Kind::Conda),
                (5, "env/gpu.yaml".to_string(), Kind::Conda),
                (5, "requirements/base.txt".to_string(), Kind::Pip),
                (6, "env.yml".to_string(), Kind::Conda),
            ]
        );
    }

    #[test]
    fn a_path_with_alternatives_stands_for_each() {
        // rlkit's README (study 30, F-A).
        let text = "$ conda env create -f environment/[linux-cpu|linux-gpu|mac]-env.yml\n";
        let got = named_files(text);
        assert_eq!(
            got,
            [(
                1,
                "environment/[linux-cpu|linux-gpu|mac]-env.yml".to_string(),
                Kind::Conda
            )]
        );
        assert_eq!(
            alternatives(&got[0].1),
            [
                "environment/linux-cpu-env.yml",
                "environment/linux-gpu-env.yml",
                "environment/mac-env.yml"
            ]
        );
        assert_eq!(alternatives("env/{a,b}/{x,y}.yml").len(), 4);
        assert_eq!(alternatives("env.yml"), ["env.yml"]);
        assert_eq!(alternatives("env/[a|b.yml"), ["env/[a|b.yml"]);
        // A requirement with `<` does not hide the next command.
        let text = "pip install \"numpy<2\" && conda env create -f env.yml\n";
        assert_eq!(named_files(text), [(1, "env.yml".to_string(), Kind::Conda)]);
    }

    #[test]
    fn only_files_inside_the_project_are_read() {
        let dir = std::env::temp_dir().join(format!("apicompat-docs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("env")).unwrap();
        std::fs::write(dir.join("env/e.yml"), "dependencies:\n  - numpy=1.21.0\n").unwrap();
        assert!(inside(&dir, "env/e.yml").is_some());
        assert!(inside(&dir, "./env/e.yml").is_some());
        assert!(inside(&dir, "../e.yml").is_none());
        assert!(inside(&dir, "/etc/passwd").is_none());
        assert!(inside(&dir, "env/missing.yml").is_none());
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("docs/requirements.txt"), "sphinx\n").unwrap();
        assert!(inside(&dir, "docs/requirements.txt").is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_root_that_declares_nothing_reads_the_documented_environment_file() {
        let dir = std::env::temp_dir().join(format!("apicompat-docs-env-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("docker")).unwrap();
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(
            dir.join("docker/environment.yml"),
            "dependencies:\n  - python=3.8.16\n  - numpy=1.23.5\n  - pip:\n    - timm==0.6.12\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("docs/install.md"),
            "```console\nconda env create --file docker/environment.yml\n```\n",
        )
        .unwrap();
        std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
        let names = |d: &crate::Declared| -> Vec<String> {
            d.requirements
                .iter()
                .map(|r| format!("{}{}", r.name, r.specifier))
                .collect()
        };
        let got = crate::read_project(&dir);
        assert_eq!(names(&got), ["numpy==1.23.5.*", "timm==0.6.12"]);
        assert!(got
            .diagnostics
            .iter()
            .any(|d| d.message.contains("docs/install.md:2")));
        let python = crate::read_requires_python(&dir).unwrap().unwrap();
        assert_eq!(python.raw, "==3.8.16.*");
        assert_eq!(python.source.to_string(), "docker/environment.yml:2");
        // A root that declares something keeps its own declaration.
        std::fs::write(dir.join("requirements.txt"), "numpy>=2\n").unwrap();
        assert_eq!(names(&crate::read_project(&dir)), ["numpy>=2"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
