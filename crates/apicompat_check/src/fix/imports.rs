//! Edits for an import whose path is missing on some targeted release while the index names
//! the same object at another path there (the finding's `moved` fix, covering every release
//! that lacks the path).
//!
//! Only when the index shows both paths naming one object (the same canonical definition) in
//! some release: a name and a kind alone are no evidence.
//!
//! - **Safe** rewrite, when the other path has the object on every targeted release, is the
//!   same object (same canonical definition) wherever the path used works, and has no more
//!   private segments: `from torch.a import X` -> `from torch.b import X` (only the module
//!   is replaced: aliases, parentheses and comments stay); with other names in the statement,
//!   the name leaves it (the rest stays as written) for a statement of its own after it.
//! - **Unsafe** fallback otherwise: the import is wrapped in `try:` and the other path is
//!   imported under `except ImportError:`, whose comment says which targeted releases take it
//!   (`# torch < 2.5`). Only for a statement that starts its line and ends it.
//!
//! `import a.b` without `as` binds `a`, so rewriting it would change every use: no edit.

use apicompat_hash::HashSet;

use ruff_python_ast::{self as ast, PySourceType, Stmt};
use ruff_text_size::Ranged;

use apicompat_index::{PackageView, Status};
use apicompat_requirements::parse_version;

use crate::model::{Applicability, Autofix, Finding, FixKind};
use crate::pins::short;

use super::{edit, offset};

/// The path an import uses, the one to use instead, whether that is safe, and the comment of
/// a fallback.
struct Move<'a> {
    used: &'a str,
    new: &'a str,
    safe: bool,
    comment: String,
}

/// A parsed file, when it parses without errors (no edits in a file that does not).
pub(super) struct Module<'t> {
    text: &'t str,
    suite: Option<ast::Suite>,
}

impl<'t> Module<'t> {
    pub fn parse(text: &'t str) -> Module<'t> {
        let nesting = apicompat_extract::nesting::check(
            text,
            apicompat_extract::nesting::MAX_NESTING_ESTIMATE,
        );
        let suite = nesting.ok().and_then(|_| {
            let parsed = ruff_python_parser::parse_unchecked_source(text, PySourceType::Python);
            parsed.errors().is_empty().then(|| parsed.into_suite())
        });
        Module { text, suite }
    }

    /// The edits for an AC001 finding, if its `moved` fix can be written out.
    pub fn fix(&self, view: &PackageView, targeted: &[String], f: &Finding) -> Option<Autofix> {
        let moved = f.fixes.iter().find(|x| {
            x.kind == FixKind::Moved
                && x.replacement.is_some()
                && f.missing_in.iter().all(|m| x.releases.contains(m))
        })?;
        let new = moved.replacement.as_deref()?;
        let at = offset(self.text, f.line, f.column);
        let (stmt, alias) = find_import(self.suite.as_deref()?, at)?;
        // A name alone is no evidence (`save` of a module and `TensorParallelEnv.save`).
        if !same_object_somewhere(view, &f.symbol, new) {
            return None;
        }
        let m = Move {
            used: &f.symbol,
            new,
            safe: same_everywhere(view, targeted, &f.symbol, new),
            comment: fallback_comment(&f.package, targeted, &f.missing_in),
        };
        match stmt {
            Stmt::ImportFrom(imp) => self.import_from(imp, alias, &m),
            Stmt::Import(imp) => self.import(imp, alias, &m),
            _ => None,
        }
    }

    fn import_from(&self, imp: &ast::StmtImportFrom, i: usize, m: &Move<'_>) -> Option<Autofix> {
        let (used, new, safe) = (m.used, m.new, m.safe);
        let module = imp.module.as_ref()?;
        let alias = imp.names.get(i)?;
        let name = alias.name.as_str();
        let (new_module, new_name) = new.rsplit_once('.')?;
        if imp.level != 0 || new_name != name || used != format!("{}.{name}", module.as_str()) {
            return None;
        }
        let text = self.text;
        let alias_text = slice(text, alias.range())?;
        let stmt_text = slice(text, imp.range())?;
        let (start, end) = (imp.range().start().to_usize(), imp.range().end().to_usize());
        let indent = indentation(text, start);
        let nl = newline(text);
        let unit = if indent.is_some_and(|i| i.contains('\t')) {
            "\t"
        } else {
            "    "
        };
        if safe && imp.names.len() == 1 {
            let r = module.range();
            let e = edit(
                text,
                r.start().to_usize(),
                r.end().to_usize(),
                new_module.to_string(),
            );
            let message = format!("import `{name}` from `{new_module}`");
            return Some(autofix(Applicability::Safe, message, vec![e]));
        }
        if safe {
            // The name leaves the statement (the rest of it stays as written) for one of its own.
            let removal = self.removal(imp, i)?;
            let sep = match indent {
                Some(ind) => format!("{nl}{ind}"),
                None => "; ".to_string(),
            };
            let added = format!("{sep}from {new_module} import {alias_text}");
            let message = format!("import `{name}` from `{new_module}`");
            let edits = vec![removal, edit(text, end, end, added)];
            return Some(autofix(Applicability::Safe, message, edits));
        }
        let ind = indent?;
        if !ends_line(text, end) {
            return None;
        }
        let except = format!(
            "{nl}{ind}except ImportError:  # {}{nl}{ind}{unit}from {new_module} import {alias_text}",
            m.comment
        );
        let message = format!("fall back to `{new}` where `{used}` is missing");
        if imp.names.len() == 1 {
            let body = stmt_text.replace('\n', &format!("\n{unit}"));
            let content = format!("try:{nl}{ind}{unit}{body}{except}");
            let e = edit(text, start, end, content);
            return Some(autofix(Applicability::Unsafe, message, vec![e]));
        }
        let removal = self.removal(imp, i)?;
        let added = format!(
            "{nl}{ind}try:{nl}{ind}{unit}from {} import {alias_text}{except}",
            module.as_str()
        );
        let edits = vec![removal, edit(text, end, end, added)];
        Some(autofix(Applicability::Unsafe, message, edits))
    }

    /// The edit that takes the `i`th name out of a statement with several: up to the next
    /// name, or from the end of the one before for the last; None across a comment.
    fn removal(&self, imp: &ast::StmtImportFrom, i: usize) -> Option<crate::model::Edit> {
        let names = &imp.names;
        let (from, to) = match (
            names.get(i + 1),
            i.checked_sub(1).and_then(|j| names.get(j)),
        ) {
            (Some(next), _) => (names.get(i)?.range().start(), next.range().start()),
            (None, Some(prev)) => (prev.range().end(), names.get(i)?.range().end()),
            (None, None) => return None,
        };
        let (from, to) = (from.to_usize(), to.to_usize());
        if self.text.get(from..to)?.contains('#') {
            return None;
        }
        Some(edit(self.text, from, to, String::new()))
    }

    fn import(&self, imp: &ast::StmtImport, i: usize, m: &Move<'_>) -> Option<Autofix> {
        let (used, new, safe) = (m.used, m.new, m.safe);
        let alias = imp.names.get(i)?;
        let asname = alias.asname.as_ref()?;
        if alias.name.as_str() != used {
            return None;
        }
        let text = self.text;
        if safe {
            let r = alias.name.range();
            let e = edit(
                text,
                r.start().to_usize(),
                r.end().to_usize(),
                new.to_string(),
            );
            return Some(autofix(
                Applicability::Safe,
                format!("import `{new}`"),
                vec![e],
            ));
        }
        let (start, end) = (imp.range().start().to_usize(), imp.range().end().to_usize());
        let ind = indentation(text, start)?;
        if imp.names.len() != 1 || !ends_line(text, end) {
            return None;
        }
        let nl = newline(text);
        let unit = if ind.contains('\t') { "\t" } else { "    " };
        let content = format!(
            "try:{nl}{ind}{unit}import {used} as {a}{nl}{ind}except ImportError:  # {}{nl}{ind}{unit}import {new} as {a}",
            m.comment,
            a = asname.as_str()
        );
        let message = format!("fall back to `{new}` where `{used}` is missing");
        let e = edit(text, start, end, content);
        Some(autofix(Applicability::Unsafe, message, vec![e]))
    }
}

fn autofix(
    applicability: Applicability,
    message: String,
    edits: Vec<crate::model::Edit>,
) -> Autofix {
    Autofix {
        applicability,
        message,
        edits,
    }
}

/// The import statement (and the position of the alias in it) whose alias starts at `at`.
/// Only statements that contain `at` are entered, so the walk is as deep as the nesting there.
fn find_import(suite: &[Stmt], at: usize) -> Option<(&Stmt, usize)> {
    let mut stack: Vec<&[Stmt]> = vec![suite];
    while let Some(stmts) = stack.pop() {
        for stmt in stmts {
            let r = stmt.range();
            if at < r.start().to_usize() || at >= r.end().to_usize() {
                continue;
            }
            let names = match stmt {
                Stmt::Import(i) => Some(&i.names),
                Stmt::ImportFrom(i) => Some(&i.names),
                _ => None,
            };
            if let Some(names) = names {
                let i = names
                    .iter()
                    .position(|a| a.range().start().to_usize() == at)?;
                return Some((stmt, i));
            }
            match stmt {
                Stmt::FunctionDef(s) => stack.push(&s.body),
                Stmt::ClassDef(s) => stack.push(&s.body),
                Stmt::If(s) => {
                    stack.push(&s.body);
                    stack.extend(s.elif_else_clauses.iter().map(|c| c.body.as_slice()));
                }
                Stmt::For(s) => stack.extend([s.body.as_slice(), &s.orelse]),
                Stmt::While(s) => stack.extend([s.body.as_slice(), &s.orelse]),
                Stmt::With(s) => stack.push(&s.body),
                Stmt::Try(s) => {
                    stack.extend([s.body.as_slice(), &s.orelse, &s.finalbody]);
                    for h in &s.handlers {
                        let ast::ExceptHandler::ExceptHandler(h) = h;
                        stack.push(&h.body);
                    }
                }
                Stmt::Match(s) => stack.extend(s.cases.iter().map(|c| c.body.as_slice())),
                _ => {}
            }
        }
    }
    None
}

/// Whether the index shows `used` and `new` naming one object (the same canonical
/// definition) in some indexed release, not necessarily the same one for both.
fn same_object_somewhere(view: &PackageView, used: &str, new: &str) -> bool {
    let canonicals = |path: &str| -> HashSet<String> {
        (0..view.releases().len())
            .filter_map(|r| match view.status(path, r) {
                Ok(Status::Present { path, symbol }) => Some(symbol.canonical.unwrap_or(path)),
                _ => None,
            })
            .collect()
    };
    !canonicals(used).is_disjoint(&canonicals(new))
}

/// Whether `new` has, on every targeted release, the object that `used` names where it exists
/// (and some object where it does not), and is no more private than `used`.
fn same_everywhere(view: &PackageView, targeted: &[String], used: &str, new: &str) -> bool {
    let private = |p: &str| p.split('.').filter(|s| s.starts_with('_')).count();
    if targeted.is_empty() || private(new) > private(used) {
        return false;
    }
    let versions = view.versions();
    targeted.iter().all(|v| {
        let Some(r) = versions.iter().position(|x| x == v) else {
            return false;
        };
        let canonical = |path: &str| match view.status(path, r) {
            Ok(Status::Present { path, symbol }) => Some(Some(symbol.canonical.unwrap_or(path))),
            Ok(Status::Absent { .. }) => Some(None),
            _ => None,
        };
        match (canonical(new), canonical(used)) {
            (Some(Some(n)), Some(Some(u))) => n == u,
            (Some(Some(_)), Some(None)) => true,
            _ => false,
        }
    })
}

/// Which targeted releases take the fallback: `torch < 2.5` when they are the oldest,
/// `torch >= 2.6` when they are the newest, else the list.
fn fallback_comment(package: &str, targeted: &[String], missing: &[String]) -> String {
    let parse = |v: &String| parse_version(v).ok();
    let missing_v: Vec<_> = missing.iter().filter_map(parse).collect();
    let working: Vec<_> = targeted
        .iter()
        .filter(|v| !missing.contains(v))
        .filter_map(parse)
        .collect();
    if let (Some(max_m), Some(min_w)) = (missing_v.iter().max(), working.iter().min()) {
        if max_m < min_w {
            return format!("{package} < {}", short(min_w));
        }
    }
    if let (Some(min_m), Some(max_w)) = (missing_v.iter().min(), working.iter().max()) {
        if min_m > max_w {
            return format!("{package} >= {}", short(min_m));
        }
    }
    format!("{package} {}", missing.join(", "))
}

fn slice(text: &str, r: ruff_text_size::TextRange) -> Option<&str> {
    text.get(r.start().to_usize()..r.end().to_usize())
}

/// The indentation before `at` when only spaces and tabs precede it on its line.
fn indentation(text: &str, at: usize) -> Option<&str> {
    let before = text.get(..at)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let ind = &before[line_start..];
    ind.chars().all(|c| c == ' ' || c == '\t').then_some(ind)
}

/// Whether only blanks or a comment follow `at` on its line.
fn ends_line(text: &str, at: usize) -> bool {
    let rest = text.get(at..).unwrap_or("");
    let line = rest.split('\n').next().unwrap_or("");
    let line = line.trim_end_matches('\r').trim_start_matches([' ', '\t']);
    line.is_empty() || line.starts_with('#')
}

fn newline(text: &str) -> &'static str {
    if text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}
