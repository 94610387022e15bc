//! Call-time findings behind an earlier failure in the same block: once a statement fails on a
//! release, nothing after it in its block runs there.
//!
//! ```python
//! def train(model):
//!     workspace.ResetWorkspace()        # AttributeError on 1.13.1: the error
//!     workspace.RunNetOnce(init_net)    # never runs on 1.13.1: behind the line above
//!     if cond:
//!         np.float(x)                   # an error: the test may be false
//!         np.int(x)                     # behind the line above (same block)
//!     np.asscalar(y, np.float)          # the second argument is behind the first
//! ```
//!
//! The failure in front must be sure to run whenever its statement does: a simple statement
//! (not a compound statement's header, `return`, `raise` or `assert`) inside a function, on one
//! line or over lines joined by brackets or backslashes (each more indented than the first, or
//! closing a bracket), with no `if`, `else`, `and`, `or`, `lambda` or `for` in it (which could
//! skip the failing part). Behind it: a call-time error of the same package, on releases where
//! the failure in front fails too, later in the same block (nested blocks included), or later
//! in the same statement where Python evaluates left to right (both in an assignment's value,
//! or neither in one). The blocks are read from indentation; anything that cannot be read (a
//! string over several lines, an unbalanced bracket) leaves the statement out as a front.

use std::path::Path;
use std::sync::Arc;

use crate::files::Analyzed;
use crate::model::{Finding, Reach, Severity};
use crate::rules::{CallDoesNotBind, RuleInfo, UnsupportedKeyword};

/// Failures in front looked at per finding at most: the search stays linear in the findings.
const MAX_FRONTS: usize = 64;

/// A failure in front.
struct Front {
    file: usize,
    package: String,
    /// The first line (1-based) of its statement, the last one, and the first line after its
    /// block.
    statement: u32,
    last: u32,
    end: u32,
    /// Where an assignment's value starts in the statement (line, column), if it is one.
    value_at: Option<(u32, u32)>,
    /// A statement that runs whole ([`Outline::front`]); else one that may run only in
    /// part (a compound statement's header, a test with `and`), in front only of what follows
    /// it in the same statement with nothing that may skip between ([`Outline::expression`]).
    whole: bool,
    /// Its position in the findings.
    index: usize,
}

/// Marks the call-time findings of `per_file` behind an earlier failure in their block
/// (`counts` as for [`crate::behind::mark`]).
pub(crate) fn mark(
    analyzed: &[Arc<Analyzed>],
    root: &Path,
    per_file: &mut [(usize, Finding, Vec<u32>)],
    counts: impl Fn(usize, &Finding, &[u32]) -> bool,
) {
    let mut fronts: Vec<Front> = Vec::new();
    let mut outlines: apicompat_hash::HashMap<usize, Outline> = Default::default();
    for (i, (fi, f, lines)) in per_file.iter().enumerate() {
        if f.reach != Reach::CallTime || !crate::behind::is_use_error(f) || !counts(*fi, f, lines) {
            continue;
        }
        let statement = lines.get(1).or(lines.first()).copied().unwrap_or(f.line);
        let outline = outlines
            .entry(*fi)
            .or_insert_with(|| Outline::of(&analyzed[*fi].text));
        let found = match outline.front(statement, f.line) {
            Some(extent) => Some((extent, true)),
            None => outline.expression(statement, f.line).map(|e| (e, false)),
        };
        if let Some(((last, end, value_at), whole)) = found {
            fronts.push(Front {
                file: *fi,
                package: f.package.clone(),
                statement,
                last,
                end,
                value_at,
                whole,
                index: i,
            });
        }
    }
    if fronts.is_empty() {
        return;
    }
    fronts.sort_by_key(|x| (x.file, x.statement, x.index));
    let mut marked: Vec<(usize, String)> = Vec::new();
    for (i, (fi, f, lines)) in per_file.iter().enumerate() {
        if f.reach != Reach::CallTime || !crate::behind::is_use_error(f) {
            continue;
        }
        let statement = lines.get(1).or(lines.first()).copied().unwrap_or(f.line);
        // The fronts of the file up to its statement, in line order (the last `MAX_FRONTS` of
        // them: a file with more failures is not searched further back): the first that
        // holds it.
        let start = fronts.partition_point(|x| x.file < *fi);
        let upto = fronts.partition_point(|x| (x.file, x.statement) <= (*fi, statement));
        let front = fronts[start.max(upto.saturating_sub(MAX_FRONTS))..upto]
            .iter()
            .filter(|x| {
                let g = &per_file[x.index].1;
                x.index != i
                    && x.package == f.package
                    && f.line < x.end
                    && (x.whole && x.statement < statement && f.line > x.last
                        || x.statement == statement
                            && after_in_statement(x, g, f)
                            && (x.whole
                                || outlines
                                    .get(fi)
                                    .is_some_and(|o| o.runs_after(x.statement, g, f))))
                    && f.missing_in.iter().all(|r| g.missing_in.contains(r))
            })
            .map(|x| x.index)
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

/// Whether `f` is evaluated after the failure `g` in front of it in the same statement:
/// later in the text, and both in an assignment's value or neither (the value runs before
/// the targets). A call that does not bind fails only once its arguments have run: it is no
/// failure in front within its statement, and the keywords it does not take are reported
/// together, none of them behind a failure in the same statement.
fn after_in_statement(front: &Front, g: &Finding, f: &Finding) -> bool {
    let binds = |x: &Finding| {
        x.code == UnsupportedKeyword::RULE.code || x.code == CallDoesNotBind::RULE.code
    };
    if binds(g) || binds(f) {
        return false;
    }
    let (at_g, at_f) = ((g.line, g.column), (f.line, f.column));
    if at_f <= at_g {
        return false;
    }
    match front.value_at {
        Some(v) => at_g >= v,
        None => true,
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

    /// For a simple statement starting at `line` (1-based) inside a function, whose parts all
    /// run whenever it does, with a failing use on line `use_line`: its last line, the first
    /// line after its block (both 1-based) and where an assignment's value starts in it.
    /// `None` when it is anything else or the text cannot be read that way.
    fn front(&self, line: u32, use_line: u32) -> Option<Extent> {
        let at = usize::try_from(line).ok()?.checked_sub(1)?;
        if !plain_header(self.lines.get(at)?.trim()) {
            return None;
        }
        let (last, value_at) = self.statement(at, use_line, true)?;
        let header = self.parent[at]?;
        let end = u32::try_from(self.end[header] + 1).ok()?;
        Some((last, end, value_at))
    }

    /// For a statement starting at `line` inside a function that may run only in part (a
    /// compound statement's header, a boolean operator), with a failing use on `use_line`:
    /// its extent as [`Outline::front`] gives it, the first line after it as its end (it is in
    /// front of nothing after it).
    fn expression(&self, line: u32, use_line: u32) -> Option<Extent> {
        let at = usize::try_from(line).ok()?.checked_sub(1)?;
        // The names of one import are all reported (fixing them is one task), as at import
        // time (`crate::behind`).
        let code = self.lines.get(at)?.trim_start();
        if code.starts_with("import ") || code.starts_with("from ") {
            return None;
        }
        let (last, value_at) = self.statement(at, use_line, false)?;
        Some((last, last + 1, value_at))
    }

    /// The statement starting at line index `at` (indented: in a function or a block) and
    /// holding `use_line`: its last line (1-based) and where an assignment's value starts, read
    /// until its brackets close and no backslash continues it; with `plain`, only if no word
    /// in it may skip a part ([`plain_words`]).
    fn statement(
        &self,
        at: usize,
        use_line: u32,
        plain: bool,
    ) -> Option<(u32, Option<(u32, u32)>)> {
        let indent = indent_of(self.lines.get(at)?);
        if indent == 0 {
            return None;
        }
        let mut scan = Scan::default();
        let mut last = at;
        loop {
            let l = self.lines.get(last)?;
            if last > at && indent_of(l) <= indent && !l.trim_start().starts_with([')', ']', '}']) {
                return None;
            }
            if plain && !plain_words(l) {
                return None;
            }
            let line_no = u32::try_from(last + 1).ok()?;
            scan.line(l, line_no)?;
            if scan.depth == 0 && !l.trim_end().ends_with('\\') {
                break;
            }
            last += 1;
            if last - at >= MAX_STATEMENT_LINES {
                return None;
            }
        }
        let last = u32::try_from(last + 1).ok()?;
        let line = u32::try_from(at + 1).ok()?;
        (line <= use_line && use_line <= last).then_some((last, scan.value_at))
    }

    /// Whether, in the statement starting at `statement`, `f` runs whenever the failing `g`
    /// before it ran ([`follows_in_group`]). `(A, B)` in `if x and not isinstance(v, (A,
    /// B)):`: `B` runs after `A`; not in `(a if c else A), B`.
    fn runs_after(&self, statement: u32, g: &Finding, f: &Finding) -> bool {
        let text = |from: (u32, u32), to: (u32, u32)| -> Option<String> {
            let mut out = String::new();
            for line in from.0..=to.0 {
                let l: Vec<char> = self
                    .lines
                    .get(usize::try_from(line).ok()?.checked_sub(1)?)?
                    .chars()
                    .collect();
                let start = if line == from.0 {
                    from.1.saturating_sub(1)
                } else {
                    0
                };
                let end = if line == to.0 {
                    to.1.saturating_sub(1)
                } else {
                    u32::MAX
                };
                let (start, end) = (usize::try_from(start).ok()?, usize::try_from(end).ok()?);
                out.extend(l.iter().skip(start).take(end.saturating_sub(start)));
                out.push('\n');
            }
            Some(out)
        };
        let (Some(before), Some(between)) = (
            text((statement, 1), (g.line, g.column)),
            text((g.line, g.column), (f.line, f.column)),
        ) else {
            return false;
        };
        follows_in_group(&before, &between)
    }
}

/// Words that may keep a part of an expression from running.
const SKIPPING: &[&str] = &["if", "else", "and", "or", "for", "lambda"];

/// Whether an expression at the end of `before` (the statement's text up to it) runs whenever
/// the part of its element before it does, and one at the end of `between` (the text from it
/// on) runs whenever it does: no word that may skip a part in its element (from the comma or
/// bracket that starts it) nor between them, and the second inside the same brackets (an
/// element of the same tuple, list, dict or call, or inside one of those). Brackets and commas
/// in one-line strings are skipped.
fn follows_in_group(before: &str, between: &str) -> bool {
    let skipping = |t: &str| {
        t.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| SKIPPING.contains(&w))
    };
    // Each character's bracket depth (outside strings), and where the front's element starts.
    let mut depth = 0i32;
    let mut starts: Vec<usize> = vec![0];
    let mut quote: Option<char> = None;
    for (i, c) in before.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), '\n') => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => {
                depth += 1;
                starts.push(i + 1);
            }
            (None, ')' | ']' | '}') => {
                depth -= 1;
                starts.pop();
                if starts.is_empty() {
                    return false;
                }
            }
            (None, ',') => {
                if let Some(s) = starts.last_mut() {
                    *s = i + 1;
                }
            }
            _ => {}
        }
    }
    let element = starts.last().map_or("", |&s| &before[s..]);
    if quote.is_some() || skipping(element) || skipping(between) {
        return false;
    }
    let mut level = 0i32;
    let mut quote: Option<char> = None;
    for c in between.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), '\n') => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => level += 1,
            (None, ')' | ']' | '}') => {
                level -= 1;
                if level < 0 {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth >= 0
}

/// A statement in front: its last line, the first line after its block (both 1-based) and
/// where an assignment's value starts in it.
type Extent = (u32, u32, Option<(u32, u32)>);

/// Lines one statement in front may span.
const MAX_STATEMENT_LINES: usize = 64;

/// Brackets and the assignment sign of a statement, read line by line; strings are skipped
/// (one that does not end on its line is not read).
#[derive(Default)]
struct Scan {
    depth: i32,
    /// Just after the last `=` (or augmented `+=`...) outside brackets: 1-based line and
    /// character column.
    value_at: Option<(u32, u32)>,
}

impl Scan {
    fn line(&mut self, l: &str, line_no: u32) -> Option<()> {
        let chars: Vec<char> = l.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            match c {
                '#' => break,
                '"' | '\'' => {
                    if chars.get(k + 1) == Some(&c) && chars.get(k + 2) == Some(&c) {
                        return None;
                    }
                    k += 1;
                    while k < chars.len() && chars[k] != c {
                        if chars[k] == '\\' {
                            k += 1;
                        }
                        k += 1;
                    }
                    if k >= chars.len() {
                        return None;
                    }
                }
                '(' | '[' | '{' => self.depth += 1,
                ')' | ']' | '}' => {
                    self.depth -= 1;
                    if self.depth < 0 {
                        return None;
                    }
                }
                '=' if self.depth == 0 => {
                    let prev = k.checked_sub(1).map(|p| chars[p]);
                    let next = chars.get(k + 1).copied();
                    let comparison =
                        next == Some('=') || matches!(prev, Some('=' | '!' | '<' | '>' | ':'));
                    if !comparison {
                        self.value_at = Some((line_no, u32::try_from(k + 2).ok()?));
                    } else if next == Some('=') {
                        k += 1;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        Some(())
    }
}

fn indent_of(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

fn is_blank(l: &str) -> bool {
    let t = l.trim();
    t.is_empty() || t.starts_with('#')
}

/// A simple statement that runs whole: not a compound statement's header, nor one that
/// leaves or may be skipped.
fn plain_header(code: &str) -> bool {
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
    !HEADERS.iter().any(|h| code.starts_with(h))
}

/// No part of the line may be skipped: no conditional expression, boolean operator, lambda
/// or comprehension (words in strings and comments count too: they only leave a line out).
fn plain_words(code: &str) -> bool {
    !code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| matches!(w, "if" | "and" | "or" | "lambda" | "else" | "for"))
}
