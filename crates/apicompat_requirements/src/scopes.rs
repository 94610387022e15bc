//! Requirement scopes: the main requirements (`[project] dependencies`, `requirements.txt`,
//! `install_requires`, conda `environment.yml`) are what a project is checked against; extras
//! (`[project.optional-dependencies]`, `extras_require`), dependency groups and the other
//! requirements files (`requirements-dev.txt`, `requirements/npu.txt`) are named scopes,
//! added only when asked for (`check --scope NAME`). An alternative file for one accelerator
//! (`torch==2.10.0` in `requirements/npu.txt`) then no longer narrows the whole check.

use std::collections::BTreeMap;

use crate::declared::{normalize_name, Declared, DeclaredRequirement};

impl Declared {
    /// The main requirements and those of `scopes` (names compared as PEP 503 names).
    pub fn in_scopes(&self, scopes: &[String]) -> Declared {
        let wanted: Vec<String> = scopes.iter().map(|s| normalize_name(s)).collect();
        let mut out = self.clone();
        let kept = |group: &Option<String>| {
            group
                .as_ref()
                .is_none_or(|g| wanted.contains(&normalize_name(g)))
        };
        out.requirements.retain(|r| kept(&r.group));
        out.direct.retain(|r| kept(&r.group));
        out
    }

    /// Every scope with its requirements, by name (the main requirements are not a scope).
    pub fn scopes(&self) -> BTreeMap<String, Vec<&DeclaredRequirement>> {
        let mut out: BTreeMap<String, Vec<&DeclaredRequirement>> = BTreeMap::new();
        for r in &self.requirements {
            if let Some(g) = &r.group {
                out.entry(normalize_name(g)).or_default().push(r);
            }
        }
        out
    }
}
