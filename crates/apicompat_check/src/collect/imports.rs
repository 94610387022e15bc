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
use apicompat_extract::consts::{fstring_parts, FPart};

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
        let constant = |name: &str| self.local_string(name, call.range().start());
        let Some(text) = string_lit(first).or_else(|| name_pattern(first, &constant)) else {
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

impl<'a> Walker<'a> {
    /// The string a name of the enclosing function holds at `before`: its one binding in the
    /// function, `name = "..."` among the function's statements before that point. The
    /// body's strings are read once, for every dynamic import in it.
    fn local_string(&self, name: &str, before: TextSize) -> Option<String> {
        let body: &'a [Stmt] = self.bodies.last()?;
        let key = body.as_ptr() as usize;
        let mut cached = self.body_strings.borrow_mut();
        if cached.as_ref().is_none_or(|(k, _)| *k != key) {
            *cached = Some((key, body_strings(body)));
        }
        let (_, strings) = cached.as_ref()?;
        let (end, text) = strings.get(name)?;
        (*end <= before).then(|| text.clone())
    }
}

/// The names a function body binds once, at its top level, to a string literal: where that
/// assignment ends, and the string.
fn body_strings(body: &[Stmt]) -> super::BodyStrings<'_> {
    let counts = super::binding_counts::bindings(body);
    if counts.contains_key(super::binding_counts::UNREAD) {
        return HashMap::default();
    }
    body.iter()
        .filter_map(|s| match s {
            Stmt::Assign(a) => match (&*a.targets, &*a.value) {
                ([Expr::Name(t)], Expr::StringLiteral(v))
                    if counts.get(t.id.as_str()) == Some(&1) =>
                {
                    Some((
                        t.id.as_str(),
                        (a.range().end(), v.value.to_str().to_string()),
                    ))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The name an f-string or a `+` of strings builds, each part computed at run time a
/// [`crate::importers::HOLE`] (`f"a.models.{n}.megatron.modeling_{n}"` ->
/// `a.models.*.megatron.modeling_*`), when some literal text follows the last part computed;
/// else its literal head up to the last `.` before that part ([`literal_head`]: anything under
/// that package).
fn name_pattern(expr: &Expr, constant: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let mut out = String::new();
    if !pattern_parts(expr, constant, &mut out, 0) || out.len() > 512 {
        return literal_head(expr);
    }
    let hole = crate::importers::HOLE;
    match out.rfind(hole) {
        // Text after the last part computed: the pattern, from its first segment on.
        Some(at) if at + hole.len_utf8() < out.len() && !out.starts_with(hole) => (!out
            .starts_with('.'))
        .then_some(out)
        .or_else(|| literal_head(expr)),
        _ => literal_head(expr),
    }
}

/// Appends the parts of an f-string or a `+` of strings to `out`: a name holding a string
/// (`constant`) as that string, a [`crate::importers::HOLE`] for any other computed part; false
/// for anything else.
fn pattern_parts(
    expr: &Expr,
    constant: &dyn Fn(&str) -> Option<String>,
    out: &mut String,
    depth: usize,
) -> bool {
    let hole = crate::importers::HOLE;
    if depth > 16 {
        return false;
    }
    match expr {
        Expr::StringLiteral(s) => {
            out.push_str(s.value.to_str());
            !s.value.to_str().contains(hole)
        }
        Expr::BinOp(b) if matches!(b.op, ast::Operator::Add) => {
            pattern_parts(&b.left, constant, out, depth + 1)
                && pattern_parts(&b.right, constant, out, depth + 1)
        }
        Expr::FString(f) => {
            for part in fstring_parts(f) {
                match part {
                    FPart::Text(text) => out.push_str(text),
                    FPart::Value(i) => {
                        let plain =
                            i.conversion == ast::ConversionFlag::None && i.format_spec.is_none();
                        match (&*i.expression, plain) {
                            (Expr::Name(n), true) => match constant(n.id.as_str()) {
                                Some(text) if !text.contains(hole) => out.push_str(&text),
                                _ => out.push(hole),
                            },
                            _ => out.push(hole),
                        }
                    }
                }
            }
            true
        }
        Expr::Name(n) => {
            match constant(n.id.as_str()) {
                Some(text) if !text.contains(hole) => out.push_str(&text),
                _ => out.push(hole),
            }
            true
        }
        Expr::Attribute(_) | Expr::Call(_) | Expr::Subscript(_) => {
            out.push(hole);
            true
        }
        _ => false,
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
    for part in fstring_parts(f) {
        match part {
            FPart::Text(text) => head.push_str(text),
            FPart::Value(_) => break,
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
