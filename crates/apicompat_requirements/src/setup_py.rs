//! `setup.py`: literal `install_requires` / `extras_require` in the `setup(...)` call.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;

use ruff_python_ast::{CmpOp, Expr, Keyword, Operator, PySourceType, Stmt};
use ruff_python_parser::parse_unchecked_source;
use ruff_text_size::Ranged;

use crate::declared::{Collector, Declaration, Severity};
use crate::lines::LineIndex;

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
}

/// The extras of one `extras_require` table, for [`Walk::extra_value`].
struct Extra<'e, 'a> {
    /// Its entries in the order they are set: the dict's, then `NAME["key"] = ...`.
    entries: &'e [(&'a str, &'a Expr)],
    /// The table's name, when the keyword names one.
    dict_name: Option<&'a str>,
    /// The extra being read.
    group: &'e str,
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

    fn install_requires(&self, c: &mut Collector, kw: &Keyword) {
        self.start_value();
        if self.read_from_files(c, &kw.value, None) {
            return;
        }
        match self.list(&kw.value, 0) {
            Ok(items) => self.push_all(c, items, None),
            Err(why) => self.given_up(c, kw, why, ""),
        }
    }

    /// A value read from a requirements file by a call of the project's own
    /// (`install_requires=req_file("requirements.txt")`, `extras_require={"nlp":
    /// req_file("requirements_nlp.txt")}` with `def req_file(filename, folder="requirements")`):
    /// the file a string argument names, beside setup.py or in a folder a parameter of the
    /// function defaults to, is read as a requirements file of that group. True when read.
    fn read_from_files(&self, c: &mut Collector, value: &Expr, group: Option<&str>) -> bool {
        let Ok(Expr::Call(call)) = self.resolve(value, 0) else {
            return false;
        };
        let base = self
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let string = |e: &Expr| match e {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            _ => None,
        };
        // File names: the first argument, a string or a list of strings.
        let names: Vec<String> = match call.arguments.args.first() {
            Some(Expr::List(l)) => l.elts.iter().filter_map(string).collect(),
            Some(Expr::Tuple(t)) => t.elts.iter().filter_map(string).collect(),
            Some(e) => string(e).into_iter().collect(),
            None => Vec::new(),
        };
        if names.is_empty() {
            return false;
        }
        // Folders: setup.py's own, then string keywords of the call and string defaults of
        // the function (`folder="requirements"`).
        let mut folders: Vec<String> = vec![String::new()];
        folders.extend(
            call.arguments
                .keywords
                .iter()
                .filter_map(|k| string(&k.value)),
        );
        if let Expr::Name(f) = &*call.func {
            if let Some(def) = self.functions.get(f.id.as_str()) {
                folders.extend(
                    def.parameters
                        .iter_non_variadic_params()
                        .filter_map(|p| p.default.as_deref().and_then(string)),
                );
            }
        }
        let files: Vec<std::path::PathBuf> = names
            .iter()
            .filter_map(|name| {
                folders
                    .iter()
                    .map(|d| base.join(d).join(name))
                    .find(|p| p.is_file())
            })
            .collect();
        if files.len() != names.len() {
            return false;
        }
        for file in files {
            // A file another key already read (NeMo's `core` and `lightning` extras both name
            // `requirements_lightning.txt`) is read once: its requirements are copied here.
            let rel = c.rel(&file);
            let earlier: Vec<_> = c
                .out
                .requirements
                .iter()
                .filter(|r| r.source.file == rel)
                .cloned()
                .collect();
            let before = c.out.requirements.len();
            crate::reqtxt::read_file(c, &file, false, Some((self.path, self.line(call))));
            if c.out.requirements.len() == before {
                c.out.requirements.extend(earlier);
            }
            for req in &mut c.out.requirements[before..] {
                req.group = group.map(str::to_string);
                req.extra = group.is_some();
            }
        }
        true
    }

    fn extras_require(&self, c: &mut Collector, kw: &Keyword) {
        self.start_value();
        let dict = match self.resolve(&kw.value, 0) {
            Ok(Expr::Dict(d)) => d,
            Ok(_) => return self.not_read(c, kw, "not a literal dict"),
            Err(why) => return self.given_up(c, kw, why, ""),
        };
        let mut entries: Vec<(&str, &Expr)> = Vec::new();
        for item in &dict.items {
            let Some(Expr::StringLiteral(key)) = &item.key else {
                self.not_read(c, kw, "a key is not a string literal");
                continue;
            };
            entries.push((key.value.to_str(), &item.value));
        }
        // `extra_deps = {}` then `extra_deps["nlp"] = [...]`.
        if let Expr::Name(name) = &kw.value {
            if let Some(items) = self.items.get(name.id.as_str()) {
                entries.extend(items.iter().copied());
            }
        }
        let dict_name = match &kw.value {
            Expr::Name(name) => Some(name.id.as_str()),
            _ => None,
        };
        let before = c.out.requirements.len();
        // A key assigned again replaces its value: only its last value is read, which may
        // name the earlier ones (`extras["nlp"] = list(chain(extras["nlp"], extras["common"]))`).
        for (at, (key, value)) in entries.iter().enumerate() {
            if entries[at + 1..].iter().any(|(k, _)| k == key) {
                continue;
            }
            let group = key.to_string();
            c.out.extras.push(crate::normalize_name(&group));
            self.start_value();
            let extra = Extra {
                entries: &entries,
                dict_name,
                group: &group,
            };
            if let Err(why) = self.extra_value(c, &extra, value, at, 0) {
                self.given_up(c, kw, why, &format!("extra `{group}`: "));
            }
        }
        // A line two joined extras both read is one requirement of the extra.
        let mut seen = std::collections::HashSet::new();
        let mut k = 0;
        c.out.requirements.retain(|r| {
            k += 1;
            k <= before || seen.insert((r.group.clone(), r.source.clone(), r.raw.clone()))
        });
    }

    /// Reads the value of an extra (the entry at `at`) into `extra.group`: requirement files
    /// read by a helper, a list, or the items of other extras of the same table, joined by
    /// `itertools.chain` or `+` (NeMo's `extras_require['nlp'] = list(chain(extras_require['nlp'],
    /// extras_require['common']))`).
    fn extra_value<'e>(
        &'e self,
        c: &mut Collector,
        extra: &Extra<'_, 'e>,
        value: &'e Expr,
        at: usize,
        depth: usize,
    ) -> Result<(), NotRead> {
        if depth > MAX_EXPR_DEPTH {
            return Err(NotRead::Dynamic("too deeply nested".to_string()));
        }
        self.spend(1)?;
        let value = self.resolve(value, depth)?;
        // `extras["k"]` of the same table: its value as last assigned before this entry.
        if let Expr::Subscript(sub) = value {
            if let (Expr::Name(name), Expr::StringLiteral(key)) = (&*sub.value, &*sub.slice) {
                if Some(name.id.as_str()) == extra.dict_name {
                    let key = key.value.to_str();
                    let earlier = extra.entries[..at].iter().rposition(|(k, _)| *k == key);
                    let Some(i) = earlier else {
                        return Err(NotRead::Dynamic(format!("extra `{key}` is not set before")));
                    };
                    return self.extra_value(c, extra, extra.entries[i].1, i, depth + 1);
                }
            }
        }
        let joined: Option<Vec<&'e Expr>> = match value {
            // `list(chain(a, b))`, `chain(a, b)`, `itertools.chain(a, b)`.
            Expr::Call(call) if call.arguments.keywords.is_empty() => {
                let name = match &*call.func {
                    Expr::Name(f) => Some(f.id.as_str()),
                    Expr::Attribute(a) => Some(a.attr.as_str()),
                    _ => None,
                };
                match (name, &*call.arguments.args) {
                    (Some("list" | "tuple" | "set"), [Expr::Call(inner)])
                        if inner.arguments.keywords.is_empty()
                            && (matches!(&*inner.func, Expr::Name(f) if f.id.as_str() == "chain")
                                || matches!(&*inner.func, Expr::Attribute(a) if a.attr.as_str() == "chain")) =>
                    {
                        Some(inner.arguments.args.iter().collect())
                    }
                    (Some("chain"), args) => Some(args.iter().collect()),
                    _ => None,
                }
            }
            Expr::BinOp(b) if b.op == Operator::Add => Some(vec![&*b.left, &*b.right]),
            _ => None,
        };
        if let Some(parts) = joined {
            for part in parts {
                self.extra_value(c, extra, part, at, depth + 1)?;
            }
            return Ok(());
        }
        if self.read_from_files(c, value, Some(extra.group)) {
            return Ok(());
        }
        let items = self.list(value, depth)?;
        self.push_all(c, items, Some(extra.group));
        Ok(())
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

    /// A list/tuple of string literals, possibly through names, `+` and conditional
    /// expressions whose test [`Self::truth`] decides.
    fn list(&self, expr: &Expr, depth: usize) -> Result<Vec<(String, u32)>, NotRead> {
        let expr = self.resolve(expr, depth)?;
        match expr {
            Expr::If(e) => self.list(self.taken(e, depth)?, depth + 1),
            // `list(install_requires)` (diffusers).
            Expr::Call(call)
                if matches!(&*call.func, Expr::Name(f) if matches!(f.id.as_str(), "list" | "tuple"))
                    && call.arguments.args.len() == 1
                    && call.arguments.keywords.is_empty() =>
            {
                self.list(&call.arguments.args[0], depth + 1)
            }
            Expr::Call(call) => self.table_list(call, depth + 1),
            // `extras["quality"]`, set by an earlier `extras["quality"] = [...]`.
            Expr::Subscript(sub) => {
                let (Expr::Name(name), Expr::StringLiteral(key)) = (&*sub.value, &*sub.slice)
                else {
                    return Err(NotRead::Dynamic(
                        "not a literal list of strings".to_string(),
                    ));
                };
                let value = self
                    .items
                    .get(name.id.as_str())
                    .and_then(|items| items.iter().rev().find(|(k, _)| *k == key.value.to_str()))
                    .map(|(_, v)| *v)
                    .ok_or_else(|| NotRead::Dynamic("not a literal list of strings".to_string()))?;
                self.list(value, depth + 1)
            }
            Expr::List(l) => self.strings(&l.elts),
            Expr::Tuple(t) => self.strings(&t.elts),
            Expr::StringLiteral(s) => {
                // setuptools accepts one string with one requirement per line.
                let line = self.line(s);
                self.spend(s.value.to_str().lines().count())?;
                Ok(s.value
                    .to_str()
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(|l| (l.to_string(), line))
                    .collect())
            }
            Expr::BinOp(b) if b.op == Operator::Add => {
                let mut left = self.list(&b.left, depth + 1)?;
                left.extend(self.list(&b.right, depth + 1)?);
                Ok(left)
            }
            _ => Err(NotRead::Dynamic(
                "not a literal list of strings".to_string(),
            )),
        }
    }

    /// The items of a list: an item that is not read (fairseq2's `"fairseq2n" +
    /// version_spec` among 19 literals) is skipped and noted, the others are read.
    fn strings(&self, elts: &[Expr]) -> Result<Vec<(String, u32)>, NotRead> {
        self.spend(elts.len())?;
        let mut out = Vec::with_capacity(elts.len());
        let mut skipped = Vec::new();
        for e in elts {
            match self.item(e, 0) {
                Ok(item) => out.push(item),
                Err(NotRead::Dynamic(why)) => skipped.push((self.line(e), why)),
                Err(NotRead::TooMuch) => return Err(NotRead::TooMuch),
            }
        }
        if out.is_empty() {
            if let Some((_, why)) = skipped.into_iter().next() {
                return Err(NotRead::Dynamic(why));
            }
            return Ok(out);
        }
        let mut all = self.skipped.take();
        all.extend(skipped);
        self.skipped.set(all);
        Ok(out)
    }

    /// One item of a list: a string literal, or a conditional expression choosing one
    /// (llm-compressor: `("torch>=2.10.0,<=2.13.0" if BUILD_TYPE == "release" else
    /// "torch>=2.10.0")`).
    fn item(&self, e: &Expr, depth: usize) -> Result<(String, u32), NotRead> {
        if depth > MAX_EXPR_DEPTH {
            return Err(NotRead::Dynamic("too deeply nested".to_string()));
        }
        match e {
            Expr::StringLiteral(s) => Ok((s.value.to_str().to_string(), self.line(s))),
            Expr::If(c) => self.item(self.taken(c, depth)?, depth + 1),
            Expr::Subscript(sub) => self.table_entry(sub, depth + 1),
            _ => Err(NotRead::Dynamic(
                "an item is not a string literal".to_string(),
            )),
        }
    }

    /// `deps["accelerate"]` from a lookup table built over a literal list of requirements (the
    /// transformers `setup.py` idiom, also alignment-handbook's: `deps = {b: a for a, b in
    /// (re.findall(r"^(([^!=<>~ ]+)(?:[!=<>~ ].*)?$)", x)[0] for x in _deps)}`): the item of
    /// that list that names the key's distribution.
    fn table_entry(
        &self,
        sub: &ruff_python_ast::ExprSubscript,
        depth: usize,
    ) -> Result<(String, u32), NotRead> {
        let (Expr::Name(table), Expr::StringLiteral(key)) = (&*sub.value, &*sub.slice) else {
            return Err(NotRead::Dynamic(
                "an item is not a string literal".to_string(),
            ));
        };
        self.table_item(table.id.as_str(), key.value.to_str(), depth)
    }

    /// `deps_list("torch", "accelerate")` with `def deps_list(*pkgs): return [deps[pkg] for
    /// pkg in pkgs]` (diffusers' and transformers' extras): the table's items for the names.
    fn table_list(
        &self,
        call: &ruff_python_ast::ExprCall,
        depth: usize,
    ) -> Result<Vec<(String, u32)>, NotRead> {
        let not_read = || NotRead::Dynamic("not a literal list of strings".to_string());
        let Expr::Name(f) = &*call.func else {
            return Err(not_read());
        };
        let def = self.functions.get(f.id.as_str()).ok_or_else(not_read)?;
        let vararg = def.parameters.vararg.as_ref().ok_or_else(not_read)?;
        let body = match &*def.body {
            [Stmt::Expr(doc), rest @ ..] if doc.value.is_string_literal_expr() => rest,
            b => b,
        };
        let [Stmt::Return(ret)] = body else {
            return Err(not_read());
        };
        let Some(Expr::ListComp(comp)) = ret.value.as_deref() else {
            return Err(not_read());
        };
        let (Expr::Subscript(sub), [generator]) = (&*comp.elt, &*comp.generators) else {
            return Err(not_read());
        };
        let (Expr::Name(table), Expr::Name(key), Expr::Name(target), Expr::Name(iter)) =
            (&*sub.value, &*sub.slice, &generator.target, &generator.iter)
        else {
            return Err(not_read());
        };
        if key.id != target.id
            || iter.id.as_str() != vararg.name.as_str()
            || !generator.ifs.is_empty()
        {
            return Err(not_read());
        }
        self.spend(call.arguments.args.len())?;
        call.arguments
            .args
            .iter()
            .map(|a| match a {
                Expr::StringLiteral(k) => {
                    self.table_item(table.id.as_str(), k.value.to_str(), depth)
                }
                _ => Err(not_read()),
            })
            .collect()
    }

    /// The item of lookup table `table` (see [`Self::table_entry`]) for distribution `key`.
    fn table_item(&self, table: &str, key: &str, depth: usize) -> Result<(String, u32), NotRead> {
        let not_read = || NotRead::Dynamic("an item is not a string literal".to_string());
        let Some(Expr::DictComp(comp)) = self.assignments.get(table).copied() else {
            return Err(not_read());
        };
        // The list the comprehension runs over, directly or through a generator.
        let mut iter = &comp.generators.first().ok_or_else(not_read)?.iter;
        if let Expr::Generator(g) = iter {
            iter = &g.generators.first().ok_or_else(not_read)?.iter;
        }
        let items = match self.resolve(iter, depth)? {
            Expr::List(l) => &l.elts,
            Expr::Tuple(t) => &t.elts,
            _ => return Err(not_read()),
        };
        self.spend(items.len())?;
        let wanted = crate::normalize_name(key);
        items
            .iter()
            .find_map(|e| match e {
                Expr::StringLiteral(s) => {
                    let text = s.value.to_str();
                    let name = text
                        .split(|c: char| "!=<>~ [;@".contains(c))
                        .next()
                        .unwrap_or("");
                    (crate::normalize_name(name) == wanted)
                        .then(|| (text.to_string(), self.line(s)))
                }
                _ => None,
            })
            .ok_or_else(not_read)
    }

    /// The branch of `a if test else b` a plain `pip install .` takes ([`Self::truth`]).
    fn taken<'e>(&self, e: &'e ruff_python_ast::ExprIf, depth: usize) -> Result<&'e Expr, NotRead> {
        Ok(if self.truth(&e.test, depth + 1)? {
            &e.body
        } else {
            &e.orelse
        })
    }

    /// The value of a test a plain `pip install .` decides: `==` / `!=` (and `in` / `not in` a
    /// literal collection) between strings, where a name stands for the string last assigned
    /// to it and an environment variable read with a default (`os.environ.get("BUILD_TYPE",
    /// "dev")`, `os.getenv(...)`) for that default.
    fn truth(&self, test: &Expr, depth: usize) -> Result<bool, NotRead> {
        if depth > MAX_EXPR_DEPTH {
            return Err(NotRead::Dynamic("too deeply nested".to_string()));
        }
        let undecided = || NotRead::Dynamic("a condition that depends on the build".to_string());
        let Expr::Compare(c) = test else {
            return Err(undecided());
        };
        let ([op], [right]) = (&*c.ops, &*c.comparators) else {
            return Err(undecided());
        };
        let left = self.string(&c.left, depth + 1).ok_or_else(undecided)?;
        match op {
            CmpOp::Eq | CmpOp::NotEq => {
                let right = self.string(right, depth + 1).ok_or_else(undecided)?;
                Ok((left == right) == matches!(op, CmpOp::Eq))
            }
            CmpOp::In | CmpOp::NotIn => {
                let elts = match self.resolve(right, depth + 1)? {
                    Expr::List(l) => &l.elts,
                    Expr::Tuple(t) => &t.elts,
                    Expr::Set(s) => &s.elts,
                    _ => return Err(undecided()),
                };
                let mut found = false;
                for e in elts {
                    found |= self.string(e, depth + 1).ok_or_else(undecided)? == left;
                }
                Ok(found == matches!(op, CmpOp::In))
            }
            _ => Err(undecided()),
        }
    }

    /// A string an expression has without running the build (see [`Self::truth`]).
    fn string(&self, e: &Expr, depth: usize) -> Option<String> {
        match self.resolve(e, depth).ok()? {
            Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
            Expr::Call(call) => {
                let func = dotted(&call.func, 0)?;
                if !matches!(func.as_str(), "os.environ.get" | "os.getenv") {
                    return None;
                }
                match &*call.arguments.args {
                    [_, Expr::StringLiteral(default)] => Some(default.value.to_str().to_string()),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

/// `os.environ.get` as written, for a chain of names (at most a few segments).
fn dotted(e: &Expr, depth: usize) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.id.to_string()),
        Expr::Attribute(a) if depth < 4 => {
            Some(format!("{}.{}", dotted(&a.value, depth + 1)?, a.attr))
        }
        _ => None,
    }
}
