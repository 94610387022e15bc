//! `setup.py`: literal `install_requires` / `extras_require` in the `setup(...)` call.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;

use ruff_python_ast::{Expr, Keyword, PySourceType, Stmt};
use ruff_python_parser::parse_unchecked_source;
use ruff_text_size::Ranged;

use crate::declared::{Collector, Declaration, Severity};
use crate::lines::LineIndex;

mod conditions;
mod keywords;
mod lists;

/// Nesting limits for the statement walk and expression resolution.
const MAX_STMT_DEPTH: usize = 64;
const MAX_EXPR_DEPTH: usize = 64;
/// A setup.py nesting deeper than this (brackets, operators, indentation; see
/// `apicompat_extract::nesting`) is not parsed. Real ones nest a few dozen levels at most.
const MAX_NESTING: usize = 500;
/// Work allowed for reading one value (`install_requires`, one extra): list items produced
/// plus names and `+` followed. `x = x + x` doubles per step; past this the value is given
/// up with a warning.
const MAX_VALUE_STEPS: usize = 100_000;
/// Work allowed for all values of one setup.py.
const MAX_FILE_STEPS: usize = 1_000_000;

pub(crate) fn read(c: &mut Collector, path: &Path) {
    let Some(text) = c.read_text(path, None) else {
        return;
    };
    if let Err(deep) = apicompat_extract::nesting::check(&text, MAX_NESTING) {
        c.diag(path, None, Severity::Error, format!("setup.py is {deep}"));
        return;
    }
    let parsed = parse_unchecked_source(&text, PySourceType::Python);
    let index = LineIndex::new(&text);
    let mut walk = Walk::default();
    walk.stmts(parsed.syntax().body.as_slice(), 0);

    if walk.calls.is_empty() {
        if let Some(err) = parsed.errors().iter().min_by_key(|e| e.location.start()) {
            c.diag(
                path,
                Some(index.line(err.location.start().to_usize())),
                Severity::Warning,
                format!(
                    "setup.py has a syntax error ({}); no setup() call found",
                    err.error
                ),
            );
        }
        return;
    }
    let r = Reader::new(path, &index, &walk);
    for keywords in &walk.calls {
        for kw in keywords.iter() {
            let Some(arg) = &kw.arg else {
                continue;
            };
            match arg.as_str() {
                "install_requires" => r.install_requires(c, kw),
                "extras_require" => r.extras_require(c, kw),
                "name" => {
                    if let Expr::StringLiteral(n) = &kw.value {
                        c.out
                            .name
                            .get_or_insert(crate::normalize_name(n.value.to_str()));
                    }
                }
                _ => {}
            }
        }
    }
}

/// `python_requires` of the `setup(...)` call: a string literal, or a name bound to one
/// (dinov3: `REQUIRES_PYTHON = ">=3.11"` ... `python_requires=REQUIRES_PYTHON`), with its
/// line. `None` when there is no such keyword or its value is computed.
pub(crate) fn python_requires(text: &str) -> Option<(String, u32)> {
    apicompat_extract::nesting::check(text, MAX_NESTING).ok()?;
    let parsed = parse_unchecked_source(text, PySourceType::Python);
    let index = LineIndex::new(text);
    let mut walk = Walk::default();
    walk.stmts(parsed.syntax().body.as_slice(), 0);
    let r = Reader::new(Path::new("setup.py"), &index, &walk);
    walk.calls.iter().flat_map(|k| k.iter()).find_map(|kw| {
        if kw.arg.as_ref()?.as_str() != "python_requires" {
            return None;
        }
        r.start_value();
        Some((r.string(&kw.value, 0)?, r.line(kw)))
    })
}

#[derive(Default)]
struct Walk<'a> {
    /// Last value assigned to each plain name, anywhere in the file.
    assignments: HashMap<&'a str, &'a Expr>,
    /// Keywords of each `setup(...)` / `setuptools.setup(...)` call statement.
    calls: Vec<&'a [Keyword]>,
    /// `NAME["key"] = value` statements, by name, in order (`extra_deps["nlp"] = [...]`).
    items: HashMap<&'a str, Vec<(&'a str, &'a Expr)>>,
    /// Functions defined at the top level, by name (`def req_file(filename, folder="requirements")`).
    functions: HashMap<&'a str, &'a ruff_python_ast::StmtFunctionDef>,
    /// `NAME += value` statements, by name, in order (`base += read_requirements(...)`).
    augmented: HashMap<&'a str, Vec<&'a Expr>>,
}

impl<'a> Walk<'a> {
    fn stmts(&mut self, body: &'a [Stmt], depth: usize) {
        if depth > MAX_STMT_DEPTH {
            return;
        }
        for stmt in body {
            self.stmt(stmt, depth);
        }
    }

    fn stmt(&mut self, stmt: &'a Stmt, depth: usize) {
        match stmt {
            Stmt::Assign(a) => {
                for target in &a.targets {
                    match target {
                        Expr::Name(name) => {
                            self.assignments.insert(name.id.as_str(), &a.value);
                        }
                        Expr::Subscript(sub) => {
                            if let (Expr::Name(name), Expr::StringLiteral(key)) =
                                (&*sub.value, &*sub.slice)
                            {
                                let items = self.items.entry(name.id.as_str()).or_default();
                                items.push((key.value.to_str(), &a.value));
                            }
                        }
                        _ => {}
                    }
                }
                self.expr(&a.value);
            }
            Stmt::AnnAssign(a) => {
                if let (Expr::Name(name), Some(value)) = (&*a.target, &a.value) {
                    self.assignments.insert(name.id.as_str(), value);
                }
            }
            Stmt::AugAssign(a) => {
                if let (Expr::Name(name), ruff_python_ast::Operator::Add) = (&*a.target, a.op) {
                    self.augmented
                        .entry(name.id.as_str())
                        .or_default()
                        .push(&a.value);
                }
            }
            Stmt::Expr(e) => self.expr(&e.value),
            Stmt::If(s) => {
                self.stmts(&s.body, depth + 1);
                for clause in &s.elif_else_clauses {
                    self.stmts(&clause.body, depth + 1);
                }
            }
            Stmt::With(s) => self.stmts(&s.body, depth + 1),
            Stmt::FunctionDef(s) => {
                if depth == 0 {
                    self.functions.insert(s.name.as_str(), s);
                }
                self.stmts(&s.body, depth + 1)
            }
            Stmt::For(s) => {
                self.stmts(&s.body, depth + 1);
                self.stmts(&s.orelse, depth + 1);
            }
            Stmt::While(s) => {
                self.stmts(&s.body, depth + 1);
                self.stmts(&s.orelse, depth + 1);
            }
            Stmt::Try(s) => {
                self.stmts(&s.body, depth + 1);
                for handler in &s.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = handler;
                    self.stmts(&h.body, depth + 1);
                }
                self.stmts(&s.orelse, depth + 1);
                self.stmts(&s.finalbody, depth + 1);
            }
            _ => {}
        }
    }

    /// Records a `setup(...)` call at statement level (`setup(...)`, `x = setup(...)`).
    fn expr(&mut self, expr: &'a Expr) {
        if let Expr::Call(call) = expr {
            let is_setup = match &*call.func {
                Expr::Name(n) => n.id.as_str() == "setup",
                Expr::Attribute(a) => a.attr.as_str() == "setup",
                _ => false,
            };
            if is_setup {
                self.calls.push(&call.arguments.keywords);
            }
        }
    }
}

struct Reader<'a> {
    path: &'a Path,
    index: &'a LineIndex,
    assignments: &'a HashMap<&'a str, &'a Expr>,
    items: &'a HashMap<&'a str, Vec<(&'a str, &'a Expr)>>,
    functions: &'a HashMap<&'a str, &'a ruff_python_ast::StmtFunctionDef>,
    augmented: &'a HashMap<&'a str, Vec<&'a Expr>>,
    /// Steps spent on the value being read.
    value_steps: Cell<usize>,
    /// Steps spent on the whole file.
    file_steps: Cell<usize>,
    /// Lines of the items of the value being read that are not literals (skipped: the
    /// others are read).
    skipped: Cell<Vec<(u32, String)>>,
}

/// Why a value was given up.
enum NotRead {
    /// Not a literal (a note: setup.py is often dynamic).
    Dynamic(String),
    /// It would take more than the step budget (a warning).
    TooMuch,
}

impl From<String> for NotRead {
    fn from(why: String) -> Self {
        NotRead::Dynamic(why)
    }
}

impl<'a> Reader<'a> {
    fn new(path: &'a Path, index: &'a LineIndex, walk: &'a Walk<'a>) -> Reader<'a> {
        Reader {
            path,
            index,
            assignments: &walk.assignments,
            items: &walk.items,
            functions: &walk.functions,
            augmented: &walk.augmented,
            value_steps: Cell::new(0),
            file_steps: Cell::new(0),
            skipped: Cell::new(Vec::new()),
        }
    }
}

impl Reader<'_> {
    fn line(&self, node: &impl Ranged) -> u32 {
        self.index.line(node.start().to_usize())
    }

    fn not_read(&self, c: &mut Collector, kw: &Keyword, why: &str) {
        let arg = kw.arg.as_ref().map(|a| a.as_str()).unwrap_or("");
        c.diag(
            self.path,
            Some(self.line(kw)),
            Severity::Note,
            format!("`{arg}` in setup.py could not be read statically ({why}); skipped"),
        );
    }

    fn given_up(&self, c: &mut Collector, kw: &Keyword, why: NotRead, what: &str) {
        match why {
            NotRead::Dynamic(why) => self.not_read(c, kw, &format!("{what}{why}")),
            NotRead::TooMuch => {
                let arg = kw.arg.as_ref().map(|a| a.as_str()).unwrap_or("");
                c.diag(
                    self.path,
                    Some(self.line(kw)),
                    Severity::Warning,
                    format!(
                        "`{arg}` in setup.py: {what}too many values to read (more than \
                         {MAX_VALUE_STEPS} steps); skipped"
                    ),
                );
            }
        }
    }

    /// Starts reading a new value.
    fn start_value(&self) {
        self.value_steps.set(0);
        self.skipped.set(Vec::new());
    }

    /// Spends `n` steps; `Err` once the value's or the file's budget is spent.
    fn spend(&self, n: usize) -> Result<(), NotRead> {
        let value = self.value_steps.get().saturating_add(n);
        let file = self.file_steps.get().saturating_add(n);
        self.value_steps.set(value);
        self.file_steps.set(file);
        if value > MAX_VALUE_STEPS || file > MAX_FILE_STEPS {
            return Err(NotRead::TooMuch);
        }
        Ok(())
    }

    fn push_all(&self, c: &mut Collector, items: Vec<(String, u32)>, group: Option<&str>) {
        for (line, why) in self.skipped.take() {
            c.diag(
                self.path,
                Some(line),
                Severity::Note,
                format!(
                    "an item of a requirement list in setup.py could not be read statically \
                     ({why}); skipped, the other items are read"
                ),
            );
        }
        for (text, line) in items {
            c.push_requirement(
                &text,
                &Declaration {
                    file: self.path,
                    line,
                    group,
                    is_constraint: false,
                    extra: group.is_some(),
                },
            );
        }
    }

    /// Follows a plain name to the value last assigned to it.
    fn resolve<'e>(&'e self, expr: &'e Expr, depth: usize) -> Result<&'e Expr, NotRead> {
        if depth > MAX_EXPR_DEPTH {
            return Err(NotRead::Dynamic("too deeply nested".to_string()));
        }
        self.spend(1)?;
        match expr {
            Expr::Name(name) => match self.assignments.get(name.id.as_str()) {
                Some(value) => self.resolve(value, depth + 1),
                None => Err(format!("`{}` is not assigned a literal", name.id.as_str()).into()),
            },
            other => Ok(other),
        }
    }
}
