//! The top-level modules the build reads from each embedded index's header are the ones the
//! decoded index has (the catalog answers `roots` and `package_for_module` from the table,
//! decoding nothing).

use apicompat::{EMBEDDED, EMBEDDED_ROOTS};
use apicompat_index::{Catalog, PackageIndex};

#[test]
fn the_build_time_roots_are_the_decoded_ones() {
    assert_eq!(EMBEDDED_ROOTS.len(), EMBEDDED.len());
    for (name, bytes) in EMBEDDED {
        let decoded = PackageIndex::from_bytes(bytes)
            .expect("embedded index")
            .roots();
        let table: Vec<String> = EMBEDDED_ROOTS
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.iter().map(|s| s.to_string()).collect())
            .expect("a row per embedded index");
        assert_eq!(table, decoded, "{name}");
    }
    // Asked through the catalog, the table answers; a module finds its package.
    let catalog = Catalog::open(EMBEDDED, None).with_embedded_roots(EMBEDDED_ROOTS);
    assert!(catalog
        .roots("torch")
        .expect("roots")
        .contains(&"torch".to_string()));
    let view = catalog
        .package_for_module("torch.distributed")
        .expect("readable")
        .expect("found");
    assert_eq!(view.name(), "torch");
}
