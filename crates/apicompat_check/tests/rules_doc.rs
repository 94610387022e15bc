//! `docs/rules.md`, the rule-by-rule reference, is generated from the doc comments of the rule
//! files (`src/rules/acNNN_*.rs`) and the rules' identities (`rules::ALL`). This test
//! regenerates it and fails when the file differs; run it with `UPDATE_DOCS=1` to write it:
//!
//! ```sh
//! UPDATE_DOCS=1 cargo test -p apicompat_check --test rules_doc
//! ```

use std::path::Path;

use apicompat_check::rules::ALL;

/// The `///` lines right above `pub struct` in a rule file, without the markers.
fn doc_comment(source: &str) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("pub struct "))?;
    let mut start = at;
    while start > 0 && lines[start - 1].trim_start().starts_with("///") {
        start -= 1;
    }
    let doc: Vec<&str> = lines[start..at]
        .iter()
        .map(|l| {
            let l = l.trim_start().trim_start_matches("///");
            l.strip_prefix(' ').unwrap_or(l)
        })
        .collect();
    (!doc.is_empty()).then(|| doc.join("\n"))
}

fn render(rules_dir: &Path) -> String {
    let mut files: Vec<(String, String)> = std::fs::read_dir(rules_dir)
        .expect("rules dir")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ac") && n.ends_with(".rs"))
        .map(|n| {
            let text = std::fs::read_to_string(rules_dir.join(&n)).expect("rule file");
            (n, text)
        })
        .collect();
    files.sort();
    let mut out = String::new();
    out.push_str("# Rules of `apicompat check`\n\n");
    out.push_str(
        "Generated from the doc comments of `crates/apicompat_check/src/rules/` by\n\
         `crates/apicompat_check/tests/rules_doc.rs` (do not edit by hand; regenerate with\n\
         `UPDATE_DOCS=1 cargo test -p apicompat_check --test rules_doc`).\n\n\
         Select or ignore rules with `--select`/`--ignore` (codes or prefixes: `AC01`, `ALL`) or\n\
         `[tool.apicompat] select`/`ignore`; silence one finding with `# noqa: AC010` or\n\
         `# apicompat: ignore[AC010]` on its line.\n\n",
    );
    out.push_str("| code | name | severity | what |\n|---|---|---|---|\n");
    for r in ALL {
        out.push_str(&format!(
            "| [{}](#{}) | {} | {} | {} |\n",
            r.code,
            format!("{}-{}", r.code, r.name).to_ascii_lowercase(),
            r.name,
            r.severity.as_str(),
            r.summary
        ));
    }
    for r in ALL {
        let file = files
            .iter()
            .find(|(n, _)| n.starts_with(&r.code.to_ascii_lowercase()))
            .unwrap_or_else(|| panic!("no file in src/rules/ for {}", r.code));
        let doc = doc_comment(&file.1)
            .unwrap_or_else(|| panic!("{} has no doc comment on its rule struct", file.0));
        out.push_str(&format!("\n## {} {}\n\n", r.code, r.name));
        out.push_str(&format!(
            "Severity: **{}**. {}.\n\n",
            r.severity.as_str(),
            capitalize(r.summary)
        ));
        // The doc comments use `##` headings; one level down here.
        for line in doc.lines() {
            match line.strip_prefix("## ") {
                Some(h) => out.push_str(&format!("### {h}\n")),
                None => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
    }
    // Every rule file is a rule of `ALL`.
    for (name, _) in &files {
        assert!(
            ALL.iter()
                .any(|r| name.starts_with(&r.code.to_ascii_lowercase())),
            "{name} is not in rules::ALL"
        );
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[test]
fn docs_rules_md_is_generated_from_the_rules() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rendered = render(&crate_dir.join("src/rules"));
    let target = crate_dir.join("../../docs/rules.md");
    let current = std::fs::read_to_string(&target).unwrap_or_default();
    if current != rendered {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(&target, &rendered).expect("write docs/rules.md");
            return;
        }
        panic!(
            "docs/rules.md is out of date with the rules' doc comments; regenerate it with \
             `UPDATE_DOCS=1 cargo test -p apicompat_check --test rules_doc`"
        );
    }
}
