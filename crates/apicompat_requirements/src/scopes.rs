//! Requirement scopes: the main requirements (`[project] dependencies`, `requirements.txt`,
//! `install_requires`, conda `environment.yml`) are what a project is checked against; extras
//! (`[project.optional-dependencies]`, `extras_require`), dependency groups and the other
//! requirements files (`requirements-dev.txt`, `requirements/npu.txt`) are named scopes,
//! added only when asked for (`check --scope NAME`). An alternative file for one accelerator
//! (`torch==2.10.0` in `requirements/npu.txt`) then no longer narrows the whole check.

use std::collections::{BTreeMap, HashMap, HashSet};

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
        let start: Vec<String> = scopes.iter().map(|s| normalize_name(s)).collect();
        closure(&self.self_references(), start)
    }

    /// For each scope, the extras its requirements on the project itself name (one pass).
    fn self_references(&self) -> HashMap<String, Vec<String>> {
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        let Some(own) = &self.name else {
            return out;
        };
        for r in self.requirements.iter().filter(|r| r.name == *own) {
            if let Some(g) = &r.group {
                let named = out.entry(normalize_name(g)).or_default();
                named.extend(r.extras.iter().map(|e| normalize_name(e)));
            }
        }
        out
    }

    /// For a distribution the main requirements do not name: each extra that requires it
    /// (itself or through the extras it brings in) with its requirements on it, in reading
    /// order. Installing the project with that extra installs a release they all admit.
    pub fn extras_requiring(&self, name: &str) -> Vec<(String, Vec<&DeclaredRequirement>)> {
        let name = normalize_name(name);
        // The requirements on it in extras, by extra (a sub-project's declarations carry the
        // enclosing project's extras without their list, so extras are read off requirements).
        let mut direct: HashMap<String, Vec<usize>> = HashMap::new();
        let mut extras: Vec<String> = Vec::new();
        for (i, r) in self
            .requirements
            .iter()
            .enumerate()
            .filter(|(_, r)| r.extra)
        {
            let Some(g) = r.group.as_deref().map(normalize_name) else {
                continue;
            };
            if r.name == name && !r.is_constraint {
                direct.entry(g.clone()).or_default().push(i);
            }
            extras.push(g);
        }
        if direct.is_empty() {
            return Vec::new();
        }
        extras.sort_unstable();
        extras.dedup();
        let refs = self.self_references();
        extras
            .into_iter()
            .filter_map(|extra| {
                let mut at: Vec<usize> = closure(&refs, vec![extra.clone()])
                    .iter()
                    .filter_map(|g| direct.get(g))
                    .flatten()
                    .copied()
                    .collect();
                at.sort_unstable();
                let reqs: Vec<&DeclaredRequirement> =
                    at.into_iter().map(|i| &self.requirements[i]).collect();
                (!reqs.is_empty()).then_some((extra, reqs))
            })
            .collect()
    }

    /// The requirement files' scopes (not extras) that name package `name` with a version or a
    /// URL, each with those requirements (`requirements/runtime.txt`: `transformers<4.30.0`).
    pub fn files_requiring(&self, name: &str) -> Vec<(String, Vec<&DeclaredRequirement>)> {
        let name = normalize_name(name);
        let mut out: BTreeMap<String, Vec<&DeclaredRequirement>> = BTreeMap::new();
        for r in &self.requirements {
            let Some(g) = r.group.as_deref() else {
                continue;
            };
            if !r.extra && !r.is_constraint && r.name == name {
                out.entry(normalize_name(g)).or_default().push(r);
            }
        }
        out.into_iter().collect()
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

/// `start` and every scope reachable from it through `refs`, each once, in the order met.
fn closure(refs: &HashMap<String, Vec<String>>, start: Vec<String>) -> Vec<String> {
    let mut seen: HashSet<String> = start.iter().cloned().collect();
    let mut out = start;
    let mut i = 0;
    while i < out.len() {
        for next in refs.get(&out[i]).into_iter().flatten() {
            if seen.insert(next.clone()) {
                out.push(next.clone());
            }
        }
        i += 1;
    }
    out
}
