//! Finding the project's Python files (gitignore-aware), reading and parsing them.

use apicompat_hash::HashSet;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ruff_python_ast::token::TokenKind;
use ruff_python_ast::PySourceType;
use ruff_source_file::LineIndex;
use ruff_text_size::{Ranged, TextRange, TextSize};

use apicompat_semantic::{ModuleFacts, ModuleName};

use crate::collect::{collect_in, FileUses};
use crate::exclude::FileFilter;
use crate::suppress::Suppressions;
use crate::warm::{self, Stamp, Warm};

mod discover;

pub use discover::{discover, own_root_note, Discovered};
pub(crate) use discover::{discover_listing, packages_in, provided_by, regular_packages_in};

/// Files larger than this are not read.
pub const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The first line of a Databricks notebook exported as a Python file.
const DATABRICKS_NOTEBOOK: &str = "# Databricks notebook source";

/// How a `.py` file's text is parsed: a Databricks notebook exported as `.py` holds IPython
/// escapes (`!pip install ...`, `%sh`) between its cells, parsed as a notebook's cells are.
pub(crate) fn source_type_of(text: &str) -> PySourceType {
    if text.starts_with(DATABRICKS_NOTEBOOK) {
        PySourceType::Ipynb
    } else {
        PySourceType::Python
    }
}

/// How a file is parsed: a stub by its name, a notebook exported as Python by its text.
fn source_type(path: &Path, text: &str) -> PySourceType {
    if path.extension().is_some_and(|x| x == "pyi") {
        PySourceType::Stub
    } else {
        source_type_of(text)
    }
}

pub fn describe_io(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// One file, read and walked. Shared (`Arc`) between the stages of a check and, in the
/// language server, between checks: the stages that add what other files say to it copy it
/// first (`Arc::make_mut`), and only when they change it.
#[derive(Debug, Clone)]
pub struct Analyzed {
    pub path: PathBuf,
    pub text: String,
    pub line_index: LineIndex,
    pub uses: FileUses,
    /// What AC010 needs (classes, what they store, copies and pickles), and the typed reads
    /// and calls AC009 and AC012 read: read with the file when it may copy or pickle, else
    /// on first use ([`Analyzed::process_groups`]).
    process_groups: OnceLock<crate::pgcopy::FileFacts>,
    /// The module's name in the project and its facts for the semantic model (taken by
    /// [`crate::objects`]).
    pub module: ModuleName,
    pub semantic: Arc<ModuleFacts>,
    pub syntax_errors: Vec<(TextRange, String)>,
    pub suppressions: Suppressions,
    /// Not valid UTF-8: the byte offset of the first bad byte.
    pub bad_utf8_at: Option<usize>,
    /// Could not be read.
    pub io_error: Option<String>,
    /// Read but not parsed (nested too deep to walk safely): why.
    pub not_parsed: Option<String>,
}

impl Analyzed {
    fn failed(path: PathBuf, message: String) -> Analyzed {
        Analyzed {
            path,
            text: String::new(),
            line_index: LineIndex::from_source_text(""),
            uses: FileUses::default(),
            process_groups: OnceLock::from(crate::pgcopy::FileFacts::default()),
            module: ModuleName::default(),
            semantic: Arc::default(),
            syntax_errors: Vec::new(),
            suppressions: Suppressions::default(),
            bad_utf8_at: None,
            io_error: Some(message),
            not_parsed: None,
        }
    }

    /// The file's AC010 facts ([`crate::pgcopy::extract`]). A file that names no copy or
    /// pickle function is read for them only here, on first use (most files of a project are
    /// never asked: AC010 follows a copied object into a few of them): parsed again, which
    /// gives the same tree, so the same facts.
    pub fn process_groups(&self) -> &crate::pgcopy::FileFacts {
        self.process_groups.get_or_init(|| {
            // Not parsed (nested too deep) or not read: nothing to read.
            if self.not_parsed.is_some() || self.io_error.is_some() {
                return crate::pgcopy::FileFacts::default();
            }
            let parsed = ruff_python_parser::parse_unchecked_source(
                &self.text,
                source_type(&self.path, &self.text),
            );
            crate::pgcopy::extract(parsed.suite(), &self.text)
        })
    }

    /// The AC010 facts if they were read (a file without them copies nothing).
    pub fn process_groups_read(&self) -> Option<&crate::pgcopy::FileFacts> {
        self.process_groups.get()
    }

    /// Takes out what only AC010 reads, for the caller to free
    /// ([`crate::pgcopy::FileFacts::take_ac010_only`]).
    pub fn take_ac010_only(&mut self) -> Option<impl Send + 'static> {
        Some(self.process_groups.get_mut()?.take_ac010_only())
    }

    /// 1-based (line, column, end line, end column) of a range.
    pub fn span(&self, range: TextRange) -> (u32, u32, u32, u32) {
        let (l, c) = self.position(range.start());
        let (el, ec) = self.position(range.end());
        (l, c, el, ec)
    }

    /// 1-based (line, column) of an offset; columns count characters.
    /// The 1-based line of `offset` (the line of [`Analyzed::position`], without its column).
    pub fn line_of(&self, offset: TextSize) -> u32 {
        let offset = offset.min(TextSize::try_from(self.text.len()).unwrap_or_default());
        u32::try_from(self.line_index.line_index(offset).get()).unwrap_or(u32::MAX)
    }

    pub fn position(&self, offset: TextSize) -> (u32, u32) {
        let offset = offset.min(TextSize::try_from(self.text.len()).unwrap_or_default());
        let lc = self.line_index.line_column(offset, &self.text);
        (
            u32::try_from(lc.line.get()).unwrap_or(u32::MAX),
            u32::try_from(lc.column.get()).unwrap_or(u32::MAX),
        )
    }
}

/// The worker threads (large stacks), started once per process: the server checks on every
/// change.
fn worker_pool() -> Result<&'static rayon::ThreadPool, crate::UsageError> {
    static POOL: std::sync::OnceLock<Result<rayon::ThreadPool, String>> =
        std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(crate::STACK_SIZE)
            .build()
            .map_err(|e| format!("cannot start worker threads: {e}"))
    })
    .as_ref()
    .map_err(|e| crate::UsageError(e.clone()))
}

/// The bytes of each file, in order, read on the worker threads (the error of a file that
/// cannot be read, as the walk reports it).
pub(crate) fn read_all(files: &[PathBuf]) -> Vec<Read> {
    use rayon::prelude::*;
    let read = || files.par_iter().map(|p| read_source(p)).collect();
    match worker_pool() {
        Ok(pool) => pool.install(read),
        Err(_) => files.iter().map(|p| read_source(p)).collect(),
    }
}

/// Parses and walks every file of the project (and standard input, when given, and the
/// in-memory `documents` under the module names of their paths, in place of the files at those
/// paths) on worker threads with large stacks, then resolves version helpers and callers
/// across files. `texts` are the files' bytes when already read ([`read_all`]; empty: read
/// here). With `warm`, the files unchanged since a check that was given the same
/// [`Warm`] are not parsed again. The pool is returned for the work that follows.
pub fn analyze_project(
    (files, texts): (&[PathBuf], Vec<Result<Vec<u8>, String>>),
    stdin: Option<&crate::StdinSource>,
    documents: &[crate::StdinSource],
    roots: &HashSet<String>,
    project_root: &Path,
    warm: Option<&Warm>,
    indexed: &crate::link::Indexed,
) -> Result<(&'static rayon::ThreadPool, Vec<Arc<Analyzed>>), crate::UsageError> {
    let pool = worker_pool()?;
    let doc_paths: Vec<PathBuf> = documents.iter().map(|d| d.name.clone()).collect();
    let replaced: HashSet<&Path> = doc_paths.iter().map(PathBuf::as_path).collect();
    let mut texts = texts.into_iter();
    let (files, texts): (Vec<PathBuf>, Vec<Option<Read>>) = files
        .iter()
        .map(|p| (p, texts.next()))
        .filter(|(p, _)| !replaced.contains(p.as_path()))
        .map(|(p, t)| (p.clone(), t))
        .unzip();
    let names = crate::chains::module_names(&files, project_root);
    let doc_names = crate::chains::module_names(&doc_paths, project_root);
    // Every source, in order: the files, standard input, the documents.
    let mut sources: Vec<Source> = files
        .iter()
        .zip(names)
        .zip(texts)
        .map(|((p, module), read)| Source {
            path: p.clone(),
            module,
            text: None,
            read,
        })
        .collect();
    sources.extend(stdin.map(|s| Source {
        path: s.name.clone(),
        module: ModuleName::default(),
        text: Some(&s.bytes),
        read: None,
    }));
    sources.extend(documents.iter().zip(doc_names).map(|(d, module)| Source {
        path: d.name.clone(),
        module,
        text: Some(&d.bytes),
        read: None,
    }));
    let stdin_at = stdin.map(|_| files.len());
    let analyzed = match warm {
        Some(w) => {
            let mut guard = w.lock();
            let state: &mut warm::State = &mut guard;
            let mut analyzed = pool.install(|| analyze_warm(state, sources, roots, stdin_at));
            pool.install(|| crate::link::link_with(&mut analyzed, Some(&mut state.link), indexed));
            analyzed
        }
        None => {
            let mut analyzed = pool.install(|| analyze_all(sources, roots));
            pool.install(|| crate::link::link(&mut analyzed, indexed));
            analyzed
        }
    };
    Ok((pool, analyzed))
}

/// Parses and walks files given by their text (a release's sources, `crate::indexed_helpers`)
/// as one project, and resolves version helpers across them.
pub(crate) fn analyze_in_memory(
    files: Vec<(PathBuf, ModuleName, Vec<u8>)>,
    roots: &HashSet<String>,
) -> Result<Vec<Arc<Analyzed>>, crate::UsageError> {
    let pool = worker_pool()?;
    let sources: Vec<Source> = files
        .iter()
        .map(|(path, module, bytes)| Source {
            path: path.clone(),
            module: module.clone(),
            text: Some(bytes),
            read: None,
        })
        .collect();
    let mut analyzed = pool.install(|| analyze_all(sources, roots));
    pool.install(|| crate::link::link(&mut analyzed, &|_| None));
    Ok(analyzed)
}

/// A file's bytes, or why it cannot be read.
type Read = Result<Vec<u8>, String>;

/// A file to analyze: on disk (perhaps already read), or given by its text.
struct Source<'a> {
    path: PathBuf,
    module: ModuleName,
    text: Option<&'a Vec<u8>>,
    /// The file's bytes read before, taken by the first [`Source::take_bytes`].
    read: Option<Read>,
}

impl Source<'_> {
    fn take_bytes(&mut self) -> Read {
        match (self.text, self.read.take()) {
            (Some(t), _) => Ok(t.clone()),
            (None, Some(read)) => read,
            (None, None) => read_source(&self.path),
        }
    }
}

/// Every source read and walked (on the pool's threads).
fn analyze_all(mut sources: Vec<Source>, roots: &HashSet<String>) -> Vec<Arc<Analyzed>> {
    use rayon::prelude::*;
    // Every file is read first: the names of the functions and classes the project defines
    // tell which calls the semantic model keeps (most calls are of other objects' methods).
    let read: Vec<Read> = sources.par_iter_mut().map(Source::take_bytes).collect();
    let defined: HashSet<String> = read
        .par_iter()
        .filter_map(|r| r.as_ref().ok())
        .flat_map_iter(|b| crate::def_scan::def_names(b))
        .collect();
    let tree = crate::local_imports::Tree::new(
        sources
            .iter()
            .zip(&read)
            .map(|(s, r)| (s.path.as_path(), r.as_ref().ok().map(Vec::as_slice))),
        roots,
    );
    let around = Around {
        defined: &defined,
        tree: &tree,
    };
    sources
        .into_par_iter()
        .zip(read)
        .map(|(s, bytes)| {
            Arc::new(match bytes {
                Ok(bytes) => analyze_owned(s.path, s.module, bytes, roots, Some(&around)),
                Err(e) => Analyzed::failed(s.path, e),
            })
        })
        .collect()
}

/// [`analyze_all`] with the analyses `warm` keeps: only the sources that changed (and those
/// a newly defined name makes stale, see [`crate::warm`]) are read and walked.
fn analyze_warm(
    state: &mut warm::State,
    mut sources: Vec<Source>,
    roots: &HashSet<String>,
    stdin_at: Option<usize>,
) -> Vec<Arc<Analyzed>> {
    use rayon::prelude::*;
    state.begin(roots);
    // Bytes read before the stamps are taken could be older than the stamp kept with them:
    // the files are read again.
    for s in &mut sources {
        s.read = None;
    }
    let stamps: Vec<Option<Stamp>> = sources
        .par_iter()
        .map(|s| match s.text {
            Some(_) => Some(Stamp::Text),
            None => warm::disk_stamp(&s.path),
        })
        .collect();
    // The kept analysis of each source, when still good.
    let mut kept: Vec<Option<(Arc<Analyzed>, &[String])>> = sources
        .iter()
        .zip(&stamps)
        .map(|(s, stamp)| {
            let e = state.get(
                &s.path,
                stamp.as_ref()?,
                &s.module,
                s.text.map(Vec::as_slice),
            )?;
            Some((Arc::clone(&e.analyzed), e.defs.as_slice()))
        })
        .collect();
    let mut read: Vec<Option<Read>> = sources
        .par_iter_mut()
        .zip(&kept)
        .map(|(s, k)| k.is_none().then(|| s.take_bytes()))
        .collect();
    // Each source's `def`/`class` names: kept, or scanned once from what was read.
    let defs: Vec<Vec<String>> = kept
        .par_iter()
        .zip(&read)
        .map(|(k, r)| match (k, r) {
            (Some((_, d)), _) => d.to_vec(),
            (None, Some(Ok(b))) => crate::def_scan::def_names(b),
            _ => Vec::new(),
        })
        .collect();
    let defined: HashSet<String> = defs.iter().flatten().cloned().collect();
    // Kept walks that dropped calls of a name defined only now are made again (one scan of
    // each kept text's identifiers, whatever the number of names).
    let added: HashSet<&str> = defined
        .iter()
        .filter(|n| !state.defined.contains(*n))
        .map(String::as_str)
        .collect();
    if !added.is_empty() {
        let stale: Vec<bool> = kept
            .par_iter()
            .map(|k| {
                k.as_ref()
                    .is_some_and(|(a, _)| mentions_any(&a.text, &added))
            })
            .collect();
        for (i, stale) in stale.into_iter().enumerate() {
            if stale {
                kept[i] = None;
                read[i] = Some(sources[i].take_bytes());
            }
        }
    }
    let kept: Vec<Option<Arc<Analyzed>>> = kept.into_iter().map(|k| k.map(|(a, _)| a)).collect();
    // (A kept file is not walked again when only the files beside it change: the imports it
    // resolves to the project's code are those of its last walk.)
    let tree = crate::local_imports::Tree::new(
        sources.iter().enumerate().map(|(i, s)| {
            let text = match (&kept[i], &read[i]) {
                (Some(a), _) => Some(a.text.as_bytes()),
                (None, Some(Ok(b))) => Some(b.as_slice()),
                _ => None,
            };
            (s.path.as_path(), text)
        }),
        roots,
    );
    let around = Around {
        defined: &defined,
        tree: &tree,
    };
    let made: Vec<Option<Arc<Analyzed>>> = sources
        .par_iter()
        .zip(read)
        .map(|(s, bytes)| {
            let bytes = bytes?;
            Some(Arc::new(match bytes {
                Ok(bytes) => analyze_owned(
                    s.path.clone(),
                    s.module.clone(),
                    bytes,
                    roots,
                    Some(&around),
                ),
                Err(e) => Analyzed::failed(s.path.clone(), e),
            }))
        })
        .collect();
    // Standard input (no path of its own), files that cannot be read and files modified
    // just now (`warm::racy`) are not kept; a run forgets the files it no longer has
    // (deleted, excluded).
    let now = std::time::SystemTime::now();
    let seen: HashSet<&PathBuf> = sources.iter().map(|s| &s.path).collect();
    state.files.retain(|p, _| seen.contains(p));
    let mut out = Vec::with_capacity(sources.len());
    for (i, ((k, m), (s, stamp))) in kept
        .into_iter()
        .zip(made)
        .zip(sources.iter().zip(stamps))
        .enumerate()
    {
        let a = match (k, m) {
            (Some(a), _) => a,
            (None, Some(a)) => {
                let settled = match &stamp {
                    Some(Stamp::Disk { modified, .. }) => !warm::racy(*modified, now),
                    _ => true,
                };
                if let (Some(stamp), true) = (
                    stamp,
                    stdin_at != Some(i) && a.io_error.is_none() && settled,
                ) {
                    state.files.insert(
                        s.path.clone(),
                        warm::Entry {
                            stamp,
                            defs: defs[i].clone(),
                            analyzed: Arc::clone(&a),
                        },
                    );
                }
                a
            }
            (None, None) => Arc::new(Analyzed::failed(s.path.clone(), "not read".to_string())),
        };
        out.push(a);
    }
    state.defined = defined;
    out
}
pub fn analyze_path(path: &Path, module: ModuleName, roots: &HashSet<String>) -> Analyzed {
    match read_source(path) {
        Ok(bytes) => analyze_owned(path.to_path_buf(), module, bytes, roots, None),
        Err(e) => Analyzed::failed(path.to_path_buf(), e),
    }
}

/// A source file's bytes. Regular files only, at most MAX_FILE_BYTES: a `.py` that is a FIFO
/// or a link to `/dev/zero` is an I/O finding, not a hang.
fn read_source(path: &Path) -> Read {
    match apicompat_requirements::read_regular_file(path, MAX_FILE_BYTES) {
        Ok(bytes) => Ok(bytes),
        Err(apicompat_requirements::ReadError::Io(e)) => Err(describe_io(&e)),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether `text` has an identifier among `names` (strings and comments included).
fn mentions_any(text: &str, names: &HashSet<&str>) -> bool {
    let is_part = |c: char| c == '_' || c.is_alphanumeric();
    text.split(|c: char| !is_part(c))
        .any(|word| !word.is_empty() && names.contains(word))
}

/// Parses source bytes (any encoding problem is noted and read with replacement characters).
pub fn analyze_bytes(
    path: PathBuf,
    module: ModuleName,
    bytes: &[u8],
    roots: &HashSet<String>,
) -> Analyzed {
    analyze_owned(path, module, bytes.to_vec(), roots, None)
}

/// What a file's analysis reads of the rest of the project.
struct Around<'a> {
    /// The names of the functions and classes the project defines (other calls are not kept
    /// for the semantic model).
    defined: &'a HashSet<String>,
    /// The project's files, for the imports a script resolves beside it.
    tree: &'a crate::local_imports::Tree,
}

/// [`analyze_bytes`] without copying valid UTF-8, with what is known of the project around
/// the file.
fn analyze_owned(
    path: PathBuf,
    module: ModuleName,
    bytes: Vec<u8>,
    roots: &HashSet<String>,
    around: Option<&Around>,
) -> Analyzed {
    let (text, bad_utf8_at) = match String::from_utf8(bytes) {
        Ok(t) => (t, None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            (String::from_utf8_lossy(e.as_bytes()).into_owned(), Some(at))
        }
    };
    let source_type = source_type(&path, &text);
    let line_index = LineIndex::from_source_text(&text);
    // A tree nested deeper than the walkers can recurse through is not walked: the file is
    // reported as not checked. A large file is estimated before it is parsed (a deep tree is
    // then never built: neither its memory nor dropping it), a small one from its parse's
    // tokens (one lexing pass; see `nesting::PARSE_FIRST_BYTES`).
    use apicompat_extract::nesting::{self, MAX_NESTING_ESTIMATE, PARSE_FIRST_BYTES};
    let parse = || ruff_python_parser::parse_unchecked_source(&text, source_type);
    let parsed = if text.len() <= PARSE_FIRST_BYTES {
        let parsed = parse();
        nesting::check_tokens(parsed.tokens(), MAX_NESTING_ESTIMATE).map(|()| parsed)
    } else {
        nesting::check(&text, MAX_NESTING_ESTIMATE).map(|()| parse())
    };
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(deep) => {
            let mut a = Analyzed::failed(path, String::new());
            a.io_error = None;
            a.not_parsed = Some(deep.to_string());
            a.line_index = line_index;
            a.text = text;
            a.bad_utf8_at = bad_utf8_at;
            return a;
        }
    };
    let mut syntax_errors: Vec<(TextRange, String)> = parsed
        .errors()
        .iter()
        .map(|e| (e.location, e.error.to_string()))
        .collect();
    syntax_errors.sort_by_key(|(r, _)| (r.start(), r.end()));
    let mut suppressions = Suppressions::default();
    for token in parsed.tokens().iter() {
        if token.kind() == TokenKind::Comment {
            let range = token.range();
            if let Some(comment) = text.get(range.start().to_usize()..range.end().to_usize()) {
                let line = line_index.line_index(range.start()).get();
                suppressions.add_comment(u32::try_from(line).unwrap_or(u32::MAX), comment);
            }
        }
    }
    // Indexed names a script imports from the project's code beside it are not the index's.
    let local = around.map_or_else(Vec::new, |a| {
        a.tree.local_roots(&path, parsed.suite(), roots)
    });
    let narrowed: HashSet<String>;
    let roots = if local.is_empty() {
        roots
    } else {
        narrowed = roots
            .iter()
            .filter(|r| !local.contains(r))
            .cloned()
            .collect();
        &narrowed
    };
    let mut uses = collect_in(
        parsed.suite(),
        roots,
        text.contains(":="),
        text.contains("sys.modules"),
    );
    if path.file_name().is_some_and(|n| n == "setup.py") {
        crate::collect::setup_script_distutils(&mut uses.uses, parsed.suite());
    }
    // AC009 reads the typed reads of a file with member reads.
    let process_groups =
        if !uses.members.is_empty() || crate::pgcopy::may_copy(parsed.tokens(), &text) {
            OnceLock::from(crate::pgcopy::extract(parsed.suite(), &text))
        } else {
            OnceLock::new()
        };
    let mut semantic = apicompat_semantic::extract_with(
        parsed.suite(),
        &module,
        &|root| roots.contains(root),
        &|name| around.is_none_or(|a| a.defined.contains(name)),
    );
    drop(parsed);
    crate::objects::pair_sites(&mut uses, &mut semantic);
    Analyzed {
        path,
        text,
        line_index,
        uses,
        process_groups,
        module,
        semantic: Arc::new(semantic),
        syntax_errors,
        suppressions,
        bad_utf8_at,
        io_error: None,
        not_parsed: None,
    }
}
