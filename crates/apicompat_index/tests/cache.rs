//! The user's cache never lies and never hides the embedded index: surface checksums, corrupt
//! files moved aside, the embedded release winning over a cached one of the same version,
//! concurrent writers merging under the lock, names checked before they become paths.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use apicompat_index::cache::{check_not_shrinking, check_package_name, Cache};
use apicompat_index::{Catalog, IndexBuilder, Status};
use apicompat_requirements::parse_version;
use apicompat_surface::{Kind, Surface, Symbol};

/// A scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("apicompat-cache-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

fn surface(package: &str, version: &str, names: &[&str]) -> Surface {
    let mut s = Surface {
        package: package.into(),
        version: version.into(),
        ..Surface::default()
    };
    s.symbols.insert(
        package.into(),
        Symbol {
            kind: Some(Kind::Module),
            ..Symbol::default()
        },
    );
    for n in names {
        s.symbols.insert(
            format!("{package}.{n}"),
            Symbol {
                kind: Some(Kind::Function),
                ..Symbol::default()
            },
        );
    }
    s
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn a_flipped_bit_in_a_cached_surface_is_caught_and_moved_aside() {
    let dir = temp("flip");
    let cache = Cache::new(&dir);
    let path = cache
        .write_surface(&surface("pkg", "1.0", &["alpha", "beta"]))
        .unwrap();
    let (ok, errors) = cache.read_surfaces("pkg");
    assert_eq!((ok.len(), errors.len()), (1, 0), "{errors:?}");
    // Flip one bit near the end (inside the compressed JSON's literals).
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.len() - 5;
    bytes[at] ^= 0x01;
    std::fs::write(&path, &bytes).unwrap();
    let (ok, errors) = cache.read_surfaces("pkg");
    assert!(ok.is_empty(), "a damaged surface was accepted");
    assert_eq!(errors.len(), 1);
    assert!(errors[0].contains("checksum mismatch"), "{errors:?}");
    assert!(!path.exists(), "the corrupt file was not moved aside");
    let names = files_in(path.parent().unwrap());
    assert!(
        names.iter().any(|n| n.starts_with("1.0.json.lz4.corrupt-")),
        "{names:?}"
    );
    // Moved aside: no longer read, no longer reported.
    assert_eq!(cache.read_surfaces("pkg").1.len(), 0);
    assert!(!cache.has_surface("pkg", "1.0"));
}

fn embedded(package: &'static str, surfaces: &[Surface]) -> Vec<(&'static str, &'static [u8])> {
    let mut b = IndexBuilder::new(package);
    for s in surfaces {
        b.add(s).unwrap();
    }
    let bytes: &'static [u8] = Box::leak(b.finish().unwrap().into_boxed_slice());
    vec![(package, bytes)]
}

fn present(catalog: &Catalog, path: &str, version: &str) -> bool {
    let view = catalog.package("pkg").unwrap().unwrap();
    let release = view.position(&parse_version(version).unwrap()).unwrap();
    matches!(view.status(path, release).unwrap(), Status::Present { .. })
}

#[test]
fn the_embedded_release_wins_over_a_cached_one_of_the_same_version() {
    let dir = temp("shadow");
    let emb = embedded("pkg", &[surface("pkg", "1.0", &["alpha", "beta", "gamma"])]);
    let cache = Cache::new(&dir);
    cache.write_surface(&surface("pkg", "1.0", &[])).unwrap();
    cache
        .write_surface(&surface("pkg", "2.0", &["delta"]))
        .unwrap();
    cache.rebuild_index("pkg").unwrap();
    let catalog = Catalog::open(&emb, Some(&dir));
    assert!(
        present(&catalog, "pkg.alpha", "1.0"),
        "the cache hid the embedded 1.0"
    );
    assert!(
        present(&catalog, "pkg.delta", "2.0"),
        "the cached 2.0 is missing"
    );
    let view = catalog.package("pkg").unwrap().unwrap();
    let origins: Vec<&str> = view.releases().iter().map(|r| r.origin.as_str()).collect();
    assert_eq!(origins, ["embedded", "cached"]);
}

#[test]
fn a_corrupt_cached_index_is_moved_aside_and_the_embedded_one_answers() {
    let dir = temp("corrupt-index");
    let emb = embedded("pkg", &[surface("pkg", "1.0", &["alpha"])]);
    let cache = Cache::new(&dir);
    let file = cache.index_file("pkg").unwrap();
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, b"garbage, not an index").unwrap();
    let catalog = Catalog::open(&emb, Some(&dir));
    let told = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = told.clone();
    catalog.set_warning_sink(Arc::new(move |w: &str| sink.lock().unwrap().push(w.into())));
    assert!(present(&catalog, "pkg.alpha", "1.0"));
    let warnings = catalog.late_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("moved it to"), "{warnings:?}");
    assert_eq!(*told.lock().unwrap(), warnings);
    assert!(!file.exists());
    assert!(files_in(file.parent().unwrap())
        .iter()
        .any(|n| n.starts_with("pkg.apix.corrupt-")));
    // A package only the cache had: unknown now, not an error.
    let catalog = Catalog::open(&[], Some(&dir));
    assert!(catalog.package("pkg").unwrap().is_none());
}

#[test]
fn concurrent_writers_merge_under_the_lock() {
    for round in 0..3 {
        let dir = temp(&format!("race-{round}"));
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let dir = dir.to_path_buf();
                std::thread::spawn(move || {
                    let cache = Cache::new(&dir);
                    let names: Vec<String> = (0..300).map(|k| format!("f{k}")).collect();
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    cache
                        .write_surface(&surface("pkg", &format!("1.{i}"), &names))
                        .unwrap();
                    cache.rebuild_index("pkg").unwrap();
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let mut versions = Cache::new(&dir).indexed_versions("pkg").unwrap();
        versions.sort();
        let want: Vec<String> = (0..8).map(|i| format!("1.{i}")).collect();
        assert_eq!(versions, want, "round {round}: releases lost");
    }
}

#[test]
fn package_names_are_checked_before_they_become_paths() {
    for bad in [
        "",
        "/abs/path",
        "../..",
        "..",
        "a/b",
        "a\\b",
        "-x",
        "x-",
        ".x",
        "tor ch",
    ] {
        assert!(check_package_name(bad).is_err(), "{bad:?} accepted");
        let cache = Cache::new(&temp("names"));
        assert!(cache.index_file(bad).is_err(), "{bad:?}");
        let mut s = surface("pkg", "1.0", &[]);
        s.package = bad.into();
        assert!(cache.write_surface(&s).is_err(), "{bad:?}");
    }
    for good in ["torch", "a", "Foo.Bar_baz-2", "zope.interface"] {
        assert!(check_package_name(good).is_ok(), "{good:?} refused");
    }
    let cache = Cache::new(&temp("versions"));
    assert!(cache
        .write_surface(&surface("pkg", "../../x", &[]))
        .is_err());
}

#[test]
fn a_surface_that_would_erase_a_release_is_refused() {
    let empty = Surface {
        package: "pkg".into(),
        version: "1.0".into(),
        ..Surface::default()
    };
    let e = check_not_shrinking(&empty, None).unwrap_err();
    assert!(e.contains("no Python module"), "{e}");
    let small = surface("pkg", "1.0", &["a", "b"]);
    assert!(check_not_shrinking(&small, None).is_ok());
    assert!(check_not_shrinking(&small, Some(6)).is_ok());
    let e = check_not_shrinking(&small, Some(7)).unwrap_err();
    assert!(e.contains("3 paths") && e.contains("7"), "{e}");
}
