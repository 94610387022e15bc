//! AC011 (private API) and AC012 (deprecated API): uses that work on the targeted releases but
//! may stop working in the next one. Both read the index directly for the distinct paths the
//! project uses (the facet each release has under the path, falling back to the full lookup
//! through re-exports and bases), so they add little to a run.

use crate::last_segment;
use apicompat_hash::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use apicompat_index::{ranges, Catalog, PackageView, Status};
use apicompat_surface::Kind;

use crate::collect::{Use, UseKind};
use crate::evaluate::Evaluator;
use crate::files::Analyzed;
use crate::model::Finding;
use crate::rules::{
    ac011_private_api, ac012_deprecated_api, DeprecatedApi, PrivateApi, Rule, RuleInfo,
};
use crate::targets::Target;

/// What one release has under a path.
#[derive(Debug, Clone)]
pub(crate) enum Fact {
    Present {
        canonical: Rc<str>,
        deprecated: Option<Rc<str>>,
        class: bool,
    },
    /// Absent, or not known statically.
    Other,
}

/// Per-release facts of paths, each looked up once.
pub(crate) struct Facts<'c> {
    rows: HashMap<(String, String), Vec<Option<Fact>>>,
    symbols: HashMap<(usize, u32), Fact>,
    views: HashMap<String, Option<&'c PackageView>>,
    catalog: &'c Catalog,
}

impl<'c> Facts<'c> {
    fn view(&mut self, root: &str) -> Option<&'c PackageView> {
        if let Some(v) = self.views.get(root) {
            return *v;
        }
        let v = self.catalog.package_for_module(root).ok().flatten();
        self.views.insert(root.to_string(), v);
        v
    }

    pub(crate) fn get(&mut self, view: &PackageView, path: &str, release: usize) -> Fact {
        let n = view.releases().len();
        let key = (view.name().to_string(), path.to_string());
        if let Some(Some(f)) = self.rows.get(&key).and_then(|row| row.get(release)) {
            return f.clone();
        }
        let fact = self.lookup(view, path, release);
        let row = self.rows.entry(key).or_insert_with(|| vec![None; n]);
        if let Some(slot) = row.get_mut(release) {
            *slot = Some(fact.clone());
        }
        fact
    }

    fn lookup(&mut self, view: &PackageView, path: &str, release: usize) -> Fact {
        // The path itself, when the release binds it (most uses): one map lookup.
        if let Some((index, pos)) = view.index_of(release) {
            if let Ok(Some(facet)) = index.facet_in(path, pos) {
                let key = (index as *const _ as usize, facet);
                if let Some(f) = self.symbols.get(&key) {
                    return f.clone();
                }
                // A submodule its package binds an object over (`Symbol::shadow`) names
                // that object: asked below.
                let symbol = index.symbol(facet).ok();
                if let Some(symbol) = symbol.filter(|s| s.shadow.is_none()) {
                    // A symbol without a recorded definition is defined at the path itself:
                    // the fact depends on the path, and symbols are shared between paths.
                    let cacheable = symbol.canonical.is_some();
                    let fact = Fact::Present {
                        class: symbol.kind() == Kind::Class,
                        canonical: Rc::from(symbol.canonical.unwrap_or_else(|| path.to_string())),
                        deprecated: symbol.deprecated.map(|d| Rc::from(d.as_str())),
                    };
                    if cacheable {
                        self.symbols.insert(key, fact.clone());
                    }
                    return fact;
                }
            }
        }
        // Through re-exported modules and base classes.
        match view.status(path, release) {
            Ok(Status::Present {
                path: found,
                symbol,
            }) => Fact::Present {
                class: symbol.kind() == Kind::Class,
                canonical: Rc::from(symbol.canonical.unwrap_or(found)),
                deprecated: symbol.deprecated.map(|d| Rc::from(d.as_str())),
            },
            _ => Fact::Other,
        }
    }
}

/// The first private segment of a dotted path (`_tensor` in `torch.distributed._tensor.X`):
/// its position. Dunders (`__version__`) are not private.
pub(crate) fn private_segment(path: &str) -> Option<usize> {
    path.split('.').position(|s| {
        s.starts_with('_') && !(s.len() > 4 && s.starts_with("__") && s.ends_with("__"))
    })
}

/// The standard-library classes whose underscore members are their public API:
/// `typing.NamedTuple` (`_replace`, `_asdict`, `_fields`, `_make`: "to prevent conflicts with
/// field names, the method and attribute names start with an underscore", the
/// `collections.namedtuple` documentation) and `enum.Enum` (`_name_`, `_value_`, `_missing_`,
/// `_generate_next_value_`: its "supported `_sunder_` names"; `EnumType`'s `_member_map_` is
/// not among them). A rule that knows two classes of the standard library, by their paths in
/// the `python` index and in `apicompat_index`'s table of standard-library bases.
const UNDERSCORE_API: [&str; 2] = ["typing.NamedTuple", "enum.Enum"];

/// The standard-library functions the Python library reference documents under an
/// underscore name (`os._exit`: "Exit the process with status n, without calling cleanup
/// handlers"; `sys._getframe`, `sys._current_frames`, `sys._xoptions`). A rule that knows four
/// names of the standard library, by their paths in the `python` index.
const UNDERSCORE_NAMES: [&str; 4] = [
    "os._exit",
    "sys._getframe",
    "sys._current_frames",
    "sys._xoptions",
];

/// Whether `canonical` (a definition) is a member of a class of [`UNDERSCORE_API`], or one of
/// [`UNDERSCORE_NAMES`].
fn underscore_api(canonical: &str) -> bool {
    UNDERSCORE_NAMES.contains(&canonical)
        || canonical
            .rsplit_once('.')
            .is_some_and(|(class, _)| UNDERSCORE_API.contains(&class))
}

fn is_private(path: &str) -> bool {
    private_segment(path).is_some()
}

/// A use to report, before its public alternatives are known.
pub(crate) struct Pending<'c> {
    file: usize,
    rule: Rule,
    use_index: usize,
    pub view: &'c PackageView,
    /// Releases (positions) where the path is present, and where it is deprecated.
    pub present: Vec<bool>,
    pub deprecated: Vec<Option<Rc<str>>>,
    pub canonical: Vec<Option<Rc<str>>>,
}

/// The AC011 and AC012 findings of every file `reported` marks (all when it is empty).
pub(crate) fn check_files(
    eval: &Evaluator,
    catalog: &Catalog,
    analyzed: &[Arc<Analyzed>],
    reported: &[bool],
    chosen: &BTreeMap<String, Target>,
    out: &mut Vec<(usize, Finding, Vec<u32>)>,
) {
    let mut facts = Facts {
        rows: HashMap::default(),
        symbols: HashMap::default(),
        views: HashMap::default(),
        catalog,
    };
    let mut pending: Vec<Pending<'_>> = Vec::new();
    for (fi, file) in analyzed.iter().enumerate() {
        if !reported.get(fi).copied().unwrap_or(true) {
            continue;
        }
        for (ui, u) in file.uses.uses.iter().enumerate() {
            if !matches!(
                u.kind,
                UseKind::Import | UseKind::Attribute | UseKind::Getattr
            ) {
                continue;
            }
            let root = u.path.split('.').next().unwrap_or(&u.path);
            let Some(view) = facts.view(root) else {
                continue;
            };
            let Some(target) = chosen.get(view.name()) else {
                continue;
            };
            // A guarded private use already has its fallback.
            // So does one in a fallback handler (`except ImportError: from torch._x import y`).
            let private = written_private(u)
                && !u.guarded
                && !super_delegation(u, &file.uses.functions)
                && file.uses.fallbacks.binary_search(&(ui as u32)).is_err();
            // Targeted releases on which it runs (its own conditions: the handler of a
            // `try` of imports runs where they fail) and that have it (the others are
            // AC001/AC002's).
            let mut in_target = Vec::new();
            let mut class = false;
            for r in eval.running(u, view, target) {
                if let Fact::Present {
                    deprecated,
                    class: c,
                    ..
                } = facts.get(view, &u.path, r)
                {
                    in_target.push((r, deprecated));
                    class |= c;
                }
            }
            if in_target.is_empty() {
                continue;
            }
            let deprecated_here =
                in_target.iter().any(|(_, d)| d.is_some()) && (!class || instantiates(file, u));
            if !private && !deprecated_here {
                continue;
            }
            let n = view.releases().len();
            let mut present = vec![false; n];
            let mut deprecated = vec![None; n];
            let mut canonical = vec![None; n];
            for r in 0..n {
                if let Fact::Present {
                    canonical: c,
                    deprecated: d,
                    ..
                } = facts.get(view, &u.path, r)
                {
                    present[r] = true;
                    deprecated[r] = d;
                    canonical[r] = Some(c);
                }
            }
            // Only its last segment is private, and that is the API of a standard class.
            let last = u.path.matches('.').count();
            let private = private
                && !(private_segment(&u.path) == Some(last)
                    && (UNDERSCORE_NAMES.contains(&u.path.as_str())
                        || canonical.iter().flatten().any(|c| underscore_api(c))));
            if !private && !deprecated_here {
                continue;
            }
            for rule in [
                (private, PrivateApi::RULE),
                (deprecated_here, DeprecatedApi::RULE),
            ]
            .into_iter()
            .filter_map(|(on, rule)| on.then_some(rule))
            {
                pending.push(Pending {
                    file: fi,
                    rule,
                    use_index: ui,
                    view,
                    present: present.clone(),
                    deprecated: deprecated.clone(),
                    canonical: canonical.clone(),
                });
            }
        }
    }
    if pending.is_empty() {
        return;
    }
    let public = public_paths(analyzed, &pending);
    for p in pending {
        let file = &analyzed[p.file];
        let u = &file.uses.uses[p.use_index];
        let Some(target) = chosen.get(p.view.name()) else {
            continue;
        };
        let f = if p.rule.code == PrivateApi::RULE.code {
            ac011_private_api::finding(&p, u, target, &public, &mut facts)
        } else {
            ac012_deprecated_api::finding(&p, u, target)
        };
        let mut f = f;
        let (l, c) = file.position(u.range.start());
        let (el, ec) = file.position(u.range.end());
        f.path = file.path.clone();
        (f.line, f.column, f.end_line, f.end_column) = (l, c, el, ec);
        let (stmt_line, _) = file.position(u.stmt_start);
        out.push((p.file, f, vec![l, stmt_line]));
    }
}

/// Whether a use of a class may create instances: the index records a class as deprecated
/// when creating one warns (its `__init__`), so subclassing it (`class F(Function)`) or
/// importing it only to subclass it is not a use of what is deprecated. An import counts when
/// the file calls the name it binds.
fn instantiates(file: &Analyzed, u: &Use) -> bool {
    let facts = file.process_groups();
    let inside_base = facts.base_ranges.iter().any(|r| r.contains_range(u.range));
    match u.kind {
        UseKind::Import => {
            let written = file
                .text
                .get(u.range.start().to_usize()..u.range.end().to_usize())
                .unwrap_or("");
            let bound = match written.rsplit_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => last_segment(&u.path),
            };
            facts.called.contains(bound)
        }
        _ => !inside_base,
    }
}

/// `super()._load_from_state_dict(...)` in the project's own `_load_from_state_dict`: an
/// override handing on to the method it overrides. The project extends the package's hook
/// there; the private name is the hook's, which the override itself depends on.
fn super_delegation(u: &Use, functions: &[crate::collect::FuncEntry]) -> bool {
    u.receiver.as_ref().is_some_and(|r| {
        crate::objects::delegates_to_base(
            &r.text,
            u.func.and_then(|f| functions.get(f as usize)),
            last_segment(&u.path),
        )
    })
}

/// Whether the private part of a use's path is written at the use (not in the name it goes
/// through, which was reported where that name was bound).
fn written_private(u: &Use) -> bool {
    let Some(at) = private_segment(&u.path) else {
        return false;
    };
    match &u.base {
        Some(base) => at >= base.split('.').count(),
        None => true,
    }
}

/// Public paths (no private segment) with the last segment of a private use's path, per
/// package: the candidates for "the same object under a public name".
fn public_paths(
    analyzed: &[Arc<Analyzed>],
    pending: &[Pending<'_>],
) -> HashMap<String, HashMap<String, Vec<String>>> {
    let mut wanted: HashMap<&str, (&PackageView, HashSet<&str>)> = HashMap::default();
    for p in pending
        .iter()
        .filter(|p| p.rule.code == PrivateApi::RULE.code)
    {
        let u = &analyzed[p.file].uses.uses[p.use_index];
        let last = last_segment(&u.path);
        if last.starts_with('_') {
            continue;
        }
        wanted
            .entry(p.view.name())
            .or_insert_with(|| (p.view, HashSet::default()))
            .1
            .insert(last);
    }
    let mut out: HashMap<String, HashMap<String, Vec<String>>> = HashMap::default();
    for (name, (view, names)) in wanted {
        let mut table: HashMap<String, Vec<String>> = HashMap::default();
        for last in names {
            let mut v: Vec<String> = view
                .paths_named(last)
                .into_iter()
                .filter(|p| !is_private(p))
                .collect();
            if v.is_empty() {
                continue;
            }
            v.sort_by_key(|p| (p.matches('.').count(), p.clone()));
            table.insert(last.to_string(), v);
        }
        out.insert(name.to_string(), table);
    }
    out
}

/// A finding of `rule` on a use of a path present in `present` releases.
pub(crate) fn base_finding(
    rule: Rule,
    u: &Use,
    view: &PackageView,
    present: &[bool],
    target: &Target,
) -> Finding {
    let versions = view.versions();
    let present_in: Vec<String> = (0..versions.len())
        .filter(|&i| present.get(i).copied().unwrap_or(false))
        .map(|i| versions[i].clone())
        .collect();
    Finding {
        symbol: u.path.clone(),
        package: view.name().to_string(),
        missing_in: Vec::new(),
        present_in,
        missing_ranges: Vec::new(),
        present_ranges: ranges(&versions, present),
        message: String::new(),
        fixes: Vec::new(),
        fix: None,
        target_source: Some(target.info.description.clone()),
        ..Finding::of_use(&rule, u.guarded, u.reach)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_segments() {
        assert_eq!(
            private_segment("torch.distributed._tensor.Partial"),
            Some(2)
        );
        assert_eq!(private_segment("torch.__version__"), None);
        assert!(underscore_api("typing.NamedTuple._replace"));
        assert!(underscore_api("enum.Enum._value_"));
        assert!(!underscore_api("enum.EnumType._member_map_"));
        assert!(!underscore_api("typing.NamedTupleX._replace"));
        assert!(underscore_api("os._exit"));
        assert!(!underscore_api("os._Environ"));
        assert_eq!(private_segment("torch.nn.Linear"), None);
    }
}
