//! Each use checked against the targeted releases of its package, through the index.

use crate::last_segment;
use apicompat_hash::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use apicompat_index::{Catalog, PackageView, Status};
use apicompat_surface::{Kind, Signature};

use crate::collect::{Found, PathTest, Use, UseKind};
use crate::judge::{self, Said, Verdict};
use crate::model::{Finding, Fix, FixKind, Reach, Severity};
use crate::rules::{
    self, ac001_missing_import as missing_import, ac002_missing_attribute as missing_attribute,
    ac003_unsupported_keyword as unsupported_keyword, ac013_call_does_not_bind as call_binding,
    Breaks, Releases, Works,
};
use crate::targets::Target;
use crate::versions::Pred;
use absent::AbsentIn;

mod absent;
mod moved;
pub(crate) mod parameters;
mod restores;

use restores::Restore;
pub use restores::Restores;

/// What one release says about a path, as much as checks need.
#[derive(Debug, Clone)]
enum Lite {
    Present {
        canonical: Arc<str>,
        kind: Kind,
        signatures: Arc<Vec<Signature>>,
    },
    Absent {
        missing: Arc<str>,
    },
    Unknown,
}

/// One path's status in each release of its package, each looked up at most once.
type Row = Vec<OnceLock<Lite>>;

/// Per package name, per path: the path's row.
type Rows = HashMap<String, HashMap<Box<str>, Arc<Row>>>;

/// The caches of an [`Evaluator`], safe to use from several threads.
#[derive(Default)]
struct Shared {
    rows: Mutex<Rows>,
    subclasses: judge::Subclasses,
}

/// A finding whose `moved` fixes are still to be found: [`Evaluator::add_moved`] looks for
/// them for many findings at once.
pub struct Pending {
    pub finding: Finding,
    moved: Option<MovedQuery>,
}

struct MovedQuery {
    path: String,
    missing: Vec<usize>,
    newest_present: usize,
}

/// Lookups with caches shared by every file; one evaluator serves every thread (`&self`).
pub struct Evaluator<'c> {
    catalog: &'c Catalog,
    packages: Mutex<HashMap<String, Option<&'c PackageView>>>,
    shared: Shared,
    notes: Mutex<Vec<String>>,
    /// The project declares a setuptools whose `distutils` replaces the standard library's
    /// ([`crate::collect::declares_distutils_shim`]).
    distutils_shim: bool,
    restores: Restores,
    /// Plugins the project imports, which may add names to their host ([`crate::plugins`]).
    plugins: crate::plugins::Plugins,
}

/// `distutils` is there: what a use of the standard library's `distutils` needs when the
/// project's setuptools supplies its own where the standard library has none.
static DISTUTILS_PRESENT: std::sync::LazyLock<PathTest> = std::sync::LazyLock::new(|| PathTest {
    path: "distutils".to_string(),
    present: true,
    instance: false,
    alternatives: Vec::new(),
});

/// Whether a use is of `distutils` (the module or a name in it).
pub(crate) fn uses_distutils(u: &Use) -> bool {
    u.path == "distutils" || u.path.starts_with("distutils.")
}

/// A use's own conditions on one package (see [`Evaluator::conditions`]).
struct Conditions<'u> {
    preds: Vec<&'u Pred>,
    required: Vec<(&'u PathTest, Arc<Row>)>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The caches stay consistent even if a holder panicked: use them anyway.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'c> Evaluator<'c> {
    pub fn new(catalog: &'c Catalog) -> Evaluator<'c> {
        Evaluator {
            catalog,
            packages: Mutex::new(HashMap::default()),
            shared: Shared::default(),
            notes: Mutex::new(Vec::new()),
            distutils_shim: false,
            restores: Restores::default(),
            plugins: crate::plugins::Plugins::default(),
        }
    }

    /// The paths the project assigns on packages (see [`Restores`]).
    pub fn with_restores(mut self, restores: Restores) -> Evaluator<'c> {
        self.restores = restores;
        self
    }

    /// The plugins the project imports (see [`crate::plugins`]).
    pub fn with_plugins(mut self, plugins: crate::plugins::Plugins) -> Evaluator<'c> {
        self.plugins = plugins;
        self
    }

    /// Where a read of `path` is guarded by an assignment of the project, as shown.
    pub fn restore_note(&self, path: &str) -> Option<&str> {
        self.restores.note(path)
    }

    /// Whether the project's assignment of `u`'s path works on release `r`: the module is
    /// not closed for writes there (its `__setattr__`, `judge::store_guard`), and the value
    /// assigned, when it is a path of the package, exists there.
    fn restored_on(&self, rs: &Restore, u: &Use, view: &PackageView, r: usize) -> bool {
        let present = |p: &str| matches!(found(self.status(view, p, r)), Found::Present(_));
        let parent = u.path.rsplit_once('.').map(|(p, _)| p);
        if parent.is_some_and(|p| present(&format!("{p}.__setattr__"))) {
            return false;
        }
        rs.value.as_deref().is_none_or(present)
    }

    /// Uses of the standard library's `distutils` are judged only where it has one: the
    /// project's setuptools supplies it elsewhere.
    pub fn with_distutils_shim(mut self, on: bool) -> Evaluator<'c> {
        self.distutils_shim = on;
        self
    }

    pub(crate) fn shimmed(&self, u: &Use, view: &PackageView) -> bool {
        self.distutils_shim && view.name() == crate::python_target::PYTHON && uses_distutils(u)
    }

    /// The notes gathered so far (unreadable or damaged indexes), taken out.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *lock(&self.notes))
    }

    fn note(&self, note: String) {
        let mut notes = lock(&self.notes);
        if !notes.contains(&note) {
            notes.push(note);
        }
    }

    /// The indexed package that provides a top-level module.
    pub fn package_for(&self, root: &str) -> Option<&'c PackageView> {
        if let Some(p) = lock(&self.packages).get(root) {
            return *p;
        }
        let view = match self.catalog.package_for_module(root) {
            Ok(v) => v,
            Err(e) => {
                self.note(format!("the index of `{root}` cannot be read: {e}"));
                None
            }
        };
        lock(&self.packages).insert(root.to_string(), view);
        view
    }

    /// The row of statuses of a path (filled in as releases are asked for).
    fn row(&self, view: &PackageView, path: &str) -> Arc<Row> {
        let mut rows = lock(&self.shared.rows);
        let per_package = match rows.get_mut(view.name()) {
            Some(m) => m,
            None => rows.entry(view.name().to_string()).or_default(),
        };
        if let Some(row) = per_package.get(path) {
            return Arc::clone(row);
        }
        let n = view.releases().len();
        let row: Arc<Row> = Arc::new((0..n).map(|_| OnceLock::new()).collect());
        per_package.insert(Box::from(path), Arc::clone(&row));
        row
    }

    /// What a release says about `path`; `row` is the path's row.
    fn lite<'r>(&self, view: &PackageView, row: &'r Row, path: &str, release: usize) -> &'r Lite {
        static UNKNOWN: Lite = Lite::Unknown;
        let Some(slot) = row.get(release) else {
            return &UNKNOWN;
        };
        if let Some(lite) = slot.get() {
            return lite;
        }
        let lite = match view.status(path, release) {
            Ok(Status::Present {
                path: found,
                symbol,
            }) => Lite::Present {
                signatures: Arc::new(view.keyword_signatures(&found, &symbol, release)),
                canonical: Arc::from(symbol.canonical.clone().unwrap_or(found)),
                kind: symbol.kind(),
            },
            Ok(Status::Absent { missing }) => Lite::Absent {
                missing: Arc::from(missing),
            },
            Ok(Status::Unknown { .. }) => Lite::Unknown,
            Err(e) => {
                self.note(format!("the index of {} is damaged: {e}", view.name()));
                Lite::Unknown
            }
        };
        slot.get_or_init(|| lite)
    }

    /// Whether `u` breaks in release `release` of `view` (its conditions aside): a cheap test
    /// before [`Self::evaluate`] for callers that ask about many releases.
    pub(crate) fn absent_at(&self, u: &Use, view: &PackageView, release: usize) -> bool {
        let row = self.row(view, &u.path);
        self.verdict(view, &row, u, release) == Verdict::Absent
    }

    /// The verdict on a use in one release (see [`judge::judge`]).
    fn verdict(&self, view: &PackageView, row: &Row, u: &Use, release: usize) -> Verdict {
        let first = self.bound_verdict(view, row, &u.path, u, release);
        let others = u.receiver.as_ref().map_or(&[][..], |r| &r.alternatives[..]);
        judge::any_of(std::iter::once(first).chain(others.iter().map(|alt| {
            let alt_row = self.row(view, alt);
            self.bound_verdict(view, &alt_row, alt, u, release)
        })))
    }

    /// The verdict on `u` in a release without the bound's subclasses: [`Self::verdict`] is
    /// `Present` exactly where this is, and `Absent` only where this is (the subclasses only
    /// turn an absence into unknown).
    fn own_verdict(&self, view: &PackageView, row: &Row, u: &Use, release: usize) -> Verdict {
        let others = u.receiver.as_ref().map_or(&[][..], |r| &r.alternatives[..]);
        judge::any_of(
            std::iter::once(self.verdict_at(view, row, &u.path, u, release)).chain(
                others.iter().map(|alt| {
                    let alt_row = self.row(view, alt);
                    self.verdict_at(view, &alt_row, alt, u, release)
                }),
            ),
        )
    }

    /// [`Self::verdict_at`], then, where it is absent on a declared bound, what the bound's
    /// subclasses say ([`judge::through_subclasses`]).
    fn bound_verdict(
        &self,
        view: &PackageView,
        row: &Row,
        path: &str,
        u: &Use,
        release: usize,
    ) -> Verdict {
        match self.verdict_at(view, row, path, u, release) {
            Verdict::Absent => {
                judge::through_subclasses(view, &self.shared.subclasses, u, path, release, |sub| {
                    let sub_row = self.row(view, sub);
                    self.verdict_at(view, &sub_row, sub, u, release)
                })
            }
            v => v,
        }
    }

    /// The verdict on `u` as a use of `path` (its own, or an alternative's).
    fn verdict_at(
        &self,
        view: &PackageView,
        row: &Row,
        path: &str,
        u: &Use,
        release: usize,
    ) -> Verdict {
        if let Some(guard) = judge::store_guard(u) {
            let guard_row = self.row(view, &guard);
            if !matches!(
                self.lite(view, &guard_row, &guard, release),
                Lite::Present { .. }
            ) {
                return Verdict::Unknown;
            }
        }
        let said = match self.lite(view, row, path, release) {
            Lite::Present {
                canonical,
                kind,
                signatures,
            } => Said::present(u, *kind, signatures, canonical, |parent| {
                let parent_row = self.row(view, parent);
                matches!(
                    self.lite(view, &parent_row, parent, release),
                    Lite::Present {
                        kind: Kind::Class,
                        ..
                    }
                )
            }),
            Lite::Absent { .. } => Said::Absent,
            Lite::Unknown if self.import_missing(view, u, release).is_some() => Said::Absent,
            Lite::Unknown => Said::Unknown,
        };
        judge::judge(&u.kind, said)
    }

    /// For an import whose module a release cannot import (see
    /// [`PackageView::import_missing`]): that module.
    fn import_missing(&self, view: &PackageView, u: &Use, release: usize) -> Option<String> {
        let module = u.module.as_deref()?;
        view.import_missing(module, release).ok().flatten()
    }

    fn status(&self, view: &PackageView, path: &str, release: usize) -> Lite {
        let row = self.row(view, path);
        self.lite(view, &row, path, release).clone()
    }

    /// What a release says of a tested path ([`crate::collect::PathTest`]).
    fn tested(&self, view: &PackageView, path: &str, release: usize) -> Found {
        parameters::found(view, path, release).unwrap_or_else(|| {
            found(self.status(view, path, release)).or_unimportable(view, path, release)
        })
    }

    /// Whether the use never runs on any targeted release: a test of its on another package's
    /// paths, or a version condition on another package, holds on none of that package's
    /// targeted releases (`try: from torchvision.transforms import InterpolationMode` /
    /// `except: from timm... import _pil_interp` where every targeted torchvision has it).
    pub fn never_runs(
        &self,
        u: &Use,
        view: &PackageView,
        chosen: &std::collections::BTreeMap<String, Target>,
    ) -> bool {
        if u.requires.is_empty() && u.versions.is_empty() {
            return false;
        }
        let other = |root: &str| {
            let v = self.package_for(root).filter(|v| v.name() != view.name())?;
            let t = chosen.get(v.name()).filter(|t| !t.releases.is_empty())?;
            Some((v, &t.releases))
        };
        // Per other package, every condition on it together: the use never runs when no
        // targeted release of that package meets them all (`if V5: import a as x` / `else:
        // import b as x`, then `x.n` under `if V5:` needs both `>= 5` and `< 5`).
        let mut packages: Vec<(&PackageView, &Vec<usize>)> = Vec::new();
        let roots = u
            .requires
            .iter()
            .map(|t| t.path.split('.').next().unwrap_or(&t.path))
            .chain(u.versions.iter().map(|(root, _)| root.as_str()));
        for root in roots {
            if let Some((v, releases)) = other(root) {
                if !packages.iter().any(|(p, _)| p.name() == v.name()) {
                    packages.push((v, releases));
                }
            }
        }
        packages.iter().any(|&(v, releases)| {
            let on = |root: &str| self.package_for(root).is_some_and(|p| p.name() == v.name());
            releases.iter().all(|&r| {
                let excluded = u.requires.iter().any(|t| {
                    on(t.path.split('.').next().unwrap_or(&t.path))
                        && t.excludes_with(|p| self.tested(v, p, r))
                });
                excluded
                    || u.versions.iter().any(|(root, pred)| {
                        on(root)
                            && v.releases()
                                .get(r)
                                .is_some_and(|rel| !pred.admits(&rel.version))
                    })
            })
        })
    }

    /// What a use's own conditions say about `view`'s releases: its version conditions on
    /// the package and its tests of the package's paths (where they fail, it does not run).
    fn conditions<'u>(&self, u: &'u Use, view: &PackageView) -> Conditions<'u> {
        let preds = u
            .versions
            .iter()
            .filter(|(root, _)| {
                self.package_for(root)
                    .is_some_and(|v| v.name() == view.name())
            })
            .map(|(_, pred)| pred)
            .collect();
        let mut required = u
            .requires
            .iter()
            .filter(|t| {
                let root = t.path.split('.').next().unwrap_or(&t.path);
                self.package_for(root)
                    .is_some_and(|v| v.name() == view.name())
            })
            .map(|t| (t, self.row(view, &t.path)))
            .collect::<Vec<_>>();
        if self.shimmed(u, view) {
            required.push((&*DISTUTILS_PRESENT, self.row(view, "distutils")));
        }
        Conditions { preds, required }
    }

    /// Whether a use runs on release `r` as far as `c` (its [`Evaluator::conditions`]) says.
    fn runs_on(&self, c: &Conditions, view: &PackageView, r: usize) -> bool {
        let Some(release) = view.releases().get(r) else {
            return false;
        };
        let not_run = c.required.iter().any(|(t, row)| {
            t.excludes_with(|p| match p == t.path {
                true => parameters::found(view, p, r).unwrap_or_else(|| {
                    found(self.lite(view, row, p, r).clone()).or_unimportable(view, p, r)
                }),
                false => self.tested(view, p, r),
            })
        });
        !not_run && c.preds.iter().all(|p| p.admits(&release.version))
    }

    /// The targeted releases on which a use runs, as far as its own conditions say.
    pub(crate) fn running(&self, u: &Use, view: &PackageView, target: &Target) -> Vec<usize> {
        if u.requires.is_empty() && u.versions.is_empty() && !self.shimmed(u, view) {
            return target.releases.clone();
        }
        let c = self.conditions(u, view);
        target
            .releases
            .iter()
            .copied()
            .filter(|&r| self.runs_on(&c, view, r))
            .collect()
    }

    /// The finding for a use, if some targeted release breaks it. Its `moved` fixes are added
    /// by [`Evaluator::add_moved`].
    pub fn evaluate(&self, u: &Use, view: &PackageView, target: &Target) -> Option<Pending> {
        let conditions = self.conditions(u, view);
        let base_row = u.base.as_deref().map(|b| (b, self.row(view, b)));
        let row = self.row(view, &u.path);
        let all = view.releases();
        let mut releases: Vec<usize> = Vec::with_capacity(target.releases.len());
        // Releases the use's conditions leave out (it does not run there).
        let mut excluded: Vec<usize> = Vec::new();
        let restore = self.restores.get(u);
        for &r in &target.releases {
            if r >= all.len() {
                continue;
            }
            if let Some((base, base_row)) = &base_row {
                if matches!(self.lite(view, base_row, base, r), Lite::Absent { .. }) {
                    continue;
                }
            }
            if !self.runs_on(&conditions, view, r) {
                excluded.push(r);
                continue;
            }
            // A name the project assigns on the package: there where the assignment works.
            if restore.is_some_and(|rs| self.restored_on(rs, u, view, r)) {
                excluded.push(r);
                continue;
            }
            releases.push(r);
        }
        let n = all.len();
        // Before the bound's subclasses are searched for the member (many candidates, in every
        // release): a use no release it may run on lacks is not reported, nor a drift-only
        // use no release has.
        let own = |r: usize| self.own_verdict(view, &row, u, r);
        if !releases
            .iter()
            .chain(&excluded)
            .any(|&r| own(r) == Verdict::Absent)
            || judge::drift_only(u) && !(0..n).any(|r| own(r) == Verdict::Present)
        {
            return None;
        }
        let verdict = |r: usize| self.verdict(view, &row, u, r);
        let mut missing: Vec<usize> = releases
            .iter()
            .copied()
            .filter(|&r| verdict(r) == Verdict::Absent)
            .collect();
        let mut silenced = false;
        if missing.is_empty() {
            // A use its conditions keep off the releases that lack it: guarded (shown with
            // `--show-guarded`, with the condition).
            missing = excluded
                .into_iter()
                .filter(|&r| verdict(r) == Verdict::Absent)
                .collect();
            if missing.is_empty() {
                return None;
            }
            silenced = true;
        }
        let present: Vec<usize> = (0..n).filter(|&r| verdict(r) == Verdict::Present).collect();
        if judge::drift_only(u) && present.is_empty() {
            return None;
        }
        // The first segment the releases lack, per release (`torch._six` in 2.0+, its `PY3`
        // in 1.13).
        let absent: Vec<Option<String>> = match u.kind {
            UseKind::Keyword(_) | UseKind::Call(_) => Vec::new(),
            _ => missing
                .iter()
                .map(|&r| match self.lite(view, &row, &u.path, r) {
                    Lite::Absent { missing } => Some(missing.to_string()),
                    _ => self.import_missing(view, u, r),
                })
                .collect(),
        };
        let last_absent = absent.iter().rev().find_map(Clone::clone);
        // No release has it, or some may (what they hold is not known).
        let nowhere = present.is_empty() && (0..n).all(|r| verdict(r) == Verdict::Absent);
        // A name no release is known to have, where a plugin of the package is imported: it
        // may be the plugin's (`crate::plugins`).
        let plugin = match u.kind {
            UseKind::Import | UseKind::Attribute | UseKind::Getattr if present.is_empty() => self
                .plugins
                .note(&u.path)
                .map(str::to_string)
                .or_else(|| self.plugin_tested(u, view)),
            _ => None,
        }
        .filter(|_| (0..n).all(|r| verdict(r) != Verdict::Present));
        silenced |= plugin.is_some();
        let last_absent = last_absent.map(|m| (m, absent::groups(&missing, &absent)));
        // The releases just older than the first that has it, where that is not known
        // (transformers 4.53 - 4.57 build their exports by a call): "from 5.0.0" would say
        // they lack it.
        let unknown_below: Vec<usize> = match present.first() {
            Some(&first) => (0..first)
                .rev()
                .take_while(|&r| verdict(r) == Verdict::Unknown)
                .collect(),
            None => Vec::new(),
        };
        let mut finding = self.finding(
            u,
            view,
            target,
            (&missing, &present, nowhere),
            &unknown_below,
            last_absent,
        );
        if silenced {
            finding.severity = Severity::Info;
            finding.reach = Reach::Guarded;
            finding.guard = plugin;
        }
        let moved = match (&u.kind, present.last()) {
            (UseKind::Keyword(_), _) | (_, None) => None,
            // A member of an object is not imported from anywhere.
            _ if u.receiver.is_some() => None,
            (_, Some(&newest_present)) => Some(MovedQuery {
                path: u.path.clone(),
                missing,
                newest_present,
            }),
        };
        Some(Pending { finding, moved })
    }

    /// A plugin the use's tests show is imported where it runs: a path they find present that
    /// no release of the package is known to have and only that plugin adds
    /// ([`crate::plugins`]).
    fn plugin_tested(&self, u: &Use, view: &PackageView) -> Option<String> {
        let n = view.releases().len();
        u.requires.iter().find_map(|t| {
            let tested = t.path.strip_prefix(crate::callers::READ).unwrap_or(&t.path);
            if !t.present || t.instance || tested == u.path {
                return None;
            }
            let plugin = crate::plugins::Plugins::imported_where(tested, &u.path)?;
            // No release is known to have it (torch's module `__getattr__` leaves some unknown).
            let nowhere = (0..n).all(|r| !matches!(self.status(view, tested, r), Lite::Present { .. }));
            nowhere.then(|| {
                format!("the test of `{tested}`, true only where `import {plugin}` ran, which adds this name too")
            })
        })
    }

    fn finding(
        &self,
        u: &Use,
        view: &PackageView,
        target: &Target,
        (missing, present, nowhere): (&[usize], &[usize], bool),
        unknown_below: &[usize],
        last_absent: Option<(String, Vec<AbsentIn>)>,
    ) -> Finding {
        let versions = view.versions();
        let n = versions.len();
        let absent = match &last_absent {
            Some((_, groups)) => absent::rendered(groups, missing.len(), &versions),
            None => Vec::new(),
        };
        let last_absent = last_absent.map(|(m, _)| m);
        let releases = Releases::of(
            &versions,
            &rules::mask(n, missing),
            &rules::mask(n, present),
        );
        let pkg = view.name();
        let listed = releases.listed();
        let from_on = match present.first() {
            Some(&first)
                if releases.present_ranges.len() == 1 && present.last() == Some(&(n - 1)) =>
            {
                format!("from {}", versions[first])
            }
            Some(_) => format!("in {}", releases.present_ranges.join(", ")),
            None => String::new(),
        };
        let from_on = if unknown_below.is_empty() {
            from_on
        } else {
            let unknown = apicompat_index::ranges(&versions, &rules::mask(n, unknown_below));
            format!(
                "{from_on} (whether {} {} have it is not known)",
                view.name(),
                unknown.join(", ")
            )
        };
        let rule = judge::rule_of(&u.kind);
        let symbol = judge::symbol_of(u);
        let breaks = Breaks {
            path: &u.path,
            package: pkg,
            listed: &listed,
            target: &target.short,
            absent: &absent,
            works: if !present.is_empty() {
                Works::In(&from_on)
            } else if nowhere {
                Works::Nowhere
            } else {
                Works::NotKnown
            },
        };
        let message = match &u.kind {
            UseKind::Keyword(k) => unsupported_keyword::message(&breaks, k),
            UseKind::Call(shape) => {
                let signature = missing
                    .last()
                    .and_then(|&r| match self.status(view, &u.path, r) {
                        Lite::Present { signatures, .. } => signatures.first().map(|s| s.render()),
                        _ => None,
                    });
                call_binding::message(&breaks, shape, signature.as_deref())
            }
            UseKind::Import => missing_import::message(&breaks),
            UseKind::Attribute | UseKind::Getattr | UseKind::Store => {
                missing_attribute::message(&breaks)
            }
        };
        let message = match &u.receiver {
            Some(r) if !r.text.is_empty() => {
                let class = u.base.as_deref().unwrap_or("");
                let how = if r.exact {
                    "an object of"
                } else {
                    "typed (by an annotation, a return type or its callers) as"
                };
                let member = u.path.rsplit('.').next().unwrap_or(&u.path);
                let others: Vec<String> = r
                    .alternatives
                    .iter()
                    .map(|a| format!("`{}`", a.strip_suffix(&format!(".{member}")).unwrap_or(a)))
                    .collect();
                match &r.project_class {
                    _ if !others.is_empty() => format!(
                        "{message} (`{}` may be `{class}` or {}, and none of them has `{member}` there)",
                        r.text,
                        others.join(" or ")
                    ),
                    // In no release of the package: the project's class lacks it too.
                    Some(own) if nowhere && present.is_empty() => format!(
                        "{message} (`{}` is {how} `{own}`: neither `{own}` nor its base `{class}` defines `{member}`)",
                        r.text
                    ),
                    Some(own) => format!(
                        "{message} (`{}` is {how} `{own}`, which takes `{member}` from `{class}`)",
                        r.text
                    ),
                    None => format!("{message} (`{}` is {how} `{class}`)", r.text),
                }
            }
            _ => message,
        };
        let mut fixes = Vec::new();
        let pin = pin(view, &versions, missing, present);
        if let Some((requirement, _)) = &pin {
            fixes.push(rules::pin(requirement.clone()));
        }
        let project_class = u.receiver.as_ref().and_then(|r| r.project_class.as_deref());
        fixes.push(match &u.kind {
            UseKind::Import => missing_import::guard_fix(),
            // No release defines it and the project's class does not either: a misspelt or
            // missing member of the project's own code, not a version to guard.
            UseKind::Attribute | UseKind::Getattr if nowhere && present.is_empty() => {
                match project_class {
                    Some(own) => missing_attribute::define_fix(own, &u.path),
                    None => missing_attribute::guard_fix(&u.path, last_absent.as_deref()),
                }
            }
            UseKind::Attribute | UseKind::Getattr | UseKind::Store => {
                missing_attribute::guard_fix(&u.path, last_absent.as_deref())
            }
            UseKind::Keyword(k) => {
                unsupported_keyword::guard_fix(&u.path, k, pin.as_ref().map(|p| p.1.as_str()))
            }
            UseKind::Call(_) => call_binding::guard_fix(),
        });
        // The package's own migration note for a name it removed (numpy's `np.NaN`).
        if let Some((r, note)) = missing.last().and_then(|&r| view.removal_note(&u.path, r)) {
            let said = versions.get(r).map(String::as_str).unwrap_or_default();
            fixes.insert(
                0,
                Fix {
                    kind: FixKind::Rewrite,
                    message: format!(
                        "{pkg} {said} says: {}",
                        note.split_whitespace().collect::<Vec<_>>().join(" ")
                    ),
                    replacement: None,
                    releases: Vec::new(),
                    requirement: None,
                },
            );
        }
        releases.named_in(Finding {
            symbol,
            package: pkg.to_string(),
            message,
            fixes,
            target_source: Some(target.info.description.clone()),
            ..Finding::of_use(&rule, u.guarded, u.reach)
        })
    }
}

/// A requirement that admits only releases that have the symbol, and the release it starts
/// from (for `>=`) when there is one.
fn pin(
    view: &PackageView,
    versions: &[String],
    missing: &[usize],
    present: &[usize],
) -> Option<(String, String)> {
    let pkg = view.name();
    let releases: Vec<&apicompat_requirements::Version> =
        view.releases().iter().map(|r| &r.version).collect();
    let (&lo, &hi) = (missing.first()?, missing.last()?);
    // `>=` the first release after them that has it, `<` the release after the last one
    // before them that has it: each bound at the start of its series where the index keeps
    // only the newest patch of that series (`crate::pins::series_start`).
    let bound = |i: usize| -> Option<String> {
        let v = versions.get(i)?;
        Some(crate::pins::series_start(&releases, i).unwrap_or_else(|| v.clone()))
    };
    if let Some(&first_after) = present.iter().find(|&&p| p > hi) {
        let since = versions.get(first_after)?.clone();
        return Some((format!("{pkg}>={}", bound(first_after)?), since));
    }
    // Capped below the release that first lacks it after the last one that has it (numpy's
    // aliases are gone from 1.24.0: `numpy<1.24.0`, even when the targets start later),
    // not below the first targeted release that lacks it.
    if let Some(&last) = present.iter().rev().find(|&&p| p < lo) {
        return Some((format!("{pkg}<{}", bound(last + 1)?), String::new()));
    }
    None
}

/// What a status says of a path for a test.
fn found(lite: Lite) -> Found {
    match lite {
        Lite::Absent { .. } => Found::Absent,
        Lite::Present { kind, .. } => Found::Present(kind),
        Lite::Unknown => Found::Unknown,
    }
}
