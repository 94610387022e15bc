//! Private attributes read on objects whose type is not known statically
//! (`optimizer._param_store` where `optimizer` is a parameter). Only the attribute's name can
//! be checked: when the name is private (`_x`), the project never defines it itself, and the
//! classes of exactly one indexed package the file imports define it only in some releases, a
//! use of it needs one of those releases (rule AC009).
//!
//! The rule stays quiet for names the project defines anywhere (functions, classes, assigned
//! names, attributes it stores, keyword arguments, `setattr` names), names of builtin types'
//! methods, receivers that are imported names or literals, names that some class of an
//! imported package defines in every release, names that several packages or many classes
//! define, and reads guarded by `hasattr`, `try/except AttributeError` and the like.

use apicompat_hash::{HashMap, HashSet};
use std::sync::Arc;

use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{Expr, ExprContext, Stmt};

use apicompat_index::PackageView;
use apicompat_surface::Kind;

use crate::collect::{FileUses, Found, MemberUse, MAX_DEPTH};
use crate::model::Finding;
use crate::rules::ac009_drifting_attribute::finding;
use crate::targets::Target;

/// A name defined by more classes than this (across every release) is too common to say
/// anything about a receiver of unknown type.
pub const MAX_DEFINING_CLASSES: usize = 3;

/// Methods and attributes of builtin types (`str`, `bytes`, `list`, `dict`, `set`, `tuple`,
/// numbers, files): a receiver of unknown type may well be one of those.
const BUILTIN_MEMBERS: &[&str] = &[
    "add",
    "append",
    "as_integer_ratio",
    "bit_count",
    "bit_length",
    "capitalize",
    "casefold",
    "center",
    "clear",
    "close",
    "closed",
    "conjugate",
    "copy",
    "count",
    "decode",
    "denominator",
    "difference",
    "difference_update",
    "discard",
    "encode",
    "endswith",
    "expandtabs",
    "extend",
    "fileno",
    "find",
    "flush",
    "format",
    "format_map",
    "fromhex",
    "fromkeys",
    "get",
    "hex",
    "imag",
    "index",
    "insert",
    "intersection",
    "intersection_update",
    "is_integer",
    "isalnum",
    "isalpha",
    "isascii",
    "isdecimal",
    "isdigit",
    "isdisjoint",
    "isidentifier",
    "islower",
    "isnumeric",
    "isprintable",
    "isspace",
    "issubset",
    "issuperset",
    "istitle",
    "isupper",
    "items",
    "join",
    "keys",
    "ljust",
    "lower",
    "lstrip",
    "maketrans",
    "mode",
    "name",
    "numerator",
    "partition",
    "pop",
    "popitem",
    "read",
    "readline",
    "readlines",
    "real",
    "remove",
    "removeprefix",
    "removesuffix",
    "replace",
    "reverse",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "seek",
    "setdefault",
    "sort",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "symmetric_difference",
    "symmetric_difference_update",
    "tell",
    "title",
    "to_bytes",
    "translate",
    "truncate",
    "union",
    "update",
    "upper",
    "values",
    "write",
    "writelines",
    "zfill",
];

/// Names one file defines or binds.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    /// Private names (`_x`) of functions, classes, assigned names, attributes stored
    /// (`x.name = ...`), keyword arguments of calls, `setattr(x, "name", ...)` names.
    pub defined: HashSet<String>,
    /// Names bound by import statements (modules and imported objects).
    pub imported: HashSet<String>,
}

impl Definitions {
    /// The names a parsed file defines.
    pub fn of(suite: &[Stmt]) -> Definitions {
        let mut v = DefinitionVisitor {
            out: Definitions::default(),
            depth: 0,
        };
        for stmt in suite {
            v.visit_stmt(stmt);
        }
        v.out
    }
}

struct DefinitionVisitor {
    out: Definitions,
    depth: usize,
}

impl DefinitionVisitor {
    /// Only private names matter to the member rule: public ones are not kept.
    fn define(&mut self, name: &str) {
        if name.starts_with('_') {
            self.out.defined.insert(name.to_string());
        }
    }
}

impl<'a> Visitor<'a> for DefinitionVisitor {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match stmt {
            Stmt::FunctionDef(f) => self.define(f.name.as_str()),
            Stmt::ClassDef(c) => self.define(c.name.as_str()),
            Stmt::Import(imp) => {
                for a in &imp.names {
                    let full = a.name.as_str();
                    let bound = a
                        .asname
                        .as_ref()
                        .map_or(full.split('.').next().unwrap_or(full), |n| n.as_str());
                    self.out.imported.insert(bound.to_string());
                }
            }
            Stmt::ImportFrom(imp) => {
                for a in &imp.names {
                    let bound = a.asname.as_ref().unwrap_or(&a.name);
                    self.out.imported.insert(bound.to_string());
                }
            }
            _ => {}
        }
        visitor::walk_stmt(self, stmt);
        self.depth -= 1;
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        match expr {
            Expr::Name(n) if n.ctx != ExprContext::Load => self.define(n.id.as_str()),
            Expr::Attribute(a) if a.ctx != ExprContext::Load => self.define(a.attr.as_str()),
            Expr::Call(call) => {
                for k in call.arguments.keywords.iter() {
                    if let Some(arg) = &k.arg {
                        self.define(arg.as_str());
                    }
                }
                let is_setattr = matches!(&*call.func, Expr::Name(n) if n.id.as_str() == "setattr");
                if is_setattr {
                    if let Some(Expr::StringLiteral(s)) = call.arguments.args.get(1) {
                        self.define(s.value.to_str());
                    }
                }
            }
            _ => {}
        }
        visitor::walk_expr(self, expr);
        self.depth -= 1;
    }
}

/// Where the classes of one package define a member name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberDef {
    /// Per release of the package: whether some class defines the name.
    pub releases: Vec<bool>,
    /// Per release: no class defines it, but a defining class is there and cannot be known
    /// to lack it (it defines `__getattr__`, or has a base class from outside the index).
    /// Never reported as missing.
    pub unknown: Vec<bool>,
    /// The classes that define it in some release.
    pub classes: Vec<String>,
}

/// Decides which member reads can be checked, and against what.
pub struct MemberChecker {
    /// Names defined anywhere in the project.
    defined: HashSet<String>,
    /// Member names worth looking up.
    needed: HashSet<String>,
    tables: HashMap<String, HashMap<String, Arc<MemberDef>>>,
    roots: HashMap<String, Vec<String>>,
    /// Needed names a class of the standard library defines ([`MemberChecker::note_stdlib`]).
    stdlib: HashSet<String>,
}

impl MemberChecker {
    /// A checker for the member reads of the `judged` files (the project's names come from
    /// all of `files`).
    pub fn new<'f>(
        files: impl IntoIterator<Item = &'f FileUses>,
        judged: impl IntoIterator<Item = &'f FileUses>,
    ) -> MemberChecker {
        let mut defined: HashSet<String> = HashSet::default();
        for f in files {
            defined.extend(f.definitions.defined.iter().cloned());
        }
        let mut needed = HashSet::default();
        for f in judged {
            for m in &f.members {
                if candidate(&defined, f, m) {
                    needed.insert(m.name.clone());
                }
            }
        }
        MemberChecker {
            defined,
            needed,
            tables: HashMap::default(),
            roots: HashMap::default(),
            stdlib: HashSet::default(),
        }
    }

    /// Notes the names a class of the standard library defines in some Python release
    /// (`argparse.Namespace._get_kwargs`, `typing.NamedTuple._replace`): a receiver of unknown
    /// type may be one of those objects whatever the file imports, so another package's classes
    /// say nothing about it (`docs/false-alarm-study-44.md`, F-AG).
    pub fn note_stdlib(&mut self, catalog: &apicompat_index::Catalog) {
        if self.needed.is_empty() {
            return;
        }
        if let Ok(Some(view)) = catalog.package(crate::python_target::PYTHON) {
            self.stdlib = build_table(view, &self.needed).into_keys().collect();
        }
    }

    /// Whether the project defines a name anywhere.
    pub fn defines(&self, name: &str) -> bool {
        self.defined.contains(name)
    }

    /// Whether a member read is one the rule looks at.
    pub fn is_candidate(&self, file: &FileUses, m: &MemberUse) -> bool {
        self.needed.contains(&m.name) && candidate(&self.defined, file, m)
    }

    fn table(&mut self, view: &PackageView) -> &HashMap<String, Arc<MemberDef>> {
        let needed = &self.needed;
        self.tables
            .entry(view.name().to_string())
            .or_insert_with(|| build_table(view, needed))
    }

    /// The package whose classes the read depends on, with where they define the name; None
    /// when nothing can be said.
    pub fn judge<'v>(
        &mut self,
        file: &FileUses,
        m: &MemberUse,
        packages: &[&'v PackageView],
    ) -> Option<(&'v PackageView, Arc<MemberDef>)> {
        if !self.is_candidate(file, m) {
            return None;
        }
        let python = crate::python_target::PYTHON;
        if self.stdlib.contains(&m.name) && !packages.iter().any(|p| p.name() == python) {
            return None;
        }
        let mut found: Vec<(&'v PackageView, Arc<MemberDef>)> = Vec::new();
        let mut classes = 0;
        for &view in packages {
            let Some(def) = self.table(view).get(&m.name).cloned() else {
                continue;
            };
            if def.releases.iter().all(|&b| b) {
                // Some class has it in every release: the receiver may be one of those.
                return None;
            }
            classes += def.classes.len();
            found.push((view, def));
        }
        if found.len() != 1 || classes > MAX_DEFINING_CLASSES {
            return None;
        }
        found.pop()
    }

    /// Whether a release of `view` passes the version conditions the read runs under, and
    /// what its tests say about paths of the package (`Use::requires`).
    pub fn admitted(&mut self, m: &MemberUse, view: &PackageView, release: usize) -> bool {
        if m.versions.is_empty() && m.requires.is_empty() {
            return true;
        }
        let Some(version) = view.releases().get(release).map(|r| r.version.clone()) else {
            return false;
        };
        let roots = self
            .roots
            .entry(view.name().to_string())
            .or_insert_with(|| view.roots());
        let holds = |t: &crate::collect::PathTest| {
            let root = t.path.split('.').next().unwrap_or(&t.path);
            !roots.iter().any(|r| r == root)
                || !t.excludes_with(|p| {
                    if let Some(f) = crate::evaluate::parameters::found(view, p, release) {
                        return f;
                    }
                    match view.status(p, release) {
                        Ok(apicompat_index::Status::Absent { .. }) => Found::Absent,
                        Ok(apicompat_index::Status::Present { symbol, .. }) => {
                            Found::Present(symbol.kind())
                        }
                        _ => Found::Unknown,
                    }
                    .or_unimportable(view, p, release)
                })
        };
        m.requires.iter().all(holds)
            && m.versions
                .iter()
                .all(|(root, pred)| !roots.contains(root) || pred.admits(&version))
    }

    /// The AC009 finding for a read, if some targeted release lacks the name.
    pub fn evaluate(
        &mut self,
        m: &MemberUse,
        view: &PackageView,
        def: &MemberDef,
        target: &Target,
    ) -> Option<Finding> {
        let missing: Vec<usize> = target
            .releases
            .iter()
            .copied()
            .filter(|&r| self.admitted(m, view, r))
            .filter(|&r| !def.releases.get(r).copied().unwrap_or(true))
            .filter(|&r| !def.unknown.get(r).copied().unwrap_or(false))
            .collect();
        if missing.is_empty() {
            return None;
        }
        Some(finding(
            m,
            view,
            def,
            &missing,
            Some(&target.info.description),
            &target.short,
        ))
    }
}

fn candidate(defined: &HashSet<String>, file: &FileUses, m: &MemberUse) -> bool {
    // Private names only: public names on receivers of unknown type match some class of a
    // large package in some releases far too often (`logger.warning`, `array.astype`).
    m.name.starts_with('_')
        && !defined.contains(&m.name)
        && !BUILTIN_MEMBERS.contains(&m.name.as_str())
        && m.root
            .as_ref()
            .is_none_or(|r| !file.definitions.imported.contains(r))
}

/// From the package's paths by last segment: for each needed name, the classes that define it and
/// the releases where they do.
fn build_table(view: &PackageView, needed: &HashSet<String>) -> HashMap<String, Arc<MemberDef>> {
    let mut candidates: Vec<String> = needed.iter().flat_map(|n| view.paths_named(n)).collect();
    candidates.sort_unstable();
    let n = view.releases().len();
    // Per release: the index holding it and its position there.
    let places: Vec<_> = (0..n).filter_map(|r| view.index_of(r)).collect();
    if places.len() != n {
        return HashMap::default();
    }
    let mut class_cache: HashMap<String, Vec<bool>> = HashMap::default();
    let mut out: HashMap<String, MemberDef> = HashMap::default();
    for path in &candidates {
        let path = path.as_str();
        let Some((parent, name)) = path.rsplit_once('.') else {
            continue;
        };
        let is_class = class_cache
            .entry(parent.to_string())
            .or_insert_with(|| {
                places
                    .iter()
                    .map(|(index, pos)| {
                        matches!(
                            index.facet_in(parent, *pos).and_then(|f| match f {
                                Some(f) => index.kind(f).map(|k| Some(k.0)),
                                None => Ok(None),
                            }),
                            Ok(Some(Kind::Class))
                        )
                    })
                    .collect()
            })
            .clone();
        if !is_class.iter().any(|&b| b) {
            continue;
        }
        let mut any = false;
        let mut releases = vec![false; n];
        for (r, (index, pos)) in places.iter().enumerate() {
            if is_class[r] && matches!(index.facet_in(path, *pos), Ok(Some(_))) {
                releases[r] = true;
                any = true;
            }
        }
        if !any {
            continue;
        }
        let entry = out.entry(name.to_string()).or_insert_with(|| MemberDef {
            releases: vec![false; n],
            unknown: vec![false; n],
            classes: Vec::new(),
        });
        for (slot, has) in entry.releases.iter_mut().zip(&releases) {
            *slot |= *has;
        }
        // Where the class is there without the name, the lookup through its `__getattr__`
        // and bases may not know.
        for r in (0..n).filter(|&r| is_class[r] && !releases[r]) {
            if matches!(
                view.status(path, r),
                Ok(apicompat_index::Status::Unknown { .. })
            ) {
                entry.unknown[r] = true;
            }
        }
        entry.classes.push(parent.to_string());
    }
    for def in out.values_mut() {
        for (u, has) in def.unknown.iter_mut().zip(&def.releases) {
            *u &= !*has;
        }
    }
    out.into_iter().map(|(k, v)| (k, Arc::new(v))).collect()
}

/// The indexed package of each top-level module, looked up once.
pub(crate) struct Packages<'c> {
    catalog: &'c apicompat_index::Catalog,
    cache: HashMap<String, Option<&'c PackageView>>,
}

impl<'c> Packages<'c> {
    pub(crate) fn new(catalog: &'c apicompat_index::Catalog) -> Packages<'c> {
        Packages {
            catalog,
            cache: HashMap::default(),
        }
    }

    pub(crate) fn for_root(&mut self, root: &str) -> Option<&'c PackageView> {
        if let Some(v) = self.cache.get(root) {
            return *v;
        }
        let view = self.catalog.package_for_module(root).ok().flatten();
        self.cache.insert(root.to_string(), view);
        view
    }
}

/// The indexed packages a file uses (through its imports and attribute chains).
pub(crate) fn file_packages<'c>(
    packages: &mut Packages<'c>,
    uses: &FileUses,
) -> Vec<&'c PackageView> {
    let mut out: Vec<&'c PackageView> = Vec::new();
    if uses.members.is_empty() {
        return out;
    }
    let mut seen: HashSet<&str> = HashSet::default();
    for u in &uses.uses {
        let root = u.path.split('.').next().unwrap_or(&u.path);
        if !seen.insert(root) {
            continue;
        }
        if let Some(view) = packages.for_root(root) {
            if !out.iter().any(|v| v.name() == view.name()) {
                out.push(view);
            }
        }
    }
    out
}

/// Whether `module` is known from its stub in the newest release of `view`.
fn known_from_stub(view: &PackageView, module: &str) -> bool {
    let newest = view.releases().len().saturating_sub(1);
    matches!(
        view.status(module, newest),
        Ok(apicompat_index::Status::Present { symbol, .. }) if symbol.stub_only
    )
}

/// The AC009 findings of every file `reported` marks (all when it is empty), against the
/// targets chosen for its packages.
pub(crate) fn check_files(
    catalog: &apicompat_index::Catalog,
    analyzed: &[std::sync::Arc<crate::files::Analyzed>],
    reported: &[bool],
    chosen: &std::collections::BTreeMap<String, Target>,
    origins: &crate::objects::Origins,
    out: &mut Vec<(usize, Finding, Vec<u32>)>,
) {
    if analyzed.iter().all(|a| a.uses.members.is_empty()) {
        return;
    }
    let is_reported = |fi: usize| reported.get(fi).copied().unwrap_or(true);
    let mut checker = MemberChecker::new(
        analyzed.iter().map(|a| &a.uses),
        analyzed
            .iter()
            .enumerate()
            .filter(|(fi, _)| is_reported(*fi))
            .map(|(_, a)| &a.uses),
    );
    checker.note_stdlib(catalog);
    let mut packages = Packages::new(catalog);
    // The top-level names of the project's own modules.
    let project_roots: HashSet<&str> = analyzed
        .iter()
        .flat_map(|a| a.module.name.iter().chain(&a.module.aliases))
        .filter_map(|n| n.split('.').next())
        .collect();
    for (fi, file) in analyzed.iter().enumerate() {
        if !is_reported(fi) {
            continue;
        }
        let imported = file_packages(&mut packages, &file.uses);
        for m in &file.uses.members {
            // The packages of the file's imports, and those the object comes from (a
            // parameter whose callers pass what a package's function returned).
            let mut views = imported.clone();
            let mut foreign = false;
            for root in origins.get(&(fi, m.range)).into_iter().flatten() {
                match packages.for_root(root) {
                    // Made by a module the index knows from its stub (the standard
                    // library's, from typeshed): stubs leave out private attributes
                    // (`multiprocessing.pool.Pool` sets `self._pool`), so what the object
                    // holds is unknown.
                    Some(view) if known_from_stub(view, root) => foreign = true,
                    Some(view) => {
                        if !views.iter().any(|v| v.name() == view.name()) {
                            views.push(view);
                        }
                    }
                    // Made by a package the index does not have: its class is that package's.
                    None => foreign = true,
                }
            }
            // Annotated with (built by, checked as) a class of a package the index does not
            // have: the attributes that class defines are unknown, not missing.
            foreign |= file
                .process_groups()
                .typed
                .iter()
                .filter(|t| t.range == m.range)
                .filter_map(|t| t.class.split('.').next())
                .any(|root| !project_roots.contains(root) && packages.for_root(root).is_none());
            if foreign {
                continue;
            }
            if views.is_empty() {
                continue;
            }
            // A receiver whose class is known is checked against that class alone.
            let typed = crate::drift::typed_check(&mut packages, &mut checker, file, m, chosen);
            let mut f = match typed {
                Some(Some(f)) => f,
                Some(None) => continue,
                None => {
                    let Some((view, def)) = checker.judge(&file.uses, m, &views) else {
                        continue;
                    };
                    let Some(target) = chosen.get(view.name()) else {
                        continue;
                    };
                    let Some(mut f) = checker.evaluate(m, view, &def, target) else {
                        continue;
                    };
                    let admitted: Vec<usize> = target
                        .releases
                        .iter()
                        .copied()
                        .filter(|&r| checker.admitted(m, view, r))
                        .collect();
                    let missing: Vec<usize> = admitted
                        .iter()
                        .copied()
                        .filter(|&r| !def.releases.get(r).copied().unwrap_or(true))
                        .filter(|&r| !def.unknown.get(r).copied().unwrap_or(false))
                        .collect();
                    crate::drift::add_replacements(
                        &mut f,
                        file,
                        m,
                        view,
                        &def.classes,
                        &missing,
                        &admitted,
                    );
                    f
                }
            };
            let (l, c) = file.position(m.range.start());
            let (el, ec) = file.position(m.range.end());
            f.path = file.path.clone();
            (f.line, f.column, f.end_line, f.end_column) = (l, c, el, ec);
            let (stmt_line, _) = file.position(m.stmt_start);
            out.push((fi, f, vec![l, stmt_line]));
        }
    }
}
