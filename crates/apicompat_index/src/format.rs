//! The byte layout of a package index.
//!
//! ```text
//! "APICIDX" u8(FORMAT)          magic and format version (this build reads 1 to 3)
//! u32 header length, header     JSON: package, releases (version, requires_dist, requires_python,
//!                               removed, wheel_pythons), roots, removed_same (notes equal to an
//!                               earlier release's); empty `removed`/`wheel_pythons` not written
//! 6 sections, each u32 length + bytes:
//!   strings    u32 count, u32 offsets[count+1], utf-8 bytes
//!   signatures u32 count, u32 offsets[count+1], varint-encoded signatures
//!   facets     u32 count, u32 offsets[count+1], varint-encoded facets: a flags byte (bits
//!              0-2 kind, 3 (format 2) with bit 4: on a class open to instance data only,
//!              on a module a standard-library stub (`stub_only`); without it: a class
//!              declared only by a stub, or on a facet that is not a class, read by the
//!              release's code but not declared (`uncertain`), 4 open, 5 opaque
//!              (on a facet that is not a module: known only from the release's reads,
//!              `evidence`),
//!              6 importable, 7 extensible), canonical, deprecated, signature ids, base
//!              strings, and in format 2 the metaclass (strings as id + 1, 0 for none);
//!              in format 3 optionally one more string, written only when set (a reader
//!              that does not know it ignores it): on a module its `shadow` (the object
//!              its package binds under its name), on any other facet its `instance_of`;
//!              after it (then written as 0 when unset), also optional, a predicate's
//!              `implies`: varint count, string ids; after them (then written as 0 and
//!              count 0 when unset), also optional, a function's `version_helper` (string
//!              as id + 1)
//!   sets       u32 words per set, u64 words (release bitsets)
//!   records    u32 count, u32 offsets[count+1], varint (set, facet) pairs per symbol
//!   paths      an fst map: dotted path -> symbol number
//! format 3 adds 3 sections (names.rs; an older index derives them on load):
//!   names      an fst map: last segment -> start of its groups entry
//!   groups     per last segment: varint count, the symbol numbers of its paths as deltas
//!   subclasses an fst set: `base\0class` (last segments) for every class of any release
//! ```
//! A CRC-32 of all of the above follows, and the whole is lz4-compressed with its size
//! prepended. Everything is sorted and deduplicated
//! so that building twice from the same surfaces gives the same bytes.

use crate::IndexError;

pub const MAGIC: &[u8; 7] = b"APICIDX";
/// The format this build writes. Format 1 (no metaclass, flag bit 3 unused) and 2 (no
/// lookups by last segment) are still read.
pub const FORMAT: u8 = 3;
/// The oldest format this build reads.
pub const OLDEST_FORMAT: u8 = 1;

/// Bits of a facet's flags byte.
pub const KIND_MASK: u8 = 0x07;
/// With [`FLAG_OPEN`]: open to instance data only; without: declared only by a stub.
pub const FLAG_DECLARED: u8 = 0x08;
pub const FLAG_OPEN: u8 = 0x10;
pub const FLAG_OPAQUE: u8 = 0x20;
pub const FLAG_IMPORTABLE: u8 = 0x40;
pub const FLAG_EXTENSIBLE: u8 = 0x80;

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads varints from a byte slice; every read is bounds-checked.
pub struct Reader<'a> {
    pub bytes: &'a [u8],
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    pub fn varint(&mut self) -> Result<u64, IndexError> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = *self
                .bytes
                .get(self.pos)
                .ok_or_else(|| corrupt("varint past end"))?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(corrupt("varint too long"))
    }

    pub fn usize(&mut self) -> Result<usize, IndexError> {
        usize::try_from(self.varint()?).map_err(|_| corrupt("number too large"))
    }

    pub fn u8(&mut self) -> Result<u8, IndexError> {
        let b = *self
            .bytes
            .get(self.pos)
            .ok_or_else(|| corrupt("byte past end"))?;
        self.pos += 1;
        Ok(b)
    }

    pub fn u32(&mut self) -> Result<u32, IndexError> {
        let end = self
            .pos
            .checked_add(4)
            .ok_or_else(|| corrupt("length overflow"))?;
        let b = self
            .bytes
            .get(self.pos..end)
            .ok_or_else(|| corrupt("u32 past end"))?;
        self.pos = end;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], IndexError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| corrupt("length overflow"))?;
        let b = self
            .bytes
            .get(self.pos..end)
            .ok_or_else(|| corrupt("section past end"))?;
        self.pos = end;
        Ok(b)
    }
}

pub fn corrupt(what: &str) -> IndexError {
    IndexError::Corrupt(what.to_string())
}

/// A table of variable-length items addressed by number.
#[derive(Debug, Clone, Copy)]
pub struct Table<'a> {
    offsets: &'a [u8],
    data: &'a [u8],
    count: usize,
}

impl<'a> Table<'a> {
    pub fn parse(section: &'a [u8]) -> Result<Table<'a>, IndexError> {
        let mut r = Reader::new(section);
        let count = r.u32()? as usize;
        let offsets = r.take((count + 1) * 4)?;
        let data = &section[r.pos..];
        let table = Table {
            offsets,
            data,
            count,
        };
        // The last offset must close the data exactly.
        if table.offset(count)? != data.len() {
            return Err(corrupt("table offsets do not match its data"));
        }
        Ok(table)
    }

    fn offset(&self, i: usize) -> Result<usize, IndexError> {
        let b = self
            .offsets
            .get(i * 4..i * 4 + 4)
            .ok_or_else(|| corrupt("offset past end"))?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn get(&self, i: usize) -> Result<&'a [u8], IndexError> {
        if i >= self.count {
            return Err(corrupt("item number out of range"));
        }
        let (start, end) = (self.offset(i)?, self.offset(i + 1)?);
        self.data
            .get(start..end)
            .ok_or_else(|| corrupt("item past end"))
    }
}

/// Writes a table of items.
pub fn write_table(out: &mut Vec<u8>, items: &[Vec<u8>]) {
    let mut section = Vec::new();
    section.extend((items.len() as u32).to_le_bytes());
    let mut offset = 0u32;
    section.extend(offset.to_le_bytes());
    for item in items {
        offset += item.len() as u32;
        section.extend(offset.to_le_bytes());
    }
    for item in items {
        section.extend(item);
    }
    write_section(out, &section);
}

pub fn write_section(out: &mut Vec<u8>, section: &[u8]) {
    out.extend((section.len() as u32).to_le_bytes());
    out.extend(section);
}

/// The file of an index body: its CRC-32 appended, lz4-compressed with its size prepended.
pub fn seal(mut body: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&body);
    body.extend(crc.to_le_bytes());
    lz4_flex::compress_prepend_size(&body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_reject_truncation() {
        let mut out = Vec::new();
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            put_varint(&mut out, v);
        }
        let mut r = Reader::new(&out);
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            assert_eq!(r.varint().unwrap(), v);
        }
        assert!(r.varint().is_err());
        assert!(Reader::new(&[0x80, 0x80]).varint().is_err());
    }

    #[test]
    fn tables_check_their_offsets() {
        let mut out = Vec::new();
        write_table(&mut out, &[b"ab".to_vec(), b"".to_vec(), b"xyz".to_vec()]);
        let t = Table::parse(&out[4..]).unwrap();
        assert_eq!(t.get(2).unwrap(), b"xyz");
        assert!(t.get(3).is_err());
        let mut bad = out[4..].to_vec();
        bad.pop();
        assert!(Table::parse(&bad).is_err());
    }
}
