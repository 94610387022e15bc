//! Version helpers of the indexed packages: a package's own `is_torch_version(">=", "2.1")`
//! guards the code of a project that imports it as the same helper written in the project does.
//!
//! ```python
//! from diffusers.utils.torch_utils import is_torch_version   # diffusers 0.25.1
//!
//! if is_torch_version(">=", "2.1"):
//!     torch._inductor.cudagraph_mark_step_begin()            # only on torch >= 2.1
//! ```
//!
//! When a release is indexed, [`package_version_helpers`] reads its sources with the walk that
//! reads the project's own helpers (`collect/helper_calls.rs`, `collect/getters.rs`, the
//! module-level flags of `collect/flags.rs`), resolved across its modules as
//! [`crate::link`] resolves the project's; the helpers it finds are stored on their symbols
//! ([`apicompat_surface::Symbol::version_helper`], a [`VersionHelper`] as JSON). A condition of
//! the project that calls a function of an indexed package, or reads one of its names,
//! leaves a [`crate::versions::Pred::Helper`] named by [`INDEXED_CALL`] and the path;
//! [`Indexed::helper`] answers it with what every release of the package that has the path
//! says, when they all agree, or differ only in how far the helper holds (exact in one release,
//! true-only in another: true-only); a release whose function is not read as a helper, or reads
//! as another, leaves the condition not understood (the use is judged as if it were not
//! conditional).

use std::path::PathBuf;
use std::sync::Mutex;

use apicompat_hash::{HashMap, HashSet};
use apicompat_index::{Catalog, Status};
use apicompat_semantic::ModuleName;

pub use crate::collect::INDEXED_CALL;
use crate::versions::VersionHelper;

/// Files of a release read for helpers, at most.
const MAX_FILES: usize = 20_000;

/// The version helpers a release's sources define at module level: `(path, JSON)`, the path
/// dotted from the module's. `files` are the release's `.py` files by path in the archive
/// (`diffusers/utils/import_utils.py`); `roots` the top-level modules of the indexed packages
/// (a helper compares the version of one of them). Only files that mention a version are read.
pub fn package_version_helpers(
    files: &[(String, &[u8])],
    roots: &HashSet<String>,
) -> Vec<(String, String)> {
    let mentions = |b: &[u8]| b.windows(7).any(|w| w == b"version");
    let sources: Vec<(PathBuf, ModuleName, Vec<u8>)> = files
        .iter()
        .filter(|(path, bytes)| path.ends_with(".py") && mentions(bytes))
        .filter_map(|(path, bytes)| Some((PathBuf::from(path), module_of(path)?, bytes.to_vec())))
        .take(MAX_FILES)
        .collect();
    let Ok(analyzed) = crate::files::analyze_in_memory(sources, roots) else {
        return Vec::new();
    };
    let table = crate::link::Helpers::new(&analyzed);
    let mut out = Vec::new();
    for a in &analyzed {
        let Some(module) = &a.module.name else {
            continue;
        };
        for (name, h) in &a.uses.helpers {
            let Some(h) = h.as_ref().and_then(|h| table.resolved(h)) else {
                continue;
            };
            if let Ok(json) = serde_json::to_string(&h) {
                out.push((format!("{module}.{name}"), json));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The module a file of an archive is (`pkg/sub/mod.py`: `pkg.sub.mod`; `pkg/__init__.py`:
/// `pkg`, a package); `None` for a path that is no module name.
fn module_of(path: &str) -> Option<ModuleName> {
    let stem = path.strip_suffix(".py")?;
    let mut parts: Vec<&str> = stem.split('/').collect();
    let is_package = parts.last() == Some(&"__init__");
    if is_package {
        parts.pop();
    }
    let ident = |p: &&str| {
        !p.is_empty()
            && !p.starts_with(|c: char| c.is_ascii_digit())
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if parts.is_empty() || !parts.iter().all(ident) {
        return None;
    }
    Some(ModuleName {
        name: Some(parts.join(".")),
        is_package,
        aliases: Vec::new(),
    })
}

/// The helpers of the indexed packages a check asks for, each read once.
pub struct Indexed<'a> {
    catalog: Option<&'a Catalog>,
    memo: Mutex<HashMap<String, Option<VersionHelper>>>,
}

impl<'a> Indexed<'a> {
    pub fn new(catalog: Option<&'a Catalog>) -> Indexed<'a> {
        Indexed {
            catalog,
            memo: Mutex::new(HashMap::default()),
        }
    }

    /// The helper at `path` (without [`INDEXED_CALL`]), when every release of its package
    /// that has the path says the same.
    pub fn helper(&self, path: &str) -> Option<VersionHelper> {
        if let Ok(memo) = self.memo.lock() {
            if let Some(h) = memo.get(path) {
                return h.clone();
            }
        }
        let found = self.read(path);
        if let Ok(mut memo) = self.memo.lock() {
            memo.insert(path.to_string(), found.clone());
        }
        found
    }

    fn read(&self, path: &str) -> Option<VersionHelper> {
        let root = path.split('.').next()?;
        let view = self.catalog?.package_for_module(root).ok()??;
        let mut texts: Vec<String> = Vec::new();
        for r in 0..view.releases().len() {
            let text = match view.status(path, r).ok()? {
                Status::Present { symbol, .. } => match symbol.version_helper {
                    Some(t) => t,
                    // A re-export keeps its definition's facts there.
                    None => match &symbol.canonical {
                        Some(c) if c != path => match view.status(c, r).ok()? {
                            Status::Present { symbol, .. } => symbol.version_helper?,
                            _ => return None,
                        },
                        _ => return None,
                    },
                },
                Status::Absent { .. } => continue,
                Status::Unknown { .. } => return None,
            };
            if !texts.contains(&text) {
                texts.push(text);
            }
        }
        let mut agreed: Option<VersionHelper> = None;
        for text in &texts {
            let h: VersionHelper = serde_json::from_str(text).ok()?;
            agreed = Some(match agreed {
                None => h,
                Some(a) => meet(a, h)?,
            });
        }
        agreed
    }
}

/// What two releases' helpers both say: the same helper, or the same but for how far it holds
/// (a flag exact in one release and true-only in another is true-only; a helper one-way in
/// one is one-way).
fn meet(a: VersionHelper, b: VersionHelper) -> Option<VersionHelper> {
    let weak = |h: &VersionHelper| VersionHelper {
        exact: false,
        one_way: true,
        ..h.clone()
    };
    if a == b {
        return Some(a);
    }
    if weak(&a) != weak(&b) {
        return None;
    }
    Some(VersionHelper {
        exact: a.exact && b.exact,
        one_way: a.one_way || b.one_way,
        ..a
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::versions::{Bound, Op, Pred};

    fn flag(root: &str, exact: bool) -> VersionHelper {
        let mut h = VersionHelper::comparison(String::new(), Op::Eq, String::new(), 0);
        h.flag = true;
        h.exact = exact;
        h.implies = Some((
            root.to_string(),
            Pred::Cmp(Op::Ge, Bound::parse_str("2.1").unwrap()),
        ));
        h
    }

    #[test]
    fn releases_differing_in_how_far_a_helper_holds_meet_in_the_weaker() {
        // transformers' `pytorch_utils.is_torch_greater_or_equal_than_2_1`: exact in 4.35 -
        // 4.49, set from a one-way helper from 4.50.
        let met = meet(flag("torch", true), flag("torch", false)).unwrap();
        assert!(!met.exact && !met.one_way);
        assert_eq!(
            meet(flag("torch", true), flag("torch", true)),
            Some(flag("torch", true))
        );
        // Another condition: no helper.
        assert_eq!(meet(flag("torch", true), flag("numpy", true)), None);
    }

    #[test]
    fn archive_paths_name_modules() {
        let m = module_of("diffusers/utils/import_utils.py").unwrap();
        assert_eq!(m.name.as_deref(), Some("diffusers.utils.import_utils"));
        assert!(!m.is_package);
        let p = module_of("diffusers/__init__.py").unwrap();
        assert_eq!((p.name.as_deref(), p.is_package), (Some("diffusers"), true));
        assert!(module_of("diffusers-0.25.1.dist-info/x.py").is_none());
        assert!(module_of("pkg/2d.py").is_none());
        assert!(module_of("pkg/mod.pyi").is_none());
    }
}
