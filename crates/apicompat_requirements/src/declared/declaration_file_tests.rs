use super::is_declaration_file;
use std::path::Path;

#[test]
fn the_files_read_project_reads_are_declarations() {
    let dir = Path::new("/p");
    for yes in [
        "/p/pyproject.toml",
        "/p/setup.py",
        "/p/setup.cfg",
        "/p/requirements.txt",
        "/p/requirements-dev.txt",
        "/p/requirements/npu.txt",
        "/p/environment.yml",
    ] {
        assert!(is_declaration_file(dir, Path::new(yes)), "{yes}");
    }
    for no in [
        "/p/README.md",
        "/p/src/setup.py",
        "/p/sub/pyproject.toml",
        "/p/requirements/notes.md",
        "/p/constraints.txt",
        "/q/pyproject.toml",
    ] {
        assert!(!is_declaration_file(dir, Path::new(no)), "{no}");
    }
}
