//! Embeds every package index under `index/` (`NAME.apix`) into the binary.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("index");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let name = e.file_name().to_str()?.strip_suffix(".apix")?.to_string();
                    println!("cargo:rerun-if-changed={}", e.path().display());
                    Some(name)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut code =
        String::from("/// Package indexes embedded at build time: (package, compressed index).\n");
    code.push_str("pub static EMBEDDED: &[(&str, &[u8])] = &[\n");
    for name in names {
        let path = dir.join(format!("{name}.apix"));
        let _ = writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        );
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("embedded.rs");
    if let Err(e) = std::fs::write(&out, code) {
        panic!("cannot write {}: {e}", out.display());
    }
}
