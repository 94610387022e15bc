//! Imports of the project's own modules, with what each runs under, for the guards a module
//! gets from its importers ([`crate::callers`]: a module imported only under `if
//! is_transformers_ge_v5:` runs its import-time code only there).
//!
//! Every import statement of a module outside the indexed packages is recorded, in functions
//! too, with its guard, version conditions and `hasattr` tests; so is every
//! `importlib.import_module(...)` / `__import__(...)` whose module is a string (or an f-string
//! whose head is one): such a module, its packages and everything under it are imported from
//! code the rule cannot follow, and stay unrestricted. A dynamic import of a computed name
//! with no literal head names nothing this can know (like a call through `getattr`).

use super::*;

/// One import of a module that may be the project's (not an indexed package).
#[derive(Debug, Clone)]
pub struct ImportSite {
    /// The statement's target (`from ..x import y`: level 2, module `x`, names `y`); a star
    /// import has the name `*`.
    pub import: ModuleImport,
    /// The function the statement is in.
    pub func: Option<u32>,
    pub guarded: bool,
    pub versions: Box<[(String, Pred)]>,
    /// Paths known to exist there.
    pub has: Box<[String]>,
    /// The guard or condition it runs under (the statement when none).
    pub at: TextRange,
    /// Where the statement starts.
    pub start: ruff_text_size::TextSize,
}

impl<'a> Walker<'a> {
    /// Records an import statement of a module outside the indexed packages.
    pub(super) fn project_import(
        &mut self,
        level: u32,
        module: Option<&str>,
        names: Vec<String>,
        range: TextRange,
    ) {
        self.out.project_imports.push(ImportSite {
            import: ModuleImport {
                level,
                module: module.map(str::to_string),
                names,
            },
            func: self.ctx.func,
            guarded: self.ctx.try_guard,
            versions: self.ctx.versions.clone().into_boxed_slice(),
            has: self.known_present(),
            at: self.ctx.guard_at.unwrap_or(range),
            start: range.start(),
        });
    }

    /// The paths known to exist where a call or import runs, for its callee or module: those
    /// `hasattr` found, and, marked [`crate::callers::READ`], those the tests in force read
    /// for sure and the marks of project functions whose true result says more (`+f()`,
    /// replaced once every file is read, [`crate::presence`]).
    pub(super) fn known_present(&self) -> Box<[String]> {
        let mut has = self.ctx.has.clone();
        for t in &self.ctx.requires {
            let plain = t.present && !t.instance && t.alternatives.is_empty();
            if plain && (is_path_or_mark(&t.path) || is_dispatch(&t.path)) {
                let read = format!("{}{}", crate::callers::READ, t.path);
                if !has.contains(&read) {
                    has.push(read);
                }
            }
        }
        has.into_boxed_slice()
    }

    /// `importlib.import_module("a.b")`, `import_module(".b", "a")`, `__import__("a.b")`,
    /// `import_module(f"a.models.{name}")`: the module (or the package of the f-string's
    /// literal head) is imported from where the rule cannot tell.
    pub(super) fn dynamic_import(&mut self, call: &ast::ExprCall) {
        let name = match &*call.func {
            Expr::Name(n) => n.id.as_str(),
            Expr::Attribute(a) => a.attr.as_str(),
            _ => return,
        };
        if name != "import_module" && name != "__import__" {
            return;
        }
        let Some(first) = call.arguments.args.first() else {
            return;
        };
        let Some(text) = string_lit(first).or_else(|| literal_head(first)) else {
            return;
        };
        let rest = text.trim_start_matches('.');
        let level = (text.len() - rest.len()) as u32;
        let module = rest.trim_end_matches('.');
        if level > 0 {
            // Relative to the package given as the second argument.
            let package = call.arguments.args.get(1).and_then(string_lit).or_else(|| {
                call.arguments
                    .keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == "package"))
                    .and_then(|k| string_lit(&k.value))
            });
            let Some(package) = package else {
                // `import_module(".x", __name__)`: relative to a package not written out (this
                // module or its package): everything under the file's own package.
                self.out.dynamic_imports.push(ModuleImport {
                    level,
                    module: None,
                    names: Vec::new(),
                });
                return;
            };
            let mut parts: Vec<&str> = package.split('.').collect();
            for _ in 1..level {
                parts.pop();
            }
            if !module.is_empty() {
                parts.push(module);
            }
            let full = parts.join(".");
            if !full.is_empty() {
                self.out.dynamic_imports.push(ModuleImport {
                    level: 0,
                    module: Some(full),
                    names: Vec::new(),
                });
            }
            return;
        }
        if !module.is_empty() {
            self.out.dynamic_imports.push(ModuleImport {
                level: 0,
                module: Some(module.to_string()),
                names: Vec::new(),
            });
        }
    }
}

/// The literal head of an f-string or of a `+` whose left operand is a string, up to its last
/// `.` (`f"a.models.{n}"`, `"a.models." + n` -> `a.models`).
fn literal_head(expr: &Expr) -> Option<String> {
    let mut head = String::new();
    match expr {
        Expr::BinOp(b) if matches!(b.op, ast::Operator::Add) => {
            head = string_lit(&b.left).or_else(|| literal_head(&b.left))?;
            if head.trim_start_matches('.').is_empty() {
                return Some(head);
            }
            // `literal_head` of the left operand already cut at its last `.`.
            if string_lit(&b.left).is_none() {
                return Some(head);
            }
            let cut = head.rfind('.')?;
            head.truncate(cut);
            return (!head.is_empty()).then_some(head);
        }
        Expr::FString(_) => {}
        _ => return None,
    }
    let Expr::FString(f) = expr else {
        return None;
    };
    'parts: for part in f.value.iter() {
        match part {
            ast::FStringPart::Literal(s) => head.push_str(&s.value),
            ast::FStringPart::FString(fs) => {
                for el in fs.elements.iter() {
                    match el {
                        ast::InterpolatedStringElement::Literal(l) => head.push_str(&l.value),
                        ast::InterpolatedStringElement::Interpolation(_) => break 'parts,
                    }
                }
            }
        }
    }
    if !head.is_empty() && head.trim_start_matches('.').is_empty() {
        // `f".{name}"`: relative to the package argument, any module under it.
        return Some(head);
    }
    let cut = head.rfind('.')?;
    head.truncate(cut);
    (!head.is_empty()).then_some(head)
}

/// A dotted path (`torchvision.tv_tensors`) or the mark of a project function (`f()`), not
/// one of the tests' own forms (dispatches, tests on objects).
/// A dispatch on model names (`model_type == "qwen2_5_vl"`, [`super::reads::DISPATCH`]).
pub(crate) fn is_dispatch(path: &str) -> bool {
    path.starts_with([super::reads::DISPATCH, super::reads::CLASS_DISPATCH])
}

fn is_path_or_mark(path: &str) -> bool {
    let path = path.strip_suffix("()").unwrap_or(path);
    !path.is_empty()
        && path
            .split('.')
            .all(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'))
}
