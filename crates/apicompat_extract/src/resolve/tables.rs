//! What a module `__getattr__` says through its tables (`attr_tables`): names it answers
//! with a deprecation warning are deprecated; names it raises `AttributeError` for, with a
//! migration note, are absent from the module unless the module binds them itself (a name
//! copied in only by a star import of a module whose `__all__` cannot be read is not there:
//! `__getattr__` runs only for names normal lookup does not find, so the module's author says
//! it is not), and the note is kept as the fix.

use std::collections::BTreeMap;

use apicompat_surface::Symbol;

use super::{HashMap, ModuleInfo};
use crate::attr_tables::{Table, TableUse};
use crate::facts::Value;

/// One name a module's `__getattr__` table speaks for.
pub struct TableName {
    pub module: String,
    pub name: String,
    pub table_use: TableUse,
    pub message: Option<String>,
    /// The module binds the name itself (not through a star import).
    pub own: bool,
}

/// Every name the module `__getattr__` tables of a release speak for.
pub fn table_names(modules: &HashMap<String, ModuleInfo>) -> Vec<TableName> {
    let mut out = Vec::new();
    let mut names: Vec<&String> = modules.keys().collect();
    names.sort();
    for module in names {
        let info = &modules[module];
        for f in &info.files {
            for (table, table_use) in &f.getattr_tables {
                let Some(rows) = find_table(modules, info, table) else {
                    continue;
                };
                for (name, message) in rows {
                    let own = info
                        .files
                        .iter()
                        .any(|f| f.bindings.iter().any(|(n, _)| n == name));
                    out.push(TableName {
                        module: module.clone(),
                        name: name.clone(),
                        table_use: *table_use,
                        message: message.clone(),
                        own,
                    });
                }
            }
        }
    }
    out
}

/// A table built in the module, or imported from another module of the release.
fn find_table<'m>(
    modules: &'m HashMap<String, ModuleInfo>,
    info: &'m ModuleInfo,
    table: &str,
) -> Option<&'m Table> {
    if let Some(t) = info.files.iter().find_map(|f| f.tables.get(table)) {
        return Some(t);
    }
    let (module, name) = info.files.iter().find_map(|f| {
        f.bindings.iter().rev().find_map(|(n, v)| match v {
            Value::From { module, name } if n == table => Some((module, name)),
            _ => None,
        })
    })?;
    modules
        .get(module)?
        .files
        .iter()
        .find_map(|f| f.tables.get(name))
}

/// Applies the tables to the symbols; returns the migration notes of the names left absent.
pub fn apply(
    names: &[TableName],
    symbols: &mut BTreeMap<String, Symbol>,
) -> BTreeMap<String, String> {
    let mut notes = BTreeMap::new();
    for t in names {
        let path = format!("{}.{}", t.module, t.name);
        match t.table_use {
            TableUse::Deprecated => {
                if let (Some(sym), Some(m)) = (symbols.get_mut(&path), &t.message) {
                    if sym.deprecated.is_none() {
                        sym.deprecated = Some(m.clone());
                    }
                }
            }
            // A submodule stays importable (`import numpy.compat` in numpy 2.0, whose
            // `np.compat` attribute is expired until something imports it).
            TableUse::Removed if symbols.get(&path).is_some_and(|s| s.importable) => {}
            TableUse::Removed if !t.own => {
                symbols.remove(&path);
                let prefix = format!("{path}.");
                let below: Vec<String> = symbols
                    .range(prefix.clone()..)
                    .take_while(|(k, _)| k.starts_with(&prefix))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in below {
                    symbols.remove(&k);
                }
                if let Some(m) = &t.message {
                    notes.insert(path, m.clone());
                }
            }
            TableUse::Removed => {}
        }
    }
    notes
}
