//! Text, JSON and Markdown forms of `range` and `diff` answers.

use std::fmt::Write;
use std::path::Path;

use crate::upgrade::{Affected, DiffReport};
use crate::{Bound, PackageRange, RangeReport, UseRef};

/// Paths as shown: forward slashes, no leading `./`.
pub fn display(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    let mut s = s.as_str();
    while let Some(rest) = s.strip_prefix("./") {
        s = rest;
    }
    s.to_string()
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// The JSON form of `range`.
pub fn range_json(report: &RangeReport) -> String {
    json(report) + "\n"
}

fn set_text(ranges: &[String]) -> String {
    if ranges.is_empty() {
        "no indexed release".to_string()
    } else {
        ranges.join(", ")
    }
}

fn uses_text(uses: &[UseRef], max: usize) -> String {
    let mut shown: Vec<String> = uses
        .iter()
        .take(max)
        .map(|u| {
            let more = if u.places > 1 {
                format!(" (and {} more place(s))", u.places - 1)
            } else {
                String::new()
            };
            format!("`{}` at {}, {}{more}", u.symbol, u.location(), u.reach)
        })
        .collect();
    if uses.len() > max {
        shown.push(format!("{} more", uses.len() - max));
    }
    if shown.is_empty() {
        "uses that cannot be told apart".to_string()
    } else {
        shown.join("; ")
    }
}

fn bound_line(b: &Bound, verbose: bool) -> String {
    format!(
        "{} {} because of {}",
        b.op,
        b.version,
        uses_text(&b.uses, if verbose { usize::MAX } else { 3 })
    )
}

fn package_text(out: &mut String, p: &PackageRange, verbose: bool) {
    let _ = writeln!(
        out,
        "{} ({} use(s), {} restricting{}{})",
        p.package,
        p.uses.counted,
        p.uses.restricting,
        if p.uses.guarded > 0 {
            format!(", {} guarded", p.uses.guarded)
        } else {
            String::new()
        },
        if p.uses.suppressed > 0 {
            format!(", {} silenced", p.uses.suppressed)
        } else {
            String::new()
        }
    );
    let req = p
        .requirement
        .as_deref()
        .map(|r| format!("  ({r})"))
        .unwrap_or_default();
    let _ = writeln!(out, "  needs        {}{req}", set_text(&p.needs.ranges));
    for b in p.bounds.iter().filter(|b| b.scope == "all") {
        let _ = writeln!(out, "    needs {}", bound_line(b, verbose));
    }
    if p.needs.is_empty() && !p.conflict.is_empty() {
        let _ = writeln!(out, "    no release has every use; these uses do not meet:");
        for u in &p.conflict {
            let _ = writeln!(
                out,
                "      `{}` at {} ({}) works in {}",
                u.symbol,
                u.location(),
                u.reach,
                set_text(&u.works_in)
            );
        }
    }
    if let Some(b) = &p.blocking {
        let _ = writeln!(
            out,
            "    fewest uses to fix ({}) for {} {} to work:",
            b.uses.len(),
            p.package,
            b.release
        );
        for u in &b.uses {
            let _ = writeln!(
                out,
                "      `{}` at {} ({}): {}",
                u.at.symbol,
                u.at.location(),
                u.at.reach,
                u.fix
            );
        }
        let _ = writeln!(
            out,
            "    once fixed, needs {}{}",
            set_text(&b.then.ranges),
            b.requirement
                .as_deref()
                .map(|r| format!("  ({r})"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(out, "  import-time  {}", set_text(&p.import_time.ranges));
    for b in p.bounds.iter().filter(|b| b.scope == "import-time") {
        let _ = writeln!(out, "    {}", bound_line(b, verbose));
    }
    let _ = writeln!(out, "  call-time    {}", set_text(&p.call_time.ranges));
    for b in p.bounds.iter().filter(|b| b.scope == "call-time") {
        let _ = writeln!(out, "    {}", bound_line(b, verbose));
    }
    if !p.missing_everywhere.is_empty() {
        let _ = writeln!(
            out,
            "  in no indexed release (left out of the range): {}",
            uses_text(&p.missing_everywhere, if verbose { usize::MAX } else { 3 })
        );
    }
    if p.declared.is_empty() {
        let _ = writeln!(out, "  declared     nothing");
    } else {
        let decl: Vec<String> = p
            .declared
            .iter()
            .map(|d| format!("`{}` ({})", d.requirement, d.source))
            .collect();
        let _ = writeln!(
            out,
            "  declared     {} admits {}",
            decl.join(", "),
            set_text(&p.admitted.ranges)
        );
        if p.admitted_broken.is_empty() {
            let _ = writeln!(out, "    every release it admits works");
        } else {
            let mut import = Vec::new();
            let mut call = Vec::new();
            for b in &p.admitted_broken {
                if b.reach == "import-time" {
                    import.push(b.release.clone());
                } else {
                    call.push(b.release.clone());
                }
            }
            let mut parts = Vec::new();
            if !import.is_empty() {
                parts.push(format!(
                    "{} (importing fails)",
                    compact_list(&p.releases, &import)
                ));
            }
            if !call.is_empty() {
                parts.push(format!("{} (calls fail)", compact_list(&p.releases, &call)));
            }
            let _ = writeln!(
                out,
                "    admits releases that break: {} [AC008]",
                parts.join(", ")
            );
        }
        if !p.excluded_working.is_empty() {
            let _ = writeln!(
                out,
                "    excludes releases that would work: {}",
                p.excluded_working.ranges.join(", ")
            );
        }
    }
    if verbose && !p.restricting.is_empty() {
        let _ = writeln!(out, "  restricting uses:");
        for u in &p.restricting {
            let _ = writeln!(
                out,
                "    `{}` at {} ({}) works in {}",
                u.symbol,
                u.location(),
                u.reach,
                set_text(&u.works_in)
            );
        }
    }
}

/// The other scopes of a package: those that rule out releases the main scope needs, with
/// the uses that do; the others in one line.
fn scopes_text(out: &mut String, p: &PackageRange, main: &str, verbose: bool) {
    let mut alike = Vec::new();
    for s in &p.scopes {
        if !s.narrower && !verbose {
            alike.push(s.scope);
            continue;
        }
        let req = s
            .requirement
            .as_deref()
            .map(|r| format!("  ({r})"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<12} {}{req}{}",
            s.scope,
            set_text(&s.needs.ranges),
            if s.narrower {
                format!(", narrower than the {main}: not in the recommendation")
            } else {
                String::new()
            }
        );
        for b in &s.bounds {
            let _ = writeln!(out, "    needs {}", bound_line(b, verbose));
        }
        for f in &s.fixes {
            let _ = writeln!(out, "    fix: {f}");
        }
    }
    if !p.in_main {
        let _ = writeln!(
            out,
            "  the {main} does not use {}: not in the joint answer",
            p.package
        );
    }
    if !alike.is_empty() {
        let _ = writeln!(
            out,
            "  {} need nothing the {main} does not",
            alike.join(", ")
        );
    }
}

/// Releases as ranges of consecutive indexed releases (`2.3.0 - 2.3.1`), or listed when few.
fn compact_list(all: &[String], some: &[String]) -> String {
    if some.len() <= 3 {
        return some.join(", ");
    }
    let mask: Vec<bool> = all.iter().map(|v| some.contains(v)).collect();
    apicompat_index::ranges(all, &mask).join(", ")
}

fn joint_text(out: &mut String, j: &crate::resolve::Joint, title: &str) {
    let python = match &j.requires_python {
        Some(rp) => format!("requires-python `{}` ({})", rp.requirement, rp.source),
        None => "no requires-python declared".to_string(),
    };
    let _ = writeln!(out, "{title} ({}; {python}):", j.environment);
    if j.possible && !j.exact {
        let _ = writeln!(
            out,
            "  approximate: the search budget ended before every release was confirmed by a working combination (marked below)"
        );
    }
    if !j.possible {
        let _ = writeln!(out, "  no combination of indexed releases works:");
        for c in &j.conflicts {
            let _ = writeln!(out, "  - {c}");
        }
        return;
    }
    for p in &j.packages {
        let note = if p.used {
            ""
        } else {
            " (required by a used package)"
        };
        let _ = writeln!(out, "  {:<12} {}{note}", p.package, set_text(&p.ranges));
        for e in &p.excluded {
            let _ = writeln!(out, "    not {}: {}", e.ranges.join(", "), e.reason);
        }
        if !p.unconfirmed.is_empty() {
            let _ = writeln!(
                out,
                "    approximate: {} kept unconfirmed (search budget)",
                p.unconfirmed.join(", ")
            );
        }
        let n = p.accepts.len();
        for (i, a) in p.accepts.iter().enumerate() {
            // Long lists (one torch per torchvision release): the first and last few.
            if n > 6 && i == 3 {
                let _ = writeln!(
                    out,
                    "    ... ({} more; --output-format json lists all)",
                    n - 5
                );
            }
            if n > 6 && (3..n - 2).contains(&i) {
                continue;
            }
            let _ = writeln!(
                out,
                "    {} with {} {}",
                a.ranges.join(", "),
                a.package,
                set_text(&a.with)
            );
        }
    }
}

/// The text form of `range`.
pub fn range_text(report: &RangeReport, verbose: bool, quiet: bool) -> String {
    let mut out = String::new();
    if report.packages.is_empty() {
        let _ = writeln!(
            out,
            "No use of an indexed package in {} file(s) under {}.",
            report.files, report.project
        );
    }
    for p in &report.packages {
        if quiet && p.admitted_broken.is_empty() && !p.needs.is_empty() {
            continue;
        }
        package_text(&mut out, p, verbose);
        scopes_text(&mut out, p, report.main_scope, verbose);
        out.push('\n');
    }
    if !report.packages.is_empty() {
        joint_text(
            &mut out,
            &report.joint,
            "Joint answer over the indexed releases",
        );
        if let Some(d) = &report.joint_declared {
            out.push('\n');
            let same = d.possible == report.joint.possible
                && d.packages.len() == report.joint.packages.len()
                && d.packages
                    .iter()
                    .zip(&report.joint.packages)
                    .all(|(a, b)| a.releases == b.releases);
            if same {
                let _ = writeln!(out, "Within the declared requirements: the same.");
            } else {
                joint_text(&mut out, d, "Within the declared requirements");
            }
        }
        out.push('\n');
        let whose = if report.main_scope == crate::scopes::PACKAGE {
            format!(" for the package ({})", report.package_source)
        } else {
            String::new()
        };
        if report.recommended.is_empty() {
            let _ = writeln!(
                out,
                "Recommended requirements{whose}: none (no combination works)"
            );
        } else {
            let _ = writeln!(out, "Recommended requirements{whose}:");
            for r in &report.recommended {
                let _ = writeln!(out, "  {r}");
            }
        }
        if let Some(j) = &report.joint_after_fixes {
            out.push('\n');
            joint_text(&mut out, j, "Once the blocking uses above are fixed");
            if !report.recommended_after_fixes.is_empty() {
                let _ = writeln!(out, "Recommended then:");
                for r in &report.recommended_after_fixes {
                    let _ = writeln!(out, "  {r}");
                }
            }
        }
        let other: Vec<String> = report
            .packages
            .iter()
            .flat_map(|p| {
                p.scopes.iter().filter(|s| s.narrower).map(move |s| {
                    let why = s
                        .bounds
                        .first()
                        .and_then(|b| b.uses.first().map(|u| (b, u)))
                        .map(|(b, u)| {
                            format!(" ({} {} because of {})", b.op, b.version, u.location())
                        })
                        .unwrap_or_default();
                    format!(
                        "{} need {} {}{why}; the {} needs {}",
                        s.scope,
                        p.package,
                        set_text(&s.needs.ranges),
                        report.main_scope,
                        set_text(&p.needs.ranges)
                    )
                })
            })
            .collect();
        if !other.is_empty() {
            let _ = writeln!(out, "Not in the recommendation (other scopes):");
            for o in other {
                let _ = writeln!(out, "  {o}");
            }
        }
    }
    if !quiet && !report.notes.is_empty() {
        out.push('\n');
        for n in &report.notes {
            let _ = writeln!(out, "note: {n}");
        }
    }
    out
}

/// The JSON form of `diff`.
pub fn diff_json(report: &DiffReport) -> String {
    json(report) + "\n"
}

fn affected_lines(out: &mut String, title: &str, list: &[Affected], markdown: bool) {
    if list.is_empty() {
        return;
    }
    if markdown {
        let _ = writeln!(out, "\n### {title} ({})\n", list.len());
        let _ = writeln!(out, "| line | use | what | fix |");
        let _ = writeln!(out, "|---|---|---|---|");
        for a in list {
            let fixes: Vec<String> = a.fixes.iter().map(|f| f.message.clone()).collect();
            let _ = writeln!(
                out,
                "| `{}:{}` | `{}` ({}) | {} | {} |",
                a.path,
                a.line,
                a.symbol,
                a.reach,
                md_cell(&a.message),
                md_cell(&fixes.join("; "))
            );
        }
    } else {
        let _ = writeln!(out, "\n{title} ({}):", list.len());
        for a in list {
            let _ = writeln!(
                out,
                "  {}:{}:{} {} {}",
                a.path, a.line, a.column, a.code, a.message
            );
            for f in &a.fixes {
                let _ = writeln!(out, "    fix: {}", f.message);
            }
        }
    }
}

/// A few paths in backquotes (all with `verbose`), and how many more.
fn some(paths: &[String], verbose: bool) -> String {
    let max = if verbose { usize::MAX } else { 3 };
    let mut shown: Vec<String> = paths.iter().take(max).map(|p| format!("`{p}`")).collect();
    if paths.len() > max {
        shown.push(format!("{} more", paths.len() - max));
    }
    shown.join(", ")
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The text (or Markdown) form of `diff`.
pub fn diff_text(report: &DiffReport, markdown: bool, verbose: bool) -> String {
    let d = &report.diff;
    let mut out = String::new();
    let limit = if verbose || markdown { usize::MAX } else { 200 };
    let heading = |out: &mut String, title: String| {
        if markdown {
            let _ = writeln!(out, "\n## {title}\n");
        } else {
            let _ = writeln!(out, "\n{title}:");
        }
    };
    let item = |out: &mut String, text: String| {
        if markdown {
            let _ = writeln!(out, "- {text}");
        } else {
            let _ = writeln!(out, "  {text}");
        }
    };
    let code = |s: &str| format!("`{s}`");
    if markdown {
        let _ = writeln!(out, "# {} {} → {}", d.package, d.from, d.to);
    } else {
        let _ = writeln!(out, "{} {} -> {}", d.package, d.from, d.to);
    }
    let _ = writeln!(
        out,
        "{} added, {} removed, {} moved, {} signature change(s), {} newly deprecated{}",
        d.added.len(),
        d.removed.len(),
        d.moved.len(),
        d.signatures.len(),
        d.deprecated.len(),
        if report.used_by.is_some() {
            " (only what the project uses)"
        } else {
            ""
        }
    );
    if let Some(u) = &report.used_by {
        if markdown {
            let _ = writeln!(out, "\n## Upgrade report for `{}`\n", u.project);
        } else {
            let _ = writeln!(out, "\nUpgrade report for {}:", u.project);
        }
        let _ = writeln!(
            out,
            "{} use(s) of {} in {} file(s): {} break, {} still broken, {} guarded, {} fixed, {} signature change(s) that can break a call, {} that only add, {} deprecated",
            u.uses,
            d.package,
            u.files,
            u.breaks.len(),
            u.still_broken.len(),
            u.guarded.len(),
            u.fixed.len(),
            u.signature_changes.len(),
            u.additive.len(),
            u.deprecated.len()
        );
        affected_lines(&mut out, &format!("Break on {}", d.to), &u.breaks, markdown);
        affected_lines(&mut out, "Broken on both", &u.still_broken, markdown);
        affected_lines(
            &mut out,
            "Guarded (the project handles the difference)",
            &u.guarded,
            markdown,
        );
        affected_lines(&mut out, &format!("Fixed by {}", d.to), &u.fixed, markdown);
        affected_lines(
            &mut out,
            "Signatures changed (can break a call)",
            &u.signature_changes,
            markdown,
        );
        affected_lines(
            &mut out,
            "Signatures extended (every call that bound still binds)",
            &u.additive,
            markdown,
        );
        affected_lines(&mut out, "Deprecated", &u.deprecated, markdown);
        if !u.star_imports.is_empty() {
            heading(
                &mut out,
                format!("Star imports that gain names ({})", u.star_imports.len()),
            );
            for s in &u.star_imports {
                item(
                    &mut out,
                    format!(
                        "{} gains {} name(s) (imported with `*` at {}): {}",
                        code(&s.module),
                        s.added.len(),
                        s.at.join(", "),
                        some(&s.added, verbose)
                    ),
                );
            }
        }
    }
    let more = |out: &mut String, n: usize| {
        if n > limit {
            let _ = writeln!(
                out,
                "  ... and {} more (--verbose or --output-format json lists all)",
                n - limit
            );
        }
    };
    if !d.added.is_empty() {
        heading(&mut out, format!("Added ({})", d.added.len()));
        for a in d.added.iter().take(limit) {
            let same = if a.same_object_as.is_empty() {
                String::new()
            } else {
                format!(" (same object as {})", some(&a.same_object_as, verbose))
            };
            item(&mut out, format!("{} {}{same}", a.kind, code(&a.path)));
        }
        more(&mut out, d.added.len());
    }
    if !d.removed.is_empty() {
        heading(&mut out, format!("Removed ({})", d.removed.len()));
        for r in d.removed.iter().take(limit) {
            let still = if r.still_at.is_empty() {
                String::new()
            } else {
                format!(" (still at {})", some(&r.still_at, verbose))
            };
            item(&mut out, format!("{} {}{still}", r.kind, code(&r.path)));
        }
        more(&mut out, d.removed.len());
    }
    if !d.moved.is_empty() {
        heading(&mut out, format!("Moved ({})", d.moved.len()));
        for m in d.moved.iter().take(limit) {
            item(
                &mut out,
                format!(
                    "{}: defined at {} -> {}{}",
                    code(&m.path),
                    code(&m.from),
                    code(&m.to),
                    match m.also.len() {
                        0 => String::new(),
                        n => format!(" (and {n} re-export(s) of it)"),
                    }
                ),
            );
        }
        more(&mut out, d.moved.len());
    }
    if !d.signatures.is_empty() {
        heading(
            &mut out,
            format!("Signatures changed ({})", d.signatures.len()),
        );
        for s in d.signatures.iter().take(limit) {
            let only_adds = if s.breaking { "" } else { " (only adds)" };
            item(
                &mut out,
                format!("{}: {}{only_adds}", code(&s.path), s.changes.join(", ")),
            );
        }
        more(&mut out, d.signatures.len());
    }
    if !d.deprecated.is_empty() {
        heading(
            &mut out,
            format!("Newly deprecated ({})", d.deprecated.len()),
        );
        for x in d.deprecated.iter().take(limit) {
            item(&mut out, format!("{}: {}", code(&x.path), x.message));
        }
        more(&mut out, d.deprecated.len());
    }
    out
}
