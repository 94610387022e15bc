//! Call-time findings behind an earlier failure in the same function: once a statement of a
//! function's body fails on a release, nothing after it in that function runs there.
//!
//! ```python
//! def train(model):
//!     workspace.ResetWorkspace()        # AttributeError on 1.13.1: the error
//!     workspace.RunNetOnce(init_net)    # never runs on 1.13.1: behind the line above
//! ```
//!
//! The failure in front must be sure to run whenever the function does: an error on its own
//! line, a statement of the function's body itself (not inside an `if`, a loop, a `try` or a
//! `with`), on one line, with no `if`, `and`, `or` or `lambda` in it (which could skip the
//! failing part). A finding behind it is a call-time error of the same package, later in the
//! same function (nested blocks included), on releases where the failure in front fails too.
//! The function's extent is read from indentation; anything it cannot read (a signature over
//! several lines, a string that starts at column 0) ends the search: nothing is marked.

use std::path::Path;
use std::sync::Arc;

use crate::files::Analyzed;
use crate::model::{Finding, Reach, Severity};

/// Failures in front looked at per finding at most: the search stays linear in the findings.
const MAX_FRONTS: usize = 64;

/// Marks the call-time findings of `per_file` behind an earlier failure in their function
/// (`counts` as for [`crate::behind::mark`]).
pub(crate) fn mark(
    analyzed: &[Arc<Analyzed>],
    root: &Path,
    per_file: &mut [(usize, Finding, Vec<u32>)],
    counts: impl Fn(usize, &Finding, &[u32]) -> bool,
) {
    // The failures in front: (file, package, first line after the function, line, position).
    let mut fronts: Vec<(usize, String, u32, u32, usize)> = Vec::new();
    let mut outlines: apicompat_hash::HashMap<usize, Outline> = Default::default();
    for (i, (fi, f, lines)) in per_file.iter().enumerate() {
        if f.reach != Reach::CallTime || !crate::behind::is_use_error(f) || !counts(*fi, f, lines) {
            continue;
        }
        let statement = lines.get(1).or(lines.first()).copied().unwrap_or(f.line);
        if statement != f.line {
            continue;
        }
        let outline = outlines
            .entry(*fi)
            .or_insert_with(|| Outline::of(&analyzed[*fi].text));
        if let Some(end) = outline.body_statement(statement) {
            fronts.push((*fi, f.package.clone(), end, statement, i));
        }
    }
    if fronts.is_empty() {
        return;
    }
    fronts.sort_by_key(|&(fi, _, _, line, _)| (fi, line));
    let mut marked: Vec<(usize, String)> = Vec::new();
    for (i, (fi, f, lines)) in per_file.iter().enumerate() {
        if f.reach != Reach::CallTime || !crate::behind::is_use_error(f) {
            continue;
        }
        let statement = lines.get(1).or(lines.first()).copied().unwrap_or(f.line);
        // The fronts of the file before its statement, in line order (the last
        // `MAX_FRONTS` of them: a file with more failures is not searched further back): the
        // first that holds it.
        let start = fronts.partition_point(|&(ffi, ..)| ffi < *fi);
        let before = fronts.partition_point(|&(ffi, _, _, line, _)| (ffi, line) < (*fi, statement));
        let front = fronts[start.max(before.saturating_sub(MAX_FRONTS))..before]
            .iter()
            .filter(|(_, package, end, _, j)| {
                *j != i
                    && *package == f.package
                    && f.line < *end
                    && f.missing_in
                        .iter()
                        .all(|r| per_file[*j].1.missing_in.contains(r))
            })
            .map(|&(.., j)| j)
            .next();
        if let Some(j) = front {
            let g = &per_file[j].1;
            marked.push((
                i,
                format!(
                    "`{}` ({}:{}), which fails first",
                    g.symbol,
                    crate::behind::display(&analyzed[*fi].path, root),
                    g.line
                ),
            ));
        }
    }
    for (i, guard) in marked {
        let f = &mut per_file[i].1;
        f.guard = Some(guard);
        f.reach = Reach::Behind;
        f.severity = Severity::Info;
    }
}

/// The lines of a file as blocks by indentation: for each code line, the code line that
/// opens its block and the first code line after the block it opens. One pass with a stack.
struct Outline<'t> {
    lines: Vec<&'t str>,
    parent: Vec<Option<usize>>,
    end: Vec<usize>,
}

impl<'t> Outline<'t> {
    fn of(text: &'t str) -> Outline<'t> {
        let lines: Vec<&str> = text.lines().collect();
        let mut parent = vec![None; lines.len()];
        let mut end = vec![lines.len(); lines.len()];
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for (k, l) in lines.iter().enumerate() {
            if is_blank(l) {
                continue;
            }
            let i = indent_of(l);
            while let Some(&(top, ti)) = stack.last() {
                if ti < i {
                    break;
                }
                end[top] = k;
                stack.pop();
            }
            parent[k] = stack.last().map(|&(top, _)| top);
            stack.push((k, i));
        }
        Outline { lines, parent, end }
    }

    /// For a statement starting at `line` (1-based) that is a one-line statement of a
    /// function's body itself: the first line (1-based) after that function's body. `None`
    /// when it is anything else or the text cannot be read that way.
    fn body_statement(&self, line: u32) -> Option<u32> {
        let at = usize::try_from(line).ok()?.checked_sub(1)?;
        let code = self.lines.get(at)?.trim();
        if indent_of(self.lines[at]) == 0 || !one_line_plain(code) {
            return None;
        }
        // The next line must not continue it (an open bracket, a backslash).
        if code.ends_with('\\') || opens(code) {
            return None;
        }
        let header = self.parent[at]?;
        let h = self.lines[header].trim();
        if !(h.starts_with("def ") || h.starts_with("async def ")) || !h.ends_with(':') {
            return None;
        }
        u32::try_from(self.end[header] + 1).ok()
    }
}

fn indent_of(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

fn is_blank(l: &str) -> bool {
    let t = l.trim();
    t.is_empty() || t.starts_with('#')
}

/// A simple statement that runs whole: not a compound statement's header, no conditional
/// part.
fn one_line_plain(code: &str) -> bool {
    const HEADERS: &[&str] = &[
        "if ",
        "elif ",
        "else",
        "for ",
        "while ",
        "with ",
        "try",
        "except",
        "finally",
        "async ",
        "def ",
        "class ",
        "match ",
        "case ",
        "@",
        "return",
        "yield",
        "raise",
        "assert ",
        "del ",
        "global ",
        "nonlocal ",
        "import ",
        "from ",
        "pass",
        "break",
        "continue",
        "\"",
        "'",
    ];
    if HEADERS.iter().any(|h| code.starts_with(h)) {
        return false;
    }
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect();
    !words
        .iter()
        .any(|w| matches!(*w, "if" | "and" | "or" | "lambda" | "else"))
}

/// Whether a line leaves a bracket open (strings not looked into: a bracket in a string makes
/// it look open, which only leaves it out).
fn opens(code: &str) -> bool {
    let mut depth = 0i32;
    for c in code.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    depth != 0
}
