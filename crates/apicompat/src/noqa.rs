//! `check --add-noqa`: the comments written into the project's files
//! (`apicompat_check::add_noqa` decides the text).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use apicompat_check::Report;

/// Writes `# noqa: CODE` for every finding of `report` (after a baseline: only the new
/// ones). Returns (codes added, files changed, lines refused as messages). A file that changed
/// since it was checked, or that was read with replacement characters, is left alone.
pub fn write_all(report: &Report) -> Result<(usize, usize, Vec<String>), String> {
    let mut wanted: BTreeMap<&PathBuf, BTreeMap<u32, BTreeSet<String>>> = BTreeMap::new();
    for f in &report.findings {
        // Findings without a line of Python (unreadable files, AC008 in requirement files).
        if f.line == 0 || !f.path.extension().is_some_and(|x| x == "py" || x == "pyi") {
            continue;
        }
        wanted
            .entry(&f.path)
            .or_default()
            .entry(f.line)
            .or_default()
            .insert(f.code.to_string());
    }
    let (mut added, mut files, mut refused) = (0, 0, Vec::new());
    for (path, lines) in wanted {
        let shown = apicompat_render::display_path(path);
        let Some(source) = report.sources.get(path) else {
            continue;
        };
        let on_disk = apicompat_requirements::read_regular_file(path, u64::MAX >> 1);
        if !on_disk.is_ok_and(|b| b == source.as_bytes()) {
            refused.push(format!(
                "{shown}: changed since it was checked, or not valid UTF-8: not edited"
            ));
            continue;
        }
        let edit = apicompat_check::add_noqa::add_noqa(source, &lines);
        for l in &edit.refused {
            refused.push(format!(
                "{shown}:{l}: the line ends inside a string or a `\\` continuation: no noqa comment can go there"
            ));
        }
        if edit.added > 0 {
            std::fs::write(path, &edit.text).map_err(|e| format!("cannot write `{shown}`: {e}"))?;
            added += edit.added;
            files += 1;
        }
    }
    Ok((added, files, refused))
}
