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
pub(crate) fn documents(dir: &Path) -> Vec<PathBuf> {
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

/// The documents of [`documents`] that can be read, with their text.
fn document_texts(dir: &Path) -> impl Iterator<Item = (PathBuf, String)> {
    documents(dir).into_iter().filter_map(|doc| {
        let text = read_document(&doc)?;
        Some((doc, text))
    })
}

/// A document's text (at most [`MAX_DOCUMENT_BYTES`]), if it can be read.
pub(crate) fn read_document(doc: &Path) -> Option<String> {
    let bytes = crate::safe_read::read_regular_file(doc, MAX_DOCUMENT_BYTES).ok()?;
    Some(crate::lines::decode(&bytes))
}

/// Calls `each` with the line number and the words of every command of a document's lines
/// that mention `pip`, `conda` or `mamba`.
pub(crate) fn each_command(text: &str, mut each: impl FnMut(u32, &[&str])) {
    let mentions = |t: &str| t.contains("pip") || t.contains("conda") || t.contains("mamba");
    if !mentions(text) {
        return;
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
            each(line_no, &words);
        }
    }
}

/// The files a document's commands install, in order (see the module doc).
fn named_files(text: &str) -> Vec<Named> {
    let mut out = Vec::new();
    each_command(text, |line_no, words| {
        if let Some(start) = crate::install_scripts::install_args(words) {
            out.extend(
                option_values(&words[start..], &["-r", "--requirement"])
                    .map(|p| (line_no, p, Kind::Pip)),
            );
        } else if let Some(start) = conda_create_args(words) {
            out.extend(
                option_values(&words[start..], &["-f", "--file"])
                    .map(|p| (line_no, p, Kind::Conda)),
            );
        }
    });
    out
}

/// The extras each of a document's `pip install` commands installs the project itself with
/// (`pip install -e .[train,eval]`, `pip install ".[gpu]"`, `./[x]`, or by the project's
/// `name`: `pip install 'litgpt[extra]'`), in order, with the line; an empty list for an
/// install without extras (`pip install -e .`).
fn project_installs(text: &str, name: Option<&str>) -> Vec<(u32, Vec<String>)> {
    let mut out: Vec<(u32, Vec<String>)> = Vec::new();
    each_command(text, |line_no, words| {
        let Some(start) = crate::install_scripts::install_args(words) else {
            return;
        };
        for w in &words[start..] {
            let w = w.trim_matches(|c| c == '"' || c == '\'');
            let (target, extras) = match w.split_once('[') {
                Some((t, rest)) => match rest.strip_suffix(']') {
                    Some(list) => (t, list),
                    None => continue,
                },
                None => (w, ""),
            };
            let own = matches!(target, "." | "./")
                || name.is_some_and(|n| crate::normalize_name(target) == n);
            if !own {
                continue;
            }
            let extras: Vec<String> = extras
                .split(',')
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_string)
                .collect();
            out.push((line_no, extras));
        }
    });
    out
}

/// The extras every install of the project its install instructions give includes (README*,
/// INSTALL*, `docs/` pages), each with the document (relative to `dir`) and line of the first
/// that names it; none when one installs it without extras (Mantis: `pip install -e .` for
/// inference, `.[train,eval]` to train), where its code must work with the main requirements
/// alone. `name` is the project's distribution name (normalized), if known.
pub fn documented_extras(dir: &Path, name: Option<&str>) -> Vec<(String, PathBuf, u32)> {
    let mut every: Option<Vec<(String, PathBuf, u32)>> = None;
    for (doc, text) in document_texts(dir) {
        let shown = doc.strip_prefix(dir).unwrap_or(&doc).to_path_buf();
        for (line, extras) in project_installs(&text, name) {
            every = Some(match every {
                None => extras
                    .into_iter()
                    .map(|e| (e, shown.clone(), line))
                    .collect(),
                Some(kept) => kept
                    .into_iter()
                    .filter(|(e, ..)| extras.contains(e))
                    .collect(),
            });
        }
    }
    let mut out = every.unwrap_or_default();
    let mut seen: Vec<String> = Vec::new();
    out.retain(|(e, ..)| {
        let new = !seen.contains(e);
        seen.push(e.clone());
        new
    });
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
    for (doc, text) in document_texts(dir) {
        for (line, written, kind) in named_files(&text) {
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

/// A file a directory's install instructions install (`pip install -r PATH`, `conda env create
/// -f PATH`), with the document and line of the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledFile {
    pub file: PathBuf,
    /// The document, as named from the directory whose instructions these are.
    pub doc: PathBuf,
    pub line: u32,
    /// Whether it is a conda environment file (else a pip requirements file).
    pub conda: bool,
}

impl InstalledFile {
    /// The command that installs it, as a note shows it (`pip install -r`, README.md:20).
    pub fn command(&self) -> String {
        let command = if self.conda {
            "conda env create"
        } else {
            "pip install -r"
        };
        format!("`{command}`, {}:{}", self.doc.display(), self.line)
    }
}

/// The files the install instructions of `dir` (README*, INSTALL*, `docs/` pages) install that
/// exist inside it, in the order named (see the module doc).
pub fn installed_files(dir: &Path) -> Vec<InstalledFile> {
    chosen_files(dir)
        .into_iter()
        .map(|(file, doc, line, kind)| InstalledFile {
            doc: doc.strip_prefix(dir).unwrap_or(&doc).to_path_buf(),
            file,
            line,
            conda: kind == Kind::Conda,
        })
        .collect()
}

/// Whether the install instructions of `dir` create an environment (`conda create`, `python -m
/// venv`, `virtualenv`, `uv venv`): what they install goes there, not into an environment
/// another project made.
pub fn creates_environment(dir: &Path) -> bool {
    document_texts(dir).any(|(_, text)| {
        let mut found = false;
        each_command(&text, |_, words| found |= creates(words));
        // `python -m venv` names neither pip nor conda: each_command skips lines without them.
        found
            || text.lines().any(|l| {
                l.contains("-m venv") || l.contains("virtualenv ") || l.contains("uv venv")
            })
    })
}

/// Whether a command's words create an environment: `conda create` (`mamba`, `micromamba`),
/// `conda env create`.
fn creates(words: &[&str]) -> bool {
    let Some(at) = words
        .iter()
        .position(|w| matches!(*w, "conda" | "mamba" | "micromamba"))
    else {
        return false;
    };
    matches!(
        (words.get(at + 1), words.get(at + 2)),
        (Some(&"create"), _) | (Some(&"env"), Some(&"create"))
    )
}

/// The Python the conda file the install instructions name asks for (`- python=3.11`), as
/// [`crate::yaml_env::conda_python`] reads it.
pub(crate) fn documented_python(dir: &Path) -> Option<(String, String, u32)> {
    let (file, ..) = chosen_files(dir).into_iter().find(|x| x.3 == Kind::Conda)?;
    crate::yaml_env::conda_python_of(&file, dir)
}

/// The directories inside `dir`, other than `dir` itself, that its install instructions
/// install as distributions (LoRA-GA's README: `pip install -e peft`, its fork of peft;
/// `cd sub && pip install -e .`, `pip install ./sub[extra]`), each a directory with a
/// packaging file, in the order named. A `cd` into a directory the tree lacks (the clone's
/// own name) leaves the working directory as it was.
pub fn installed_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for (_, text) in document_texts(dir) {
        if !text.contains("pip") {
            continue;
        }
        // The working directory, relative to `dir`.
        let mut cwd = PathBuf::new();
        for line in text.lines() {
            let line = line.replace('`', " ");
            for command in commands(&line) {
                let words: Vec<&str> = command.split_whitespace().collect();
                if words.first() == Some(&"cd") {
                    if let Some(to) = words.get(1).and_then(|w| local_dir(dir, &cwd, w)) {
                        cwd = to;
                    }
                    continue;
                }
                let Some(start) = crate::install_scripts::install_args(&words) else {
                    continue;
                };
                let args = &words[start..];
                for (i, w) in args.iter().enumerate() {
                    let editable = i > 0 && matches!(args[i - 1], "-e" | "--editable");
                    let w = w.trim_matches(|c| c == '"' || c == '\'');
                    let path = w.split('[').next().unwrap_or(w);
                    let looks_local = editable || path.starts_with('.') || path.contains('/');
                    if !looks_local || path.starts_with('-') || path.contains("://") {
                        continue;
                    }
                    let Some(found) = local_dir(dir, &cwd, path) else {
                        continue;
                    };
                    let packaged = ["setup.py", "pyproject.toml", "setup.cfg"]
                        .iter()
                        .any(|m| dir.join(&found).join(m).is_file());
                    if packaged && !found.as_os_str().is_empty() {
                        let full = dir.join(&found);
                        if !out.contains(&full) {
                            out.push(full);
                        }
                    }
                }
            }
        }
    }
    out
}

/// `written` from the working directory `cwd` (relative to `dir`), as a directory inside `dir`
/// that exists, relative to `dir` (empty: `dir` itself).
fn local_dir(dir: &Path, cwd: &Path, written: &str) -> Option<PathBuf> {
    let mut out = cwd.to_path_buf();
    for c in Path::new(written).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(n) => out.push(n),
            _ => return None,
        }
    }
    dir.join(&out).is_dir().then_some(out)
}

/// Reads the files an enclosing project's install instructions install for `dir` (`installed`,
/// each directly in `dir`) as its main requirements, each with a note naming the command.
pub(crate) fn read_installed(c: &mut Collector, dir: &Path, installed: &[InstalledFile]) {
    for i in installed {
        // Named from this directory, like its own files (the instructions name it from theirs).
        let file = match i.file.file_name() {
            Some(name) => dir.join(name),
            None => continue,
        };
        c.diag(
            &file,
            None,
            Severity::Warning,
            format!(
                "read as the requirements of its directory: the enclosing project's install instructions install this file ({})",
                i.command()
            ),
        );
        if i.conda {
            crate::yaml_env::read(c, &file);
        } else {
            crate::reqtxt::read_file(c, &file, false, None);
        }
    }
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
    fn install_commands_name_the_extras_of_the_project() {
        let text = "\
pip install -e .[train,eval]
pip install \".[gpu,docs]\" && pip install -r requirements.txt
`pip install 'My_Proj[fast]'` and pip install torch[cuda] or pip install ./[fast]
python -m pip install -e . ; conda install x
";
        let v = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        assert_eq!(
            project_installs(text, Some("my-proj")),
            [
                (1, v(&["train", "eval"])),
                (2, v(&["gpu", "docs"])),
                (3, v(&["fast"])),
                (3, v(&["fast"])),
                (4, v(&[])),
            ]
        );
        // Without the name, `My_Proj[fast]` is another package.
        assert_eq!(project_installs(text, None).len(), 4);
    }

    #[test]
    fn the_extras_every_documented_install_includes() {
        let dir = std::env::temp_dir().join(format!("apicompat-doc-extras-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let extras = |readme: &str| {
            std::fs::write(dir.join("README.md"), readme).unwrap();
            documented_extras(&dir, Some("litgpt"))
                .into_iter()
                .map(|(e, _, line)| (e, line))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            extras("pip install 'litgpt[extra]'\npip install -e \".[extra,compiler,test]\"\n"),
            [("extra".to_string(), 1)]
        );
        assert_eq!(
            extras("pip install -e .\npip install -e .[train,eval]\n"),
            []
        );
        assert_eq!(extras("pip install torch\n"), []);
        std::fs::remove_dir_all(&dir).unwrap();
    }

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

    #[test]
    fn install_commands_name_the_directories_they_install() {
        let dir = std::env::temp_dir().join(format!("apicompat-dirs-{}", std::process::id()));
        for d in ["peft", "tools/kit", "plain", "ext"] {
            std::fs::create_dir_all(dir.join(d)).unwrap();
        }
        for f in ["peft/setup.py", "tools/kit/pyproject.toml", "ext/setup.cfg"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        std::fs::write(
            dir.join("README.md"),
            "git clone https://x/repo.git\ncd repo\npip install -r requirements.txt\n\
             pip install -e peft\npip install peft\n`cd tools && pip install -e ./kit[all] && cd ..`\n\
             pip install -e plain ./missing https://x/y.tar.gz\npython -m pip install \"./ext\"\n\
             pip install -e .\n",
        )
        .unwrap();
        let got: Vec<PathBuf> = installed_dirs(&dir)
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_path_buf())
            .collect();
        // `plain` has no packaging file; `pip install peft` is the index's; `.` is the root.
        assert_eq!(
            got,
            [
                PathBuf::from("peft"),
                PathBuf::from("tools/kit"),
                PathBuf::from("ext")
            ]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
