//! uv's table in `pyproject.toml` (`[tool.uv]`): what uv installs differs from what the
//! requirements alone say.
//!
//! - `[tool.uv.sources]`: a requirement whose source is a Git repository, a URL or a local path
//!   (`xformers = { git = "https://...", rev = "de742ec" }`) is installed from there, not from
//!   a release of the package index: a direct reference, as `xformers @ git+https://...`
//!   would be (its uses are not checked against the index). A source that only names an
//!   index (`torch = { index = "nightly" }`) or a workspace member changes nothing here; a
//!   list of sources (one per marker) counts only when every one is such a direct source.
//! - `override-dependencies` and `constraint-dependencies` (`torch==2.6.0.dev20241112`): the
//!   versions uv installs, whoever requires the package; read as constraints (`-c`). An
//!   entry under a marker is left out: Megatron-LM's `torch; sys_platform == 'never'` keeps
//!   uv from installing torch at all (the image has one).
//!
//! facebookresearch/blt declares a bare `xformers` that `[tool.uv.sources]` takes from a Git
//! revision, and overrides torch to a 2.6 nightly (`docs/dependencies.md`).

use std::path::Path;

use toml::de::{DeTable, DeValue};

use crate::declared::{Collector, Declaration};
use crate::lines::LineIndex;

/// Keys of a source table that install from somewhere other than a package index.
const DIRECT_KEYS: &[&str] = &["git", "url", "path"];

/// Reads `[tool.uv]` (see the module documentation).
pub(crate) fn read(c: &mut Collector, path: &Path, index: &LineIndex, uv: &DeTable<'_>) {
    for key in ["override-dependencies", "constraint-dependencies"] {
        let Some(items) = uv.get(key).and_then(|v| v.get_ref().as_array()) else {
            continue;
        };
        for item in items.iter() {
            let Some(text) = item.get_ref().as_str() else {
                continue;
            };
            if !text.contains(';') {
                c.push_requirement(
                    text,
                    &Declaration {
                        file: path,
                        line: index.line(item.span().start),
                        group: None,
                        is_constraint: true,
                        extra: false,
                    },
                );
            }
        }
    }
    let Some(sources) = uv.get("sources").and_then(|s| s.get_ref().as_table()) else {
        return;
    };
    let mut entries: Vec<_> = sources.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    for (name, value) in entries {
        let Some(raw) = direct_source(name.get_ref(), value.get_ref()) else {
            continue;
        };
        let normalized = crate::normalize_name(name.get_ref());
        // Only a package the project requires somewhere: a source alone installs nothing.
        let required = c.out.requirements.iter().any(|r| r.name == normalized);
        if !required || c.out.direct.iter().any(|d| d.name == normalized) {
            continue;
        }
        let at = Declaration {
            file: path,
            line: index.line(name.span().start),
            group: None,
            is_constraint: false,
            extra: false,
        };
        c.push_direct(normalized, &raw, &at);
    }
}

/// `name @ git+URL@REV` (or the URL or path) when the source installs from outside a package
/// index.
fn direct_source(name: &str, value: &DeValue<'_>) -> Option<String> {
    let one = |v: &DeValue<'_>| -> Option<String> {
        let table = v.as_table()?;
        let (key, target) = DIRECT_KEYS
            .iter()
            .find_map(|k| Some((*k, table.get(*k)?.get_ref().as_str()?)))?;
        let at = ["rev", "tag", "branch"]
            .iter()
            .find_map(|k| table.get(*k)?.get_ref().as_str())
            .map(|r| format!("@{r}"))
            .unwrap_or_default();
        Some(match key {
            "git" => format!("{name} @ git+{target}{at}"),
            _ => format!("{name} @ {target}"),
        })
    };
    match value {
        DeValue::Array(items) => {
            let all: Option<Vec<String>> = items.iter().map(|i| one(i.get_ref())).collect();
            all.and_then(|a| a.into_iter().next())
        }
        v => one(v),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn uv_sources_and_overrides() {
        let dir = std::env::temp_dir().join(format!("apicompat-uv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("pyproject.toml"),
            r#"[project]
name = "x"
dependencies = ["xformers", "torch", "numpy>=2", "peft"]

[tool.uv.sources]
torch = { index = "nightly" }
xformers = { git = "https://github.com/facebookresearch/xformers.git", rev = "de742ec" }
peft = [{ path = "../peft", marker = "sys_platform == 'linux'" }, { index = "pypi" }]
unused = { git = "https://example.com/unused.git" }

[tool.uv]
override-dependencies = ["torch==2.6.0", "triton; sys_platform == 'never'"]
constraint-dependencies = ["numpy<2.3"]
"#,
        )
        .unwrap();
        let got = crate::read_project(&dir);
        let direct: Vec<(&str, &str)> = got
            .direct
            .iter()
            .map(|d| (d.name.as_str(), d.raw.as_str()))
            .collect();
        assert_eq!(
            direct,
            [(
                "xformers",
                "xformers @ git+https://github.com/facebookresearch/xformers.git@de742ec"
            )]
        );
        let constraints: Vec<String> = got
            .requirements
            .iter()
            .filter(|r| r.is_constraint)
            .map(|r| format!("{}{}", r.name, r.specifier))
            .collect();
        assert_eq!(constraints, ["torch==2.6.0", "numpy<2.3"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
