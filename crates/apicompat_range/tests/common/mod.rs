//! Helpers shared by the integration tests: fixture projects on disk and the indexes embedded
//! in the CLI.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use apicompat_index::Catalog;

/// Writes `files` into a fresh directory `<tmp>/<group>/<name>`.
pub fn project(group: &str, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
    }
    dir
}

/// The indexes of `names` embedded in the CLI (`crates/apicompat/index/*.apix`, committed
/// with the repository): each of `required` must be there.
pub fn embedded_catalog(names: &[&str], required: &[&str]) -> Catalog {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../apicompat/index");
    let mut embedded: Vec<(&'static str, &'static [u8])> = Vec::new();
    for name in names {
        if let Ok(bytes) = std::fs::read(format!("{dir}/{name}.apix")) {
            let name: &'static str = Box::leak(name.to_string().into_boxed_str());
            embedded.push((name, Box::leak(bytes.into_boxed_slice())));
        }
    }
    for name in required {
        assert!(
            embedded.iter().any(|(n, _)| n == name),
            "no {name} index at {dir}: it is part of the repository"
        );
    }
    Catalog::open(Box::leak(embedded.into_boxed_slice()), None)
}
