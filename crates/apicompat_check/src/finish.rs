//! The last stage of a check: the findings filtered by `noqa` comments, the rules selected
//! and the files' ignores, AC008 from what broke, then sorted, counted and given their fixes.

use apicompat_hash::HashMap;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use apicompat_index::Catalog;

use crate::files::Analyzed;
use crate::model::{Finding, Reach, Report, Severity, Summary};
use crate::rules::{RequirementAdmitsBroken, RuleInfo};
use crate::settings::Settings;
use crate::{admitted, behind, chains, collect, fix, sort_findings, suppress};

/// The report of the findings of each file (`per_file`) and those of the run (`findings`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn report(
    catalog: &Catalog,
    settings: &Settings,
    (show_guarded, mark_behind): (bool, bool),
    pool: &'static rayon::ThreadPool,
    analyzed: Vec<Arc<Analyzed>>,
    mut per_file: Vec<(usize, Finding, Vec<u32>)>,
    mut findings: Vec<Finding>,
    mut summary: Summary,
) -> Report {
    // Uses behind an earlier failure of their module, among the findings reported.
    if mark_behind {
        let counts = |fi: usize, f: &Finding, lines: &[u32]| {
            let file = &analyzed[fi];
            settings.selection.enabled(f.code)
                && !settings.filter.ignores(&file.path, f.code)
                && !file.suppressions.silences(lines, f.code)
        };
        behind::mark(&analyzed, &settings.project_root, &mut per_file, counts);
        // And behind an earlier failure in the same function.
        crate::behind_in_function::mark(&analyzed, &settings.project_root, &mut per_file, counts);
    }
    // Suppressions and selection.
    let mut sources: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut seen: HashMap<(usize, u32, u32, &'static str, String), ()> = HashMap::default();
    let mut breaking = admitted::Collector::default();
    // The import chains from the entry points, for the files with import-time findings
    // (computed at the first one).
    let mut chain_of: Option<HashMap<usize, Vec<String>>> = None;
    let mut import_chains: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    for (fi, f, lines) in per_file {
        let file = &analyzed[fi];
        if !file.suppressions.silences(&lines, f.code) {
            breaking.note(&f);
        }
        if !settings.selection.enabled(f.code) || settings.filter.ignores(&file.path, f.code) {
            continue;
        }
        if file.suppressions.silences(&lines, f.code) {
            summary.suppressed += 1;
            continue;
        }
        // A use behind an earlier failure stays until the fixes are attached: a narrowed
        // requirement must cover it (it breaks once the failure in front of it is fixed).
        match f.reach {
            Reach::Behind => summary.behind += 1,
            Reach::Guarded => {
                summary.guarded += 1;
                if !show_guarded {
                    continue;
                }
            }
            _ => {}
        }
        if seen
            .insert((fi, f.line, f.column, f.code, f.symbol.clone()), ())
            .is_some()
        {
            continue;
        }
        if !file.text.is_empty() {
            sources
                .entry(file.path.clone())
                .or_insert_with(|| file.text.clone());
        }
        if f.reach == Reach::ImportTime {
            let chain_of = chain_of.get_or_insert_with(|| {
                let files: Vec<(&Path, &collect::FileUses)> = analyzed
                    .iter()
                    .map(|a| (a.path.as_path(), &a.uses))
                    .collect();
                let scripts = chains::script_modules(&settings.project_root.join("pyproject.toml"));
                chains::chains(&files, &scripts)
            });
            if let Some(chain) = chain_of.get(&fi) {
                import_chains
                    .entry(file.path.clone())
                    .or_insert_with(|| chain.clone());
            }
        }
        findings.push(f);
    }
    if settings
        .selection
        .enabled(RequirementAdmitsBroken::RULE.code)
    {
        for (f, text) in breaking.findings(
            catalog,
            &summary.targets,
            &settings.declared,
            &settings.declarations_root,
        ) {
            if settings.filter.ignores(&f.path, f.code)
                || settings
                    .inherited
                    .contains(&apicompat_requirements::normalize_name(&f.package))
            {
                continue;
            }
            if let Some(text) = text {
                sources.entry(f.path.clone()).or_insert(text);
            }
            findings.push(f);
        }
    }
    sort_findings(&mut findings);
    suppress::drop_deprecations_of_missing(&mut findings);
    for f in &findings {
        if f.reach == Reach::Behind && !show_guarded {
            continue;
        }
        match f.severity {
            Severity::Error => summary.errors += 1,
            Severity::Warning => summary.warnings += 1,
            Severity::Info => summary.infos += 1,
        }
    }
    // Freeing a large project's files takes a while: on the pool's threads, while the report
    // is finished and printed (a process that exits first leaves it to the system).
    pool.spawn(move || analyzed.into_par_iter().for_each(drop));
    let config_baseline = settings
        .declared
        .tool_config
        .baseline
        .as_ref()
        .map(|b| settings.project_root.join(b));
    let mut report = Report {
        findings,
        summary,
        sources,
        chains: import_chains,
        project_root: settings.project_root.clone(),
        config_baseline,
    };
    fix::attach(catalog, &mut report);
    if !show_guarded {
        report.findings.retain(|f| f.reach != Reach::Behind);
    }
    report
}
