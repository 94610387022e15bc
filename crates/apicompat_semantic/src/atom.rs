//! Interned names: every identifier the model keeps is stored once per process and shared
//! (`&'static str`), instead of one heap string per occurrence (the facts of a 1 M-line
//! project held ~1.5 M small strings). The table only grows with distinct names; it lives
//! until the process ends.

use std::cell::RefCell;
use std::sync::{Mutex, OnceLock};

use apicompat_hash::HashSet;

/// An interned name.
pub type Atom = &'static str;

fn table() -> &'static Mutex<HashSet<&'static str>> {
    static TABLE: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashSet::default()))
}

thread_local! {
    /// Names this thread has interned already: most lookups take no lock.
    static LOCAL: RefCell<HashSet<&'static str>> = RefCell::new(HashSet::default());
}

/// The interned copy of `s`.
pub fn atom(s: &str) -> Atom {
    if let Some(a) = LOCAL.with(|l| l.borrow().get(s).copied()) {
        return a;
    }
    let a = {
        let mut t = table().lock().unwrap_or_else(|e| e.into_inner());
        match t.get(s) {
            Some(a) => *a,
            None => {
                let leaked: &'static str = Box::leak(s.to_string().into_boxed_str());
                t.insert(leaked);
                leaked
            }
        }
    };
    LOCAL.with(|l| l.borrow_mut().insert(a));
    a
}

/// The interned copy of `s` if some thread interned it already, without interning it: a name
/// never interned is in no map keyed by atoms.
pub fn interned(s: &str) -> Option<Atom> {
    if let Some(a) = LOCAL.with(|l| l.borrow().get(s).copied()) {
        return Some(a);
    }
    let a = {
        let t = table().lock().unwrap_or_else(|e| e.into_inner());
        t.get(s).copied()
    }?;
    LOCAL.with(|l| l.borrow_mut().insert(a));
    Some(a)
}

/// An atom's identity: equal for equal names, as atoms are unique.
pub fn identity(a: Atom) -> usize {
    a.as_ptr() as usize
}
