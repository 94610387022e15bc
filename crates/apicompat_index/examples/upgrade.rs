//! Rewrites format-2 index files in the current format, in place (the lookups by last segment
//! appended; everything else unchanged), and the indexes inside a data file (`.apid`, packed
//! again): `cargo run --release -p apicompat_index --example upgrade --
//! crates/apicompat/index/*.apix crates/apicompat/wheel-data/scripts/apicompat-stack.apid`.
//! The result equals what `index build` (and `index pack`) write from the same surfaces.

use std::path::Path;

use apicompat_index::datafile::{self, DataFile};
use apicompat_index::PackageIndex;

/// The index bytes in the current format (`None`: already current).
fn upgraded(bytes: &[u8]) -> Result<Option<Vec<u8>>, String> {
    PackageIndex::from_bytes(bytes)
        .and_then(|index| index.upgraded())
        .map_err(|e| e.to_string())
}

fn upgrade_data_file(path: &Path) -> Result<String, String> {
    let (toc, _) = datafile::read_toc(path)?;
    let file = DataFile::open(path, &toc)?;
    let mut packed = Vec::new();
    let mut changed = 0;
    for entry in &file.entries {
        let bytes = file.read(entry)?;
        let bytes = match upgraded(&bytes).map_err(|e| format!("{}: {e}", entry.package))? {
            Some(new) => {
                changed += 1;
                new
            }
            None => bytes,
        };
        packed.push((entry.package.clone(), bytes));
    }
    if changed == 0 {
        return Ok("current".into());
    }
    let bytes = datafile::write(packed)?;
    std::fs::write(path, &bytes).map_err(|e| e.to_string())?;
    Ok(format!(
        "{changed} index(es) upgraded ({} bytes)",
        bytes.len()
    ))
}

fn main() {
    let mut failed = false;
    for arg in std::env::args().skip(1) {
        let path = Path::new(&arg);
        let result = if path.extension().is_some_and(|e| e == "apid") {
            upgrade_data_file(path)
        } else {
            std::fs::read(path)
                .map_err(|e| e.to_string())
                .and_then(|bytes| upgraded(&bytes))
                .and_then(|new| match new {
                    Some(bytes) => std::fs::write(path, &bytes)
                        .map(|()| format!("upgraded ({} bytes)", bytes.len()))
                        .map_err(|e| e.to_string()),
                    None => Ok("current".into()),
                })
        };
        match result {
            Ok(what) => println!("{arg}: {what}"),
            Err(e) => {
                eprintln!("{arg}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
