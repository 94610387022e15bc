//! A tree that holds other projects. A directory below the project root with declarations of
//! its own that bound a package's version differently from the root (InternVL's
//! `internvl_chat_gpt_oss/requirements.txt` pins `transformers==4.55.0` while the root pins
//! 4.37.2) is checked as its own project: its files against its declarations, completed by
//! the root's for every package it declares without a version or not at all
//! ([`inherit`]: Megatron-LM's `megatron/core/requirements.txt` lists a bare `torch`, and the
//! root's `torch>=2.6.0` stays the bound there). Each part is a whole `check`; the reports are
//! joined. A directory whose declarations bound nothing differently is not split off: the
//! parts of one run see each other (callers, classes), separate runs do not.

use apicompat_hash::{HashMap, HashSet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use apicompat_index::Catalog;
use apicompat_requirements::{
    read_project, read_project_with, Declared, InstalledFile, ToolConfig,
};

use crate::exclude::FileFilter;
use crate::files::{self, Discovered};
use crate::model::Report;
use crate::{check_project, sort_findings, Checked, Options, UsageError};

/// Files that mark a directory as a project with declarations (and conda environment
/// files, [`apicompat_requirements::has_conda_file`]).
const MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
];

/// Whether `dir` is documented (has a README). A documented directory that installs its
/// environment with a script (Show-o's `show-o2/`: a README and `build_env.sh` running `pip3
/// install torch==2.5.1`; `apicompat_requirements::has_install_script`) is an environment of
/// its own: the root's declarations bound only the packages it names.
fn has_readme(dir: &Path) -> bool {
    const READMES: &[&str] = &[
        "README.md",
        "README.rst",
        "README.txt",
        "README",
        "readme.md",
    ];
    READMES.iter().any(|r| dir.join(r).is_file())
}

/// For each directory below `root`, the files `root`'s install instructions install for it
/// (sliders' README: `pip install -r flux-sliders/flux-requirements.txt`), keyed by the
/// directory as named from `root`; the root's own and its `requirements/` are not.
fn installed_below(root: &Path) -> HashMap<PathBuf, Vec<InstalledFile>> {
    let mut out: HashMap<PathBuf, Vec<InstalledFile>> = HashMap::default();
    for i in apicompat_requirements::installed_files(root) {
        let Some(dir) = i.file.parent().and_then(|p| relative_dir(p, root)) else {
            continue;
        };
        if dir != Path::new("requirements") {
            out.entry(dir).or_default().push(i);
        }
    }
    out
}

/// Sub-projects below the root at most (more are checked with the root's declarations).
const MAX_SUBPROJECTS: usize = 64;

/// How a tree is split.
pub(crate) struct Plan {
    root: PathBuf,
    /// The sub-projects below the root checked as projects of their own.
    subs: Vec<PathBuf>,
    /// Those of them checked against their own declarations only ([`separate_projects`]).
    separate: Vec<PathBuf>,
    /// Those of them that import the root's packages (read with them as context).
    with_context: Vec<PathBuf>,
    /// Sub-projects checked with the root's declarations: reading the root's packages once
    /// more for each would cost more than the tree.
    pub(crate) folded: Vec<PathBuf>,
    /// The files the install instructions install for a sub-project, by sub-project.
    installed: HashMap<PathBuf, Vec<InstalledFile>>,
    /// The sub-projects the install instructions install (the root's or their own): the
    /// packages they name are bounded by their declarations alone ([`Inherit::names_own`]).
    names_own: Vec<PathBuf>,
    /// The packages the root project provides.
    own: Vec<String>,
    /// Their directories, read with each sub-project that imports them (its code calls their
    /// helpers and classes) and not reported there.
    context: Vec<PathBuf>,
}

impl Plan {
    /// Whether any sub-project is checked apart.
    pub(crate) fn splits(&self) -> bool {
        !self.subs.is_empty()
    }

    /// The note on the sub-projects checked with the root's declarations, if any.
    pub(crate) fn note(&self) -> Option<String> {
        if self.folded.is_empty() {
            return None;
        }
        let shown: Vec<String> = self
            .folded
            .iter()
            .take(5)
            .map(|s| format!("`{}`", self.shown(s)))
            .collect();
        let one = self.folded.len() == 1;
        Some(format!(
            "{} {} ({}{}) {} declarations of {} own, checked here against the project's ({} the project's packages, and reading them again for each would cost more than the tree); `apicompat check DIR` checks one against its own",
            self.folded.len(),
            if one { "directory" } else { "directories" },
            shown.join(", "),
            if self.folded.len() > 5 { ", ..." } else { "" },
            if one { "has" } else { "have" },
            if one { "its" } else { "their" },
            if one { "it imports" } else { "each imports" },
        ))
    }

    /// `base` for the root's part: the root's declarations, the sub-projects left out.
    fn root_options(&self, base: &Options) -> Options {
        let mut o = base.clone();
        o.project = Some(self.root.clone());
        o.skip_dirs = self.subs.clone();
        o
    }

    /// `base` for a sub-project: its files and declarations, completed by the root's, the
    /// root's packages as context, the sub-projects inside it left out. The packages of the
    /// sub-projects that enclose it are its code too (LoRA's `examples/NLU` builds its own
    /// `transformers` from `src/`, and the example directories below it run on that), but
    /// those it declares itself.
    fn sub_options(&self, base: &Options, sub: &Path) -> Options {
        let mut o = base.clone();
        o.paths = vec![sub.to_path_buf()];
        o.project = Some(sub.to_path_buf());
        o.inherit = Some(self.root.clone());
        o.inherit_named_only = self.separate.iter().any(|s| s == sub);
        o.names_own = self.names_own.iter().any(|s| s == sub);
        o.installed = self.installed.get(sub).cloned().unwrap_or_default();
        o.own_roots = self.own.clone();
        let enclosing: Vec<&PathBuf> = self
            .subs
            .iter()
            .filter(|e| e.as_path() != sub && sub.starts_with(e))
            .collect();
        if !enclosing.is_empty() {
            let declared = read_project_with(sub, &o.installed);
            let mut provided: Vec<String> = enclosing
                .iter()
                .flat_map(|e| files::provided_by(e))
                .filter(|name| {
                    let dist = apicompat_requirements::normalize_name(name);
                    !declared.requirements.iter().any(|r| r.name == dist)
                        && !declared.direct.iter().any(|r| r.name == dist)
                })
                .collect();
            provided.sort();
            o.own_roots.extend(provided);
            o.own_roots.dedup();
        }
        if self.with_context.iter().any(|s| s == sub) {
            o.context = self.context.clone();
        }
        o.skip_dirs = self
            .subs
            .iter()
            .filter(|s| s.as_path() != sub && s.starts_with(sub))
            .cloned()
            .collect();
        o
    }

    fn shown(&self, sub: &Path) -> String {
        crate::survey::display(sub.strip_prefix(&self.root).unwrap_or(sub))
    }
}

/// Checks each part of a planned tree: the root's files without the sub-projects, then each
/// sub-project with its own declarations completed by the root's.
pub(crate) fn run(catalog: &Catalog, options: &Options, plan: Plan) -> Result<Report, UsageError> {
    let mut report = part(catalog, &plan.root_options(options))?;
    if let Some(note) = plan.note() {
        report.summary.notes.push(note);
    }
    for sub in &plan.subs {
        let mut sub_report = part(catalog, &plan.sub_options(options, sub))?;
        // A sub-project's unreadable line does not stop the tree's check: its part is
        // checked with the lines that could be read, and says so.
        // (The lines are in its notes already.)
        if !std::mem::take(&mut sub_report.summary.bad_declarations).is_empty() {
            sub_report.summary.notes.push(format!(
                "`{}` is checked with those of its declarations that could be read",
                plan.shown(sub)
            ));
        }
        report.summary.notes.push(format!(
            "`{}` has declarations of its own: its {} file(s) are checked against them",
            plan.shown(sub),
            sub_report.summary.files
        ));
        join(&mut report, sub_report);
    }
    sort_findings(&mut report.findings);
    Ok(report)
}

/// The projects `check` would check a tree as, for a caller that checks a few files at a time
/// (the language server): each file is checked with the options of its part.
pub struct Parts {
    plan: Option<Plan>,
}

impl Parts {
    /// The parts of the tree at `root` (its declarations, walked with `files`' settings and
    /// its `[tool.apicompat]`), as `check` of `root` plans them; one part when `check` would
    /// not split it.
    pub fn of(root: &Path, files: &crate::exclude::FileSettings) -> Parts {
        let declared = read_project(root);
        let mut notes = Vec::new();
        let filter = crate::file_filter(root, &declared.tool_config, files, &mut notes);
        let discovered = files::discover(&[root.to_path_buf()], &filter);
        let plan = plan(root, &declared, &discovered, &filter).filter(Plan::splits);
        Parts { plan }
    }

    /// The directory of the part `file` belongs to, and `base` completed with that part's
    /// options (`paths`, `project`, the enclosing project's declarations and packages, the
    /// nested parts left out), as [`run`] sets them.
    pub fn options_for(&self, base: &Options, root: &Path, file: &Path) -> (PathBuf, Options) {
        let Some(plan) = &self.plan else {
            let mut o = base.clone();
            o.paths = vec![root.to_path_buf()];
            o.project = Some(root.to_path_buf());
            return (root.to_path_buf(), o);
        };
        // The deepest sub-project that holds the file.
        match deepest(&plan.subs, file) {
            None => {
                let mut o = plan.root_options(base);
                o.paths = vec![plan.root.clone()];
                (plan.root.clone(), o)
            }
            Some(sub) => (sub.clone(), plan.sub_options(base, sub)),
        }
    }
}

/// One part of a planned tree (never planned again: it is not split).
fn part(catalog: &Catalog, options: &Options) -> Result<Report, UsageError> {
    match check_project(catalog, options, false)? {
        Checked::Done(report) => Ok(*report),
        Checked::Split(_) => Err(UsageError(
            "a part of the tree was planned again".to_string(),
        )),
    }
}

/// The sub-projects of the tree at `root` whose `discovered` files were found with `filter`,
/// when there are any; `declared` are the root's declarations.
pub(crate) fn plan(
    root: &Path,
    declared: &Declared,
    discovered: &Discovered,
    filter: &FileFilter,
) -> Option<Plan> {
    let root_abs = std::fs::canonicalize(root).ok()?;
    let installed_rel = installed_below(root);
    // The nearest directory with a marker above each file, below the root.
    let mut marked: HashMap<PathBuf, bool> = HashMap::default();
    let mut found: BTreeSet<PathBuf> = BTreeSet::new();
    // Those marked only by an install script: environments of their own.
    let mut scripted: BTreeSet<PathBuf> = BTreeSet::new();
    // Those the install instructions install: the root's, or their own README's.
    let mut installed: HashMap<PathBuf, Vec<InstalledFile>> = HashMap::default();
    let mut names_own: BTreeSet<PathBuf> = BTreeSet::new();
    for file in &discovered.files {
        let mut dir = file.parent();
        while let Some(d) = dir {
            if d.as_os_str().is_empty() {
                break;
            }
            let is_marked = *marked.entry(d.to_path_buf()).or_insert_with(|| {
                let named = (!installed_rel.is_empty())
                    .then(|| relative_dir(d, root))
                    .flatten();
                if let Some(files) = named.and_then(|r| installed_rel.get(&r)) {
                    installed.insert(d.to_path_buf(), files.clone());
                    names_own.insert(d.to_path_buf());
                    return true;
                }
                let declares = MARKERS.iter().any(|m| d.join(m).is_file())
                    || apicompat_requirements::has_conda_file(d);
                if declares || !has_readme(d) {
                    return declares;
                }
                if apicompat_requirements::has_install_script(d) {
                    scripted.insert(d.to_path_buf());
                    return true;
                }
                // A README that installs a file of its directory (HunyuanDiT's
                // `kohya_ss-hydit`: `pip install -r hunyuan_requirements.txt`), into an
                // environment it creates (`conda create -n hydit-kohya python=3.10.12`) or not.
                if !apicompat_requirements::installed_files(d).is_empty() {
                    names_own.insert(d.to_path_buf());
                    if apicompat_requirements::creates_environment(d) {
                        scripted.insert(d.to_path_buf());
                    }
                    return true;
                }
                false
            });
            if is_marked {
                let at_root = std::fs::canonicalize(d).is_ok_and(|a| a == root_abs);
                if !at_root {
                    found.insert(d.to_path_buf());
                }
                break;
            }
            dir = d.parent();
        }
    }
    let mut own: Vec<String> = discovered.own_packages.iter().cloned().collect();
    own.sort();
    let own_dirs: Vec<PathBuf> = own
        .iter()
        .flat_map(|name| [root.join(name), root.join("src").join(name)])
        .filter(|d| d.is_dir())
        .collect();
    // Only directories below the root that bound some package differently, and not inside
    // one of the root's packages unless they build a project of their own (that code ships
    // with the package and runs under its declarations; a `requirements.txt` there serves
    // its tests or benchmarks, a vendored project has a `setup.py`).
    let own_abs: Vec<PathBuf> = own_dirs
        .iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect();
    // Inside one of the root's packages, a sub-project ships with it (Megatron-LM's
    // `megatron/core/distributed/fsdp/src`): never an environment of its own.
    let outside_own: BTreeSet<PathBuf> = found
        .iter()
        .filter(|d| {
            std::fs::canonicalize(d).is_ok_and(|a| !own_abs.iter().any(|o| a.starts_with(o)))
        })
        .cloned()
        .collect();
    // Each directory's declarations, read once.
    let mut declarations: HashMap<PathBuf, Declared> = HashMap::default();
    let mut declared_in = |d: &Path| -> Declared {
        declarations
            .entry(d.to_path_buf())
            .or_insert_with(|| read_project_with(d, installed.get(d).map_or(&[], Vec::as_slice)))
            .clone()
    };
    let mut separate = separate_projects(&found, &outside_own, &discovered.files, &mut |d| {
        !declared_in(d).requirements.is_empty()
    });
    // A directory whose script installs its environment is installed apart from the root.
    // Unless its code imports the root's packages (an example of the project, installed with
    // it: verl's `examples/sglang_multiturn`).
    // One pass over the files, each read at most once: for the scripted directories above it
    // not yet known to import them.
    let own_names: HashSet<&str> = discovered.own_packages.iter().map(String::as_str).collect();
    let mut importing: HashSet<&Path> = HashSet::default();
    if !scripted.is_empty() {
        for f in &discovered.files {
            let above: Vec<&Path> = f
                .ancestors()
                .skip(1)
                .filter(|a| scripted.contains(*a) && !importing.contains(a))
                .collect();
            if !above.is_empty() && imports_any(f, &own_names) {
                importing.extend(above);
            }
        }
    }
    for d in &scripted {
        if outside_own.contains(d) && !separate.contains(d) && !importing.contains(d.as_path()) {
            separate.push(d.clone());
        }
    }
    let subs: Vec<PathBuf> = found
        .into_iter()
        .filter(|d| {
            std::fs::canonicalize(d).is_ok_and(|a| {
                a.starts_with(&root_abs)
                    && a != root_abs
                    && (outside_own.contains(d) || buildable(d))
            })
        })
        .filter(|d| {
            let how = Inherit {
                named_only: separate.contains(d),
                names_own: names_own.contains(d),
            };
            let own = inherit(declared, declared_in(d), how);
            bounds(&own) != bounds(declared)
        })
        .take(MAX_SUBPROJECTS)
        .collect();
    if subs.is_empty() {
        return None;
    }
    let context: Vec<PathBuf> = own_dirs
        .into_iter()
        .filter(|d| !subs.iter().any(|s| d.starts_with(s) || s.starts_with(d)))
        .collect();
    let context_files = if context.is_empty() {
        0
    } else {
        files::discover(&context, filter).files.len()
    };
    // A sub-project that imports none of the root's packages costs its own files; one that
    // does also costs the context, read again. Those are split off while the context read
    // again stays within the tree's size; the rest are checked with the root.
    let context_names: HashSet<&str> = context
        .iter()
        .filter_map(|d| d.file_name()?.to_str())
        .collect();
    let mut importing: HashSet<PathBuf> = HashSet::default();
    if !context_names.is_empty() {
        for file in &discovered.files {
            let Some(sub) = deepest(&subs, file) else {
                continue;
            };
            if !importing.contains(sub) && imports_any(file, &context_names) {
                importing.insert(sub.clone());
            }
        }
    }
    let budget = discovered.files.len();
    let mut spent = 0usize;
    let mut split = Vec::new();
    let mut with_context = Vec::new();
    let mut folded = Vec::new();
    for sub in subs {
        if !importing.contains(&sub) {
            split.push(sub);
        } else if spent.saturating_add(context_files) <= budget {
            spent += context_files;
            with_context.push(sub.clone());
            split.push(sub);
        } else {
            folded.push(sub);
        }
    }
    let separate = separate.into_iter().filter(|d| split.contains(d)).collect();
    installed.retain(|d, _| split.contains(d));
    Some(Plan {
        root: root.to_path_buf(),
        separate,
        installed,
        names_own: names_own
            .into_iter()
            .filter(|d| split.contains(d))
            .collect(),
        subs: split,
        with_context,
        folded,
        own,
        context,
    })
}

/// Most sub-projects looked at by [`separate_projects`].
const MAX_SEPARATE: usize = 8;

/// The sub-projects among `outside_own` (those of `found` outside the root's packages)
/// installed in environments of their own: they build a distribution, declare requirements
/// (`declared_of`), and no file of the root (outside every sub-project of `found`) imports
/// their packages (LLaVA-NeXT's `llava-critic-r1/EasyR1`, whose `verl` nothing of the root
/// imports; rllm's `verl`, which rllm's code imports, shares its environment). The root's
/// declarations bound only the packages they name. The root's files are scanned once.
fn separate_projects(
    found: &BTreeSet<PathBuf>,
    outside_own: &BTreeSet<PathBuf>,
    files: &[PathBuf],
    declared_of: &mut impl FnMut(&Path) -> bool,
) -> Vec<PathBuf> {
    let candidates: Vec<(&PathBuf, HashSet<String>)> = outside_own
        .iter()
        .filter(|d| buildable(d) && declared_of(d))
        .take(MAX_SEPARATE + 1)
        .map(|d| (d, files::provided_by(d)))
        .filter(|(_, packages)| !packages.is_empty())
        .collect();
    if candidates.is_empty() || candidates.len() > MAX_SEPARATE {
        return Vec::new();
    }
    let mut imported: HashSet<String> = HashSet::default();
    for f in files
        .iter()
        .filter(|f| !found.iter().any(|d| f.starts_with(d)))
    {
        import_heads(f, |head| {
            if candidates.iter().any(|(_, p)| p.contains(head)) {
                imported.insert(head.to_string());
            }
            false
        });
    }
    candidates
        .into_iter()
        .filter(|(_, packages)| packages.iter().all(|p| !imported.contains(p)))
        .map(|(d, _)| d.clone())
        .collect()
}

/// Whether `dir` holds a project that builds (more than a requirements file).
fn buildable(dir: &Path) -> bool {
    MARKERS
        .iter()
        .filter(|m| **m != "requirements.txt")
        .any(|m| dir.join(m).is_file())
}

/// The deepest of `subs` that holds `file`.
fn deepest<'a>(subs: &'a [PathBuf], file: &Path) -> Option<&'a PathBuf> {
    subs.iter()
        .filter(|s| file.starts_with(s))
        .max_by_key(|s| s.components().count())
}

/// Whether the file at `path` imports a top-level module among `names` (`import a.b`,
/// `import x, a`, `from a.b import c`, also indented). A line scan, no parse: a match in a
/// string only adds context to a part.
fn imports_any(path: &Path, names: &HashSet<&str>) -> bool {
    let mut any = false;
    import_heads(path, |head| {
        any = names.contains(head);
        any
    });
    any
}

/// Calls `found` with the top-level module of each import line of the file at `path` (see
/// [`imports_any`], [`crate::local_imports::import_lines`]), until it returns true.
fn import_heads(path: &Path, mut found: impl FnMut(&str) -> bool) {
    let Ok(bytes) = apicompat_requirements::read_regular_file(path, files::MAX_FILE_BYTES) else {
        return;
    };
    for (module, _) in crate::local_imports::import_lines(&bytes) {
        if found(module.split('.').next().unwrap_or("")) {
            return;
        }
    }
}

/// How a sub-project's declarations are completed by the root's ([`inherit`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Inherit {
    /// A sub-project in an environment of its own: the root bounds only the packages it names.
    pub(crate) named_only: bool,
    /// A sub-project the install instructions install: the packages it names, bare too, are
    /// bounded by its own declarations alone (sliders' `flux-sliders/flux-requirements.txt`
    /// lists a bare `diffusers` to "update your packages" past the root's `diffusers==0.20.2`).
    pub(crate) names_own: bool,
}

/// A sub-project's declarations completed by the root's: for each package, the sub-project's
/// own requirements when one of them has a version (or is a direct reference), else the
/// root's, else the sub-project's bare ones; see [`Inherit`] for the sub-projects whose own
/// declarations count more. The sub-project's `[tool.apicompat]` applies when it has one.
pub(crate) fn inherit(root: &Declared, own: Declared, how: Inherit) -> Declared {
    let mut out = own;
    let bounded = |d: &Declared, name: &str| {
        d.requirements
            .iter()
            .any(|r| r.name == name && (!r.specifier.is_empty() || r.url.is_some()))
            || d.direct.iter().any(|r| r.name == name)
    };
    let mut names: Vec<&str> = root.requirements.iter().map(|r| r.name.as_str()).collect();
    names.extend(root.direct.iter().map(|r| r.name.as_str()));
    names.sort_unstable();
    names.dedup();
    for name in names {
        let named = out.requirements.iter().any(|r| r.name == name);
        if bounded(&out, name) || (how.names_own && named) || (how.named_only && !named) {
            continue;
        }
        out.requirements.retain(|r| r.name != name);
        out.requirements
            .extend(root.requirements.iter().filter(|r| r.name == name).cloned());
        out.direct
            .extend(root.direct.iter().filter(|r| r.name == name).cloned());
    }
    if out.tool_config == ToolConfig::default() {
        out.tool_config = root.tool_config.clone();
    }
    out
}

/// `sub`'s directory as named from `root` (`verl` for `./verl` under `.`), when it lies inside
/// it and is not `root` itself.
pub(crate) fn relative_dir(sub: &Path, root: &Path) -> Option<PathBuf> {
    let rel = match sub.strip_prefix(root) {
        Ok(rel) => rel.to_path_buf(),
        Err(_) => {
            let (sub, root) = (
                std::fs::canonicalize(sub).ok()?,
                std::fs::canonicalize(root).ok()?,
            );
            sub.strip_prefix(&root).ok()?.to_path_buf()
        }
    };
    let rel: PathBuf = rel
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    (!rel.as_os_str().is_empty()).then_some(rel)
}

/// Each package's requirement texts, to compare two sets of declarations.
fn bounds(d: &Declared) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in &d.requirements {
        out.entry(r.name.clone())
            .or_default()
            .insert(r.specifier.to_string());
    }
    for r in &d.direct {
        out.entry(r.name.clone()).or_default().insert(r.raw.clone());
    }
    out
}

/// Adds a part's findings and counts to the report.
fn join(report: &mut Report, part: Report) {
    report.findings.extend(part.findings);
    let s = &mut report.summary;
    let p = part.summary;
    s.files += p.files;
    s.errors += p.errors;
    s.warnings += p.warnings;
    s.infos += p.infos;
    s.guarded += p.guarded;
    s.suppressed += p.suppressed;
    for t in p.targets {
        if !s.targets.contains(&t) {
            s.targets.push(t);
        }
    }
    for n in p.notes {
        if !s.notes.contains(&n) {
            s.notes.push(n);
        }
    }
    s.io_failure |= p.io_failure;
    s.unindexed.extend(p.unindexed);
    report.sources.extend(part.sources);
    report.chains.extend(part.chains);
}

/// Whether `file` lies in one of `dirs`.
pub(crate) fn skipped(file: &Path, dirs: &[PathBuf]) -> bool {
    dirs.iter().any(|d| file.starts_with(d))
}
