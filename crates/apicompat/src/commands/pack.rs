//! `apicompat index pack`: writes the data file (`apicompat_index::datafile`) from indexes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::{CmdResult, Failure};

/// Packs `indexes` (`NAME.apix` files; the package is the file name) into `output`.
pub fn run(indexes: &[PathBuf], output: &Path) -> CmdResult {
    let mut read = Vec::new();
    for path in indexes {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".apix"))
            .ok_or_else(|| Failure::usage(format!("{}: not a NAME.apix file", path.display())))?;
        apicompat_index::cache::check_package_name(name)
            .map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
        let bytes =
            std::fs::read(path).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
        read.push((name.to_string(), bytes));
    }
    let data = apicompat_index::datafile::write(read).map_err(Failure::usage)?;
    std::fs::write(output, &data)
        .map_err(|e| Failure::usage(format!("{}: {e}", output.display())))?;
    eprintln!(
        "wrote {} ({} bytes, {} packages)",
        output.display(),
        data.len(),
        indexes.len()
    );
    Ok(ExitCode::SUCCESS)
}
