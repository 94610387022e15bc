//! Which indexed functions and properties give process groups, read from the index data: the
//! process-group types are the seed types ([`SEED_TYPES`]) and every indexed class that derives
//! from one; a function or property gives a process group when a release annotates its return
//! with one of those types (`-> ProcessGroup`, `-> Optional[ProcessGroup]`,
//! `-> tuple[ProcessGroup, list[ProcessGroup]]`). Nothing else is known by name.

use std::collections::{BTreeSet, HashMap, HashSet};

use apicompat_index::{PackageIndex, PackageView};
use apicompat_surface::Kind;

/// The types whose objects cannot be copied or pickled on any release: torch's
/// `ProcessGroup` (a C++ object; `TypeError: cannot pickle '...ProcessGroup' object`).
/// Classes that derive from them in the index are added.
pub const SEED_TYPES: &[&str] = &["ProcessGroup"];

/// The distribution that defines [`SEED_TYPES`].
pub const SEED_PACKAGE: &str = "torch";

/// Whether a package can define or return process groups: it is [`SEED_PACKAGE`], or some
/// release of it requires that distribution (extras included). A package that depends on it in
/// no release (numpy, the standard library) cannot subclass or return its types, so its index
/// is not read for them (reading a large index costs more than the rest of a small project).
pub fn may_give_groups(view: &PackageView) -> bool {
    view.name() == SEED_PACKAGE
        || (0..view.releases().len()).any(|r| {
            view.header(r).is_some_and(|h| {
                h.requires_dist
                    .iter()
                    .any(|req| requirement_name(req).eq_ignore_ascii_case(SEED_PACKAGE))
            })
        })
}

/// The distribution name a requirement starts with (`torch>=2.0; extra == "x"` -> `torch`).
fn requirement_name(req: &str) -> &str {
    let req = req.trim_start();
    let end = req
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(req.len());
    &req[..end]
}

/// A function or property of an indexed package whose return annotation names a process
/// group type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Factory {
    /// Where it is defined (`torch.distributed.distributed_c10d.new_group`).
    pub path: String,
    pub package: String,
    pub kind: Kind,
    /// The return annotation that says so (`Optional[ProcessGroup]`).
    pub returns: String,
}

/// How many definitions of a name there are.
#[derive(Debug, Clone, Default)]
pub struct NameDefs {
    /// The ones that give a process group.
    pub factories: Vec<Factory>,
    /// Functions and properties of the name that do not (or say nothing). Attributes, whose
    /// type the index does not record, are not counted.
    pub others: usize,
}

/// The process-group knowledge of some indexed packages.
#[derive(Debug, Clone, Default)]
pub struct PgIndex {
    /// Last segments of the process-group type names.
    pub types: BTreeSet<String>,
    /// Functions and properties by name (last segment), counted once per definition.
    pub by_name: HashMap<String, NameDefs>,
}

impl PgIndex {
    /// Reads the packages' tables by last segment (subclasses by base, paths by name) and the
    /// entries of the paths named in `wanted`.
    pub fn build(views: &[&PackageView], wanted: &HashSet<String>) -> PgIndex {
        let mut indexes: Vec<(&PackageIndex, &str)> = Vec::new();
        for view in views {
            for r in 0..view.releases().len() {
                if let Some((index, _)) = view.index_of(r) {
                    if !indexes.iter().any(|(i, _)| std::ptr::eq(*i, index)) {
                        indexes.push((index, view.name()));
                    }
                }
            }
        }
        // The seed types and their subclasses by name, to the last one (each type once).
        let mut types: BTreeSet<String> = SEED_TYPES.iter().map(|s| s.to_string()).collect();
        let mut queue: Vec<String> = types.iter().cloned().collect();
        while let Some(t) = queue.pop() {
            for view in views {
                for class in view.subclasses_named(&t) {
                    if types.insert(class.clone()) {
                        queue.push(class);
                    }
                }
            }
        }
        // The wanted paths of each index (by index, then path: the order of a scan).
        struct Callable {
            kind: Kind,
            returns: Vec<String>,
            canonical: Option<String>,
        }
        let mut wanted_paths: Vec<(usize, String, Vec<u32>)> = Vec::new();
        let mut callables: Vec<HashMap<u32, Option<Callable>>> = Vec::new();
        for (ii, (index, package)) in indexes.iter().enumerate() {
            let mut facts: HashMap<u32, Option<Callable>> = HashMap::new();
            let Some(view) = views.iter().find(|v| v.name() == *package) else {
                callables.push(facts);
                continue;
            };
            let mut paths: Vec<String> = wanted.iter().flat_map(|n| view.paths_named(n)).collect();
            paths.sort_unstable();
            for path in paths {
                let Ok(entry) = index.entry(&path) else {
                    continue;
                };
                let mut any = false;
                for &(_, facet) in &entry {
                    let Ok((kind @ (Kind::Function | Kind::Property), _, _)) = index.kind(facet)
                    else {
                        continue;
                    };
                    any = true;
                    facts.entry(facet).or_insert_with(|| {
                        let symbol = index.symbol(facet).ok()?;
                        Some(Callable {
                            kind,
                            returns: symbol
                                .signatures
                                .iter()
                                .filter_map(|s| s.returns.clone())
                                .collect(),
                            canonical: symbol.canonical,
                        })
                    });
                }
                if any {
                    let facets = entry.iter().map(|(_, f)| *f).collect();
                    wanted_paths.push((ii, path, facets));
                }
            }
            callables.push(facts);
        }
        // The functions and properties, by name; re-exports count once, under the definition.
        let mut defs: HashMap<String, (usize, Option<(Kind, String)>)> = HashMap::new();
        for (ii, path, facets) in wanted_paths {
            for facet in facets {
                let Some(Some(c)) = callables[ii].get(&facet) else {
                    continue;
                };
                let defining = c.canonical.clone().unwrap_or_else(|| path.clone());
                let slot = defs.entry(defining).or_insert((ii, None));
                if slot.1.is_none() {
                    if let Some(r) = c.returns.iter().find(|r| mentions(r, &types)) {
                        slot.1 = Some((c.kind, r.clone()));
                    }
                }
            }
        }
        let mut by_name: HashMap<String, NameDefs> = HashMap::new();
        let mut sorted: Vec<_> = defs.into_iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        for (defining, (ii, factory)) in sorted {
            let entry = by_name
                .entry(last_segment(&defining).to_string())
                .or_default();
            match factory {
                Some((kind, returns)) => entry.factories.push(Factory {
                    path: defining,
                    package: indexes[ii].1.to_string(),
                    kind,
                    returns,
                }),
                None => entry.others += 1,
            }
        }
        by_name.retain(|_, d| !d.factories.is_empty());
        PgIndex { types, by_name }
    }

    /// The factories of a name, when they are most of its definitions: at least as many
    /// definitions of the name give a process group as do not.
    pub fn factories_named(&self, name: &str, kinds: &[Kind]) -> Option<&Factory> {
        let defs = self.by_name.get(name)?;
        let mine: Vec<&Factory> = defs
            .factories
            .iter()
            .filter(|f| kinds.contains(&f.kind))
            .collect();
        (!mine.is_empty() && defs.others <= mine.len()).then(|| mine[0])
    }
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// The dotted identifiers of an annotation (`Optional[dist.ProcessGroup]` -> `Optional`,
/// `dist.ProcessGroup`).
fn identifiers(annotation: &str) -> impl Iterator<Item = &str> {
    annotation
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|s| !s.is_empty())
}

/// Whether an annotation names one of `types`, as itself, a member of a union or `Optional`, or
/// an element of a container. Callables (`Callable[[ProcessGroup], None]`) are not groups.
pub fn mentions(annotation: &str, types: &BTreeSet<String>) -> bool {
    let ids: Vec<&str> = identifiers(annotation).collect();
    !ids.iter().any(|i| last_segment(i) == "Callable")
        && ids.iter().any(|i| types.contains(last_segment(i)))
}

/// The element annotations of a fixed-size tuple annotation: `Tuple[A, B]` -> `[A, B]`; `None`
/// for anything else (`Tuple[A, ...]` too).
pub fn tuple_items(annotation: &str) -> Option<Vec<&str>> {
    let a = annotation.trim();
    let open = a.find('[')?;
    let head = a[..open].trim();
    if !matches!(last_segment(head), "Tuple" | "tuple") || !a.ends_with(']') {
        return None;
    }
    let inner = &a[open + 1..a.len() - 1];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                items.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(inner[start..].trim());
    items.retain(|s| !s.is_empty());
    (!items.contains(&"...")).then_some(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations() {
        let types: BTreeSet<String> = ["ProcessGroup".to_string()].into();
        assert!(mentions("ProcessGroup", &types));
        assert!(mentions("Optional[dist.ProcessGroup]", &types));
        assert!(mentions("'ProcessGroup'", &types));
        assert!(mentions("ProcessGroup | None", &types));
        assert!(mentions("list[ProcessGroup]", &types));
        assert!(!mentions("ProcessGroupMesh", &types));
        assert!(!mentions("Callable[[ProcessGroup], None]", &types));
        assert_eq!(
            tuple_items("tuple[ProcessGroup, list[ProcessGroup | _NonGroupMember]]"),
            Some(vec!["ProcessGroup", "list[ProcessGroup | _NonGroupMember]"])
        );
        assert_eq!(tuple_items("Tuple[int, ...]"), None);
        assert_eq!(tuple_items("ProcessGroup"), None);
    }
}
