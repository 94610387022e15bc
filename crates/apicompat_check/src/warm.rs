//! The analyses of a project's files kept between checks (the language server keeps one
//! [`Warm`] per workspace): a file is parsed and walked again only when it changed.
//!
//! What one file's analysis depends on, and so what makes a kept one stale:
//! - its bytes: a file on disk is compared by length and modification time (read again only
//!   when one differs), a document given by its text by the text itself;
//! - its module name (relative imports);
//! - the indexed top-level modules of the run (a change drops every kept analysis);
//! - the names the project defines (`def`/`class`): the walk keeps a call for the semantic
//!   model only when its name is one of them. When names are added, the kept files that
//!   have one of them as an identifier are walked again (one scan of each text, whatever the
//!   number of names); a name removed leaves calls that match nothing, which is harmless.
//!
//! Everything after the walk (version helpers and callers across files, the semantic model, the
//! rules) runs on every check, on the kept analyses, which those stages copy before they change
//! one (`Arc::make_mut`): a kept analysis is always the file as it was walked.

use apicompat_hash::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use apicompat_semantic::ModuleName;

use crate::files::Analyzed;

/// Per-file analyses kept between checks. Shared by the checks that are given it
/// ([`crate::Options::warm`]); a check holds its lock while it reads and updates it.
#[derive(Default)]
pub struct Warm {
    state: Mutex<State>,
    /// AC010's process-group tables ([`crate::pgcopy`]).
    pub(crate) process_groups: crate::pgcopy::PgCache,
    /// The last walk of the project's directories.
    walk: Mutex<Option<Walk>>,
}

/// A walk of the project: what it was asked (paths, project root, exclusions), each directory
/// it listed with its modification time, the ignore files that applied with their stamps,
/// and what it found. It holds while no listed directory changed (a file or directory
/// created, deleted or renamed in it) and no ignore file did.
struct Walk {
    key: (Vec<PathBuf>, PathBuf, crate::exclude::FileSettings),
    dirs: Vec<(PathBuf, Option<SystemTime>)>,
    ignores: Vec<(PathBuf, Option<Stamp>)>,
    found: crate::files::Discovered,
}

/// A modification time this close to the moment it was read does not tell a later change
/// apart (file systems keep times at the kernel's tick): such a file or walk is not kept.
const RACY: std::time::Duration = std::time::Duration::from_millis(100);

/// Whether a modification time is unknown or within [`RACY`] of `now`.
pub(crate) fn racy(modified: Option<SystemTime>, now: SystemTime) -> bool {
    modified.is_none_or(|t| now.duration_since(t).is_ok_and(|d| d < RACY) || t > now)
}

/// The files the walk reads for exclusions, in each directory.
const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore", ".git/info/exclude"];

impl Walk {
    fn holds(&self) -> bool {
        let modified = |d: &Path| std::fs::metadata(d).ok().and_then(|m| m.modified().ok());
        self.dirs.iter().all(|(d, t)| modified(d) == *t)
            && self.ignores.iter().all(|(f, s)| disk_stamp(f) == *s)
    }
}

impl std::fmt::Debug for Warm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files = self.state.lock().map_or(0, |s| s.files.len());
        write!(f, "Warm {{ {files} files }}")
    }
}

/// How a kept analysis was made: from the file on disk (its length and modification time
/// then) or from a text given in memory (compared with the analysis' own text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stamp {
    Disk {
        len: u64,
        modified: Option<SystemTime>,
    },
    Text,
}

#[derive(Default)]
pub(crate) struct State {
    /// The indexed top-level modules the analyses were made with (sorted).
    pub roots: Vec<String>,
    pub files: HashMap<PathBuf, Entry>,
    /// The names the project defined when the kept analyses were made.
    pub defined: HashSet<String>,
    /// What the last check added to each file from the others ([`crate::link`]).
    pub link: crate::link::LinkMemo,
}

pub(crate) struct Entry {
    pub stamp: Stamp,
    /// The `def`/`class` names of the file ([`crate::files`]'s scan).
    pub defs: Vec<String>,
    pub analyzed: Arc<Analyzed>,
}

impl Warm {
    pub fn new() -> Warm {
        Warm::default()
    }

    /// [`crate::files::discover`], or the last walk's result when it still holds (the same
    /// request, no listed directory or ignore file changed since). A walk that met errors is
    /// not kept.
    pub(crate) fn discover(
        &self,
        paths: &[PathBuf],
        filter: &crate::exclude::FileFilter,
        root: &Path,
        settings: &crate::exclude::FileSettings,
    ) -> crate::files::Discovered {
        let key = (paths.to_vec(), root.to_path_buf(), settings.clone());
        let mut walk = self.walk.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = walk.as_ref() {
            if w.key == key && w.holds() {
                return w.found.clone();
            }
        }
        let mut dirs = Vec::new();
        let found = crate::files::discover_listing(paths, filter, &mut dirs);
        *walk = None;
        let now = SystemTime::now();
        if found.errors.is_empty() && !dirs.iter().any(|(_, t)| racy(*t, now)) {
            // Ignore files in the listed directories (one created there changes the
            // directory) and in every directory above the walked ones (not listed: absent
            // ones are recorded too).
            let mut ignores: Vec<(PathBuf, Option<Stamp>)> = Vec::new();
            for (d, _) in &dirs {
                for name in IGNORE_FILES {
                    let f = d.join(name);
                    if let Some(s) = disk_stamp(&f) {
                        ignores.push((f, Some(s)));
                    }
                }
            }
            for p in paths {
                let Ok(abs) = std::fs::canonicalize(p) else {
                    continue;
                };
                for d in abs.ancestors().skip(1) {
                    for name in IGNORE_FILES {
                        let f = d.join(name);
                        let s = disk_stamp(&f);
                        ignores.push((f, s));
                    }
                }
            }
            *walk = Some(Walk {
                key,
                dirs,
                ignores,
                found: found.clone(),
            });
        }
        found
    }

    /// The state, for a check; a check that panicked while holding it left nothing
    /// half-written that matters (entries are replaced whole), so a poisoned lock is taken.
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    /// Starts a check with these roots: the analyses of other roots are dropped.
    pub fn begin(&mut self, roots: &HashSet<String>) {
        let mut sorted: Vec<String> = roots.iter().cloned().collect();
        sorted.sort_unstable();
        if sorted != self.roots {
            self.files.clear();
            self.defined.clear();
            self.link = Default::default();
            self.roots = sorted;
        }
    }

    /// The kept analysis of a file, if it is still what `stamp` and `module` describe (for a
    /// text, `bytes` is compared with the analysis' text).
    pub fn get(
        &self,
        path: &PathBuf,
        stamp: &Stamp,
        module: &ModuleName,
        bytes: Option<&[u8]>,
    ) -> Option<&Entry> {
        let e = self.files.get(path)?;
        let same_source = match (stamp, bytes) {
            (Stamp::Text, Some(b)) => {
                e.stamp == Stamp::Text
                    && e.analyzed.bad_utf8_at.is_none()
                    && e.analyzed.text.as_bytes() == b
            }
            (Stamp::Disk { .. }, _) => e.stamp == *stamp,
            _ => false,
        };
        (same_source && e.analyzed.module == *module).then_some(e)
    }
}

/// The length and modification time of a file on disk (`None` when it cannot be read: it is
/// then read, and the reading reports the error).
pub(crate) fn disk_stamp(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp::Disk {
        len: m.len(),
        modified: m.modified().ok(),
    })
}
