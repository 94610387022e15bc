//! Assignments of the project that restore a package's path (`numpy.float = numpy.float_`).

use apicompat_hash::HashMap;

use crate::collect::Use;

/// Names the project puts back on a package, anywhere (RecBole's `np.float = np.float_` in
/// `Config.compatibility_settings()`, called by `Config.__init__`; `np.float = float`): a read of
/// the path does not fail where the assignment works, that is where the module is not closed
/// for writes and the value assigned, when it is another path of the package, exists. The
/// assignment is taken to run before the reads, as the project means it to; a path assigned two
/// different values counts neither (`docs/false-alarm-study-19.md`, F-B). Other values (the
/// project's own functions) are patches, whose reads of the original are judged as usual.
#[derive(Default)]
pub struct Restores {
    by_path: HashMap<String, Restore>,
}

pub(super) struct Restore {
    /// The value's path (`None`: a builtin class, which any release accepts).
    pub(super) value: Option<String>,
    /// `` `numpy.float = numpy.float_` (recbole/config/configurator.py:630) ``.
    note: String,
}

impl Restores {
    /// From every assignment of the project: (path, value path, where as shown).
    pub fn new(stores: impl IntoIterator<Item = (String, Option<String>, String)>) -> Restores {
        let mut by_path: HashMap<String, Restore> = HashMap::default();
        let mut conflicting: Vec<String> = Vec::new();
        for (path, value, at) in stores {
            let note = match &value {
                Some(v) => format!("`{path} = {v}` ({at})"),
                None => format!("`{path} = <builtin>` ({at})"),
            };
            match by_path.get(&path) {
                Some(r) if r.value != value => conflicting.push(path),
                Some(_) => {}
                None => {
                    by_path.insert(path, Restore { value, note });
                }
            }
        }
        for p in conflicting {
            by_path.remove(&p);
        }
        Restores { by_path }
    }

    pub(super) fn get(&self, u: &Use) -> Option<&Restore> {
        if u.kind == crate::collect::UseKind::Store || self.by_path.is_empty() {
            return None;
        }
        self.by_path.get(&u.path)
    }

    /// Where a read of `path` is guarded by an assignment of the project, as shown.
    pub fn note(&self, path: &str) -> Option<&str> {
        self.by_path.get(path).map(|r| r.note.as_str())
    }
}
