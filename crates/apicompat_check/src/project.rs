//! The second stage of a check: the project's files, found, parsed and walked, and the
//! targets of the packages they use (chosen in the order of first use).

use apicompat_hash::HashSet;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use apicompat_index::Catalog;

use crate::evaluate::Evaluator;
use crate::files::{self, Analyzed, Discovered};
use crate::model::{Finding, Summary};
use crate::rules::{self, RuleInfo, UnindexedPackage};
use crate::settings::Settings;
use crate::targets::{self, Target};
use crate::{exclude, file_problems, stdlib, subprojects, templates, Options, UsageError};

/// What discovery found: the files to read, or sub-projects to check apart.
pub(crate) enum Found {
    Files(Discovered),
    Split(subprojects::Plan),
}

/// Finds the files; with `split`, a tree that holds sub-projects is planned instead
/// ([`subprojects::plan`], from the files found here: one walk of the tree).
pub(crate) fn discover(
    options: &Options,
    settings: &Settings,
    split: bool,
    summary: &mut Summary,
) -> Found {
    let config = &settings.declared.tool_config;
    let walked: Vec<PathBuf> = settings
        .paths
        .iter()
        .chain(&options.context)
        .cloned()
        .collect();
    let mut discovered = match &options.warm {
        Some(w) => w.discover(
            &walked,
            &settings.filter,
            &settings.project_root,
            &exclude::FileSettings::merge(config, &options.files),
        ),
        None => files::discover(&walked, &settings.filter),
    };
    if !options.skip_dirs.is_empty() {
        discovered
            .files
            .retain(|f| !subprojects::skipped(f, &options.skip_dirs));
    }
    // A context directory is one of the enclosing project's packages: its subpackages are
    // imported through it, not as top-level names (timesfm's `src/timesfm/torch/` is no
    // `torch` for the `v1` sub-project that imports `timesfm`).
    let packages: Vec<&PathBuf> = options
        .context
        .iter()
        .filter(|d| d.join("__init__.py").is_file())
        .collect();
    let from_paths: HashSet<String> = match packages.is_empty() {
        true => HashSet::default(),
        false => settings
            .paths
            .iter()
            .flat_map(|p| files::provided_by(p))
            .collect(),
    };
    for dir in packages {
        for child in files::packages_in(dir) {
            if !from_paths.contains(&child) {
                discovered.own_packages.remove(&child);
                discovered.first_party.remove(&child);
            }
        }
    }
    // What a script puts first on `sys.path` is the project's code (`_init_paths.py`).
    // (Each file is read here once: the walk takes the bytes.)
    discovered.texts = files::read_all(&discovered.files);
    let inserted =
        crate::syspath::inserted_dirs(&discovered.files, &discovered.texts, &settings.project_root);
    // What a script appends comes after the installed packages: its packages that no
    // declaration of the project installs (LLM-Adapters' own `peft/src/peft`).
    let declared: HashSet<String> = settings
        .all_declared
        .requirements
        .iter()
        .map(|r| apicompat_requirements::normalize_name(&r.name))
        .collect();
    let appended = inserted.appended.iter().flat_map(|dir| {
        files::regular_packages_in(dir)
            .into_iter()
            .filter(|n| !declared.contains(&apicompat_requirements::normalize_name(n)))
    });
    // A namespace portion put first is used only where no entry of `sys.path` has a regular
    // package of that name: not for a package a declaration installs (SimpleTuner's
    // `scripts/datasets/`, put first by a test, beside its declared `datasets`).
    let first = inserted.dirs.iter().flat_map(|dir| {
        let regular = files::regular_packages_in(dir);
        let namespaces: Vec<String> = files::packages_in(dir)
            .into_iter()
            .filter(|n| {
                !regular.contains(n)
                    && !declared.contains(&apicompat_requirements::normalize_name(n))
            })
            .collect();
        regular.into_iter().chain(namespaces)
    });
    let names: Vec<String> = first.chain(appended).collect();
    discovered.first_party.extend(names.iter().cloned());
    discovered.own_packages.extend(names);
    discovered.unsure = inserted.missing;
    // (The enclosing projects' packages: their imports are not of a package the index lacks.)
    discovered
        .own_packages
        .extend(options.own_roots.iter().cloned());
    discovered
        .first_party
        .extend(options.own_roots.iter().cloned());
    discovered.declared_are_packages(&settings.all_declared);
    if split
        && discovered.files.is_empty()
        && discovered.templates.is_empty()
        && options.stdin.is_none()
        && options.documents.is_empty()
    {
        let shown: Vec<String> = settings
            .paths
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect();
        summary.notes.push(format!(
            "no Python file found under {} (none that is not excluded, gitignored or hidden): nothing was checked",
            shown.join(", ")
        ));
    }
    let may_split = split
        && options.project.is_none()
        && options.stdin.is_none()
        && options.documents.is_empty();
    if may_split {
        if let Some(plan) = subprojects::plan(
            &settings.project_root,
            &settings.all_declared,
            &discovered,
            &settings.filter,
        ) {
            if plan.splits() {
                return Found::Split(plan);
            }
            summary.notes.extend(plan.note());
        }
    }
    // The packages of the directories the install instructions install (LoRA-GA's `pip
    // install -e peft`: its own fork of peft is what `import peft` loads; study 46, F-AI),
    // once the tree is planned (they are no package directory of the root).
    for dir in apicompat_requirements::installed_dirs(&settings.project_root) {
        let names = files::provided_by(&dir);
        discovered.first_party.extend(names.iter().cloned());
        discovered.own_packages.extend(names);
    }
    Found::Files(discovered)
}

/// The project's files, read.
pub(crate) struct ProjectFiles {
    pub discovered: Discovered,
    /// The threads that parsed them, for the later stages.
    pub pool: &'static rayon::ThreadPool,
    pub analyzed: Vec<Arc<Analyzed>>,
    /// Whether each file's findings are reported (not a file read for context only).
    pub reported: Vec<bool>,
    /// Top-level modules of every indexed package, but those the project provides itself.
    pub roots: HashSet<String>,
}

/// Parses and walks the files found.
pub(crate) fn read(
    catalog: &Catalog,
    options: &Options,
    settings: &Settings,
    mut discovered: Discovered,
    summary: &mut Summary,
) -> Result<ProjectFiles, UsageError> {
    // (A package of the data file is not decoded for its roots: the file's table names them.)
    let mut roots: HashSet<String> = HashSet::default();
    for name in catalog.names() {
        match catalog.roots(name) {
            Ok(r) => roots.extend(r),
            Err(e) => summary
                .notes
                .push(format!("the index of {name} cannot be read: {e}")),
        }
    }
    for name in discovered.own_roots(&roots, catalog) {
        roots.remove(&name);
        summary.notes.push(files::own_root_note(&name));
    }
    let indexed = crate::indexed_helpers::Indexed::new(Some(catalog));
    let texts = std::mem::take(&mut discovered.texts);
    let (pool, analyzed) = files::analyze_project(
        (&discovered.files, texts),
        options.stdin.as_ref(),
        &options.documents,
        &roots,
        &settings.project_root,
        options.warm.as_deref(),
        &|path| indexed.helper(path),
    )?;
    let documents: HashSet<&Path> = options.documents.iter().map(|d| d.name.as_path()).collect();
    // Files that fail to parse because they are templates are read for context only.
    let mut templates: Vec<&Path> = discovered.templates.iter().map(PathBuf::as_path).collect();
    let reported: Vec<bool> = analyzed
        .iter()
        .map(|a| {
            if options.documents_only {
                documents.contains(a.path.as_path())
            } else if subprojects::skipped(&a.path, &options.context) {
                false
            } else if !a.syntax_errors.is_empty() && templates::is_template_text(&a.text) {
                templates.push(&a.path);
                false
            } else {
                true
            }
        })
        .collect();
    templates.sort();
    summary.notes.extend(templates::note(&templates));
    summary.files = reported.iter().filter(|&&r| r).count();
    Ok(ProjectFiles {
        discovered,
        pool,
        analyzed,
        reported,
        roots,
    })
}

/// What the first pass over the files gives: the targets of the packages used, the
/// imports of packages the index lacks, and the files' own problems (not parsed, not UTF-8).
pub(crate) struct FirstPass {
    pub chosen: BTreeMap<String, Target>,
    pub unindexed: rules::Unindexed,
    pub per_file: Vec<(usize, Finding, Vec<u32>)>,
}

/// The targets of the packages used, chosen in the order of first use (their notes too).
pub(crate) fn first_pass(
    eval: &Evaluator<'_>,
    sources: &targets::Sources<'_>,
    files: &ProjectFiles,
    summary: &mut Summary,
) -> FirstPass {
    let mut out = FirstPass {
        chosen: BTreeMap::new(),
        unindexed: rules::Unindexed::default(),
        per_file: Vec::new(),
    };
    let mut pointers: Vec<&std::path::Path> = Vec::new();
    for (fi, file) in files.analyzed.iter().enumerate() {
        if rules::ac005_syntax_error::lfs_pointer(file) {
            pointers.push(&file.path);
            continue;
        }
        if file_problems::of(fi, file, &mut out.per_file, summary) {
            continue;
        }
        // (An indexed name a script loads from the project's code beside it,
        // `crate::local_imports`, is foreign there but no package the index lacks.)
        for (root, range) in &file.uses.foreign {
            if files.reported[fi]
                && !stdlib::is_stdlib(root)
                && !files.discovered.first_party.contains(root)
                && !files.roots.contains(root)
            {
                out.unindexed.note(root, fi, *range);
            }
        }
        let mut last_root: Option<&str> = None;
        for u in &file.uses.uses {
            let root = u.path.split('.').next().unwrap_or(&u.path);
            if last_root == Some(root) {
                continue;
            }
            last_root = Some(root);
            choose_for(eval, root, sources, &mut out.chosen, &mut summary.notes);
        }
    }
    if !pointers.is_empty() {
        summary.notes.push(lfs_note(&pointers));
    }
    out
}

/// The note on files that are Git LFS pointers: how many, the first few, and how to get them.
fn lfs_note(pointers: &[&std::path::Path]) -> String {
    const SHOWN: usize = 5;
    let mut names: Vec<String> = pointers
        .iter()
        .take(SHOWN)
        .map(|p| p.display().to_string())
        .collect();
    if pointers.len() > SHOWN {
        names.push(format!("and {} more", pointers.len() - SHOWN));
    }
    format!(
        "{} file(s) are Git LFS pointers, not Python source, so they are not checked: {} (`git lfs pull` fetches their content)",
        pointers.len(),
        names.join(", ")
    )
}

/// Chooses the targets of the package of `root` if it is indexed and has none yet.
pub(crate) fn choose_for(
    eval: &Evaluator<'_>,
    root: &str,
    sources: &targets::Sources<'_>,
    chosen: &mut BTreeMap<String, Target>,
    notes: &mut Vec<String>,
) {
    let Some(view) = eval.package_for(root) else {
        return;
    };
    if !chosen.contains_key(view.name()) {
        let t = targets::choose(view, sources, notes);
        chosen.insert(view.name().to_string(), t);
    }
}

/// The imports of packages the index lacks (AC004, one per package at its first import),
/// and a note for each package of the data file that could not be read.
pub(crate) fn unindexed_imports(
    catalog: &Catalog,
    settings: &Settings,
    files: &ProjectFiles,
    unindexed: rules::Unindexed,
    per_file: &mut Vec<(usize, Finding, Vec<u32>)>,
    summary: &mut Summary,
) {
    let envs: Vec<&apicompat_requirements::InstalledEnvironment> = settings
        .python_env
        .iter()
        .chain(settings.virtual_env.iter())
        .collect();
    let ac004 = settings.selection.enabled(UnindexedPackage::RULE.code);
    let analyzed = &files.analyzed;
    summary.unindexed = unindexed.imports(&settings.declared, &envs, |fi, range| {
        let file = &analyzed[fi];
        let span = file.span(range);
        let silenced = settings
            .filter
            .ignores(&file.path, UnindexedPackage::RULE.code)
            || file
                .suppressions
                .silences(&[span.0], UnindexedPackage::RULE.code);
        (ac004 && !silenced).then(|| rules::FirstImport {
            path: file.path.clone(),
            span,
        })
    });
    for u in catalog.unavailable() {
        if summary
            .unindexed
            .iter()
            .any(|i| u.roots.contains(&i.import))
        {
            summary.notes.push(format!(
                "{} is indexed in the data file shipped beside apicompat, but {}: its uses are not checked (reinstall apicompat, or set APICOMPAT_DATA_FILE)",
                u.package, u.reason
            ));
        }
    }
    if ac004 {
        unindexed.report(
            settings.selection.names(UnindexedPackage::RULE.code),
            analyzed,
            &settings.declared,
            &envs,
            per_file,
            &mut summary.notes,
        );
    }
}
