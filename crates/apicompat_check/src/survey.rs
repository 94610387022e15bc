//! Every use of an indexed package in a project, with what each release of the package says
//! about it: the lower-level entry point behind `apicompat range` and `apicompat diff
//! --used-by`. The uses are collected exactly as `check` collects them (same walk, guards,
//! version branches, reach and member reads); here they are resolved in every indexed release
//! instead of the targeted ones.

use apicompat_hash::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use apicompat_index::{Catalog, PackageView};
use apicompat_requirements::{read_project, Declared, Severity as DiagSeverity};

use apicompat_index::Status;
use apicompat_surface::{Kind, Signature};

use crate::judge::{any_of, drift_only, judge, store_guard, through_subclasses, Said, Verdict};

use crate::collect::{Found, Use, UseKind};
use crate::files;
use crate::members::{self, MemberChecker, Packages};
use crate::model::Reach;
use crate::rules::{DriftingAttribute, RuleInfo};
use crate::targets;
use crate::UsageError;

/// What one release says about one use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Presence {
    /// The release has it (accepts the keyword).
    Present,
    /// The release lacks it: the use breaks there.
    Absent,
    /// It cannot be known statically (never counted as a break).
    Unknown,
    /// The use does not run on that release: a version check in the code excludes it, or the
    /// name it goes through is itself missing there (the import's use covers that).
    NotRun,
}

/// What a release says about a path, as much as presence needs.
#[derive(Debug, Clone)]
enum Lite {
    Present {
        signatures: Arc<Vec<Signature>>,
        kind: Kind,
        canonical: Arc<str>,
    },
    Absent,
    Unknown,
}

/// Index lookups (`PackageView::status`, the lookup `check` resolves uses with), each path
/// looked up once in every release.
struct Statuses {
    rows: HashMap<String, HashMap<String, Vec<Lite>>>,
    notes: Vec<String>,
    subclasses: Arc<crate::judge::Subclasses>,
}

impl Statuses {
    /// What every release of `view` says about `path`.
    fn row(&mut self, view: &PackageView, path: &str) -> &[Lite] {
        if !self.rows.contains_key(view.name()) {
            self.rows
                .insert(view.name().to_string(), HashMap::default());
        }
        let Some(per) = self.rows.get_mut(view.name()) else {
            return &[];
        };
        if !per.contains_key(path) {
            let mut row = Vec::with_capacity(view.releases().len());
            for r in 0..view.releases().len() {
                row.push(match view.status(path, r) {
                    Ok(Status::Present {
                        path: found,
                        symbol,
                    }) => Lite::Present {
                        signatures: Arc::new(view.keyword_signatures(&found, &symbol, r)),
                        kind: symbol.kind(),
                        canonical: Arc::from(symbol.canonical.unwrap_or(found)),
                    },
                    Ok(Status::Absent { .. }) => Lite::Absent,
                    Ok(Status::Unknown { .. }) => Lite::Unknown,
                    Err(e) => {
                        let note = format!("the index of {} is damaged: {e}", view.name());
                        if !self.notes.contains(&note) {
                            self.notes.push(note);
                        }
                        Lite::Unknown
                    }
                });
            }
            per.insert(path.to_string(), row);
        }
        per.get(path).map_or(&[], Vec::as_slice)
    }

    /// The verdict on `u` in release `r`, where its path (or an alternative's) is `lite`.
    fn verdict_at(&mut self, view: &PackageView, u: &Use, lite: Lite, r: usize) -> Verdict {
        if let Some(guard) = store_guard(u) {
            if !matches!(self.row(view, &guard).get(r), Some(Lite::Present { .. })) {
                return Verdict::Unknown;
            }
        }
        let said = match &lite {
            Lite::Present {
                signatures,
                kind,
                canonical,
            } => Said::present(u, *kind, signatures, canonical, |parent| {
                matches!(
                    self.row(view, parent).get(r),
                    Some(Lite::Present {
                        kind: Kind::Class,
                        ..
                    })
                )
            }),
            Lite::Absent => Said::Absent,
            Lite::Unknown => Said::Unknown,
        };
        judge(&u.kind, said)
    }

    /// A use in every release of its package, as `check` judges it: releases excluded by the
    /// use's version conditions, or lacking the name it goes through, do not run it.
    fn presence(
        &mut self,
        packages: &mut Packages<'_>,
        u: &Use,
        view: &PackageView,
    ) -> Vec<Presence> {
        let preds: Vec<&crate::versions::Pred> = u
            .versions
            .iter()
            .filter(|(root, _)| {
                packages
                    .for_root(root)
                    .is_some_and(|v| v.name() == view.name())
            })
            .map(|(_, p)| p)
            .collect();
        let base_absent: Vec<bool> = match &u.base {
            Some(base) => self
                .row(view, base)
                .iter()
                .map(|l| matches!(l, Lite::Absent))
                .collect(),
            None => Vec::new(),
        };
        // What its tests say about paths of this package: it runs only where that holds.
        let mut not_run: Vec<bool> = Vec::new();
        for t in &u.requires {
            let root = t.path.split('.').next().unwrap_or(&t.path);
            if packages
                .for_root(root)
                .is_none_or(|v| v.name() != view.name())
            {
                continue;
            }
            let n = view.releases().len();
            not_run.resize(n, false);
            for (r, slot) in not_run.iter_mut().enumerate() {
                *slot |= t.excludes_with(|p| {
                    if let Some(f) = crate::evaluate::parameters::found(view, p, r) {
                        return f;
                    }
                    match self.row(view, p).get(r) {
                        Some(Lite::Absent) => Found::Absent,
                        Some(Lite::Present { kind, .. }) => Found::Present(*kind),
                        Some(Lite::Unknown) | None => Found::Unknown,
                    }
                    .or_unimportable(view, p, r)
                });
            }
        }
        let all = view.releases();
        let row: Vec<Lite> = self.row(view, &u.path).to_vec();
        let mut paths = vec![u.path.as_str()];
        if let Some(rec) = &u.receiver {
            paths.extend(rec.alternatives.iter().map(String::as_str));
        }
        // Each path's own verdict in each release that runs the use (`None`: not run).
        let mut own: Vec<Option<Vec<Verdict>>> = Vec::with_capacity(all.len());
        for (r, release) in all.iter().enumerate() {
            let runs = preds.iter().all(|p| p.admits(&release.version))
                && !base_absent.get(r).copied().unwrap_or(false)
                && !not_run.get(r).copied().unwrap_or(false);
            if !runs {
                own.push(None);
                continue;
            }
            let mut verdicts = Vec::with_capacity(paths.len());
            for path in &paths {
                let lite = if *path == u.path {
                    row.get(r).cloned()
                } else {
                    self.row(view, path).get(r).cloned()
                };
                verdicts.push(self.verdict_at(view, u, lite.unwrap_or(Lite::Unknown), r));
            }
            own.push(Some(verdicts));
        }
        // A drift-only use no release has stays unknown (below) whatever the bound's
        // subclasses say: they are not searched then (as in `check`).
        let search = !drift_only(u) || own.iter().flatten().any(|v| v.contains(&Verdict::Present));
        let mut out = Vec::with_capacity(all.len());
        for (r, verdicts) in own.into_iter().enumerate() {
            let Some(mut verdicts) = verdicts else {
                out.push(Presence::NotRun);
                continue;
            };
            let subclasses = self.subclasses.clone();
            for (path, v) in paths.iter().zip(verdicts.iter_mut()) {
                // As in `check`: a declared bound's subclasses may have it.
                if search && *v == Verdict::Absent {
                    *v = through_subclasses(view, &subclasses, u, path, r, |sub| {
                        let lite = self.row(view, sub).get(r).cloned();
                        self.verdict_at(view, u, lite.unwrap_or(Lite::Unknown), r)
                    });
                }
            }
            out.push(match any_of(verdicts) {
                Verdict::Present => Presence::Present,
                Verdict::Absent => Presence::Absent,
                Verdict::Unknown => Presence::Unknown,
            });
        }
        // As in `check`: some uses break only where their path drifted.
        if drift_only(u) && !out.contains(&Presence::Present) {
            for p in &mut out {
                if *p == Presence::Absent {
                    *p = Presence::Unknown;
                }
            }
        }
        out
    }
}

/// What to survey.
#[derive(Debug, Clone, Default)]
pub struct SurveyOptions {
    /// Files and directories (empty: the current directory).
    pub paths: Vec<PathBuf>,
    /// Where requirements are read from (default: found from the first path).
    pub project: Option<PathBuf>,
}

/// One use, with its status in every release of its package.
#[derive(Debug, Clone)]
pub struct SurveyedUse {
    /// The rule `check` reports it under when it breaks (`AC001`, `AC002`, `AC003`, `AC009`).
    pub code: &'static str,
    /// The dotted path used; `callee(keyword=)` for keywords; `receiver.name` for member reads.
    pub symbol: String,
    pub path: PathBuf,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// Import time or call time (guarded uses keep the reach of where they are).
    pub reach: Reach,
    /// Inside `try/except ImportError`, after `hasattr`, ...: the code handles the difference.
    pub guarded: bool,
    /// Silenced by a `# noqa` comment for its rule.
    pub suppressed: bool,
    /// Per release of the package, oldest first.
    pub presence: Vec<Presence>,
    /// For member reads: the classes that define the name.
    pub defined_by: Vec<String>,
    /// The dotted path used (the callee for keywords; `receiver.name` for member reads).
    pub used_path: String,
    /// The keyword, for keyword uses.
    pub keyword: Option<String>,
    /// `from module import *`: every name the module has is imported (`used_path` is the
    /// module).
    pub star: bool,
    /// File number in walk order, line, column: the order uses are listed in.
    order: (usize, u32, u32),
}

impl SurveyedUse {
    /// `src/train.py:49`.
    pub fn location(&self) -> String {
        format!("{}:{}", display(&self.path), self.line)
    }

    /// Whether the use counts for the releases a project needs: not guarded, not silenced.
    pub fn counts(&self) -> bool {
        !self.guarded && !self.suppressed
    }

    /// Whether it is a read of an attribute on an object of unknown type (AC009).
    pub fn is_member(&self) -> bool {
        self.code == DriftingAttribute::RULE.code
    }
}

/// The uses of one indexed package.
#[derive(Debug, Clone)]
pub struct PackageSurvey {
    pub package: String,
    /// Every indexed release, oldest first.
    pub versions: Vec<String>,
    pub uses: Vec<SurveyedUse>,
}

/// Everything a survey found.
#[derive(Debug, Clone)]
pub struct Survey {
    /// The directory whose requirements were read.
    pub project_root: PathBuf,
    pub declared: Declared,
    /// By package name.
    pub packages: Vec<PackageSurvey>,
    pub files: usize,
    /// Files that could not be read or parsed, and other things the user should know.
    pub notes: Vec<String>,
    /// A path given, or a file under it, could not be read (`check` exits with 2 then).
    pub io_failure: bool,
    /// The imported packages that are not indexed (what the CLI fetches on demand).
    pub unindexed: Vec<crate::rules::UnindexedImport>,
}

impl Survey {
    pub fn package(&self, name: &str) -> Option<&PackageSurvey> {
        self.packages.iter().find(|p| p.package == name)
    }
}

pub(crate) fn display(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    let mut s = s.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}

/// Collects every use of an indexed package under the paths and resolves it in every release.
pub fn survey(catalog: &Catalog, options: &SurveyOptions) -> Result<Survey, UsageError> {
    let paths: Vec<PathBuf> = if options.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        options.paths.clone()
    };
    let project_root = options.project.clone().unwrap_or_else(|| {
        let start = paths.first().cloned().unwrap_or_else(|| PathBuf::from("."));
        let start = if start.exists() {
            start
        } else {
            PathBuf::from(".")
        };
        targets::find_project_root(&start)
    });
    // The main requirements (scopes: `apicompat_requirements::scopes`).
    let declared = read_project(&project_root).in_scopes(&[]);
    let mut notes = Vec::new();
    for d in &declared.diagnostics {
        if d.severity >= DiagSeverity::Warning {
            notes.push(format!("{}: {d}", project_root.display()));
        }
    }

    let mut roots: HashSet<String> = HashSet::default();
    for name in catalog.names() {
        match catalog.roots(name) {
            Ok(r) => roots.extend(r),
            Err(e) => notes.push(format!("the index of {name} cannot be read: {e}")),
        }
    }
    let filter = crate::file_filter(
        &project_root,
        &declared.tool_config,
        &Default::default(),
        &mut notes,
    );
    let mut discovered = files::discover(&paths, &filter);
    discovered.declared_are_packages(&declared);
    // The project's own packages are its code, not indexed releases (as in `check`).
    for name in discovered.own_roots(&roots, catalog) {
        roots.remove(&name);
        notes.push(files::own_root_note(&name));
    }
    let mut io_failure = !discovered.errors.is_empty();
    for (path, message) in &discovered.errors {
        notes.push(format!("cannot read `{}`: {message}", display(path)));
    }
    let indexed = crate::indexed_helpers::Indexed::new(Some(catalog));
    let (pool, mut analyzed) = files::analyze_project(
        (&discovered.files, Vec::new()),
        None,
        &[],
        &roots,
        &project_root,
        None,
        &|path| indexed.helper(path),
    )?;
    // Package predicates in tests, over every release; members of objects, as `check` finds
    // them (the newest release answers the model).
    {
        let eval = crate::evaluate::Evaluator::new(catalog);
        crate::implied::apply(
            &eval,
            |v| Some((0..v.releases().len()).collect()),
            &mut analyzed,
        );
        let modules = crate::objects::module_facts(&analyzed);
        let (uses, _) = pool.install(|| {
            crate::objects::member_uses(&eval, modules, &analyzed, &[], &roots, &BTreeMap::new())
        });
        for (fi, u) in uses {
            Arc::make_mut(&mut analyzed[fi]).uses.uses.push(u);
        }
    }

    let mut statuses = Statuses {
        rows: HashMap::default(),
        notes: Vec::new(),
        subclasses: Arc::default(),
    };
    let mut pk = Packages::new(catalog);
    let mut checker = MemberChecker::new(
        analyzed.iter().map(|a| &a.uses),
        analyzed.iter().map(|a| &a.uses),
    );
    checker.note_stdlib(catalog);
    let mut by_package: BTreeMap<String, PackageSurvey> = BTreeMap::new();
    let mut unindexed = crate::rules::Unindexed::default();
    let mut syntax = 0usize;
    for (fi, file) in analyzed.iter().enumerate() {
        if let Some(message) = &file.io_error {
            io_failure = true;
            notes.push(format!("cannot read `{}`: {message}", display(&file.path)));
            continue;
        }
        if !file.syntax_errors.is_empty() && !crate::rules::ac005_syntax_error::lfs_pointer(file) {
            syntax += 1;
        }
        for (root, range) in &file.uses.foreign {
            if !crate::stdlib::is_stdlib(root)
                && !discovered.first_party.contains(root)
                && !roots.contains(root)
            {
                unindexed.note(root, fi, *range);
            }
        }
        if file.uses.too_deep.is_some() {
            notes.push(format!(
                "{}: nesting deeper than {} levels; the code inside is not read",
                display(&file.path),
                crate::collect::MAX_DEPTH
            ));
        }
        for u in &file.uses.uses {
            let root = u.path.split('.').next().unwrap_or(&u.path);
            let Some(view) = pk.for_root(root) else {
                continue;
            };
            let presence = statuses.presence(&mut pk, u, view);
            let code = crate::judge::rule_of(&u.kind).code;
            let symbol = crate::judge::symbol_of(u);
            let (l, c, el, ec) = file.span(u.range);
            let (stmt_line, _) = file.position(u.stmt_start);
            let suppressed = file.suppressions.silences(&[l, stmt_line], code);
            push(
                &mut by_package,
                view,
                SurveyedUse {
                    code,
                    symbol,
                    path: file.path.clone(),
                    line: l,
                    column: c,
                    end_line: el,
                    end_column: ec,
                    reach: u.reach,
                    guarded: u.guarded,
                    suppressed,
                    presence,
                    defined_by: Vec::new(),
                    used_path: u.path.clone(),
                    keyword: match &u.kind {
                        UseKind::Keyword(k) => Some(k.clone()),
                        _ => None,
                    },
                    star: matches!(u.kind, UseKind::Import)
                        && file
                            .text
                            .get(u.range.start().to_usize()..u.range.end().to_usize())
                            == Some("*"),
                    order: (fi, l, c),
                },
            );
        }
        let packages = members::file_packages(&mut pk, &file.uses);
        for m in &file.uses.members {
            let Some((view, def)) = checker.judge(&file.uses, m, &packages) else {
                continue;
            };
            let presence = (0..def.releases.len())
                .map(|r| {
                    if !checker.admitted(m, view, r) {
                        Presence::NotRun
                    } else if def.releases[r] {
                        Presence::Present
                    } else if def.unknown.get(r).copied().unwrap_or(false) {
                        Presence::Unknown
                    } else {
                        Presence::Absent
                    }
                })
                .collect();
            let code = DriftingAttribute::RULE.code;
            let symbol = format!("{}.{}", m.receiver, m.name);
            let (l, c, el, ec) = file.span(m.range);
            let (stmt_line, _) = file.position(m.stmt_start);
            let suppressed = file.suppressions.silences(&[l, stmt_line], code);
            push(
                &mut by_package,
                view,
                SurveyedUse {
                    code,
                    symbol: symbol.clone(),
                    path: file.path.clone(),
                    line: l,
                    column: c,
                    end_line: el,
                    end_column: ec,
                    reach: m.reach,
                    guarded: m.guarded,
                    suppressed,
                    presence,
                    defined_by: def.classes.clone(),
                    used_path: symbol,
                    keyword: None,
                    star: false,
                    order: (fi, l, c),
                },
            );
        }
    }
    if syntax > 0 {
        notes.push(format!(
            "{syntax} file(s) have syntax errors; uses in the broken statements may be missed (`apicompat check` lists them)"
        ));
    }
    notes.append(&mut statuses.notes);
    let mut packages: Vec<PackageSurvey> = by_package.into_values().collect();
    for p in &mut packages {
        p.uses.sort_by_key(|u| u.order);
    }
    let unindexed = unindexed.imports(&declared, &[], |_, _| None);
    Ok(Survey {
        project_root,
        declared,
        packages,
        files: analyzed.len(),
        notes,
        io_failure,
        unindexed,
    })
}

fn push(by_package: &mut BTreeMap<String, PackageSurvey>, view: &PackageView, u: SurveyedUse) {
    by_package
        .entry(view.name().to_string())
        .or_insert_with(|| PackageSurvey {
            package: view.name().to_string(),
            versions: view.versions(),
            uses: Vec::new(),
        })
        .uses
        .push(u);
}
