//! A minimal ZIP writer, for fixtures: stored or deflated members, and headers that may lie
//! about their member (to test readers on broken archives).

use std::io::Write;

pub struct ZipWriter {
    buf: Vec<u8>,
    central: Vec<u8>,
    count: u16,
    /// The central record of the last member, from its name on (for [`Self::alias_last`]).
    last_central: Vec<u8>,
}

/// What the headers of a member say, independent of its real bytes.
pub struct RawMember<'a> {
    pub name: &'a str,
    pub method: u16,
    pub crc: u32,
    pub compressed: &'a [u8],
    pub uncompressed_size: u32,
    /// Unix mode for the external attributes (`0o120777` for a symlink), 0 for none.
    pub unix_mode: u32,
}

/// Raw deflate of `data` (writing into memory cannot fail).
pub fn deflate(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    if enc.write_all(data).is_err() {
        return Vec::new();
    }
    enc.finish().unwrap_or_default()
}

impl Default for ZipWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl ZipWriter {
    pub fn new() -> Self {
        ZipWriter {
            buf: Vec::new(),
            central: Vec::new(),
            count: 0,
            last_central: Vec::new(),
        }
    }

    pub fn add(&mut self, name: &str, data: &[u8], compress: bool) {
        let compressed = if compress {
            deflate(data)
        } else {
            data.to_vec()
        };
        self.add_raw(RawMember {
            name,
            method: if compress { 8 } else { 0 },
            crc: crc32fast::hash(data),
            compressed: &compressed,
            uncompressed_size: data.len() as u32,
            unix_mode: 0,
        });
    }

    pub fn add_raw(&mut self, m: RawMember) {
        let offset = self.buf.len() as u32;
        let name = m.name.as_bytes();
        let b = &mut self.buf;
        b.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        b.extend_from_slice(&20u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes()); // flags
        b.extend_from_slice(&m.method.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes()); // time, date
        b.extend_from_slice(&m.crc.to_le_bytes());
        b.extend_from_slice(&(m.compressed.len() as u32).to_le_bytes());
        b.extend_from_slice(&m.uncompressed_size.to_le_bytes());
        b.extend_from_slice(&(name.len() as u16).to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(name);
        b.extend_from_slice(m.compressed);

        let start = self.central.len();
        let c = &mut self.central;
        c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        let made_by: u16 = if m.unix_mode != 0 { (3 << 8) | 20 } else { 20 };
        c.extend_from_slice(&made_by.to_le_bytes());
        c.extend_from_slice(&20u16.to_le_bytes());
        c.extend_from_slice(&0u16.to_le_bytes());
        c.extend_from_slice(&m.method.to_le_bytes());
        c.extend_from_slice(&0u32.to_le_bytes());
        c.extend_from_slice(&m.crc.to_le_bytes());
        c.extend_from_slice(&(m.compressed.len() as u32).to_le_bytes());
        c.extend_from_slice(&m.uncompressed_size.to_le_bytes());
        c.extend_from_slice(&(name.len() as u16).to_le_bytes());
        c.extend_from_slice(&0u16.to_le_bytes()); // extra
        c.extend_from_slice(&0u16.to_le_bytes()); // comment
        c.extend_from_slice(&0u16.to_le_bytes()); // disk
        c.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        c.extend_from_slice(&(m.unix_mode << 16).to_le_bytes());
        c.extend_from_slice(&offset.to_le_bytes());
        self.last_central = c[start..].to_vec();
        c.extend_from_slice(name);
        self.count += 1;
    }

    /// Adds a central-directory entry named `name` for the bytes of the last member (the
    /// overlapping entries of a zip bomb: one stored member, many names).
    pub fn alias_last(&mut self, name: &str) {
        let mut record = self.last_central.clone();
        if record.len() < 30 {
            return;
        }
        record[28..30].copy_from_slice(&(name.len() as u16).to_le_bytes());
        self.central.extend_from_slice(&record);
        self.central.extend_from_slice(name.as_bytes());
        self.count += 1;
    }

    pub fn finish(mut self) -> Vec<u8> {
        let cd_offset = self.buf.len() as u32;
        let cd_size = self.central.len() as u32;
        self.buf.extend_from_slice(&self.central);
        let b = &mut self.buf;
        b.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        b.extend_from_slice(&self.count.to_le_bytes());
        b.extend_from_slice(&self.count.to_le_bytes());
        b.extend_from_slice(&cd_size.to_le_bytes());
        b.extend_from_slice(&cd_offset.to_le_bytes());
        b.extend_from_slice(&0u16.to_le_bytes());
        self.buf
    }
}

/// A small wheel: `pkg/__init__.py`, `pkg/mod.pyi`, an extension module, metadata.
pub fn small_wheel() -> Vec<u8> {
    let mut z = ZipWriter::new();
    z.add("pkg/__init__.py", b"from .mod import f\n", true);
    z.add(
        "pkg/mod.py",
        "def f(x):\n    return 'caf\u{e9}'\n".repeat(200).as_bytes(),
        true,
    );
    z.add("pkg/mod.pyi", b"def f(x: int) -> str: ...\n", false);
    z.add(
        "pkg/_ext.cpython-312-x86_64-linux-gnu.so",
        &[0x7f, b'E', b'L', b'F', 0, 1, 2, 3],
        true,
    );
    z.add("pkg/data.json", b"{}", false);
    z.add(
        "pkg-1.0.dist-info/METADATA",
        b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\nRequires-Dist: numpy>=1.20\nRequires-Dist: torch (>=2.1) ; extra == 'gpu'\nRequires-Python: >=3.8\n\nLong description\n",
        true,
    );
    z.add("pkg-1.0.dist-info/top_level.txt", b"pkg\n", false);
    z.add("pkg-1.0.dist-info/RECORD", b"pkg/__init__.py,,\n", false);
    z.finish()
}
