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
//! says, when they all agree (a release whose function is not read as a helper, or reads as
//! another, leaves the condition not understood: the use is judged as if it were not
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
        let mut agreed: Option<String> = None;
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
            match &agreed {
                Some(a) if *a != text => return None,
                Some(_) => {}
                None => agreed = Some(text),
            }
        }
        serde_json::from_str(&agreed?).ok()
    }
}
