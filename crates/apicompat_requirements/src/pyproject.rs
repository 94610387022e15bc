//! `pyproject.toml`: `[project]` dependencies, optional dependencies, `[dependency-groups]`,
//! Poetry's tables (`crate::poetry`), uv's sources and overrides (`crate::uv`) and
//! `[tool.apicompat]`.

use std::path::Path;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use crate::declared::{Collector, Declaration, Severity};
use crate::lines::LineIndex;

type Entry<'a, 'i> = (
    &'a Spanned<std::borrow::Cow<'i, str>>,
    &'a Spanned<DeValue<'i>>,
);

pub(crate) fn read(c: &mut Collector, path: &Path) {
    let Some(text) = c.read_text(path, None) else {
        return;
    };
    let index = LineIndex::new(&text);
    let doc = match DeTable::parse(&text) {
        Ok(doc) => doc,
        Err(e) => {
            let line = e.span().map(|s| index.line(s.start));
            let msg = e.message().trim().to_string();
            c.diag(
                path,
                line,
                Severity::Error,
                format!("pyproject.toml is not valid TOML: {msg}; its requirements were not read"),
            );
            return;
        }
    };
    let r = Reader {
        path,
        index: &index,
    };
    let root = doc.get_ref();

    if let Some(project) = lookup(root, "project") {
        if let Some(table) = r.table(c, project, "[project]") {
            if let Some(name) = lookup(table, "name").and_then(|n| n.get_ref().as_str()) {
                c.out.name = Some(crate::normalize_name(name));
            }
            if let Some(deps) = lookup(table, "dependencies") {
                r.requirement_list(c, deps, "project.dependencies", None);
            }
            if let Some(optional) = lookup(table, "optional-dependencies") {
                if let Some(groups) = r.table(c, optional, "project.optional-dependencies") {
                    for (key, value) in sorted_entries(groups) {
                        let group = key.get_ref().to_string();
                        c.out.extras.push(crate::normalize_name(&group));
                        let what = format!("project.optional-dependencies.{group}");
                        r.requirement_list(c, value, &what, Some(&group));
                    }
                }
            }
        }
    }

    if let Some(groups) = lookup(root, "dependency-groups") {
        if let Some(groups) = r.table(c, groups, "[dependency-groups]") {
            for (key, value) in sorted_entries(groups) {
                let group = key.get_ref().to_string();
                let Some(items) = r.array(c, value, &format!("dependency-groups.{group}")) else {
                    continue;
                };
                for item in items.iter() {
                    // `{include-group = "..."}` entries only point at other groups.
                    if let Some(s) = item.get_ref().as_str() {
                        c.push_requirement(
                            s,
                            &Declaration {
                                file: path,
                                line: index.line(item.span().start),
                                group: Some(&group),
                                is_constraint: false,
                                extra: false,
                            },
                        );
                    }
                }
            }
        }
    }

    let tools = lookup_entry(root, "tool").and_then(|(_, t)| t.get_ref().as_table());
    if let Some(poetry) = tools
        .and_then(|t| t.get("poetry"))
        .and_then(|p| p.get_ref().as_table())
    {
        crate::poetry::read(c, path, &index, poetry);
    }
    if let Some(uv) = tools
        .and_then(|t| t.get("uv"))
        .and_then(|u| u.get_ref().as_table())
    {
        crate::uv::read(c, path, &index, uv);
    }
    if let Some((key, value)) = tools.and_then(|t| lookup_entry(t, "apicompat")) {
        r.tool_config(c, key, value);
    }
}

fn lookup<'a, 'i>(table: &'a DeTable<'i>, key: &str) -> Option<&'a Spanned<DeValue<'i>>> {
    table.get(key)
}

fn lookup_entry<'a, 'i>(table: &'a DeTable<'i>, key: &str) -> Option<Entry<'a, 'i>> {
    table.iter().find(|(k, _)| k.get_ref().as_ref() == key)
}

/// Entries in file order (the map itself is sorted by key).
fn sorted_entries<'a, 'i>(table: &'a DeTable<'i>) -> Vec<Entry<'a, 'i>> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}

struct Reader<'a> {
    path: &'a Path,
    index: &'a LineIndex,
}

impl Reader<'_> {
    fn line(&self, value: &Spanned<DeValue<'_>>) -> u32 {
        self.index.line(value.span().start)
    }

    fn wrong_type(&self, c: &mut Collector, value: &Spanned<DeValue<'_>>, what: &str, want: &str) {
        c.diag(
            self.path,
            Some(self.line(value)),
            Severity::Error,
            format!(
                "`{what}` should be {want}, found {}; skipped",
                value.get_ref().type_str()
            ),
        );
    }

    fn table<'a, 'i>(
        &self,
        c: &mut Collector,
        value: &'a Spanned<DeValue<'i>>,
        what: &str,
    ) -> Option<&'a DeTable<'i>> {
        let table = value.get_ref().as_table();
        if table.is_none() {
            self.wrong_type(c, value, what, "a table");
        }
        table
    }

    fn array<'a, 'i>(
        &self,
        c: &mut Collector,
        value: &'a Spanned<DeValue<'i>>,
        what: &str,
    ) -> Option<&'a [Spanned<DeValue<'i>>]> {
        let array = value.get_ref().as_array().map(|a| &a[..]);
        if array.is_none() {
            self.wrong_type(c, value, what, "an array of strings");
        }
        array
    }

    /// The strings of an array, each with its line; other items are reported.
    fn strings(
        &self,
        c: &mut Collector,
        value: &Spanned<DeValue<'_>>,
        what: &str,
    ) -> Vec<(String, u32)> {
        let Some(items) = self.array(c, value, what) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            match item.get_ref().as_str() {
                Some(s) => out.push((s.to_string(), self.line(item))),
                None => self.wrong_type(c, item, &format!("an item of {what}"), "a string"),
            }
        }
        out
    }

    fn requirement_list(
        &self,
        c: &mut Collector,
        value: &Spanned<DeValue<'_>>,
        what: &str,
        group: Option<&str>,
    ) {
        for (text, line) in self.strings(c, value, what) {
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

    fn tool_config(
        &self,
        c: &mut Collector,
        key: &Spanned<std::borrow::Cow<'_, str>>,
        value: &Spanned<DeValue<'_>>,
    ) {
        c.out.tool_config.source = Some(c.source(self.path, self.index.line(key.span().start)));
        let Some(table) = self.table(c, value, "[tool.apicompat]") else {
            return;
        };
        for (k, v) in sorted_entries(table) {
            let name = k.get_ref().as_ref();
            match name {
                "targets" => {
                    for (text, line) in self.strings(c, v, "tool.apicompat.targets") {
                        let at = Declaration {
                            file: self.path,
                            line,
                            group: None,
                            is_constraint: false,
                            extra: false,
                        };
                        if let Some(req) = c.add_requirement(&text, &at) {
                            c.out.tool_config.targets.push(req);
                        }
                    }
                }
                "select" => {
                    let codes = self.strings(c, v, "tool.apicompat.select");
                    c.out.tool_config.select = codes.into_iter().map(|(s, _)| s).collect();
                }
                "ignore" => {
                    let codes = self.strings(c, v, "tool.apicompat.ignore");
                    c.out.tool_config.ignore = codes.into_iter().map(|(s, _)| s).collect();
                }
                "exclude" => {
                    let globs = self.strings(c, v, "tool.apicompat.exclude");
                    c.out.tool_config.exclude = Some(globs.into_iter().map(|(s, _)| s).collect());
                }
                "extend-exclude" => {
                    let globs = self.strings(c, v, "tool.apicompat.extend-exclude");
                    c.out.tool_config.extend_exclude = globs.into_iter().map(|(s, _)| s).collect();
                }
                "per-file-ignores" => {
                    let Some(t) = self.table(c, v, "tool.apicompat.per-file-ignores") else {
                        continue;
                    };
                    for (glob, codes) in sorted_entries(t) {
                        let what =
                            format!("tool.apicompat.per-file-ignores.\"{}\"", glob.get_ref());
                        let codes = self.strings(c, codes, &what);
                        c.out.tool_config.per_file_ignores.push((
                            glob.get_ref().to_string(),
                            codes.into_iter().map(|(s, _)| s).collect(),
                        ));
                    }
                }
                "baseline" => match v.get_ref().as_str() {
                    Some(s) => c.out.tool_config.baseline = Some(s.to_string()),
                    None => self.wrong_type(c, v, "tool.apicompat.baseline", "a string"),
                },
                other => {
                    c.out.tool_config.unknown_keys.push(other.to_string());
                    c.diag(
                        self.path,
                        Some(self.index.line(k.span().start)),
                        Severity::Warning,
                        format!("unknown key `{other}` in [tool.apicompat] ignored"),
                    );
                }
            }
        }
    }
}
