//! The `install_requires` and `extras_require` keywords: requirement files a helper of the
//! project reads, and extras joined from other extras of the same table.

use std::path::Path;

use ruff_python_ast::{Expr, Keyword, Operator};

use super::{NotRead, Reader, MAX_EXPR_DEPTH};
use crate::declared::Collector;

/// The extras of one `extras_require` table, for [`Walk::extra_value`].
struct Extra<'e, 'a> {
    /// Its entries in the order they are set: the dict's, then `NAME["key"] = ...`.
    entries: &'e [(&'a str, &'a Expr)],
    /// The table's name, when the keyword names one.
    dict_name: Option<&'a str>,
    /// The extra being read.
    group: &'e str,
}

impl Reader<'_> {
    pub(super) fn install_requires(&self, c: &mut Collector, kw: &Keyword) {
        self.start_value();
        if self.read_from_files(c, &kw.value, None) {
            return;
        }
        match self.list(&kw.value, 0) {
            Ok(items) => self.push_all(c, items, None),
            Err(NotRead::Dynamic(_)) if self.read_keyed_file(c, &kw.value) => {}
            Err(why) => self.given_up(c, kw, why, ""),
        }
    }

    /// `install_requires=requirements["install"]` where the table is built at run time (s3prl
    /// fills it in a loop over `requirements/*.txt`, keyed by stem): the one requirements file
    /// named by the key (`requirements/install.txt`, `install.txt`,
    /// `requirements-install.txt`) is read, with a note. True when read.
    fn read_keyed_file(&self, c: &mut Collector, value: &Expr) -> bool {
        let Ok(Expr::Subscript(sub)) = self.resolve(value, 0) else {
            return false;
        };
        let (Expr::Name(table), Expr::StringLiteral(key)) = (&*sub.value, &*sub.slice) else {
            return false;
        };
        let key = key.value.to_str();
        if key.is_empty()
            || !key
                .chars()
                .all(|ch| ch.is_alphanumeric() || "-_.".contains(ch))
        {
            return false;
        }
        let base = self.path.parent().unwrap_or(Path::new(""));
        let Some(file) = [
            format!("requirements/{key}.txt"),
            format!("{key}.txt"),
            format!("requirements-{key}.txt"),
            format!("requirements_{key}.txt"),
        ]
        .iter()
        .map(|name| base.join(name))
        .find(|p| p.is_file()) else {
            return false;
        };
        let rel = c.rel(&file);
        c.diag(
            self.path,
            Some(self.line(sub)),
            crate::declared::Severity::Note,
            format!(
                "`install_requires` is `{}[\"{key}\"]`, a table built at run time: read from `{}`, the requirements file of that key",
                table.id,
                rel.display()
            ),
        );
        crate::reqtxt::read_file(c, &file, false, Some((self.path, self.line(sub))));
        true
    }

    /// A value read from a requirements file by a call of the project's own
    /// (`install_requires=req_file("requirements.txt")`, `extras_require={"nlp":
    /// req_file("requirements_nlp.txt")}` with `def req_file(filename, folder="requirements")`):
    /// the file a string argument names, beside setup.py or in a folder a parameter of the
    /// function defaults to, is read as a requirements file of that group. True when read.
    fn read_from_files(&self, c: &mut Collector, value: &Expr, group: Option<&str>) -> bool {
        let mut calls = Vec::new();
        if !self.file_calls(value, 0, &mut calls) || calls.is_empty() {
            return false;
        }
        let Some(files) = calls
            .iter()
            .map(|call| self.files_of(call))
            .collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        for (call, files) in calls.iter().zip(files) {
            self.read_files(c, call, files, group);
        }
        true
    }

    /// The calls whose results make up `value` (Transformers4Rec: `base = read(...)`, `base
    /// += read(...)`, `requirements = {"base": base}`, `install_requires=requirements["base"]`):
    /// a call, what a name is assigned and `+=`-extended with, a dict literal's entry by key,
    /// both sides of `+`, an empty list. False when some part is none of these.
    fn file_calls<'e>(
        &'e self,
        value: &'e Expr,
        depth: usize,
        out: &mut Vec<&'e ruff_python_ast::ExprCall>,
    ) -> bool {
        if depth > MAX_EXPR_DEPTH || self.spend(1).is_err() {
            return false;
        }
        match value {
            Expr::Call(call) => {
                out.push(call);
                true
            }
            Expr::List(l) => l.elts.is_empty(),
            Expr::BinOp(b) if b.op == Operator::Add => {
                self.file_calls(&b.left, depth + 1, out)
                    && self.file_calls(&b.right, depth + 1, out)
            }
            Expr::Name(n) => {
                let Some(assigned) = self.assignments.get(n.id.as_str()) else {
                    return false;
                };
                self.file_calls(assigned, depth + 1, out)
                    && self
                        .augmented
                        .get(n.id.as_str())
                        .into_iter()
                        .flatten()
                        .all(|v| self.file_calls(v, depth + 1, out))
            }
            Expr::Subscript(sub) => {
                let (Expr::Name(table), Expr::StringLiteral(key)) = (&*sub.value, &*sub.slice)
                else {
                    return false;
                };
                let Some(Expr::Dict(d)) = self.assignments.get(table.id.as_str()) else {
                    return false;
                };
                let entry = d.items.iter().find(|item| {
                    matches!(&item.key, Some(Expr::StringLiteral(k)) if k.value.to_str() == key.value.to_str())
                });
                entry.is_some_and(|item| self.file_calls(&item.value, depth + 1, out))
            }
            _ => false,
        }
    }

    /// The requirements files a call of the project's helper reads: the file a string argument
    /// names, beside setup.py or in a folder a parameter of the function defaults to. `None`
    /// when one is not found.
    fn files_of(&self, call: &ruff_python_ast::ExprCall) -> Option<Vec<std::path::PathBuf>> {
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
            return None;
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
        (files.len() == names.len()).then_some(files)
    }

    /// Reads the files of one call ([`Reader::files_of`]) as requirements of `group`.
    fn read_files(
        &self,
        c: &mut Collector,
        call: &ruff_python_ast::ExprCall,
        files: Vec<std::path::PathBuf>,
        group: Option<&str>,
    ) {
        for file in files {
            // A file another key already read (NeMo's `core` and `lightning` extras both name
            // `requirements_lightning.txt`) is read once: its requirements are copied here, each
            // line once (the copies of earlier copies would double with every read).
            let rel = c.rel(&file);
            let mut lines = std::collections::HashSet::new();
            let earlier: Vec<_> = c
                .out
                .requirements
                .iter()
                .filter(|r| r.source.file == rel && lines.insert((r.source.line, r.raw.as_str())))
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
    }

    pub(super) fn extras_require(&self, c: &mut Collector, kw: &Keyword) {
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
}
