//! Each use checked against the targeted releases of its package, through the index.

use std::collections::HashMap;
use std::sync::Arc;

use apicompat_index::{ranges, Catalog, PackageView, Status};
use apicompat_surface::{Kind, Signature};

use crate::collect::{Use, UseKind};
use crate::model::{Finding, Fix, FixKind, Reach, Severity};
use crate::rules::{MissingAttribute, MissingImport, RuleInfo, UnsupportedKeyword};
use crate::targets::Target;

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

/// Lookups with caches shared by every file.
pub struct Evaluator<'c> {
    catalog: &'c Catalog,
    packages: HashMap<String, Option<&'c PackageView>>,
    /// Per package, per path: each release's status once looked up.
    statuses: HashMap<String, HashMap<String, Vec<Option<Lite>>>>,
    by_name: HashMap<String, HashMap<String, Arc<Vec<String>>>>,
    pub notes: Vec<String>,
}

fn last_segment(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

impl<'c> Evaluator<'c> {
    pub fn new(catalog: &'c Catalog) -> Evaluator<'c> {
        Evaluator {
            catalog,
            packages: HashMap::new(),
            statuses: HashMap::new(),
            by_name: HashMap::new(),
            notes: Vec::new(),
        }
    }

    /// The indexed package that provides a top-level module.
    pub fn package_for(&mut self, root: &str) -> Option<&'c PackageView> {
        if let Some(p) = self.packages.get(root) {
            return *p;
        }
        let view = match self.catalog.package_for_module(root) {
            Ok(v) => v,
            Err(e) => {
                self.notes
                    .push(format!("the index of `{root}` cannot be read: {e}"));
                None
            }
        };
        self.packages.insert(root.to_string(), view);
        view
    }

    fn status(&mut self, view: &PackageView, path: &str, release: usize) -> Lite {
        if let Some(Some(s)) = self
            .statuses
            .get(view.name())
            .and_then(|m| m.get(path))
            .and_then(|v| v.get(release))
        {
            return s.clone();
        }
        let lite = match view.status(path, release) {
            Ok(Status::Present {
                path: found,
                symbol,
            }) => Lite::Present {
                canonical: Arc::from(symbol.canonical.clone().unwrap_or(found)),
                kind: symbol.kind(),
                signatures: Arc::new(symbol.signatures),
            },
            Ok(Status::Absent { missing }) => Lite::Absent {
                missing: Arc::from(missing),
            },
            Ok(Status::Unknown { .. }) => Lite::Unknown,
            Err(e) => {
                let note = format!("the index of {} is damaged: {e}", view.name());
                if !self.notes.contains(&note) {
                    self.notes.push(note);
                }
                Lite::Unknown
            }
        };
        let n = view.releases().len();
        let slots = self
            .statuses
            .entry(view.name().to_string())
            .or_default()
            .entry(path.to_string())
            .or_insert_with(|| vec![None; n]);
        if let Some(slot) = slots.get_mut(release) {
            *slot = Some(lite.clone());
        }
        lite
    }

    /// Whether a release passes the version conditions of a use.
    fn admitted(&mut self, u: &Use, view: &PackageView, release: usize) -> bool {
        let Some(version) = view.releases().get(release).map(|r| r.version.clone()) else {
            return false;
        };
        let conditions = u.versions.clone();
        conditions.iter().all(|(root, pred)| {
            let same = self
                .package_for(root)
                .is_some_and(|v| v.name() == view.name());
            !same || pred.admits(&version)
        })
    }

    /// The finding for a use, if some targeted release breaks it.
    pub fn evaluate(&mut self, u: &Use, view: &PackageView, target: &Target) -> Option<Finding> {
        let mut releases: Vec<usize> = Vec::new();
        for &r in &target.releases {
            if !self.admitted(u, view, r) {
                continue;
            }
            if let Some(base) = &u.base {
                if matches!(self.status(view, base, r), Lite::Absent { .. }) {
                    continue;
                }
            }
            releases.push(r);
        }
        let n = view.releases().len();
        let (missing, present, last_absent): (Vec<usize>, Vec<usize>, Option<String>) =
            match &u.kind {
                UseKind::Keyword(k) => {
                    let mut missing = Vec::new();
                    for &r in &releases {
                        if self.rejects(view, &u.path, r, k) == Some(true) {
                            missing.push(r);
                        }
                    }
                    if missing.is_empty() {
                        return None;
                    }
                    let present = (0..n)
                        .filter(|&r| self.rejects(view, &u.path, r, k) == Some(false))
                        .collect();
                    (missing, present, None)
                }
                _ => {
                    let mut missing = Vec::new();
                    let mut last = None;
                    for &r in &releases {
                        if let Lite::Absent { missing: m } = self.status(view, &u.path, r) {
                            missing.push(r);
                            last = Some(m.to_string());
                        }
                    }
                    if missing.is_empty() {
                        return None;
                    }
                    let present = (0..n)
                        .filter(|&r| matches!(self.status(view, &u.path, r), Lite::Present { .. }))
                        .collect();
                    (missing, present, last)
                }
            };
        Some(self.finding(u, view, target, &missing, &present, last_absent))
    }

    /// Whether a release's callee rejects a keyword: None when the callee is missing or its
    /// signature unknown.
    fn rejects(
        &mut self,
        view: &PackageView,
        callee: &str,
        release: usize,
        kw: &str,
    ) -> Option<bool> {
        match self.status(view, callee, release) {
            Lite::Present { signatures, .. } if !signatures.is_empty() => {
                Some(!signatures.iter().any(|s| s.accepts_keyword(kw)))
            }
            _ => None,
        }
    }

    fn finding(
        &mut self,
        u: &Use,
        view: &PackageView,
        target: &Target,
        missing: &[usize],
        present: &[usize],
        last_absent: Option<String>,
    ) -> Finding {
        let versions = view.versions();
        let n = versions.len();
        let mask = |set: &[usize]| -> Vec<bool> { (0..n).map(|i| set.contains(&i)).collect() };
        let missing_ranges = ranges(&versions, &mask(missing));
        let present_ranges = ranges(&versions, &mask(present));
        let missing_in: Vec<String> = missing.iter().map(|&i| versions[i].clone()).collect();
        let present_in: Vec<String> = present.iter().map(|&i| versions[i].clone()).collect();
        let pkg = view.name();
        let listed = if missing_in.len() <= 3 {
            missing_in.join(", ")
        } else {
            missing_ranges.join(", ")
        };
        let from_on = match present.first() {
            Some(&first) if present_ranges.len() == 1 && present.last() == Some(&(n - 1)) => {
                format!("from {}", versions[first])
            }
            Some(_) => format!("in {}", present_ranges.join(", ")),
            None => String::new(),
        };
        let rule = match u.kind {
            UseKind::Import => MissingImport::RULE,
            UseKind::Attribute | UseKind::Getattr => MissingAttribute::RULE,
            UseKind::Keyword(_) => UnsupportedKeyword::RULE,
        };
        let (symbol, message) = match &u.kind {
            UseKind::Keyword(k) => {
                let tail = if present.is_empty() {
                    "no indexed release accepts it".to_string()
                } else {
                    format!("it is accepted {from_on}")
                };
                (
                    format!("{}({k}=)", u.path),
                    format!(
                        "`{}` does not accept the keyword `{k}` in {pkg} {listed} ({}); {tail}",
                        u.path, target.short
                    ),
                )
            }
            _ => {
                let detail = match &last_absent {
                    Some(m) if m != &u.path => format!(": `{m}` does not exist there"),
                    _ => String::new(),
                };
                let tail = if present.is_empty() {
                    "it is in no indexed release".to_string()
                } else {
                    format!("it exists {from_on}")
                };
                (
                    u.path.clone(),
                    format!(
                        "`{}` is not in {pkg} {listed} ({}){detail}; {tail}",
                        u.path, target.short
                    ),
                )
            }
        };
        let mut fixes = Vec::new();
        if !matches!(u.kind, UseKind::Keyword(_)) {
            fixes.extend(self.moved(view, &u.path, missing, present));
        }
        let pin = pin(pkg, &versions, missing, present);
        if let Some((requirement, _)) = &pin {
            fixes.push(Fix {
                kind: FixKind::Pin,
                message: format!("require `{requirement}`"),
                replacement: None,
                releases: Vec::new(),
                requirement: Some(requirement.clone()),
            });
        }
        fixes.push(guard_fix(
            u,
            last_absent.as_deref(),
            pin.as_ref().map(|p| &p.1),
        ));
        let (severity, reach) = if u.guarded {
            (Severity::Info, Reach::Guarded)
        } else {
            (rule.severity, u.reach)
        };
        Finding {
            code: rule.code,
            rule: rule.name,
            severity,
            path: Default::default(),
            line: 0,
            column: 0,
            end_line: 0,
            end_column: 0,
            symbol,
            package: pkg.to_string(),
            missing_in,
            present_in,
            missing_ranges,
            present_ranges,
            message,
            fixes,
            reach,
            target_source: Some(target.info.description.clone()),
        }
    }

    /// Paths of the package whose last segment is `name` (one pass over the index builds a
    /// table for every name the first time).
    fn named(&mut self, view: &PackageView, name: &str) -> Arc<Vec<String>> {
        let table = self
            .by_name
            .entry(view.name().to_string())
            .or_insert_with(|| {
                let mut t: HashMap<String, Vec<String>> = HashMap::new();
                view.for_each_path(|p| {
                    t.entry(last_segment(p).to_string())
                        .or_default()
                        .push(p.to_string());
                });
                t.into_iter()
                    .map(|(k, mut v)| {
                        v.sort();
                        v.dedup();
                        (k, Arc::new(v))
                    })
                    .collect()
            });
        table.get(name).cloned().unwrap_or_default()
    }

    /// Where the same object is in the releases that lack the path used.
    fn moved(
        &mut self,
        view: &PackageView,
        path: &str,
        missing: &[usize],
        present: &[usize],
    ) -> Vec<Fix> {
        let Some(&newest) = present.last() else {
            return Vec::new();
        };
        let Lite::Present {
            canonical, kind, ..
        } = self.status(view, path, newest)
        else {
            return Vec::new();
        };
        let name = last_segment(path).to_string();
        let candidates = self.named(view, &name);
        let versions = view.versions();
        let mut groups: Vec<(String, Vec<String>)> = Vec::new();
        for &r in missing {
            let mut best: Option<((u8, usize, usize), String)> = None;
            for q in candidates.iter() {
                if q == path {
                    continue;
                }
                let Lite::Present {
                    canonical: c,
                    kind: k,
                    ..
                } = self.status(view, q, r)
                else {
                    continue;
                };
                let tier = if c == canonical {
                    0
                } else if k == kind
                    && matches!(k, Kind::Class | Kind::Function)
                    && last_segment(&c) == name
                {
                    1
                } else {
                    continue;
                };
                let private = q.split('.').filter(|s| s.starts_with('_')).count();
                let score = (tier, private, q.len());
                if best.as_ref().is_none_or(|(s, _)| score < *s) {
                    best = Some((score, q.clone()));
                }
            }
            if let Some((_, q)) = best {
                match groups.iter_mut().find(|(g, _)| *g == q) {
                    Some((_, rs)) => rs.push(versions[r].clone()),
                    None => groups.push((q, vec![versions[r].clone()])),
                }
            }
        }
        groups
            .into_iter()
            .map(|(q, rs)| Fix {
                kind: FixKind::Moved,
                message: format!(
                    "in {} {} the same object is `{q}`",
                    view.name(),
                    if rs.len() <= 3 {
                        rs.join(", ")
                    } else {
                        format!("{} - {}", rs[0], rs[rs.len() - 1])
                    }
                ),
                replacement: Some(q),
                releases: rs,
                requirement: None,
            })
            .collect()
    }
}

/// A requirement that admits only releases that have the symbol, and the release it starts
/// from (for `>=`) when there is one.
fn pin(
    pkg: &str,
    versions: &[String],
    missing: &[usize],
    present: &[usize],
) -> Option<(String, String)> {
    let (&lo, &hi) = (missing.first()?, missing.last()?);
    if let Some(&first_after) = present.iter().find(|&&p| p > hi) {
        let v = versions.get(first_after)?;
        return Some((format!("{pkg}>={v}"), v.clone()));
    }
    if present.iter().any(|&p| p < lo) {
        let v = versions.get(lo)?;
        return Some((format!("{pkg}<{v}"), String::new()));
    }
    None
}

fn guard_fix(u: &Use, missing: Option<&str>, since: Option<&String>) -> Fix {
    let message = match &u.kind {
        UseKind::Import => "guard the import with `try: ... except ImportError:`".to_string(),
        UseKind::Attribute | UseKind::Getattr => {
            let seg = missing.unwrap_or(&u.path);
            match seg.rsplit_once('.') {
                Some((parent, last)) => {
                    format!("guard the use with `if hasattr({parent}, \"{last}\"):`")
                }
                None => "guard the use with `try: ... except AttributeError:`".to_string(),
            }
        }
        UseKind::Keyword(k) => {
            let root = u.path.split('.').next().unwrap_or(&u.path);
            match since.filter(|s| !s.is_empty()) {
                Some(v) => format!("pass `{k}=` only where `{root}.__version__ >= \"{v}\"`"),
                None => format!("pass `{k}=` only on releases that accept it"),
            }
        }
    };
    Fix {
        kind: FixKind::Guard,
        message,
        replacement: None,
        releases: Vec::new(),
        requirement: None,
    }
}
