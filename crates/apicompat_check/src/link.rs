//! What the other files of the project tell each file, added to its uses once every file is
//! walked: the conditions of version helpers and version constants defined elsewhere
//! ([`Helpers`]), what a project function's true result implies ([`crate::presence`]), and
//! where the callers of its functions and the importers of its module run
//! ([`crate::callers`]).
//!
//! A file is copied only when something is added to it (`Arc::make_mut`). With a
//! [`LinkMemo`] (the language server's, kept in [`crate::warm`]), a file whose walk and whose
//! inputs (the tables, its covers) are those of the previous check gets the previous result
//! back instead: a change of one file re-links the files whose inputs it changed.

use apicompat_hash::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;

use crate::callers::FileCovers;
use crate::collect::INDEXED_CALL;
use crate::files::Analyzed;
use crate::presence::Presence;
use crate::version_terms::Term;
use crate::versions::{resolve_helpers, Pred, Tables, VersionHelper, HELPER_ROOT};

/// The version helpers and module-level version constants of the project, by name (the
/// names every defining module agrees on).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Helpers {
    helpers: HashMap<String, VersionHelper>,
    constants: HashMap<String, Option<String>>,
    /// Module-level values computed from a version (`TORCH_VERSION = tuple(...)`), and what
    /// functions without parameters return (`get_torch_version()`), with their package.
    values: HashMap<String, Option<(String, Term)>>,
}

impl Helpers {
    /// A helper is known by its name when every module of the project that defines a
    /// function of that name defines the same helper (`from .utils import
    /// is_torch_greater_or_equal`); a constant (`XPU_MIN_VERSION = "2.4.0"`) when every
    /// module that assigns one of that name assigns the same value.
    pub fn new(analyzed: &[Arc<Analyzed>]) -> Helpers {
        let helpers = agreed(analyzed.iter().flat_map(|a| {
            a.uses
                .helpers
                .iter()
                .map(|(name, h)| (name.as_str(), h.as_ref()))
        }));
        let mut table: HashMap<String, VersionHelper> = helpers
            .into_iter()
            .filter_map(|(name, h)| Some((name.to_string(), h??.clone())))
            .collect();
        // A helper that hands the comparison to another function counts only if that
        // function is a comparator (it takes the version compared and the operator).
        let comparators: HashSet<String> = table
            .iter()
            .filter(|(_, h)| h.version_param.is_some() && h.op_param.is_some())
            .map(|(n, _)| n.clone())
            .collect();
        table.retain(|_, h| h.via.as_ref().is_none_or(|v| comparators.contains(v)));
        let constants = agreed(analyzed.iter().flat_map(|a| {
            a.uses
                .constants
                .iter()
                .map(|(name, value)| (name.as_str(), value))
        }))
        .into_iter()
        .map(|(name, v)| (name.to_string(), v.cloned()))
        .collect();
        let values = agreed(analyzed.iter().flat_map(|a| {
            a.uses
                .values
                .iter()
                .map(|(name, root, term)| (name.as_str(), (root, term)))
        }))
        .into_iter()
        .map(|(name, v)| (name.to_string(), v.map(|(r, t)| (r.clone(), t.clone()))))
        .collect();
        Helpers {
            helpers: table,
            constants,
            values,
        }
    }

    /// A helper a module of a package defines, as the package is indexed with
    /// ([`crate::indexed_helpers`]): what it implies resolved through the other helpers (a
    /// helper whose condition rests on one not known is none), its comparator checked and
    /// left out.
    pub(crate) fn resolved(&self, h: &VersionHelper) -> Option<VersionHelper> {
        let mut h = h.clone();
        if let Some(via) = h.via.take() {
            let c = self.helpers.get(&via)?;
            if c.version_param.is_none() || c.op_param.is_none() {
                return None;
            }
        }
        if let Some(implied) = h.implies.take() {
            // An exact flag whose condition rests on a one-way helper is one-way too.
            if h.exact {
                let (root, pred) = implied.clone();
                let mut negated = vec![(root, Pred::Not(Box::new(pred)))];
                self.resolve(&mut negated, &|_| None);
                h.exact = !negated.is_empty();
            }
            let mut parts = vec![implied];
            self.resolve(&mut parts, &|_| None);
            match <[(String, Pred); 1]>::try_from(parts) {
                Ok([(root, pred)]) if root != HELPER_ROOT && !pred.has_helper_call() => {
                    h.implies = Some((root, pred));
                }
                _ => return None,
            }
        } else if h.root.is_empty() && h.version_param.is_none() {
            return None;
        }
        Some(h)
    }

    /// Resolves the conditions on helpers and constants of `versions`; `indexed` answers the
    /// helpers of indexed packages.
    fn resolve(&self, versions: &mut Vec<(String, Pred)>, indexed: &Indexed) {
        let lookup = |name: &str| match name.strip_prefix(INDEXED_CALL) {
            Some(path) => indexed(path),
            None => self.helpers.get(name).cloned(),
        };
        let constant = |name: &str| self.constants.get(name).and_then(|v| v.clone());
        let value = |name: &str| self.values.get(name).and_then(|v| v.clone());
        let tables = Tables {
            helpers: &lookup,
            constants: &constant,
            values: &value,
        };
        resolve_helpers(versions, &tables);
    }

    /// Resolves the conditions on helpers and constants in one file (copied only when it
    /// calls some); `indexed` answers the helpers of indexed packages.
    pub fn apply(&self, a: &mut Arc<Analyzed>, indexed: &Indexed) {
        let helper_call = |v: &[(String, Pred)]| v.iter().any(|(_, p)| p.has_helper_call());
        let calls_helpers = |a: &Analyzed| {
            let uses = &a.uses;
            uses.uses.iter().any(|u| helper_call(&u.versions))
                || uses.members.iter().any(|m| helper_call(&m.versions))
                || uses.sites.iter().any(|c| helper_call(&c.versions))
                || uses.calls.iter().any(|c| helper_call(&c.versions))
                || uses
                    .project_imports
                    .iter()
                    .any(|c| helper_call(&c.versions))
        };
        if !writable(a, calls_helpers) {
            return;
        }
        let resolve = |v: &mut Vec<(String, Pred)>| self.resolve(v, indexed);
        let resolve_boxed = |v: &mut Box<[(String, Pred)]>| {
            if helper_call(v) {
                let mut owned = v.to_vec();
                resolve(&mut owned);
                *v = owned.into_boxed_slice();
            }
        };
        let a = Arc::make_mut(a);
        for u in &mut a.uses.uses {
            resolve(&mut u.versions);
        }
        for m in &mut a.uses.members {
            resolve(&mut m.versions);
        }
        for c in &mut a.uses.sites {
            resolve_boxed(&mut c.versions);
        }
        for c in &mut a.uses.calls {
            resolve_boxed(&mut c.versions);
        }
        for c in &mut a.uses.project_imports {
            resolve_boxed(&mut c.versions);
        }
    }
}

/// Each name with its value where every entry of that name agrees on it (`None` otherwise).
fn agreed<'a, V: PartialEq>(
    entries: impl Iterator<Item = (&'a str, V)>,
) -> HashMap<&'a str, Option<V>> {
    let mut out: HashMap<&str, Option<V>> = HashMap::default();
    for (name, value) in entries {
        match out.get_mut(name) {
            Some(known) => {
                if known.as_ref() != Some(&value) {
                    *known = None;
                }
            }
            None => {
                out.insert(name, Some(value));
            }
        }
    }
    out
}

/// Whether a file may be changed: it is not shared (a check without [`crate::warm`]: changed
/// in place, nothing scanned first), or `changes` says something will be added (then it is
/// copied by `Arc::make_mut`).
pub(crate) fn writable(a: &mut Arc<Analyzed>, changes: impl FnOnce(&Analyzed) -> bool) -> bool {
    Arc::get_mut(a).is_some() || changes(a)
}

/// The previous check's tables and results, by file.
#[derive(Default)]
pub(crate) struct LinkMemo {
    tables: Option<(Helpers, Presence)>,
    files: HashMap<PathBuf, Linked>,
}

/// One file as walked, after the tables, and its covers and final result.
struct Linked {
    walked: Arc<Analyzed>,
    resolved: Arc<Analyzed>,
    covers: FileCovers,
    linked: Arc<Analyzed>,
}

/// Whether two walks of a file give the tables the same entries.
fn tells_tables_the_same(a: &Analyzed, b: &Analyzed) -> bool {
    a.uses.helpers == b.uses.helpers
        && a.uses.constants == b.uses.constants
        && a.uses.values == b.uses.values
        && a.uses.presence == b.uses.presence
}

/// The helpers of indexed packages, by path ([`crate::indexed_helpers::Indexed::helper`]).
pub type Indexed<'a> = dyn Fn(&str) -> Option<VersionHelper> + Send + Sync + 'a;

/// Adds to every file what the others tell it (see the module documentation); `indexed`
/// answers the helpers of indexed packages.
pub fn link(files: &mut [Arc<Analyzed>], indexed: &Indexed) {
    link_with(files, None, indexed);
}

pub(crate) fn link_with(
    files: &mut [Arc<Analyzed>],
    mut memo: Option<&mut LinkMemo>,
    indexed: &Indexed,
) {
    // The tables are the previous check's when every file says the same to them.
    let kept_tables = memo.as_deref_mut().and_then(|m| {
        let same = m.files.len() == files.len()
            && files.iter().all(|f| {
                m.files.get(&f.path).is_some_and(|l| {
                    Arc::ptr_eq(&l.walked, f) || tells_tables_the_same(&l.walked, f)
                })
            });
        if same {
            m.tables.take()
        } else {
            None
        }
    });
    let reused = kept_tables.is_some();
    let tables = kept_tables.unwrap_or_else(|| (Helpers::new(files), Presence::new(files)));
    // The previous results after the tables hold when the tables are the same.
    let previous = memo
        .as_deref()
        .filter(|m| reused || m.tables.as_ref() == Some(&tables));
    // Kept for the memo only: a second reference makes every change a copy.
    let keep = |files: &[Arc<Analyzed>]| -> Vec<Arc<Analyzed>> {
        if memo.is_some() {
            files.to_vec()
        } else {
            Vec::new()
        }
    };
    let walked = keep(files);
    // Each file on its own (on the caller's pool, when it runs in one).
    files.par_iter_mut().for_each(|f| {
        let kept = previous
            .and_then(|m| m.files.get(&f.path))
            .filter(|l| Arc::ptr_eq(&l.walked, f));
        match kept {
            Some(l) => *f = Arc::clone(&l.resolved),
            None => {
                tables.0.apply(f, indexed);
                tables.1.apply(f);
            }
        }
    });
    let resolved = keep(files);
    let covers = crate::callers::file_covers(files);
    let linked = memo.as_deref();
    files.par_iter_mut().zip(&covers).for_each(|(f, c)| {
        let kept = linked
            .and_then(|m| m.files.get(&f.path))
            .filter(|l| Arc::ptr_eq(&l.resolved, f) && l.covers == *c);
        match kept {
            Some(l) => *f = Arc::clone(&l.linked),
            None => crate::callers::apply(f, c),
        }
    });
    if let Some(m) = memo {
        m.tables = Some(tables);
        m.files = walked
            .into_iter()
            .zip(resolved)
            .zip(covers)
            .zip(files.iter())
            .map(|(((walked, resolved), covers), linked)| {
                (
                    walked.path.clone(),
                    Linked {
                        walked,
                        resolved,
                        covers,
                        linked: Arc::clone(linked),
                    },
                )
            })
            .collect();
    }
}
