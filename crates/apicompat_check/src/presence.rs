//! Functions whose true result says paths exist (`collect/reads.rs`), across the project.
//!
//! ```python
//! def is_bnb_4bit_available():            # peft/import_utils.py
//!     if not is_bnb_available():
//!         return False
//!     import bitsandbytes as bnb
//!     return hasattr(bnb.nn, "Linear4bit")
//!
//! if is_bnb_4bit_available():             # any module: bnb.nn.Linear4bit exists here
//!     ...
//! ```
//!
//! Each top-level function records what every `return` of a value that is not `False`/`None`
//! tests or reads for sure (what all of them agree on). A test that calls a function by name
//! leaves a mark (`name()`) in the uses' requirements; once every file is read the mark is
//! replaced by what the function of that name implies, when every module that defines a
//! top-level function of that name agrees, and dropped otherwise. The implication goes one
//! way: under `not f()` nothing is assumed.

use apicompat_hash::HashMap;
use std::sync::Arc;

use crate::collect::PathTest;
use crate::files::Analyzed;

/// The mark of a call of the project function `name` in a test.
pub fn mark(name: &str) -> String {
    format!("{name}()")
}

fn marked(t: &PathTest) -> Option<&str> {
    t.path.strip_suffix("()")
}

/// What each project function's true result implies, by name (the names whose functions
/// agree).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Presence {
    table: HashMap<String, Vec<PathTest>>,
}

impl Presence {
    pub fn new(analyzed: &[Arc<Analyzed>]) -> Presence {
        let mut table: HashMap<&str, Option<&[PathTest]>> = HashMap::default();
        for a in analyzed.iter() {
            for (name, tests) in &a.uses.presence {
                table
                    .entry(name.as_str())
                    .and_modify(|known| {
                        if *known != Some(&tests[..]) {
                            *known = None;
                        }
                    })
                    .or_insert(Some(&tests[..]));
            }
        }
        Presence {
            table: table
                .into_iter()
                .filter_map(|(n, t)| Some((n.to_string(), t?.to_vec())))
                .collect(),
        }
    }

    fn expand(&self, requires: &[PathTest]) -> Option<Vec<PathTest>> {
        if !has_marks(requires) {
            return None;
        }
        let mut out: Vec<PathTest> = Vec::with_capacity(requires.len());
        for t in requires {
            let found = match marked(t) {
                Some(name) => self.table.get(name).map(Vec::as_slice).unwrap_or(&[]),
                None => std::slice::from_ref(t),
            };
            for f in found {
                // A function's own marks are not followed further.
                if marked(f).is_none() && !out.contains(f) {
                    out.push(f.clone());
                }
            }
        }
        Some(out)
    }

    /// Replaces the marks of function calls in a file's requirements, and in the paths its
    /// calls and imports of the project's own code know to exist (the file is copied only when
    /// it has some).
    pub fn apply(&self, a: &mut Arc<Analyzed>) {
        rewrite_requires(a, has_marks, |r| self.expand(r));
        let marked = |has: &[String]| has.iter().any(|h| h.ends_with("()"));
        let sites = |a: &Analyzed| {
            a.uses.calls.iter().any(|c| marked(&c.has))
                || a.uses.project_imports.iter().any(|i| marked(&i.has))
        };
        if !crate::link::writable(a, sites) {
            return;
        }
        let a = Arc::make_mut(a);
        let expand = |has: &mut Box<[String]>| {
            if !marked(has) {
                return;
            }
            let mut out: Vec<String> = Vec::with_capacity(has.len());
            for h in has.iter() {
                let mark = h
                    .strip_prefix(crate::callers::READ)
                    .and_then(|m| m.strip_suffix("()"));
                match mark {
                    Some(name) => {
                        let tests = self.table.get(name).map(Vec::as_slice).unwrap_or(&[]);
                        for t in tests {
                            let plain = t.present && !t.instance && t.alternatives.is_empty();
                            let read = format!("{}{}", crate::callers::READ, t.path);
                            if plain && !t.path.ends_with("()") && !out.contains(&read) {
                                out.push(read);
                            }
                        }
                    }
                    None if !out.contains(h) => out.push(h.clone()),
                    None => {}
                }
            }
            *has = out.into_boxed_slice();
        };
        for c in &mut a.uses.calls {
            expand(&mut c.has);
        }
        for i in &mut a.uses.project_imports {
            expand(&mut i.has);
        }
    }
}

/// Rewrites the requirements of a file's uses, members and sites that `marked` finds by
/// `expand`; the file is copied only when some are (`crate::link::writable`).
pub(crate) fn rewrite_requires(
    a: &mut Arc<Analyzed>,
    marked: impl Fn(&[PathTest]) -> bool,
    mut expand: impl FnMut(&[PathTest]) -> Option<Vec<PathTest>>,
) {
    let marks = |a: &Analyzed| {
        let uses = &a.uses;
        uses.uses.iter().any(|u| marked(&u.requires))
            || uses.members.iter().any(|m| marked(&m.requires))
            || uses.sites.iter().any(|s| marked(&s.requires))
    };
    if !crate::link::writable(a, marks) {
        return;
    }
    let a = Arc::make_mut(a);
    for u in &mut a.uses.uses {
        if let Some(r) = expand(&u.requires) {
            u.requires = r;
        }
    }
    for m in &mut a.uses.members {
        if let Some(r) = expand(&m.requires) {
            m.requires = r;
        }
    }
    for s in &mut a.uses.sites {
        if let Some(r) = expand(&s.requires) {
            s.requires = r.into_boxed_slice();
        }
    }
}

fn has_marks(requires: &[PathTest]) -> bool {
    requires.iter().any(|t| marked(t).is_some())
}
