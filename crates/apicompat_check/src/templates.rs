//! Template files: a `.py` file that a project generator (cookiecutter, copier, a Jinja
//! script) renders into Python is not Python itself. Its placeholders in paths
//! (`{{cookiecutter.modelname}}/modeling_{{cookiecutter.lowercase_modelname}}.py`) and its tags
//! at the start of lines (`{%- if cookiecutter.can_train == "True" %}`) would give one syntax
//! error per tag, and its imports name modules that exist only once rendered. Such files are
//! not checked, and a note says so.

use std::path::{Component, Path};

/// Whether a path (relative to the directory walked) has a component with a template
/// placeholder: `{{ … }}` or `{% … %}`. Such a name is no importable module either.
pub(crate) fn in_template_path(rel: &Path) -> bool {
    rel.components().any(|c| match c {
        Component::Normal(name) => {
            let name = name.to_string_lossy();
            placeholder(&name, "{{", "}}") || placeholder(&name, "{%", "%}")
        }
        _ => false,
    })
}

fn placeholder(name: &str, open: &str, close: &str) -> bool {
    name.find(open)
        .is_some_and(|at| name[at + open.len()..].contains(close))
}

/// Whether a file that fails to parse is a template: a line begins (after indentation) with a
/// Jinja tag (`{%`), comment (`{#`) or expression (`{{`). Python has no such line that
/// parses except inside a string or a bracket, so this is asked of files with syntax errors
/// only.
pub(crate) fn is_template_text(text: &str) -> bool {
    text.lines().any(|line| {
        let t = line.trim_start();
        t.starts_with("{%") || t.starts_with("{#") || (t.starts_with("{{") && t.contains("}}"))
    })
}

/// The note for the template files left out (the first few named).
pub(crate) fn note(paths: &[&Path]) -> Option<String> {
    const NAMED: usize = 3;
    paths.first()?;
    let named: Vec<String> = paths
        .iter()
        .take(NAMED)
        .map(|p| format!("`{}`", p.display()))
        .collect();
    let more = match paths.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "{} not checked: {} a template (placeholders such as `{{{{ … }}}}` or `{{% … %}}`), Python only once rendered",
        named.join(", ") + &more,
        if paths.len() == 1 { "it is" } else { "each is" },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_in_paths() {
        assert!(in_template_path(Path::new(
            "templates/{{cookiecutter.directory_name}}/run.py"
        )));
        assert!(in_template_path(Path::new(
            "t/modeling_{{cookiecutter.lowercase_modelname}}.py"
        )));
        assert!(in_template_path(Path::new("{% if x %}a{% endif %}.py")));
        assert!(!in_template_path(Path::new("pkg/{weird}/mod.py")));
        assert!(!in_template_path(Path::new("pkg/a{{b.py")));
        assert!(!in_template_path(Path::new("src/model.py")));
    }

    #[test]
    fn template_lines() {
        assert!(is_template_text(
            "import torch\n{%- if x == \"True\" %}\nimport y\n{% endif %}\n"
        ));
        assert!(is_template_text(
            "    {{cookiecutter.camelcase_modelname}}Model,\n"
        ));
        assert!(is_template_text("{# comment #}\n"));
        assert!(!is_template_text("x = {\n    {1: 2}[1]: 3,\n}\n"));
        assert!(!is_template_text("print 'python 2'\n"));
    }

    #[test]
    fn note_names_the_first_files() {
        let paths = [Path::new("a/{{x}}/m.py"), Path::new("a/{{x}}/n.py")];
        let n = note(&paths).unwrap();
        assert!(
            n.starts_with("`a/{{x}}/m.py`, `a/{{x}}/n.py` not checked: each is a template"),
            "{n}"
        );
        let many: Vec<&Path> = ["1", "2", "3", "4", "5"].iter().map(Path::new).collect();
        assert!(note(&many).unwrap().contains("`3` and 2 more not checked"));
        assert!(note(&[]).is_none());
    }
}
