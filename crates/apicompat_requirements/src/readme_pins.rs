//! The versions a README installs: the last declarations of a directory that declares
//! nothing else (see [`read_pins`]).

use std::path::Path;

use crate::declared::Collector;
use crate::Severity;

/// The last resort for a directory that declares nothing, has no install script and whose
/// install instructions name no requirements file: the packages with a version that the
/// `pip install` / `conda install` commands of its root `README*` and `INSTALL*` name
/// (duo-attention's `pip install transformers==4.45.2`, alphaflow's `pip install
/// numpy==1.21.2`; `docs/false-alarm-study-49.md`, -48.md D3). Packages named without a
/// version are left out: a README installs tools and options that way, and a bare name would
/// check every indexed release instead of the newest.
pub(crate) fn read_pins(c: &mut Collector, dir: &Path) -> bool {
    let mut found = false;
    for doc in crate::install_docs::documents(dir)
        .into_iter()
        .filter(|d| d.parent() == Some(dir))
    {
        let Some(text) = crate::install_docs::read_document(&doc) else {
            continue;
        };
        let markdown = doc
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"));
        let mut pins: Vec<(u32, String)> = Vec::new();
        crate::install_docs::each_command(&code_lines(&text, markdown), |line, words| {
            let (reqs, _) = crate::install_scripts::command_installs(words);
            pins.extend(
                reqs.into_iter()
                    // Prose is no declaration file: what does not parse is left out
                    // (`pip install transformers=4.28.1, sentencepiece`).
                    .filter(|r| {
                        crate::install_scripts::has_version(r)
                            && crate::parse_requirement(r).is_ok()
                    })
                    .map(|r| (line, r)),
            );
        });
        if pins.is_empty() {
            continue;
        }
        found = true;
        c.diag(
            &doc,
            None,
            Severity::Warning,
            "read as the project's requirements: the directory declares none, and its install instructions install these versions (`pip install`, `conda install`)".to_string(),
        );
        for (line, req) in pins {
            let at = crate::declared::Declaration {
                file: &doc,
                line,
                group: None,
                is_constraint: false,
                extra: false,
            };
            c.push_requirement(&req, &at);
        }
    }
    found
}

/// The Python the install instructions of the root `README*` / `INSTALL*` of `dir` create
/// their environment with (`conda create -n idp3 python=3.8`: `==3.8.*`; study 54's D-1), with
/// the document and line: the first such command in a code line. The last source of a
/// directory's Python, after its packaging files, conda files and install scripts.
pub(crate) fn readme_python(dir: &Path) -> Option<(String, String, u32)> {
    crate::install_docs::documents(dir)
        .into_iter()
        .filter(|d| d.parent() == Some(dir))
        .find_map(|doc| {
            let text = crate::install_docs::read_document(&doc)?;
            let markdown = doc
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"));
            let mut found = None;
            crate::install_docs::each_command(&code_lines(&text, markdown), |line, words| {
                if found.is_none() {
                    found = crate::install_scripts::command_python(words).map(|v| (v, line));
                }
            });
            let name = doc.strip_prefix(dir).unwrap_or(&doc).to_string_lossy();
            found.map(|(v, line)| (v, name.into_owned(), line))
        })
}

/// The lines of a document that show code, the others blanked (line numbers kept): in
/// Markdown, fenced blocks (```` ``` ````, `~~~`), indented blocks and `$ ` prompts; elsewhere
/// every line but those that open with an inline literal. Prose that happens to start a line
/// with `` `pip install x==1` `` describes a command; it does not give one.
fn code_lines(text: &str, markdown: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fenced = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        let code = if markdown {
            if fence {
                fenced = !fenced;
            }
            !fence
                && (fenced
                    || line.starts_with("    ")
                    || line.starts_with('\t')
                    || trimmed.starts_with("$ "))
        } else {
            !trimmed.starts_with('`')
        };
        if code {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn a_readme_names_the_versions_of_a_project_that_declares_nothing() {
        let dir =
            std::env::temp_dir().join(format!("apicompat-readme-pins-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(
            dir.join("README.md"),
            "## Setup\n```\npip install transformers==4.45.2 gdown \"accelerate>=0.30\"\n\
             pip install sentencepiece=0.1.99, tqdm\n\
             conda install pytorch==2.1.0 -c pytorch\n```\n\
             `pip install numpy==1.21.0` is what a script of ours once ran.\n",
        )
        .unwrap();
        // A page of `docs/` is not read for versions.
        std::fs::write(dir.join("docs/old.md"), "pip install numpy==1.21.0\n").unwrap();
        let reqs = |dir: &Path| -> Vec<(String, u32)> {
            crate::read_project(dir)
                .requirements
                .iter()
                .map(|r| (r.raw.clone(), r.source.line))
                .collect()
        };
        assert_eq!(
            reqs(&dir),
            [
                ("transformers==4.45.2".to_string(), 3),
                ("accelerate>=0.30".to_string(), 3),
                ("torch==2.1.0".to_string(), 5),
            ]
        );
        // A declaration file wins: the README is not read then.
        std::fs::write(dir.join("requirements.txt"), "numpy\n").unwrap();
        assert_eq!(reqs(&dir), [("numpy".to_string(), 1)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// iDP3's README (study 54, D-1): `conda create -n idp3 python=3.8` in a code block is the
    /// project's Python when nothing else declares one; prose is not read, and a packaging
    /// file's `requires-python` wins.
    #[test]
    fn a_readme_names_the_python_its_environment_is_created_with() {
        let dir =
            std::env::temp_dir().join(format!("apicompat-readme-python-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("requirements.txt"), "torch==2.3.1\n").unwrap();
        std::fs::write(
            dir.join("README.md"),
            "`conda create -n old python=3.6` was the setup once.\n\
             ```bash\nconda create -n idp3 python=3.8\nconda activate idp3\n```\n",
        )
        .unwrap();
        let python = crate::read_requires_python(&dir).unwrap().unwrap();
        assert_eq!(python.raw, "==3.8.*");
        assert_eq!(python.source.to_string(), "README.md:3");
        std::fs::write(
            dir.join("pyproject.toml"),
            "[project]\nname = \"x\"\nrequires-python = \">=3.10\"\n",
        )
        .unwrap();
        let python = crate::read_requires_python(&dir).unwrap().unwrap();
        assert_eq!(python.raw, ">=3.10");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
