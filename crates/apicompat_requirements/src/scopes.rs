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
        let wanted = self.scope_closure(scopes);
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

    /// `scopes` (normalized) and the extras they bring in through requirements on the project
    /// itself (`base = ["proj[hf]"]` brings in `hf`), transitively.
    pub fn scope_closure(&self, scopes: &[String]) -> Vec<String> {
        let mut out: Vec<String> = scopes.iter().map(|s| normalize_name(s)).collect();
        let Some(own) = &self.name else {
            return out;
        };
        // Each scope is added once: at most as many rounds as there are scopes.
        let mut i = 0;
        while i < out.len() {
            let scope = out[i].clone();
            for r in &self.requirements {
                let in_scope = r
                    .group
                    .as_deref()
                    .is_some_and(|g| normalize_name(g) == scope);
                if in_scope && r.name == *own {
                    for e in &r.extras {
                        let e = normalize_name(e);
                        if !out.contains(&e) {
                            out.push(e);
                        }
                    }
                }
            }
            i += 1;
        }
        out
    }

    /// For a distribution the main requirements do not name: each extra that requires it
    /// (itself or through the extras it brings in) with its requirements on it. Installing
    /// the project with that extra installs a release they all admit.
    pub fn extras_requiring(&self, name: &str) -> Vec<(String, Vec<&DeclaredRequirement>)> {
        let name = normalize_name(name);
        // The extras named by requirements (a sub-project's declarations carry the enclosing
        // project's extras without their list).
        let mut extras: Vec<String> = self
            .requirements
            .iter()
            .filter(|r| r.extra)
            .filter_map(|r| r.group.as_deref().map(normalize_name))
            .collect();
        extras.sort_unstable();
        extras.dedup();
        extras
            .iter()
            .filter_map(|extra| {
                let closure = self.scope_closure(std::slice::from_ref(extra));
                let reqs: Vec<&DeclaredRequirement> = self
                    .requirements
                    .iter()
                    .filter(|r| r.name == name && r.extra && !r.is_constraint)
                    .filter(|r| {
                        r.group
                            .as_deref()
                            .is_some_and(|g| closure.contains(&normalize_name(g)))
                    })
                    .collect();
                (!reqs.is_empty()).then(|| (extra.clone(), reqs))
            })
            .collect()
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
