//! Reading a file that someone else wrote: regular files only, never blocking, size-capped.
//!
//! A project file (`pyproject.toml`, a requirements include, `setup.py`, an installed
//! `METADATA`) may be a symlink to `/dev/zero` (reads forever) or a FIFO (blocks forever on
//! open). [`read_regular_file`] follows symlinks, refuses anything that is not a regular file
//! before and after opening it (the open itself never blocks: `O_NONBLOCK`), and reads at most
//! `limit` bytes.

use std::fmt;
use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file (after following symlinks): a directory, FIFO, device or socket.
    NotRegular(&'static str),
    /// Larger than the limit (in bytes).
    TooLarge(u64),
    /// The file system said no.
    Io(std::io::Error),
}

impl ReadError {
    /// Whether the file does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular(kind) => write!(f, "not a regular file ({kind}); not read"),
            ReadError::TooLarge(limit) => {
                write!(f, "larger than {} MiB; not read", limit >> 20)
            }
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

/// What kind of file the metadata describes, in words.
fn kind_of(meta: &Metadata) -> &'static str {
    let ft = meta.file_type();
    if ft.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

fn check(meta: &Metadata, limit: u64) -> Result<(), ReadError> {
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(meta)));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge(limit));
    }
    Ok(())
}

fn open_nonblocking(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A FIFO swapped in after the type check must not block the open.
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

/// Reads a regular file (symlinks followed) of at most `limit` bytes.
///
/// The type is checked before opening (a FIFO is never opened) and again on the open handle
/// (the path may have been swapped in between); the read stops at `limit` bytes whatever the
/// file claims its size is (`/proc` files, files that grow).
pub fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    check(&std::fs::metadata(path).map_err(ReadError::Io)?, limit)?;
    let file = open_nonblocking(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    check(&meta, limit)?;
    let mut buf = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut buf)
        .map_err(ReadError::Io)?;
    if buf.len() as u64 > limit {
        return Err(ReadError::TooLarge(limit));
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_devices_directories_and_large_files() {
        let dir = std::env::temp_dir().join(format!("apicompat-safe-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small.txt");
        std::fs::write(&small, b"torch\n").unwrap();
        assert_eq!(read_regular_file(&small, 100).unwrap(), b"torch\n");
        assert!(matches!(
            read_regular_file(&small, 3),
            Err(ReadError::TooLarge(3))
        ));
        assert!(matches!(
            read_regular_file(&dir, 100),
            Err(ReadError::NotRegular("a directory"))
        ));
        #[cfg(unix)]
        {
            let zero = dir.join("zero.txt");
            let _ = std::fs::remove_file(&zero);
            std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
            assert!(matches!(
                read_regular_file(&zero, 100),
                Err(ReadError::NotRegular("a character device"))
            ));
        }
        assert!(read_regular_file(&dir.join("missing"), 100)
            .unwrap_err()
            .is_not_found());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
