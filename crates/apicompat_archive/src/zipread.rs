//! A small, defensive ZIP reader (stored and deflate members, ZIP64), usable on a whole
//! archive (file or bytes) and on pieces of one fetched with HTTP Range requests.
//!
//! The pieces: [`find_eocd`] on the tail of the archive, [`parse_zip64_eocd`] when the tail
//! points to a ZIP64 record, [`parse_central_directory`] on the central directory, then
//! [`extract_from_span`] on the bytes starting at a member's local header.

use std::io::{self, Read, Seek, SeekFrom};

const SIG_EOCD: u32 = 0x0605_4b50;
const SIG_ZIP64_LOCATOR: u32 = 0x0706_4b50;
const SIG_ZIP64_EOCD: u32 = 0x0606_4b50;
const SIG_CENTRAL: u32 = 0x0201_4b50;
const SIG_LOCAL: u32 = 0x0403_4b50;

const EOCD_LEN: usize = 22;
const ZIP64_LOCATOR_LEN: usize = 20;
const ZIP64_EOCD_LEN: usize = 56;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;

/// How many bytes at the end of an archive certainly hold the end-of-central-directory record
/// (22 bytes + a comment of at most 65,535 bytes) and the ZIP64 locator before it.
pub const TAIL_LEN: u64 = (EOCD_LEN + 65_535 + ZIP64_LOCATOR_LEN + ZIP64_EOCD_LEN) as u64;

/// Errors of the ZIP reader.
#[derive(Debug, thiserror::Error)]
pub enum ZipError {
    #[error("not a zip archive (no end-of-central-directory record; truncated or another format)")]
    NotZip,
    #[error("truncated zip archive: {0}")]
    Truncated(String),
    #[error("corrupt zip archive: {0}")]
    Corrupt(String),
    #[error("unsupported zip member: {0}")]
    Unsupported(String),
    #[error("member too large: {size} bytes uncompressed (limit {limit})")]
    TooLarge { size: u64, limit: u64 },
    #[error("CRC32 mismatch: expected {expected:08x}, got {actual:08x}")]
    Crc { expected: u32, actual: u32 },
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Where the central directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CdLocation {
    /// Absolute offset of the central directory.
    pub offset: u64,
    pub size: u64,
    /// Number of entries the end record announces.
    pub entries: u64,
}

/// The answer of [`find_eocd`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EocdResult {
    Found(CdLocation),
    /// The archive is ZIP64 and its ZIP64 end record lies before the given tail: read
    /// [`ZIP64_EOCD_LEN`] bytes at this absolute offset and call [`parse_zip64_eocd`].
    NeedZip64Record {
        offset: u64,
    },
}

/// Length of a ZIP64 end-of-central-directory record (fixed part).
pub const ZIP64_RECORD_LEN: u64 = ZIP64_EOCD_LEN as u64;

/// One entry of the central directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CentralEntry {
    /// The raw name (lossy UTF-8), not sanitized.
    pub name: String,
    pub flags: u16,
    pub method: u16,
    pub crc32: u32,
    pub compressed_size: u64,
    pub uncompressed_size: u64,
    pub local_header_offset: u64,
    pub is_dir: bool,
    pub is_symlink: bool,
}

impl CentralEntry {
    pub fn is_encrypted(&self) -> bool {
        self.flags & 1 != 0
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

fn corrupt(what: &str) -> ZipError {
    ZipError::Corrupt(what.to_string())
}

/// Finds the end-of-central-directory record in `tail`, the last bytes of the archive, which
/// start at absolute offset `tail_offset`.
pub fn find_eocd(tail: &[u8], tail_offset: u64) -> Result<EocdResult, ZipError> {
    if tail.len() < EOCD_LEN {
        return Err(ZipError::NotZip);
    }
    let mut pos = tail.len() - EOCD_LEN;
    let found = loop {
        if u32_at(tail, pos) == Some(SIG_EOCD) {
            let comment_len = u16_at(tail, pos + 20).unwrap_or(0) as usize;
            // The comment must fit in what follows; trailing garbage is tolerated.
            if pos + EOCD_LEN + comment_len <= tail.len() {
                break pos;
            }
        }
        if pos == 0 {
            return Err(ZipError::NotZip);
        }
        pos -= 1;
    };
    let entries = u16_at(tail, found + 10).unwrap_or(0) as u64;
    let size = u32_at(tail, found + 12).unwrap_or(0) as u64;
    let offset = u32_at(tail, found + 16).unwrap_or(0) as u64;
    let eocd_abs = tail_offset + found as u64;

    // ZIP64: a locator right before the end record.
    if found >= ZIP64_LOCATOR_LEN
        && u32_at(tail, found - ZIP64_LOCATOR_LEN) == Some(SIG_ZIP64_LOCATOR)
    {
        let loc = found - ZIP64_LOCATOR_LEN;
        let record_abs = u64_at(tail, loc + 8).ok_or_else(|| corrupt("ZIP64 locator"))?;
        if record_abs >= eocd_abs {
            return Err(corrupt("ZIP64 end record after the end record"));
        }
        if record_abs >= tail_offset {
            let rel = (record_abs - tail_offset) as usize;
            let rec = tail
                .get(rel..)
                .ok_or_else(|| corrupt("ZIP64 end record offset"))?;
            return parse_zip64_eocd(rec).map(EocdResult::Found);
        }
        return Ok(EocdResult::NeedZip64Record { offset: record_abs });
    }
    if offset.checked_add(size).is_none_or(|end| end > eocd_abs) {
        return Err(ZipError::Truncated(format!(
            "central directory at {offset}+{size} extends past the end record at {eocd_abs}"
        )));
    }
    Ok(EocdResult::Found(CdLocation {
        offset,
        size,
        entries,
    }))
}

/// Parses a ZIP64 end-of-central-directory record.
pub fn parse_zip64_eocd(rec: &[u8]) -> Result<CdLocation, ZipError> {
    if u32_at(rec, 0) != Some(SIG_ZIP64_EOCD) {
        return Err(corrupt("bad ZIP64 end record signature"));
    }
    let entries = u64_at(rec, 32).ok_or_else(|| ZipError::Truncated("ZIP64 end record".into()))?;
    let size = u64_at(rec, 40).ok_or_else(|| ZipError::Truncated("ZIP64 end record".into()))?;
    let offset = u64_at(rec, 48).ok_or_else(|| ZipError::Truncated("ZIP64 end record".into()))?;
    if offset.checked_add(size).is_none() {
        return Err(corrupt("ZIP64 central directory bounds overflow"));
    }
    Ok(CdLocation {
        offset,
        size,
        entries,
    })
}

/// Parses the central directory (`cd` holds exactly its bytes, or more).
/// Stops at the first entry without a central header signature.
pub fn parse_central_directory(
    cd: &[u8],
    entries_hint: u64,
) -> Result<Vec<CentralEntry>, ZipError> {
    let cap = (entries_hint as usize).min(cd.len() / CENTRAL_LEN);
    let mut out = Vec::with_capacity(cap);
    let mut pos = 0usize;
    while u32_at(cd, pos) == Some(SIG_CENTRAL) {
        let head = cd
            .get(pos..pos + CENTRAL_LEN)
            .ok_or_else(|| ZipError::Truncated("central directory entry".into()))?;
        let version_made_by = u16_at(head, 4).unwrap_or(0);
        let flags = u16_at(head, 8).unwrap_or(0);
        let method = u16_at(head, 10).unwrap_or(0);
        let crc32 = u32_at(head, 16).unwrap_or(0);
        let mut compressed_size = u32_at(head, 20).unwrap_or(0) as u64;
        let mut uncompressed_size = u32_at(head, 24).unwrap_or(0) as u64;
        let name_len = u16_at(head, 28).unwrap_or(0) as usize;
        let extra_len = u16_at(head, 30).unwrap_or(0) as usize;
        let comment_len = u16_at(head, 32).unwrap_or(0) as usize;
        let external = u32_at(head, 38).unwrap_or(0);
        let mut local_header_offset = u32_at(head, 42).unwrap_or(0) as u64;
        let name_start = pos + CENTRAL_LEN;
        let extra_start = name_start + name_len;
        let next = extra_start + extra_len + comment_len;
        let name_bytes = cd
            .get(name_start..extra_start)
            .ok_or_else(|| ZipError::Truncated("central directory name".into()))?;
        let extra = cd
            .get(extra_start..extra_start + extra_len)
            .ok_or_else(|| ZipError::Truncated("central directory extra field".into()))?;
        if next > cd.len() {
            return Err(ZipError::Truncated("central directory comment".into()));
        }
        // ZIP64 extended information: only the fields whose 32-bit value is saturated.
        let mut e = 0usize;
        while e + 4 <= extra.len() {
            let id = u16_at(extra, e).unwrap_or(0);
            let len = u16_at(extra, e + 2).unwrap_or(0) as usize;
            let body = extra.get(e + 4..e + 4 + len).unwrap_or(&[]);
            if id == 0x0001 {
                let mut f = 0usize;
                let mut take = |field: &mut u64| {
                    if *field == 0xFFFF_FFFF {
                        if let Some(v) = u64_at(body, f) {
                            *field = v;
                            f += 8;
                        }
                    }
                };
                take(&mut uncompressed_size);
                take(&mut compressed_size);
                take(&mut local_header_offset);
            }
            e += 4 + len;
        }
        let name = String::from_utf8_lossy(name_bytes).into_owned();
        let unix = version_made_by >> 8 == 3;
        let mode = external >> 16;
        let is_symlink = unix && mode & 0o170000 == 0o120000;
        let is_dir =
            name.ends_with('/') || name.ends_with('\\') || (unix && mode & 0o170000 == 0o040000);
        out.push(CentralEntry {
            name,
            flags,
            method,
            crc32,
            compressed_size,
            uncompressed_size,
            local_header_offset,
            is_dir,
            is_symlink,
        });
        pos = next;
    }
    if out.is_empty() && entries_hint > 0 {
        return Err(corrupt(
            "no central directory entry where the end record says",
        ));
    }
    // Some writers let the 16-bit count wrap past 65,535 entries without ZIP64.
    let found = out.len() as u64;
    let consistent = if entries_hint <= 0xFFFF {
        found % 0x1_0000 == entries_hint
    } else {
        found == entries_hint
    };
    if !consistent {
        return Err(ZipError::Corrupt(format!(
            "the central directory holds {found} entries, the end record announces {entries_hint}"
        )));
    }
    check_no_overlap(&out)?;
    Ok(out)
}

/// Refuses entries whose local data overlap: each member occupies at least its local header
/// and its compressed bytes, and no two may share any of them. Overlapping entries let a
/// small archive name one highly compressed member thousands of times (a zip bomb that no
/// per-member limit catches).
fn check_no_overlap(entries: &[CentralEntry]) -> Result<(), ZipError> {
    let mut spans: Vec<(u64, u64, &str)> = entries
        .iter()
        .map(|e| {
            let end = e
                .local_header_offset
                .saturating_add(LOCAL_LEN as u64)
                .saturating_add(e.compressed_size);
            (e.local_header_offset, end, e.name.as_str())
        })
        .collect();
    spans.sort_unstable();
    for pair in spans.windows(2) {
        let [(_, end, a), (start, _, b)] = pair else {
            continue;
        };
        if start < end {
            return Err(ZipError::Corrupt(format!(
                "members `{a}` and `{b}` overlap in the archive (overlapping entries, as in a \
                 zip bomb); refused"
            )));
        }
    }
    Ok(())
}

/// Offset of the member data relative to the start of its local header, read from the local
/// header (`local` must hold at least its first 30 bytes).
pub fn local_data_offset(local: &[u8]) -> Result<u64, ZipError> {
    if local.len() < LOCAL_LEN {
        return Err(ZipError::Truncated("local header".into()));
    }
    if u32_at(local, 0) != Some(SIG_LOCAL) {
        return Err(corrupt("bad local header signature"));
    }
    let name_len = u16_at(local, 26).unwrap_or(0) as u64;
    let extra_len = u16_at(local, 28).unwrap_or(0) as u64;
    Ok(LOCAL_LEN as u64 + name_len + extra_len)
}

/// Checks that a member can be extracted within `limit` bytes.
pub fn check_entry(entry: &CentralEntry, limit: u64) -> Result<(), ZipError> {
    if entry.is_encrypted() {
        return Err(ZipError::Unsupported("encrypted".into()));
    }
    if entry.method != 0 && entry.method != 8 {
        return Err(ZipError::Unsupported(format!(
            "compression method {}",
            entry.method
        )));
    }
    if entry.uncompressed_size > limit {
        return Err(ZipError::TooLarge {
            size: entry.uncompressed_size,
            limit,
        });
    }
    // Deflate never expands by more than a few bytes per 32 KiB block.
    if entry.compressed_size
        > entry
            .uncompressed_size
            .saturating_add(entry.uncompressed_size / 8 + 1024)
    {
        return Err(corrupt("compressed size larger than possible"));
    }
    Ok(())
}

/// Decompresses the member's `compressed` bytes, checking the size and the CRC32.
pub fn decompress(
    entry: &CentralEntry,
    compressed: &[u8],
    limit: u64,
) -> Result<Vec<u8>, ZipError> {
    check_entry(entry, limit)?;
    let size = entry.uncompressed_size;
    let data = match entry.method {
        0 => {
            if compressed.len() as u64 != size {
                return Err(corrupt("stored member size mismatch"));
            }
            compressed.to_vec()
        }
        _ => {
            // One inflate state per thread, reset per member: allocating a fresh one for
            // each of thousands of small files costs more than inflating them.
            thread_local! {
                static INFLATE: std::cell::RefCell<flate2::Decompress> =
                    std::cell::RefCell::new(flate2::Decompress::new(false));
            }
            let mut out = Vec::with_capacity(size.min(limit) as usize + 1);
            INFLATE.with(|state| {
                let mut state = state.borrow_mut();
                state.reset(false);
                state
                    .decompress_vec(compressed, &mut out, flate2::FlushDecompress::Finish)
                    .map(|_| ())
                    .map_err(|e| ZipError::Corrupt(format!("deflate: {e}")))
            })?;
            if out.len() as u64 != size {
                return Err(ZipError::Corrupt(format!(
                    "inflated to {} bytes, central directory says {size}",
                    out.len()
                )));
            }
            out
        }
    };
    let actual = crc32fast::hash(&data);
    if actual != entry.crc32 {
        return Err(ZipError::Crc {
            expected: entry.crc32,
            actual,
        });
    }
    Ok(data)
}

/// Extracts a member from `span`, the archive bytes starting at its local header.
pub fn extract_from_span(
    span: &[u8],
    entry: &CentralEntry,
    limit: u64,
) -> Result<Vec<u8>, ZipError> {
    check_entry(entry, limit)?;
    let start = local_data_offset(span)?;
    let end = start
        .checked_add(entry.compressed_size)
        .ok_or_else(|| corrupt("member bounds overflow"))?;
    let compressed = span
        .get(start as usize..end as usize)
        .ok_or_else(|| ZipError::Truncated(format!("member data of {}", entry.name)))?;
    decompress(entry, compressed, limit)
}

/// Random access to an archive.
pub trait ReadAt {
    fn size(&self) -> u64;
    /// Reads exactly `len` bytes at `offset`.
    fn read_at(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, ZipError>;
}

impl ReadAt for &[u8] {
    fn size(&self) -> u64 {
        self.len() as u64
    }
    fn read_at(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, ZipError> {
        let end = offset
            .checked_add(len)
            .ok_or_else(|| corrupt("offset overflow"))?;
        self.get(offset as usize..end as usize)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| {
                ZipError::Truncated(format!("{len} bytes at offset {offset} past the end"))
            })
    }
}

/// A file with its size.
pub struct FileReader {
    file: std::fs::File,
    size: u64,
}

impl FileReader {
    pub fn new(file: std::fs::File) -> io::Result<Self> {
        let size = file.metadata()?.len();
        Ok(FileReader { file, size })
    }
}

impl ReadAt for FileReader {
    fn size(&self) -> u64 {
        self.size
    }
    fn read_at(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, ZipError> {
        if offset.checked_add(len).is_none_or(|end| end > self.size) {
            return Err(ZipError::Truncated(format!(
                "{len} bytes at offset {offset} past the end"
            )));
        }
        self.file.seek(SeekFrom::Start(offset))?;
        let mut buf = Vec::with_capacity(len as usize);
        (&mut self.file).take(len).read_to_end(&mut buf)?;
        if buf.len() as u64 != len {
            return Err(ZipError::Truncated(format!(
                "short read at offset {offset}"
            )));
        }
        Ok(buf)
    }
}

/// Reads the central directory of a whole archive.
pub fn read_directory<R: ReadAt + ?Sized>(src: &mut R) -> Result<Vec<CentralEntry>, ZipError> {
    let size = src.size();
    let tail_len = size.min(TAIL_LEN);
    let tail_offset = size - tail_len;
    let tail = src.read_at(tail_offset, tail_len)?;
    let loc = match find_eocd(&tail, tail_offset)? {
        EocdResult::Found(loc) => loc,
        EocdResult::NeedZip64Record { offset } => {
            let rec = src.read_at(offset, ZIP64_RECORD_LEN.min(size.saturating_sub(offset)))?;
            parse_zip64_eocd(&rec)?
        }
    };
    if loc.offset.saturating_add(loc.size) > size {
        return Err(ZipError::Truncated(format!(
            "central directory at {}+{} past the end ({size} bytes)",
            loc.offset, loc.size
        )));
    }
    let cd = if loc.offset >= tail_offset {
        let rel = (loc.offset - tail_offset) as usize;
        tail.get(rel..rel + loc.size as usize)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| corrupt("central directory bounds"))?
    } else {
        src.read_at(loc.offset, loc.size)?
    };
    parse_central_directory(&cd, loc.entries)
}

/// Reads and decompresses one member of a whole archive.
pub fn read_entry<R: ReadAt + ?Sized>(
    src: &mut R,
    entry: &CentralEntry,
    limit: u64,
) -> Result<Vec<u8>, ZipError> {
    let compressed = read_compressed(src, entry, limit)?;
    decompress(entry, &compressed, limit)
}

/// The member's bytes as stored in the archive (to be given to [`decompress`]).
pub fn read_compressed<R: ReadAt + ?Sized>(
    src: &mut R,
    entry: &CentralEntry,
    limit: u64,
) -> Result<Vec<u8>, ZipError> {
    check_entry(entry, limit)?;
    let head = src.read_at(entry.local_header_offset, LOCAL_LEN as u64)?;
    let data_offset = entry
        .local_header_offset
        .checked_add(local_data_offset(&head)?)
        .ok_or_else(|| corrupt("offset overflow"))?;
    src.read_at(data_offset, entry.compressed_size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-member ZIP64 archive: the central entry carries its sizes and offset in the
    /// ZIP64 extra field, and a ZIP64 end record + locator precede the end record.
    fn zip64_archive(data: &[u8], comment_len: usize) -> Vec<u8> {
        let name = b"pkg/big.py";
        let crc = crc32fast::hash(data);
        let mut out = Vec::new();
        // Local header with saturated sizes and a ZIP64 extra field.
        out.extend_from_slice(&SIG_LOCAL.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes()); // stored
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&20u16.to_le_bytes());
        out.extend_from_slice(name);
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(data);
        let cd_offset = out.len() as u64;
        out.extend_from_slice(&SIG_CENTRAL.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&28u16.to_le_bytes()); // extra
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes()); // offset in the extra field
        out.extend_from_slice(name);
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&24u16.to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes());
        let cd_size = out.len() as u64 - cd_offset;
        let record = out.len() as u64;
        out.extend_from_slice(&SIG_ZIP64_EOCD.to_le_bytes());
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&1u64.to_le_bytes());
        out.extend_from_slice(&1u64.to_le_bytes());
        out.extend_from_slice(&cd_size.to_le_bytes());
        out.extend_from_slice(&cd_offset.to_le_bytes());
        out.extend_from_slice(&SIG_ZIP64_LOCATOR.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&record.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&SIG_EOCD.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&0xFFFFu16.to_le_bytes());
        out.extend_from_slice(&0xFFFFu16.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes());
        out.extend_from_slice(&(comment_len as u16).to_le_bytes());
        out.extend(std::iter::repeat_n(b'c', comment_len));
        out
    }

    #[test]
    fn zip64_whole_archive() {
        let data = b"x = 1\n".repeat(100);
        let zip = zip64_archive(&data, 5);
        let mut src: &[u8] = &zip;
        let entries = read_directory(&mut src).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].name, "pkg/big.py");
        assert_eq!(entries[0].uncompressed_size, data.len() as u64);
        assert_eq!(entries[0].local_header_offset, 0);
        assert_eq!(read_entry(&mut src, &entries[0], 1 << 20).unwrap(), data);
    }

    #[test]
    fn zip64_record_outside_the_tail() {
        let zip = zip64_archive(b"y = 2\n", 100);
        // A tail holding only the locator and end record (and comment).
        let tail_start = zip.len() - (100 + EOCD_LEN + ZIP64_LOCATOR_LEN);
        match find_eocd(&zip[tail_start..], tail_start as u64).unwrap() {
            EocdResult::NeedZip64Record { offset } => {
                let loc = parse_zip64_eocd(&zip[offset as usize..]).unwrap();
                assert_eq!(loc.entries, 1);
                let cd = &zip[loc.offset as usize..(loc.offset + loc.size) as usize];
                let entries = parse_central_directory(cd, loc.entries).unwrap();
                let span = &zip[entries[0].local_header_offset as usize..];
                assert_eq!(
                    extract_from_span(span, &entries[0], 1 << 20).unwrap(),
                    b"y = 2\n"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn no_end_record() {
        assert!(matches!(find_eocd(b"", 0), Err(ZipError::NotZip)));
        assert!(matches!(find_eocd(&[0u8; 100], 0), Err(ZipError::NotZip)));
        let mut src: &[u8] = b"PK\x05\x06";
        assert!(read_directory(&mut src).is_err());
    }
}
