//! The requirement AC008 advises admits the releases that work, and does not exclude again
//! the releases the project's other requirements already rule out (lighteval: `accelerate`
//! beside `numpy>=2`, where accelerate 0.32.1 - 0.33.0 require `numpy<2.0.0`; study 16, D6).
//! Real index, offline (`--no-cache`).

mod common;

use common::{check, text};

#[test]
fn advice_does_not_restate_what_other_requirements_exclude() {
    let dir = common::project_in(
        "requirement_fixes",
        "lighteval",
        &[
            (
                "model.py",
                "from accelerate.utils import calculate_maximum_sizes\n",
            ),
            (
                "pyproject.toml",
                "[project]\nname = \"x\"\nrequires-python = \">=3.10\"\ndependencies = [\"accelerate\", \"numpy>=2\"]\n",
            ),
        ],
    );
    let o = check(&dir, &[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("left out"), "{out}");
    assert!(
        out.contains("`accelerate>=0.23` admits only the releases that work"),
        "{out}"
    );
    assert!(
        out.contains("unsafe fix: narrow the requirement to `accelerate>=0.23` "),
        "{out}"
    );
    assert!(!out.contains("!=0.32.1"), "{out}");
}
