//! Rewrites format-2 index files in the current format, in place (the lookups by last segment
//! appended; everything else unchanged): `cargo run --release -p apicompat_index --example
//! upgrade -- crates/apicompat/index/*.apix`. The result equals what `index build` writes from
//! the same surfaces.

use apicompat_index::PackageIndex;

fn main() {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let result = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| PackageIndex::from_bytes(&bytes).map_err(|e| e.to_string()))
            .and_then(|index| index.upgraded().map_err(|e| e.to_string()));
        match result {
            Ok(Some(bytes)) => match std::fs::write(&path, &bytes) {
                Ok(()) => println!("{path}: upgraded ({} bytes)", bytes.len()),
                Err(e) => {
                    eprintln!("{path}: {e}");
                    failed = true;
                }
            },
            Ok(None) => println!("{path}: current"),
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
