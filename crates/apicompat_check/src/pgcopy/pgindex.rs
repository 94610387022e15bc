//! Which indexed functions and properties give process groups, read from the index data: the
//! process-group types are the seed types ([`SEED_TYPES`]) and every indexed class that derives
//! from one; a function or property gives a process group when a release annotates its return
//! with one of those types (`-> ProcessGroup`, `-> Optional[ProcessGroup]`,
//! `-> tuple[ProcessGroup, list[ProcessGroup]]`). Nothing else is known by name.

use crate::last_segment;
use apicompat_hash::{HashMap, HashSet};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

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

/// The process-group knowledge of some indexed packages: the types, read when it is made,
/// and the functions and properties of each name, read the first time the name is asked
/// (evaluating the copied values asks few names; reading every name the project reads cost a
/// tenth of a run on large projects).
#[derive(Debug, Default)]
pub struct PgIndex {
    /// Last segments of the process-group type names.
    pub types: BTreeSet<String>,
    /// The packages it reads (names): the same packages give the same answers.
    pub packages: Vec<String>,
    /// Functions and properties by name (last segment of their definition), counted once per
    /// definition; only names asked so far.
    by_name: Mutex<HashMap<String, Arc<NameDefs>>>,
}

impl PgIndex {
    /// The process-group types of the packages (the seed types and every class that derives
    /// from one, by the packages' tables of subclasses by base).
    pub fn new(views: &[&PackageView]) -> PgIndex {
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
        PgIndex {
            types,
            packages: views.iter().map(|v| v.name().to_string()).collect(),
            by_name: Mutex::new(HashMap::default()),
        }
    }

    /// [`PgIndex::new`] with the names of `wanted` read.
    pub fn build(views: &[&PackageView], wanted: &HashSet<String>) -> PgIndex {
        let pg = PgIndex::new(views);
        for name in wanted {
            pg.defs(views, name);
        }
        pg
    }

    /// The definitions of a name read so far (see [`PgIndex::defs`]).
    pub fn read(&self, name: &str) -> Option<Arc<NameDefs>> {
        self.lock().get(name).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<NameDefs>>> {
        self.by_name.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The functions and properties whose definition is named `name` in the packages (`views`,
    /// the ones this index was made from): every path of that last segment, each definition
    /// once (re-exports count under the definition), the first package to define it keeping
    /// it.
    pub fn defs(&self, views: &[&PackageView], name: &str) -> Arc<NameDefs> {
        if let Some(d) = self.read(name) {
            return d;
        }
        let mut defs: HashMap<String, (String, Option<(Kind, String)>)> = HashMap::default();
        let mut seen: Vec<*const PackageIndex> = Vec::new();
        for view in views {
            for r in 0..view.releases().len() {
                let Some((index, _)) = view.index_of(r) else {
                    continue;
                };
                if seen.contains(&(index as *const PackageIndex)) {
                    continue;
                }
                seen.push(index as *const PackageIndex);
                let mut paths: Vec<String> = view.paths_named(name);
                paths.sort_unstable();
                for path in paths {
                    let Ok(entry) = index.entry(&path) else {
                        continue;
                    };
                    for &(_, facet) in &entry {
                        let Ok((kind @ (Kind::Function | Kind::Property), _, _)) =
                            index.kind(facet)
                        else {
                            continue;
                        };
                        let Ok(symbol) = index.symbol(facet) else {
                            continue;
                        };
                        let defining = symbol.canonical.clone().unwrap_or_else(|| path.clone());
                        if last_segment(&defining) != name {
                            continue;
                        }
                        let slot = defs
                            .entry(defining)
                            .or_insert_with(|| (view.name().to_string(), None));
                        if slot.1.is_none() {
                            let returns =
                                symbol.signatures.iter().filter_map(|s| s.returns.as_ref());
                            if let Some(r) = returns.into_iter().find(|r| mentions(r, &self.types))
                            {
                                slot.1 = Some((kind, r.clone()));
                            }
                        }
                    }
                }
            }
        }
        let mut sorted: Vec<_> = defs.into_iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = NameDefs::default();
        for (defining, (package, factory)) in sorted {
            match factory {
                Some((kind, returns)) => out.factories.push(Factory {
                    path: defining,
                    package,
                    kind,
                    returns,
                }),
                None => out.others += 1,
            }
        }
        let out = Arc::new(out);
        self.lock().insert(name.to_string(), Arc::clone(&out));
        out
    }

    /// The factories of a name, when they are most of its definitions: at least as many
    /// definitions of the name give a process group as do not.
    pub fn factories_named(
        &self,
        views: &[&PackageView],
        name: &str,
        kinds: &[Kind],
    ) -> Option<Factory> {
        let defs = self.defs(views, name);
        let mine: Vec<&Factory> = defs
            .factories
            .iter()
            .filter(|f| kinds.contains(&f.kind))
            .collect();
        (!mine.is_empty() && defs.others <= mine.len()).then(|| mine[0].clone())
    }
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
