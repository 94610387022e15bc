//! Reads the Python sources and core metadata of one release from a wheel (`.whl`), an sdist
//! (`.tar.gz`, `.tgz`, `.tar`, `.zip`) or an unpacked tree / site-packages directory.
//!
//! Entry points: [`read_path`] for files and directories, [`read_zip_bytes`],
//! [`read_sdist_bytes`] and [`read_wheel_members`] for data already in memory (the fetch
//! crate uses the latter after its HTTP Range reads).
//!
//! Nothing here panics on bad input: unreadable or unsafe members are skipped and listed in
//! [`SourceTree::problems`]; archives that cannot be read at all give an [`ArchiveError`].

use std::io::Read;
use std::path::{Path, PathBuf};

mod dir;
mod layout;
mod metadata;
pub mod paths;
pub mod zipread;
pub mod zipwrite;

pub use metadata::{parse_metadata, parse_requirements_txt, parse_requires_txt};
pub use paths::{extension_module_path, normalize_name, sanitize_member_name, FileKind};

/// Largest member read into memory (uncompressed): 64 MiB.
pub const MAX_MEMBER_SIZE: u64 = 64 << 20;
/// Largest total read or decompressed for one release: 512 MiB (the members kept are held in
/// memory; torch 2.15's wheel holds 57.5 MB of sources). See docs/hostile-input.md.
pub const MAX_TOTAL_SIZE: u64 = 512 << 20;

/// One Python source file of a release.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to the import root, with `/` separators: `torch/nn/__init__.py`.
    pub path: String,
    /// The raw bytes (not necessarily valid UTF-8).
    pub data: Vec<u8>,
}

impl SourceFile {
    pub fn kind(&self) -> FileKind {
        paths::file_kind(&self.path)
    }
}

/// Core metadata of a release (`METADATA` / `PKG-INFO`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    pub name: Option<String>,
    pub version: Option<String>,
    /// PEP 508 requirement strings, markers included (`torch>=2.1; extra == "gpu"`).
    pub requires_dist: Vec<String>,
    pub requires_python: Option<String>,
    /// `Provides-Extra` values.
    pub provides_extra: Vec<String>,
    /// Where `requires_dist` came from, as a path inside the release: `METADATA`, `PKG-INFO`,
    /// `colossalai.egg-info/requires.txt`, `requirements/requirements.txt`; `None` when no
    /// source of requirements was found.
    pub requires_dist_source: Option<String>,
}

/// Everything the extractor needs from one release.
#[derive(Debug, Clone, Default)]
pub struct SourceTree {
    /// `.py` and `.pyi` files, ATen's operator list (`FileKind::OpSchema`), plus compiled
    /// extension modules (`.so`, `.pyd`) with empty `data`. Sorted by path.
    pub files: Vec<SourceFile>,
    pub metadata: Metadata,
    /// Top-level import names of the distribution (`torch`, `functorch`, ...).
    pub top_level: Vec<String>,
    /// Members that were skipped, with the reason (unsafe path, unreadable...).
    pub problems: Vec<String>,
}

impl SourceTree {
    /// The file at `path`, if any.
    pub fn file(&self, path: &str) -> Option<&SourceFile> {
        self.files
            .binary_search_by(|f| f.path.as_str().cmp(path))
            .ok()
            .and_then(|i| self.files.get(i))
    }
}

/// Errors that stop reading a release.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("{}: no such file or directory", .path.display())]
    NotFound { path: PathBuf },
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: empty file (0 bytes), not a wheel or sdist", .path.display())]
    Empty { path: PathBuf },
    #[error("{}: not a wheel, sdist or directory: {detail}", .path.display())]
    UnknownFormat { path: PathBuf, detail: String },
    #[error("{}: {source}", .path.display())]
    Zip {
        path: PathBuf,
        #[source]
        source: zipread::ZipError,
    },
    #[error("{}: cannot read tar archive: {detail}", .path.display())]
    Tar { path: PathBuf, detail: String },
    #[error("{}: archive expands past the limit of {limit} bytes", .path.display())]
    TooLarge { path: PathBuf, limit: u64 },
    #[error("{}: no distribution named `{package}` here (found: {available})", .path.display())]
    PackageNotFound {
        path: PathBuf,
        package: String,
        available: String,
    },
    #[error("{}: several distributions here ({available}); name the one to read", .path.display())]
    AmbiguousPackage { path: PathBuf, available: String },
}

/// Where a member's bytes come from.
pub(crate) enum Source {
    Bytes(Vec<u8>),
    File(PathBuf),
    Zip(zipread::CentralEntry),
    /// Only the name is known (extension modules from a ranged read).
    NameOnly,
}

/// One file of a release, with a sanitized relative path.
pub(crate) struct Member {
    pub path: String,
    pub source: Source,
}

/// Loads member bytes, enforcing the size limits; failures become problems.
pub(crate) struct Loader<'a> {
    pub zip: Option<&'a mut dyn zipread::ReadAt>,
    pub total: u64,
    pub problems: Vec<String>,
}

impl<'a> Loader<'a> {
    pub fn new() -> Self {
        Loader {
            zip: None,
            total: 0,
            problems: Vec::new(),
        }
    }

    fn account(&mut self, path: &str, len: u64) -> bool {
        if self.total.saturating_add(len) > MAX_TOTAL_SIZE {
            self.problems.push(format!(
                "{path}: skipped, the release exceeds {MAX_TOTAL_SIZE} bytes in total"
            ));
            return false;
        }
        self.total += len;
        true
    }

    /// Takes the bytes of a member (moving them out of `Source::Bytes`).
    pub fn load(&mut self, member: &mut Member) -> Option<Vec<u8>> {
        let path = member.path.clone();
        match &mut member.source {
            Source::Bytes(b) => Some(std::mem::take(b)),
            Source::NameOnly => Some(Vec::new()),
            Source::File(p) => {
                let len = match std::fs::metadata(&*p) {
                    Ok(m) => m.len(),
                    Err(e) => {
                        self.problems
                            .push(format!("{}: unreadable: {e}", p.display()));
                        return None;
                    }
                };
                if len > MAX_MEMBER_SIZE {
                    self.problems.push(format!(
                        "{}: skipped, {len} bytes exceeds the member limit of {MAX_MEMBER_SIZE}",
                        p.display()
                    ));
                    return None;
                }
                if !self.account(&path, len) {
                    return None;
                }
                let read = std::fs::File::open(&*p).and_then(|f| {
                    let mut buf = Vec::new();
                    f.take(MAX_MEMBER_SIZE).read_to_end(&mut buf)?;
                    Ok(buf)
                });
                match read {
                    Ok(buf) => Some(buf),
                    Err(e) => {
                        self.problems
                            .push(format!("{}: unreadable: {e}", p.display()));
                        None
                    }
                }
            }
            Source::Zip(entry) => {
                let entry = entry.clone();
                if entry.uncompressed_size <= MAX_MEMBER_SIZE
                    && !self.account(&path, entry.uncompressed_size)
                {
                    return None;
                }
                let Some(zip) = self.zip.as_deref_mut() else {
                    self.problems
                        .push(format!("{path}: no archive to read from"));
                    return None;
                };
                match zipread::read_entry(zip, &entry, MAX_MEMBER_SIZE) {
                    Ok(data) => Some(data),
                    Err(e) => {
                        self.problems.push(format!("{}: skipped: {e}", entry.name));
                        None
                    }
                }
            }
        }
    }
}

/// Kinds of release layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZipKind {
    Wheel,
    Sdist,
}

/// Reads a wheel, an sdist or a directory.
///
/// For a directory: a site-packages-like directory (holding `*.dist-info` / `*.egg-info` and no
/// `PKG-INFO`/`setup.py`/`pyproject.toml`) is read through the distribution's `RECORD` or
/// `top_level.txt`, selected by `package` (required when there are several); a directory that
/// is itself a package (has `__init__.py`) is read as that one package; anything else is read
/// like an unpacked sdist.
pub fn read_path(path: &Path, package: Option<&str>) -> Result<SourceTree, ArchiveError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ArchiveError::NotFound {
                path: path.to_path_buf(),
            })
        }
        Err(e) => {
            return Err(ArchiveError::Io {
                path: path.to_path_buf(),
                source: e,
            })
        }
    };
    if meta.is_dir() {
        return dir::read_dir_tree(path, package);
    }
    if meta.len() == 0 {
        return Err(ArchiveError::Empty {
            path: path.to_path_buf(),
        });
    }
    let io_err = |e| ArchiveError::Io {
        path: path.to_path_buf(),
        source: e,
    };
    let mut file = std::fs::File::open(path).map_err(io_err)?;
    let mut magic = Vec::with_capacity(512);
    (&mut file)
        .take(512)
        .read_to_end(&mut magic)
        .map_err(io_err)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match detect(&magic) {
        Format::Zip => {
            let mut reader = zipread::FileReader::new(file).map_err(io_err)?;
            read_zip_source(&mut reader, &name, path)
        }
        Format::Gzip => {
            use std::io::Seek;
            file.seek(std::io::SeekFrom::Start(0)).map_err(io_err)?;
            let decoder = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
            read_tar_source(decoder, path)
        }
        Format::Tar => {
            use std::io::Seek;
            file.seek(std::io::SeekFrom::Start(0)).map_err(io_err)?;
            read_tar_source(std::io::BufReader::new(file), path)
        }
        other => Err(unknown_format(path, &name, other, &magic)),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Zip,
    Gzip,
    Tar,
    Bzip2,
    Xz,
    Unknown,
}

fn detect(magic: &[u8]) -> Format {
    if magic.starts_with(b"PK\x03\x04") || magic.starts_with(b"PK\x05\x06") {
        Format::Zip
    } else if magic.starts_with(&[0x1f, 0x8b]) {
        Format::Gzip
    } else if magic.len() >= 262 && &magic[257..262] == b"ustar" {
        Format::Tar
    } else if magic.starts_with(b"BZh") {
        Format::Bzip2
    } else if magic.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Format::Xz
    } else {
        Format::Unknown
    }
}

fn unknown_format(path: &Path, name: &str, format: Format, magic: &[u8]) -> ArchiveError {
    let detail = match format {
        Format::Bzip2 => "bzip2-compressed archives are not supported".to_string(),
        Format::Xz => "xz-compressed archives are not supported".to_string(),
        _ => {
            let expected = if name.ends_with(".whl") || name.ends_with(".zip") {
                "a zip archive"
            } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
                "a gzip-compressed tar archive"
            } else {
                "a zip, tar or gzip-compressed tar archive"
            };
            let start: String = magic
                .iter()
                .take(8)
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ");
            format!("expected {expected}; the file starts with bytes {start}")
        }
    };
    ArchiveError::UnknownFormat {
        path: path.to_path_buf(),
        detail,
    }
}

fn zip_kind(name: &str, entries: &[zipread::CentralEntry]) -> ZipKind {
    if name.ends_with(".whl") {
        return ZipKind::Wheel;
    }
    let wheel = entries.iter().any(|e| {
        let mut parts = e.name.split('/');
        matches!((parts.next(), parts.next(), parts.next()),
            (Some(d), Some("WHEEL"), None) if d.ends_with(".dist-info"))
    });
    if wheel {
        ZipKind::Wheel
    } else {
        ZipKind::Sdist
    }
}

fn read_zip_source(
    reader: &mut dyn zipread::ReadAt,
    name: &str,
    label: &Path,
) -> Result<SourceTree, ArchiveError> {
    let entries = zipread::read_directory(&mut *reader).map_err(|source| ArchiveError::Zip {
        path: label.to_path_buf(),
        source,
    })?;
    let kind = zip_kind(name, &entries);
    let mut problems = Vec::new();
    let mut members = Vec::new();
    let mut all_files = Vec::new();
    for entry in entries {
        if entry.is_dir {
            continue;
        }
        let path = match sanitize_member_name(&entry.name) {
            Ok(p) => p,
            Err(why) => {
                problems.push(format!("{}: skipped, {why}", entry.name));
                continue;
            }
        };
        if entry.is_symlink {
            problems.push(format!("{}: skipped, symbolic link", entry.name));
            continue;
        }
        all_files.push(path.clone());
        if layout::wanted(&path, kind == ZipKind::Sdist) {
            let source = if paths::file_kind(&path) == FileKind::Extension {
                Source::NameOnly
            } else {
                Source::Zip(entry)
            };
            members.push(Member { path, source });
        }
    }
    let mut loader = Loader::new();
    loader.problems = problems;
    inflate_in_parallel(&mut members, &mut *reader, &mut loader);
    loader.zip = Some(reader);
    Ok(match kind {
        ZipKind::Wheel => layout::build_wheel(members, &mut loader),
        ZipKind::Sdist => {
            let (members, top) = layout::strip_top_folder(members, &all_files);
            layout::build_sdist(
                members,
                &mut loader,
                top.as_deref().and_then(layout::name_from_folder),
            )
        }
    })
}

/// Reads the stored bytes of every zip member in order, then inflates them on all cores.
/// Members that fail are dropped, with a problem recorded.
fn inflate_in_parallel(
    members: &mut Vec<Member>,
    reader: &mut dyn zipread::ReadAt,
    loader: &mut Loader,
) {
    use rayon::prelude::*;
    let mut jobs: Vec<(usize, zipread::CentralEntry, Vec<u8>)> = Vec::new();
    let mut failed: Vec<usize> = Vec::new();
    for (i, m) in members.iter().enumerate() {
        let Source::Zip(entry) = &m.source else {
            continue;
        };
        if entry.uncompressed_size <= MAX_MEMBER_SIZE
            && !loader.account(&m.path, entry.uncompressed_size)
        {
            failed.push(i);
            continue;
        }
        match zipread::read_compressed(&mut *reader, entry, MAX_MEMBER_SIZE) {
            Ok(raw) => jobs.push((i, entry.clone(), raw)),
            Err(e) => {
                loader
                    .problems
                    .push(format!("{}: skipped: {e}", entry.name));
                failed.push(i);
            }
        }
    }
    let done: Vec<(usize, String, Result<Vec<u8>, zipread::ZipError>)> = jobs
        .into_par_iter()
        .map(|(i, entry, raw)| {
            (
                i,
                entry.name.clone(),
                zipread::decompress(&entry, &raw, MAX_MEMBER_SIZE),
            )
        })
        .collect();
    for (i, name, result) in done {
        match result {
            Ok(data) => members[i].source = Source::Bytes(data),
            Err(e) => {
                loader.problems.push(format!("{name}: skipped: {e}"));
                failed.push(i);
            }
        }
    }
    if !failed.is_empty() {
        failed.sort_unstable();
        let mut i = 0;
        members.retain(|_| {
            let keep = failed.binary_search(&i).is_err();
            i += 1;
            keep
        });
    }
}

/// A reader that fails once more than `remaining` bytes went through it.
struct Limited<R> {
    inner: R,
    remaining: u64,
    exceeded: std::rc::Rc<std::cell::Cell<bool>>,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.remaining {
            self.exceeded.set(true);
            return Err(std::io::Error::other("archive exceeds the size limit"));
        }
        self.remaining -= n as u64;
        Ok(n)
    }
}

fn read_tar_source<R: Read>(reader: R, label: &Path) -> Result<SourceTree, ArchiveError> {
    let exceeded = std::rc::Rc::new(std::cell::Cell::new(false));
    let limited = Limited {
        inner: reader,
        remaining: MAX_TOTAL_SIZE,
        exceeded: exceeded.clone(),
    };
    let tar_err = |e: std::io::Error| {
        if exceeded.get() {
            ArchiveError::TooLarge {
                path: label.to_path_buf(),
                limit: MAX_TOTAL_SIZE,
            }
        } else {
            ArchiveError::Tar {
                path: label.to_path_buf(),
                detail: e.to_string(),
            }
        }
    };
    let mut archive = tar::Archive::new(limited);
    let mut problems = Vec::new();
    let mut members = Vec::new();
    let mut all_files = Vec::new();
    let mut seen_any = false;
    for entry in archive.entries().map_err(&tar_err)? {
        let mut entry = entry.map_err(&tar_err)?;
        seen_any = true;
        let raw_name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let etype = entry.header().entry_type();
        if etype.is_dir()
            || etype.is_pax_global_extensions()
            || etype.is_pax_local_extensions()
            || etype.is_gnu_longname()
            || etype.is_gnu_longlink()
        {
            continue;
        }
        let path = match sanitize_member_name(&raw_name) {
            Ok(p) => p,
            Err(why) => {
                problems.push(format!("{raw_name}: skipped, {why}"));
                continue;
            }
        };
        if etype.is_symlink() || etype.is_hard_link() {
            problems.push(format!("{raw_name}: skipped, link"));
            continue;
        }
        if !(etype.is_file() || etype.is_contiguous()) {
            continue;
        }
        all_files.push(path.clone());
        if !layout::wanted(&path, true) {
            continue;
        }
        if paths::file_kind(&path) == FileKind::Extension {
            members.push(Member {
                path,
                source: Source::NameOnly,
            });
            continue;
        }
        let size = entry.header().size().unwrap_or(u64::MAX);
        if size > MAX_MEMBER_SIZE {
            problems.push(format!(
                "{raw_name}: skipped, {size} bytes exceeds the member limit of {MAX_MEMBER_SIZE}"
            ));
            continue;
        }
        let mut data = Vec::with_capacity(size as usize);
        if let Err(e) = (&mut entry).take(MAX_MEMBER_SIZE).read_to_end(&mut data) {
            return Err(tar_err(e));
        }
        members.push(Member {
            path,
            source: Source::Bytes(data),
        });
    }
    if !seen_any {
        // An empty tar is legal but a gzip of something else usually lands here too.
        problems.push("the archive holds no members".to_string());
    }
    let mut loader = Loader::new();
    loader.problems = problems;
    let (members, top) = layout::strip_top_folder(members, &all_files);
    Ok(layout::build_sdist(
        members,
        &mut loader,
        top.as_deref().and_then(layout::name_from_folder),
    ))
}

/// Reads a wheel or a zip sdist held in memory. `name` (a file name, possibly empty) helps
/// telling wheels from sdists and appears in errors.
pub fn read_zip_bytes(name: &str, data: &[u8]) -> Result<SourceTree, ArchiveError> {
    let label = Path::new(if name.is_empty() { "<memory>" } else { name });
    if data.is_empty() {
        return Err(ArchiveError::Empty {
            path: label.to_path_buf(),
        });
    }
    let mut reader: &[u8] = data;
    read_zip_source(&mut reader, name, label)
}

/// Reads an sdist (`.tar.gz`, `.tgz`, `.tar`, `.zip`) held in memory.
pub fn read_sdist_bytes(name: &str, data: &[u8]) -> Result<SourceTree, ArchiveError> {
    let label = Path::new(if name.is_empty() { "<memory>" } else { name });
    if data.is_empty() {
        return Err(ArchiveError::Empty {
            path: label.to_path_buf(),
        });
    }
    match detect(data) {
        Format::Zip => read_zip_bytes(name, data),
        Format::Gzip => read_tar_source(flate2::read::MultiGzDecoder::new(data), label),
        Format::Tar => read_tar_source(data, label),
        other => Err(unknown_format(label, name, other, data)),
    }
}

/// Reads any release file held in memory: a wheel, a zip sdist or a tar sdist.
pub fn read_bytes(name: &str, data: &[u8]) -> Result<SourceTree, ArchiveError> {
    read_sdist_bytes(name, data)
}

/// What a reader of a wheel needs from a member, judged from its name in the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// Read the bytes: `.py`, `.pyi`, ATen's operator list, `*.dist-info/METADATA`,
    /// `*.dist-info/top_level.txt`.
    Data,
    /// Only the name matters: compiled extension modules.
    NameOnly,
    No,
}

/// Which wheel members [`read_wheel_members`] uses. Unsafe names are `No`.
pub fn wheel_member_wanted(name: &str) -> Wanted {
    let Ok(path) = sanitize_member_name(name) else {
        return Wanted::No;
    };
    if !layout::wanted(&path, false) {
        return Wanted::No;
    }
    if paths::file_kind(&path) == FileKind::Extension {
        Wanted::NameOnly
    } else {
        Wanted::Data
    }
}

/// Builds the tree of a wheel from some of its members, `(name in the archive, bytes)`:
/// the ones [`wheel_member_wanted`] asks for (others are ignored); extension modules may come
/// with empty bytes. Unsafe names are skipped and recorded as problems.
pub fn read_wheel_members(members: Vec<(String, Vec<u8>)>) -> SourceTree {
    let mut problems = Vec::new();
    let mut list = Vec::with_capacity(members.len());
    for (name, data) in members {
        match sanitize_member_name(&name) {
            Ok(path) => {
                if layout::wanted(&path, false) {
                    list.push(Member {
                        path,
                        source: Source::Bytes(data),
                    });
                }
            }
            Err(why) => problems.push(format!("{name}: skipped, {why}")),
        }
    }
    let mut loader = Loader::new();
    loader.problems = problems;
    layout::build_wheel(list, &mut loader)
}
