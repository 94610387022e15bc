//! The version helpers of a release being indexed (`index build`, `index fetch`), stored on
//! their symbols: the checker reads the release's sources with the walk that reads a
//! project's own helpers (`apicompat_check::indexed_helpers`), so a project that calls
//! `diffusers.utils.is_torch_version(">=", "2.1")` is guarded as by its own helper.

use apicompat_archive::SourceTree;
use apicompat_hash::HashSet;
use apicompat_surface::Surface;

/// Sets [`apicompat_surface::Symbol::version_helper`] on the functions and flags of
/// `surface` that the release's sources define as version helpers. The packages a helper may
/// compare the version of are those the shipped indexes know, other than the release's own
/// (its modules are read as a project's: its own imports of itself are its code).
pub fn attach(tree: &SourceTree, surface: &mut Surface) {
    let catalog = apicompat::embedded_catalog();
    let mut roots: HashSet<String> = HashSet::default();
    for name in catalog.names() {
        roots.extend(catalog.roots(name).unwrap_or_default());
    }
    for own in &tree.top_level {
        roots.remove(own);
    }
    let files: Vec<(String, &[u8])> = tree
        .files
        .iter()
        .map(|f| (f.path.clone(), f.data.as_slice()))
        .collect();
    for (path, json) in apicompat_check::indexed_helpers::package_version_helpers(&files, &roots) {
        if let Some(symbol) = surface.symbols.get_mut(&path) {
            symbol.version_helper = Some(json);
        }
    }
}
