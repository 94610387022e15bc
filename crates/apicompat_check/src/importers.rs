//! Which import statements of the project import each of its modules ([`crate::callers`]
//! turns them into the module's cover: where its import-time code runs).
//!
//! A module's name is the one [`crate::chains::module_names`] gives its file (and the dotted
//! path from the project root for namespace directories). `import a.b.c` and `from a.b
//! import c` import `a`, `a.b` and `a.b.c` (the packages' `__init__.py` run first); `from a
//! import b` imports `a.b` when that is a module. A module stays unrestricted (no importer
//! list) when nothing in the project imports it (an entry point, a script, a test, a public
//! module of a library), when it runs as a script (`__main__.py`, `if __name__ ==
//! "__main__":`), and when a dynamic import (`importlib.import_module`) names it, a package
//! above it or a module under it (a name built with computed parts, `f"a.{m}.modeling_{m}"`,
//! names what it may build, [`HOLE`]), and when a star import names it or a package above it
//! whose `__init__` computes its `__all__`. `from pkg import *` of a package imports the
//! submodules its `__all__` names (read from string literals, `collect::FileUses::all_names`),
//! as `from pkg import name` would.
//! Two files of the same name (scripts in different directories) share their importers.

use apicompat_hash::{HashMap, HashSet};
use std::sync::Arc;

use crate::collect::ModuleImport;
use crate::files::Analyzed;

/// In the name a dynamic import builds (`import_module(f"a.{x}.modeling_{x}")`), a part
/// computed at run time: one or more characters of one dotted segment.
pub(crate) const HOLE: char = '*';

/// Distinct names with computed parts matched one by one against every module.
const MAX_PATTERNS: usize = 64;

/// An import site: (importing file, position in its [`crate::collect::FileUses::project_imports`]).
pub(crate) type ImportRef = (usize, usize);

/// Whether package `p` is above the module of file `f` (`accel` above `accel.fast`).
fn above(p: &str, f: &Analyzed) -> bool {
    f.module
        .name
        .iter()
        .chain(&f.module.aliases)
        .any(|m| m.len() > p.len() && m.starts_with(p) && m.as_bytes()[p.len()] == b'.')
}

/// For each file, the import statements that import its module; `None` when it may be
/// imported from anywhere.
pub(crate) fn importers(files: &[Arc<Analyzed>]) -> Vec<Option<Vec<ImportRef>>> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::default();
    for (i, f) in files.iter().enumerate() {
        for name in f.module.name.iter().chain(&f.module.aliases) {
            by_name.entry(name.as_str()).or_default().push(i);
        }
    }
    let mut sites: Vec<Vec<ImportRef>> = vec![Vec::new(); files.len()];
    // Modules a star or dynamic import may reach: the prefix and everything under it.
    let mut open: HashSet<String> = HashSet::default();
    // Names built with parts computed at run time, `HOLE`s.
    let mut patterns: HashSet<String> = HashSet::default();
    for (fi, f) in files.iter().enumerate() {
        let package = package_of(f);
        for (si, site) in f.uses.project_imports.iter().enumerate() {
            let Some(base) = absolute(&site.import, package.as_deref()) else {
                continue;
            };
            let mut targets: Vec<usize> = Vec::new();
            for k in 1..=base.len() {
                if let Some(t) = by_name.get(base[..k].join(".").as_str()) {
                    targets.extend(t);
                }
            }
            for n in &site.import.names {
                // `from pkg import *` runs `pkg` (above) and binds the names it has: it
                // imports no submodule `pkg` does not import itself, but those its `__all__`
                // names (a package that computes it leaves everything under it open). A star
                // import of a module leaves the module open, as before.
                if n == "*" {
                    let packages = by_name.get(base.join(".").as_str());
                    // The names every file of the package says its `__all__` may hold.
                    let mut named: Vec<&str> = Vec::new();
                    let precise = packages.is_some_and(|t| {
                        t.iter().all(|&i| {
                            let all = files[i].uses.all_names.as_ref();
                            named.extend(all.into_iter().flatten().map(String::as_str));
                            files[i].module.is_package && all.is_some()
                        })
                    });
                    if !precise {
                        open.insert(base.join("."));
                        continue;
                    }
                    // Those that are submodules are imported, as `from pkg import name`.
                    for name in named {
                        let full = format!("{}.{name}", base.join("."));
                        if let Some(t) = by_name.get(full.as_str()) {
                            targets.extend(t);
                        }
                    }
                    continue;
                }
                let mut full = base.clone();
                full.push(n.clone());
                if let Some(t) = by_name.get(full.join(".").as_str()) {
                    targets.extend(t);
                }
            }
            targets.sort_unstable();
            targets.dedup();
            // A package above the importing module (or the module itself) was imported before
            // it: importing `accel.helpers` from `accel/fast.py` does not run `accel` first.
            targets.retain(|&t| {
                t != fi && !files[t].module.name.as_deref().is_some_and(|p| above(p, f))
            });
            for t in targets {
                sites[t].push((fi, si));
            }
        }
        for d in &f.uses.dynamic_imports {
            if let Some(base) = absolute(d, package.as_deref()) {
                let name = base.join(".");
                match name.contains(HOLE) {
                    true => {
                        patterns.insert(name);
                    }
                    false => {
                        open.insert(name);
                    }
                }
            }
        }
    }
    // Each module is matched against each pattern: past a bound, a pattern opens its literal
    // head instead (the segments before its first computed part), which costs one lookup.
    let patterns: Vec<Pattern> = match patterns.len() > MAX_PATTERNS {
        true => {
            for p in &patterns {
                let head: Vec<&str> = p.split('.').take_while(|s| !s.contains(HOLE)).collect();
                if !head.is_empty() {
                    open.insert(head.join("."));
                }
            }
            Vec::new()
        }
        false => patterns.iter().map(|p| Pattern::new(p)).collect(),
    };
    // Every package above an open prefix runs when it is imported.
    let mut open_parents: HashSet<String> = HashSet::default();
    for p in &open {
        let parts: Vec<&str> = p.split('.').collect();
        for k in 1..parts.len() {
            open_parents.insert(parts[..k].join("."));
        }
    }
    files
        .iter()
        .zip(sites)
        .map(|(f, s)| {
            let script = f.uses.is_main || f.path.file_name().is_some_and(|n| n == "__main__.py");
            let names: Vec<&String> = f.module.name.iter().chain(&f.module.aliases).collect();
            let reached = names.is_empty()
                || names.iter().any(|n| {
                    open_parents.contains(n.as_str())
                        || ancestors(n).any(|a| open.contains(a))
                        || patterns.iter().any(|p| p.reaches(n))
                });
            (!script && !reached && !s.is_empty()).then_some(s)
        })
        .collect()
}

/// The package a file's relative imports start from (its own name for an `__init__.py`).
fn package_of(f: &Analyzed) -> Option<String> {
    let name = f.module.name.as_deref()?;
    if f.module.is_package {
        return Some(name.to_string());
    }
    Some(name.rsplit_once('.').map_or("", |(p, _)| p).to_string())
}

/// The dotted parts of what an import statement names, made absolute.
fn absolute(imp: &ModuleImport, package: Option<&str>) -> Option<Vec<String>> {
    let mut base: Vec<String> = Vec::new();
    if imp.level > 0 {
        let mut parts: Vec<&str> = package?.split('.').filter(|p| !p.is_empty()).collect();
        let up = (imp.level - 1) as usize;
        if up > parts.len() {
            return None;
        }
        parts.truncate(parts.len() - up);
        base.extend(parts.iter().map(|s| s.to_string()));
    }
    if let Some(m) = &imp.module {
        base.extend(m.split('.').filter(|p| !p.is_empty()).map(str::to_string));
    }
    (!base.is_empty()).then_some(base)
}

/// `a.b.c`, `a.b`, `a`.
fn ancestors(name: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(name), |n| n.rsplit_once('.').map(|(p, _)| p))
}

/// A module name with parts computed at run time ([`HOLE`]), matched as Python would import
/// it: each part one or more characters of one segment.
struct Pattern {
    tokens: Vec<Token>,
}

#[derive(Clone, Copy)]
enum Token {
    Byte(u8),
    /// One character of a segment.
    Part,
    /// Any more characters of the same segment.
    More,
}

impl Pattern {
    fn new(name: &str) -> Pattern {
        let mut tokens = Vec::with_capacity(name.len());
        for c in name.chars() {
            if c == HOLE {
                tokens.extend([Token::Part, Token::More]);
            } else {
                let mut buf = [0u8; 4];
                tokens.extend(c.encode_utf8(&mut buf).bytes().map(Token::Byte));
            }
        }
        Pattern { tokens }
    }

    /// Whether importing a name this pattern builds runs module `name`: the name itself, a
    /// module under it (its package may import it), or a package above it.
    fn reaches(&self, name: &str) -> bool {
        ancestors(name).any(|a| self.matches(a, false)) || self.matches(&format!("{name}."), true)
    }

    /// Whether `text` is a name the pattern builds (`prefix`: the beginning of one). One pass
    /// over `text` with the set of positions reached in the pattern.
    fn matches(&self, text: &str, prefix: bool) -> bool {
        let n = self.tokens.len();
        let mut live = vec![false; n + 1];
        live[0] = true;
        self.close(&mut live);
        for &b in text.as_bytes() {
            let mut next = vec![false; n + 1];
            for (i, t) in self.tokens.iter().enumerate() {
                if !live[i] {
                    continue;
                }
                match *t {
                    Token::Byte(c) if c == b => next[i + 1] = true,
                    Token::Part if b != b'.' => next[i + 1] = true,
                    Token::More if b != b'.' => next[i] = true,
                    _ => {}
                }
            }
            self.close(&mut next);
            if !next.iter().any(|&l| l) {
                return false;
            }
            live = next;
        }
        prefix || live[n]
    }

    /// Adds the positions reached by skipping `More` tokens (they match nothing too).
    fn close(&self, live: &mut [bool]) {
        for i in 0..self.tokens.len() {
            if live[i] && matches!(self.tokens[i], Token::More) {
                live[i + 1] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Pattern;

    /// Search-R1's `import_module(f"verl.models.{m}.{megatron}.modeling_{m}_megatron")`,
    /// `megatron = "megatron"` (`docs/false-alarm-study-51.md`, F-1): the modules it may
    /// import and the packages above them run; a module beside them does not.
    #[test]
    fn a_pattern_reaches_what_it_may_import_and_the_packages_above() {
        let p = Pattern::new("verl.models.*.megatron.modeling_*_megatron");
        for reached in [
            "verl",
            "verl.models",
            "verl.models.llama",
            "verl.models.llama.megatron",
            "verl.models.llama.megatron.modeling_llama_megatron",
            "verl.models.llama.megatron.modeling_llama_megatron.layers",
        ] {
            assert!(p.reaches(reached), "{reached}");
        }
        for quiet in [
            "verl.models.transformers.llama",
            "verl.models.transformers.qwen2",
            "verl.utils",
            "verl.models.llama.megatron.layers",
        ] {
            assert!(!p.reaches(quiet), "{quiet}");
        }
    }
}
