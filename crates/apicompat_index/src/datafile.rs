//! The data file: package indexes shipped beside the binary instead of inside it, read lazily.
//!
//! ```text
//! "APICDAT" u8(1)        magic and format
//! u64 toc length, toc    UTF-8, one line per package (sorted by name):
//!                        name \t roots (comma-separated) \t versions (comma-separated)
//!                        \t offset \t length \t sha256 (hex) of the index bytes
//! payload                the indexes (`.apix` bytes), at their offsets from the payload start
//! ```
//!
//! The binary carries the table of contents it was built with (`build.rs`): a file whose table
//! differs belongs to another build and is not used. Opening reads only the table; a package's
//! bytes are read and decoded when the package is first used, so a project that imports none
//! of them pays nothing. The sha256 of the table names each index's bytes (two builds with the
//! same table have the same indexes); damaged bytes are refused when decoded, by the index's
//! own CRC-32 and a size check before decompressing ([`PackageIndex::from_bytes`]): hashing
//! them again on every run cost more than decoding them. Nothing here panics on a damaged
//! file.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::PackageIndex;

pub const MAGIC: &[u8; 8] = b"APICDAT\x01";
/// A table of contents longer than this is not read (a damaged length cannot ask for gigabytes).
const MAX_TOC: u64 = 1 << 20;

/// One package of the data file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataEntry {
    pub package: String,
    pub roots: Vec<String>,
    pub versions: Vec<String>,
    offset: u64,
    length: u64,
    sha256: String,
}

/// Parses a table of contents (the binary's own copy or the one read from a file).
pub fn parse_toc(toc: &str) -> Result<Vec<DataEntry>, String> {
    let list = |s: &str| -> Vec<String> {
        s.split(',')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    };
    toc.lines()
        .filter(|l| !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            let [package, roots, versions, offset, length, sha256] = f[..] else {
                return Err(format!("bad table line {line:?}"));
            };
            let number = |s: &str| s.parse::<u64>().map_err(|e| format!("{line:?}: {e}"));
            Ok(DataEntry {
                package: package.to_string(),
                roots: list(roots),
                versions: list(versions),
                offset: number(offset)?,
                length: number(length)?,
                sha256: sha256.to_string(),
            })
        })
        .collect()
}

/// Writes a data file from (package, index bytes), in name order. The same indexes give the
/// same bytes.
pub fn write(mut indexes: Vec<(String, Vec<u8>)>) -> Result<Vec<u8>, String> {
    indexes.sort();
    let mut toc = String::new();
    let mut payload = Vec::new();
    for (name, bytes) in &indexes {
        let index = PackageIndex::from_bytes(bytes).map_err(|e| format!("{name}: {e}"))?;
        let versions: Vec<String> = index.versions().iter().map(|v| v.to_string()).collect();
        toc.push_str(&format!(
            "{name}\t{}\t{}\t{}\t{}\t{}\n",
            index.roots().join(","),
            versions.join(","),
            payload.len(),
            bytes.len(),
            hex(&Sha256::digest(bytes))
        ));
        payload.extend_from_slice(bytes);
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(toc.len() as u64).to_le_bytes());
    out.extend_from_slice(toc.as_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The table of contents of the data file at `path`.
pub fn read_toc(path: &Path) -> Result<(String, u64), String> {
    let mut file = File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
    let mut head = [0u8; 16];
    file.read_exact(&mut head)
        .map_err(|e| format!("cannot read its header: {e}"))?;
    if &head[..8] != MAGIC {
        return Err("not an apicompat data file".into());
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&head[8..]);
    let len = u64::from_le_bytes(len);
    if len > MAX_TOC {
        return Err(format!("table of contents of {len} bytes"));
    }
    let mut toc = Vec::new();
    file.by_ref()
        .take(len)
        .read_to_end(&mut toc)
        .map_err(|e| format!("cannot read its table of contents: {e}"))?;
    if toc.len() as u64 != len {
        return Err("cut short in its table of contents".into());
    }
    let toc = String::from_utf8(toc).map_err(|_| "table of contents is not UTF-8".to_string())?;
    Ok((toc, 16 + len))
}

/// A data file whose table of contents matches the binary's: its packages can be read.
#[derive(Debug)]
pub struct DataFile {
    pub path: PathBuf,
    pub entries: Vec<DataEntry>,
    payload_start: u64,
}

impl DataFile {
    /// Opens the file at `path` and compares its table with `expected` (the binary's).
    pub fn open(path: &Path, expected: &str) -> Result<DataFile, String> {
        let (toc, payload_start) = read_toc(path)?;
        if toc != expected {
            return Err("it belongs to another build of apicompat (its table of contents differs from this binary's)".into());
        }
        Ok(DataFile {
            path: path.to_path_buf(),
            entries: parse_toc(&toc)?,
            payload_start,
        })
    }

    /// The bytes of one package's index (checked when decoded).
    pub fn read(&self, entry: &DataEntry) -> Result<Vec<u8>, String> {
        let mut file = File::open(&self.path).map_err(|e| format!("cannot open it: {e}"))?;
        let start = self
            .payload_start
            .checked_add(entry.offset)
            .ok_or("offset out of range")?;
        file.seek(SeekFrom::Start(start))
            .map_err(|e| format!("cannot seek: {e}"))?;
        let mut bytes = Vec::new();
        file.take(entry.length)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read {}: {e}", entry.package))?;
        if bytes.len() as u64 != entry.length {
            return Err(format!("{} is cut short", entry.package));
        }
        Ok(bytes)
    }
}

/// Where the data file is, or why it cannot be used: the packages it should hold are then
/// unavailable (a note names them when a project imports one), never a failed run.
#[derive(Debug)]
pub enum DataSource {
    Ready(DataFile),
    Unavailable {
        entries: Vec<DataEntry>,
        reason: String,
    },
}

impl DataSource {
    /// The first of `candidates` that exists, checked against `expected` (the binary's table).
    pub fn find(candidates: &[PathBuf], expected: &str) -> Option<DataSource> {
        let entries = parse_toc(expected).ok().filter(|e| !e.is_empty())?;
        let Some(path) = candidates.iter().find(|p| p.is_file()) else {
            let looked: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
            return Some(DataSource::Unavailable {
                entries,
                reason: format!(
                    "the data file is missing (looked for {})",
                    looked.join(", ")
                ),
            });
        };
        Some(match DataFile::open(path, expected) {
            Ok(file) => DataSource::Ready(file),
            Err(e) => DataSource::Unavailable {
                entries,
                reason: format!(
                    "the data file {} cannot be used: {e}; it is not trusted",
                    path.display()
                ),
            },
        })
    }
}
