//! Requirement lists as written: string literals through names, `+`, `list(...)` and
//! conditional items, and the lookup table of requirements transformers builds
//! (`deps["torch"]`, `deps_list(...)`).

use ruff_python_ast::{Expr, Operator, Stmt};

use super::{NotRead, Reader, MAX_EXPR_DEPTH};

impl Reader<'_> {
    /// A list/tuple of string literals, possibly through names, `+` and conditional
    /// expressions whose test [`Self::truth`] decides.
    pub(super) fn list(&self, expr: &Expr, depth: usize) -> Result<Vec<(String, u32)>, NotRead> {
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
}
