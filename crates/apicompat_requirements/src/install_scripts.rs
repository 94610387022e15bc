//! Shell scripts that install a directory's environment (Show-o's `show-o2/build_env.sh`:
//! `pip3 install torch==2.5.1;`), read as its requirements when the directory declares
//! nothing else (`docs/false-alarm-study-26.md`, F-J). `pip install` commands are read (`pip`,
//! `pip3`, `python -m pip`, `uv pip`), and `conda install` / `conda create` (also `mamba`,
//! `micromamba`) as conda match specs (`pytorch==1.7.0` is torch's; study 34's F-J,
//! MixFormer's `install_pytorch17.sh`); a script counts only when one of them names a package
//! with a version: `pip install -e .` or a bare `pip install wandb` bounds nothing.

use std::path::{Path, PathBuf};

use crate::declared::{Collector, Declaration};
use crate::reqtxt::{logical_lines, strip_comment};
use crate::Severity;

/// Scripts of one directory looked at, at most.
const MAX_SCRIPTS: usize = 16;
/// Bytes of one script read, at most.
const MAX_SCRIPT_BYTES: u64 = 256 * 1024;
/// Entries of a directory listed, at most.
const MAX_ENTRIES: usize = 10_000;

/// Options of `pip install` that take a value (the value is no requirement).
const VALUE_OPTIONS: &[&str] = &[
    "-c",
    "--constraint",
    "-e",
    "--editable",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--src",
    "--python",
    "--platform",
    "--python-version",
    "--implementation",
    "--abi",
    "--upgrade-strategy",
    "--config-settings",
    "-C",
    "--global-option",
    "--trusted-host",
    "--cache-dir",
    "--log",
    "--proxy",
    "--timeout",
    "--retries",
    "--no-binary",
    "--only-binary",
];

/// One requirement a script installs: its line and text.
type Installed = (u32, String);

/// The `pip install` requirements of one script (line, text), and the requirements files
/// it names with `-r` (line, path as written).
fn installs(text: &str) -> (Vec<Installed>, Vec<Installed>) {
    let (mut reqs, mut files) = (Vec::new(), Vec::new());
    for (line, content) in logical_lines(text) {
        let content = strip_comment(&content);
        for command in content.split([';', '&', '|']) {
            let words: Vec<&str> = command.split_whitespace().collect();
            let (r, f) = command_installs(&words);
            reqs.extend(r.into_iter().map(|r| (line, r)));
            files.extend(f.into_iter().map(|f| (line, f)));
        }
    }
    (reqs, files)
}

/// The requirements one command's words install (`pip install`, `conda install` /
/// `create`), and the requirements files it names with `-r`.
pub(crate) fn command_installs(words: &[&str]) -> (Vec<String>, Vec<String>) {
    let (mut reqs, mut files) = (Vec::new(), Vec::new());
    if let Some(start) = conda_install_args(words) {
        reqs.extend(conda_specs(&words[start..]));
        return (reqs, files);
    }
    let Some(start) = install_args(words) else {
        return (reqs, files);
    };
    let mut i = start;
    while i < words.len() {
        let word = unquote(words[i]);
        i += 1;
        if word == "-r" || word == "--requirement" {
            if let Some(file) = words.get(i) {
                files.push(unquote(file).to_string());
                i += 1;
            }
            continue;
        }
        if word.starts_with('-') {
            if VALUE_OPTIONS.contains(&word) {
                i += 1;
            }
            continue;
        }
        if is_named(word) {
            reqs.push(word.to_string());
        }
    }
    (reqs, files)
}

/// Where the arguments of `pip install` start in a command's words, if it is one: `pip`,
/// `pip3`, `python -m pip`, `uv pip` (after `sudo` and `VAR=value` assignments).
pub(crate) fn install_args(words: &[&str]) -> Option<usize> {
    let start = words
        .iter()
        .position(|w| *w != "sudo" && (!w.contains('=') || w.starts_with('-')))?;
    let program = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
    let first = program(words[start]);
    let is_pip = |w: &str| {
        w == "pip"
            || w.strip_prefix("pip3")
                .is_some_and(|v| v.is_empty() || v.starts_with('.'))
    };
    let pip_at = if is_pip(&first) {
        start
    } else if first.starts_with("python") && words.get(start + 1) == Some(&"-m") {
        // `python -m uv pip install` (Minimal-RL's README) as `python -m pip install`.
        match words.get(start + 2) {
            Some(&"uv") => start + 3,
            _ => start + 2,
        }
    } else if first == "uv" {
        start + 1
    } else {
        return None;
    };
    let pip = words.get(pip_at).map(|w| program(w))?;
    (is_pip(&pip) && words.get(pip_at + 1) == Some(&"install")).then_some(pip_at + 2)
}

/// Options of `conda install` / `conda create` that take a value.
const CONDA_VALUE_OPTIONS: &[&str] = &[
    "-c",
    "--channel",
    "-n",
    "--name",
    "-p",
    "--prefix",
    "--file",
    "--repodata-fn",
    "--solver",
];

/// Where the arguments of `conda install` or `conda create` start (also `mamba`,
/// `micromamba`; after `sudo` and `VAR=value` assignments).
fn conda_install_args(words: &[&str]) -> Option<usize> {
    let start = words
        .iter()
        .position(|w| *w != "sudo" && (!w.contains('=') || w.starts_with('-')))?;
    let program = words[start].rsplit('/').next().unwrap_or(words[start]);
    let is_conda = matches!(program, "conda" | "mamba" | "micromamba");
    let verb = words.get(start + 1).copied();
    (is_conda && matches!(verb, Some("install" | "create"))).then_some(start + 2)
}

/// The requirements conda match specs name (`pytorch==1.7.0` -> `torch==1.7.0`,
/// `cudatoolkit=10.2` -> `cudatoolkit==10.2.*`; not `python`).
fn conda_specs<'a>(args: &'a [&'a str]) -> impl Iterator<Item = String> + 'a {
    conda_words(args).filter_map(crate::yaml_env::conda_requirement)
}

/// The match specs of a conda command's arguments, options and their values skipped.
fn conda_words<'a>(args: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
    let mut skip = false;
    args.iter().filter_map(move |w| {
        let word = unquote(w);
        if std::mem::take(&mut skip) {
            return None;
        }
        if word.starts_with('-') {
            skip = CONDA_VALUE_OPTIONS.contains(&word);
            return None;
        }
        is_named(word).then_some(word)
    })
}

/// The Python the install scripts of `dir` (those [`read`] takes) create their environment
/// with (`conda create -n env python=3.8 numpy`: `==3.8.*`), as PEP 440 specifiers, with the
/// script's name and line: the first such spec with a version.
pub(crate) fn script_python(dir: &Path) -> Option<(String, String, u32)> {
    scripts(dir).into_iter().find_map(|(path, text)| {
        let name = path
            .strip_prefix(dir)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        logical_lines(&text)
            .into_iter()
            .find_map(|(line, content)| {
                let content = strip_comment(&content);
                content.split([';', '&', '|']).find_map(|command| {
                    let words: Vec<&str> = command.split_whitespace().collect();
                    Some((command_python(&words)?, name.clone(), line))
                })
            })
    })
}

/// The Python a `conda create` / `conda install` command's words ask for (`python=3.8`:
/// `==3.8.*`).
pub(crate) fn command_python(words: &[&str]) -> Option<String> {
    let start = conda_install_args(words)?;
    conda_words(&words[start..]).find_map(crate::yaml_env::conda_python_spec)
}

fn unquote(word: &str) -> &str {
    word.trim_matches(|c| c == '"' || c == '\'')
}

/// A named requirement (`torch==2.5.1`, `transformers>=4.47`, `numpy`), not a path, a URL, a
/// shell variable or a glob.
fn is_named(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && !word.contains(['$', '`', '*', '/', '\\', '{', '}'])
        && !word.ends_with(".whl")
}

/// Whether a requirement carries a version (`==`, `>=`, `~=`, ...).
pub(crate) fn has_version(req: &str) -> bool {
    req.contains(['=', '<', '>', '~'])
}

/// The `*.sh` files directly in `dir` whose `pip install` commands name a package with a
/// version, sorted by name, with their text.
fn scripts(dir: &Path) -> Vec<(PathBuf, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .take(MAX_ENTRIES)
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sh"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .take(MAX_SCRIPTS)
        .filter_map(|p| {
            let bytes = crate::safe_read::read_regular_file(&p, MAX_SCRIPT_BYTES).ok()?;
            let text = crate::lines::decode(&bytes);
            let (reqs, _) = installs(&text);
            reqs.iter()
                .any(|(_, r)| has_version(r))
                .then_some((p, text))
        })
        .collect()
}

/// Whether `dir` has a script that installs a versioned requirement (see the module doc).
pub fn has_install_script(dir: &Path) -> bool {
    !scripts(dir).is_empty()
}

/// Reads the install scripts of the collector's directory as its main requirements, with a
/// note naming each. Returns whether one was read.
pub(crate) fn read(c: &mut Collector, dir: &Path) -> bool {
    let found = scripts(dir);
    for (path, text) in &found {
        c.diag(
            path,
            None,
            Severity::Warning,
            "read as the project's requirements: the directory declares none, and this script installs them (`pip install`, `conda install`)".to_string(),
        );
        let shown = c.rel(path);
        if !c.out.files.contains(&shown) {
            c.out.files.push(shown);
        }
        let (reqs, files) = installs(text);
        for (line, req) in reqs {
            let at = Declaration {
                file: path,
                line,
                group: None,
                is_constraint: false,
                extra: false,
            };
            c.push_requirement(&req, &at);
        }
        for (line, file) in files {
            crate::reqtxt::read_file(c, &dir.join(file), false, Some((path, line)));
        }
    }
    !found.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pip_install_commands_give_their_named_requirements() {
        let text = "\
#!/bin/bash
pip3 install torch==2.5.1; pip3 install transformers==4.47.0;
python -m pip install --upgrade -i https://mirror/simple \"diffusers>=0.31\" 'accelerate==0.23.0' \\
    -e . git+https://github.com/x/y.git ./local.whl $EXTRA
uv pip install -r reqs/extra.txt numpy  # a comment: pip install fake==1
python -m uv pip install peft==0.10.0
echo pip install nothing && conda install pytorch==2.1.0
";
        let (reqs, files) = installs(text);
        let names: Vec<&str> = reqs.iter().map(|(_, r)| r.as_str()).collect();
        assert_eq!(
            names,
            [
                "torch==2.5.1",
                "transformers==4.47.0",
                "diffusers>=0.31",
                "accelerate==0.23.0",
                "numpy",
                "peft==0.10.0",
                "torch==2.1.0"
            ]
        );
        assert_eq!(reqs[2].0, 3, "the line the command starts on");
        assert_eq!(files, [(5, "reqs/extra.txt".to_string())]);
    }

    #[test]
    fn conda_install_commands_give_their_specs_as_requirements() {
        let text = "\
conda create -n mixformer python=3.6 -y
conda install -y pytorch==1.7.0 torchvision==0.8.1 cudatoolkit=10.2 -c pytorch
sudo mamba install --channel conda-forge 'numpy>=1.20' scipy
";
        let (reqs, _) = installs(text);
        let got: Vec<(u32, &str)> = reqs.iter().map(|(l, r)| (*l, r.as_str())).collect();
        assert_eq!(
            got,
            [
                (2, "torch==1.7.0"),
                (2, "torchvision==0.8.1"),
                (2, "cudatoolkit==10.2.*"),
                (3, "numpy>=1.20"),
                (3, "scipy")
            ]
        );
    }

    #[test]
    fn a_script_without_a_versioned_requirement_is_no_declaration() {
        let dir = std::env::temp_dir().join(format!("apicompat-install-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("setup_env.sh"),
            "pip install -e .\npip install wandb\n",
        )
        .unwrap();
        assert!(!has_install_script(&dir));
        std::fs::write(dir.join("build_env.sh"), "pip3 install torch==2.5.1;\n").unwrap();
        assert!(has_install_script(&dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_python_a_script_creates_its_environment_with_is_the_projects() {
        // MP-Neural-PDE-Solvers' `environment.sh` (docs/false-alarm-study-39.md, D2).
        let dir = std::env::temp_dir().join(format!("apicompat-pyscript-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("environment.sh"),
            "#!/bin/bash\nconda create --yes --name pde python=3.8 numpy scipy\n\
             conda install --yes pytorch=1.9 -c pytorch\n",
        )
        .unwrap();
        assert_eq!(
            script_python(&dir),
            Some(("==3.8.*".to_string(), "environment.sh".to_string(), 2))
        );
        let found = crate::read_requires_python(&dir).unwrap().unwrap();
        assert_eq!(found.raw, "==3.8.*");
        assert_eq!(
            found.source.file,
            std::path::PathBuf::from("environment.sh")
        );
        // A script that installs nothing with a version is not read, nor its Python.
        std::fs::write(
            dir.join("environment.sh"),
            "conda create --yes --name pde python=3.8 numpy scipy\n",
        )
        .unwrap();
        assert_eq!(script_python(&dir), None);
        assert!(crate::read_requires_python(&dir).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
