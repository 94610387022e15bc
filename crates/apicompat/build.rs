//! Embeds every package index under `index/` (`NAME.apix`) and the table of requirements
//! (`requirements.apir`) into the binary, and the table of
//! contents of the data file `wheel-data/scripts/apicompat-stack.apid` (the indexes shipped
//! beside the binary), which it copies next to the binary in cargo's output directory.

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
    for name in &names {
        let path = dir.join(format!("{name}.apix"));
        let _ = writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        );
    }
    code.push_str("];\n");
    code.push_str(
        "/// The top-level modules of each embedded index, read from its header at build time.\n",
    );
    code.push_str("pub static EMBEDDED_ROOTS: &[(&str, &[&str])] = &[\n");
    for name in &names {
        let roots = std::fs::read(dir.join(format!("{name}.apix")))
            .ok()
            .and_then(|b| header_roots(&b));
        // An index whose header cannot be read gets no entry: it is decoded when asked.
        if let Some(roots) = roots {
            let _ = writeln!(code, "    ({name:?}, &{roots:?}),");
        }
    }
    code.push_str("];\n");
    // What packages without a surface require (`apicompat index requirements`).
    let table = dir.join("requirements.apir");
    println!("cargo:rerun-if-changed={}", table.display());
    code.push_str("/// The table of requirements of packages without a surface (empty: none).\n");
    if table.is_file() {
        let _ = writeln!(
            code,
            "pub static REQUIREMENTS: &[u8] = include_bytes!({:?});",
            table.display().to_string()
        );
    } else {
        code.push_str("pub static REQUIREMENTS: &[u8] = &[];\n");
    }
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    data_file(&mut code, &out_dir);
    let out = out_dir.join("embedded.rs");
    if let Err(e) = std::fs::write(&out, code) {
        panic!("cannot write {}: {e}", out.display());
    }
}

/// The data file's name, table of contents and source path as constants; a copy beside the
/// binary (`OUT_DIR` is `<target>/<profile>/build/<crate>/out`).
fn data_file(code: &mut String, out_dir: &std::path::Path) {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let name = "apicompat-stack.apid";
    let path = manifest.join("wheel-data/scripts").join(name);
    println!("cargo:rerun-if-changed={}", path.display());
    let toc = std::fs::read(&path)
        .ok()
        .and_then(|b| table_of_contents(&b));
    let _ = writeln!(
        code,
        "/// The data file's name.\npub static DATA_FILE_NAME: &str = {name:?};"
    );
    let _ = writeln!(
        code,
        "/// Where the data file was at build time (a build from a checkout finds it there).\npub static DATA_FILE_SOURCE: &str = {:?};",
        path.display().to_string()
    );
    let _ = writeln!(
        code,
        "/// The data file's table of contents (empty: this build has no data file).\npub static DATA_TOC: &str = {:?};",
        toc.as_deref().unwrap_or("")
    );
    if toc.is_some() {
        if let Some(profile) = out_dir.ancestors().nth(3) {
            let dest = profile.join(name);
            let same = std::fs::metadata(&dest).ok().map(|m| m.len())
                == std::fs::metadata(&path).ok().map(|m| m.len())
                && std::fs::read(&dest).ok() == std::fs::read(&path).ok();
            if !same {
                let _ = std::fs::copy(&path, &dest);
            }
        }
    }
}

/// The table of contents of a data file (`apicompat_index::datafile`): magic, u64 length, text.
fn table_of_contents(bytes: &[u8]) -> Option<String> {
    if bytes.get(..8)? != b"APICDAT\x01" {
        return None;
    }
    let len = u64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?) as usize;
    String::from_utf8(bytes.get(16..16usize.checked_add(len)?)?.to_vec()).ok()
}

/// The `roots` of an index file's header (format.rs: magic, format byte, u32 header length,
/// JSON header, inside the lz4 block).
fn header_roots(compressed: &[u8]) -> Option<Vec<String>> {
    let data = lz4_flex::decompress_size_prepended(compressed).ok()?;
    let len = u32::from_le_bytes(data.get(8..12)?.try_into().ok()?) as usize;
    let header: serde_json::Value = serde_json::from_slice(data.get(12..12 + len)?).ok()?;
    header
        .get("roots")?
        .as_array()?
        .iter()
        .map(|r| r.as_str().map(str::to_string))
        .collect()
}
