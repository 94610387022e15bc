//! Functions and classes: signatures, deprecation markers, members, `self.x` attributes.

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::Ranged;

use apicompat_surface::{Param, ParamKind, Signature};

use crate::consts::{self, Env};
use crate::dataclass::{self, Synth};
use crate::facts::{Class, Function, Openness, Value, MAX_NESTING};
use crate::getattr::{getattr_rule, GetattrRule};
use crate::py_version::Branch;
use crate::resolve::HashMap;
use crate::self_attrs;

/// The message of `warnings.warn(msg, DeprecationWarning)` and friends.
pub(crate) fn deprecation_warning(call: &ast::ExprCall) -> Option<String> {
    if consts::last_name(&call.func) != Some("warn") {
        return None;
    }
    let args = &call.arguments;
    let category = args
        .args
        .get(1)
        .or_else(|| args.find_keyword("category").map(|k| &k.value))?;
    let is_deprecation = matches!(
        consts::last_name(category),
        Some("DeprecationWarning" | "FutureWarning" | "PendingDeprecationWarning")
    );
    if !is_deprecation {
        return None;
    }
    Some(
        args.args
            .first()
            .or_else(|| args.find_keyword("message").map(|k| &k.value))
            .map(message_text)
            .unwrap_or_default(),
    )
}

/// A message as written: literal text, with `{...}` for interpolations.
fn message_text(e: &Expr) -> String {
    let text = match e {
        Expr::StringLiteral(s) => s.value.to_str().to_string(),
        Expr::FString(f) => {
            let mut out = String::new();
            for part in crate::consts::fstring_parts(f) {
                match part {
                    crate::consts::FPart::Text(text) => out.push_str(text),
                    crate::consts::FPart::Value(_) => out.push_str("{...}"),
                }
            }
            out
        }
        Expr::BinOp(b) => format!("{}{}", message_text(&b.left), message_text(&b.right)),
        _ => String::new(),
    };
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate(text, 300)
}

fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// A decorator's dotted name, without the call: `@a.b(x)` -> `a.b`.
/// A decorator that marks what it decorates deprecated (`@deprecated(...)`,
/// `@deprecation.deprecated`), by its last segment: it warns and keeps what it wraps.
pub(crate) fn is_deprecation_mark(name: &str) -> bool {
    name.rsplit('.')
        .next()
        .unwrap_or(name)
        .starts_with("deprecat")
}

fn decorator_name(d: &ast::Decorator) -> Option<String> {
    match &d.expression {
        Expr::Call(c) => consts::dotted(&c.func),
        e => consts::dotted(e),
    }
}

pub(crate) fn function_info(f: &ast::StmtFunctionDef, source: &str, method: bool) -> Function {
    let mut out = Function::default();
    let mut drop_first = method;
    for d in &f.decorator_list {
        let name = decorator_name(d).unwrap_or_default();
        let last = name.rsplit('.').next().unwrap_or("");
        if !name.is_empty() && !matches!(d.expression, Expr::Call(_)) {
            out.decorators.push(name.clone());
        }
        if let (Expr::Call(c), false) = (&d.expression, name.is_empty()) {
            let lit = |e: &Expr| match e {
                Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
                _ => None,
            };
            out.decorator_calls.push(crate::facts::DecoratorCall {
                name: name.clone(),
                args: c.arguments.args.iter().map(lit).collect(),
                keywords: c
                    .arguments
                    .keywords
                    .iter()
                    .filter_map(|k| Some((k.arg.as_ref()?.to_string(), lit(&k.value))))
                    .collect(),
            });
        }
        match last {
            // `__new__` is called with the class whether or not it is marked static
            // (xformers 0.0.29 - 0.0.31: `@staticmethod def __new__(cls, *, ...)`).
            "staticmethod" if f.name.as_str() != "__new__" => drop_first = false,
            "property" | "cached_property" | "setter" | "getter" | "deleter"
            | "abstractproperty" => out.property = true,
            _ => {}
        }
        // A decorator that deprecates parameters (`@deprecate_kwarg("old", new_name="new")`,
        // `_deprecate_arguments`, `_deprecate_positional_args`) leaves the function itself
        // current: the index has no per-parameter deprecation to record.
        let about_parameters = ["arg", "param", "positional"]
            .iter()
            .any(|w| last.contains(w));
        if (last.starts_with("deprecat") || last == "_deprecated") && !about_parameters {
            let msg = match &d.expression {
                Expr::Call(c) => c
                    .arguments
                    .args
                    .first()
                    .or_else(|| {
                        ["message", "reason", "msg", "instructions"]
                            .iter()
                            .find_map(|k| c.arguments.find_keyword(k).map(|k| &k.value))
                    })
                    .map(message_text)
                    .unwrap_or_default(),
                _ => String::new(),
            };
            out.deprecated = Some(msg);
        }
    }
    if out.deprecated.is_none() {
        out.deprecated = f.body.iter().take(4).find_map(|s| match s {
            Stmt::Expr(e) => match &*e.value {
                Expr::Call(c) => deprecation_warning(c),
                _ => None,
            },
            _ => None,
        });
    }
    out.signatures.push(signature(
        &f.parameters,
        f.returns.as_deref(),
        source,
        drop_first,
    ));
    out
}

fn annotation(e: &Expr, source: &str) -> String {
    let text = source
        .get(e.range().start().to_usize()..e.range().end().to_usize())
        .unwrap_or("");
    truncate(text.split_whitespace().collect::<Vec<_>>().join(" "), 120)
}

fn signature(
    params: &ast::Parameters,
    returns: Option<&Expr>,
    source: &str,
    drop_first: bool,
) -> Signature {
    let mut out = Vec::new();
    let mut push = |p: &ast::Parameter, kind, default: bool| {
        out.push(Param {
            name: p.name.to_string(),
            kind,
            default,
            annotation: p.annotation.as_deref().map(|a| annotation(a, source)),
        })
    };
    for p in &params.posonlyargs {
        push(&p.parameter, ParamKind::PositionalOnly, p.default.is_some());
    }
    for p in &params.args {
        let kind = if p.uses_pep_484_positional_only_convention() {
            ParamKind::PositionalOnly
        } else {
            ParamKind::PositionalOrKeyword
        };
        push(&p.parameter, kind, p.default.is_some());
    }
    if let Some(v) = &params.vararg {
        push(v, ParamKind::VarPositional, false);
    }
    for p in &params.kwonlyargs {
        push(&p.parameter, ParamKind::KeywordOnly, p.default.is_some());
    }
    if let Some(k) = &params.kwarg {
        push(k, ParamKind::VarKeyword, false);
    }
    if drop_first
        && out.first().is_some_and(|p| {
            matches!(
                p.kind,
                ParamKind::PositionalOnly | ParamKind::PositionalOrKeyword
            )
        })
    {
        out.remove(0);
    }
    Signature {
        params: out,
        returns: returns.map(|r| annotation(r, source)),
    }
}

/// The deprecation of a name that several definitions of one scope bind (`@overload`s, an
/// implementation, the branches of an `if`, a property's accessors): a property's setter or
/// deleter does not count; where some definitions stand under `if TYPE_CHECKING:`, only those
/// count (they are what type checkers, and so users' editors, see: torch's
/// `is_compiling` is `@deprecated` there and plain in the `else` branch, which TorchScript
/// compiles); where an implementation (a definition that is not an `@overload`, or a class) is
/// left, those decide, else the overloads; the name is deprecated only when every one that
/// decides is (PEP 702: a deprecated overload deprecates that way of calling, not the
/// function). The message is the first one's.
pub(crate) fn merged_deprecation<'a>(
    definitions: impl IntoIterator<Item = &'a Value>,
) -> Option<String> {
    // (under `TYPE_CHECKING`, an `@overload`, the deprecation)
    let mut counted: Vec<(bool, bool, &Option<String>)> = Vec::new();
    for v in definitions {
        match v {
            // A property's setter and deleter: reading it is what a use is, the getter decides.
            Value::Function(f) if f.is_accessor() => {}
            Value::Function(f) => {
                counted.push((f.type_checking, f.is_overload(), &f.deprecated));
            }
            Value::Class(c) => counted.push((c.type_checking, false, &c.deprecated)),
            _ => {}
        }
    }
    let declared = counted.iter().any(|&(checking, ..)| checking);
    counted.retain(|&(checking, ..)| checking || !declared);
    let implemented = counted.iter().any(|&(_, overload, _)| !overload);
    let mut deciding = counted
        .iter()
        .filter(|&&(_, overload, _)| overload != implemented)
        .map(|&(.., d)| d)
        .peekable();
    let first = deciding.peek().copied();
    if deciding.all(|d| d.is_some()) {
        first.and_then(|d| d.clone())
    } else {
        None
    }
}

/// Gives every method of a class body the deprecation of all its definitions there
/// ([`merged_deprecation`]).
fn merge_method_deprecations(members: &mut [(String, Value)]) {
    let mut definitions: HashMap<&str, Vec<&Value>> = HashMap::default();
    for (name, v) in members.iter() {
        if matches!(v, Value::Function(_)) {
            definitions.entry(name).or_default().push(v);
        }
    }
    let merged: HashMap<String, Option<String>> = definitions
        .into_iter()
        .filter(|(_, defs)| defs.len() > 1)
        .map(|(name, defs)| (name.to_string(), merged_deprecation(defs)))
        .collect();
    for (name, v) in members.iter_mut() {
        if let (Value::Function(f), Some(d)) = (v, merged.get(name.as_str())) {
            f.deprecated.clone_from(d);
        }
    }
}

/// A class statement; `env` holds the constants of the module it is written in, `branch`
/// where it stands among `sys.version_info` branches (`crate::py_version`).
pub(crate) fn class_info(
    c: &ast::StmtClassDef,
    source: &str,
    env: &Env,
    depth: usize,
    branch: Branch,
) -> Class {
    let mut class = Class {
        type_checking: branch.type_checking,
        ..Class::default()
    };
    if let Some(args) = &c.arguments {
        for base in args.args.iter() {
            let base = match base {
                Expr::Subscript(s) => &*s.value,
                b => b,
            };
            if let Some(d) = consts::dotted(base) {
                class.bases.push(d);
            } else if let Some(call) = crate::class_builder::base_call(base, class.bases.len()) {
                class.base_calls.push(call);
            }
        }
        class.metaclass = args
            .find_keyword("metaclass")
            .and_then(|k| consts::dotted(&k.value));
    }
    let mut synth = class
        .bases
        .iter()
        .any(|b| dataclass::named_tuple_base(b))
        .then_some(Synth::NamedTuple);
    // Decorators apply from the bottom up: those above the synthesizing one run after it.
    let mut above: Vec<String> = Vec::new();
    for d in &c.decorator_list {
        let name = decorator_name(d).unwrap_or_default();
        if is_deprecation_mark(&name) {
            class.deprecated = branch.deprecation(Some(match &d.expression {
                Expr::Call(c) => c
                    .arguments
                    .args
                    .first()
                    .map(message_text)
                    .unwrap_or_default(),
                _ => String::new(),
            }));
        }
        match dataclass::decorator(d) {
            Some(s) if synth.is_none() => {
                synth = Some(s);
                class.outer_decorators = std::mem::take(&mut above);
            }
            _ => above.push(name),
        }
    }
    let mut fields = Vec::new();
    class_body(
        &mut class,
        &c.body,
        source,
        env,
        depth + 1,
        &mut fields,
        branch,
    );
    merge_method_deprecations(&mut class.members);
    // Creating one is deprecated when the constructor the version has is (all its overloads).
    let constructor_deprecated = ["__init__", "__new__"].iter().find_map(|name| {
        class.members.iter().find_map(|(n, v)| match v {
            Value::Function(f) if n == name => Some(f.deprecated.clone()),
            _ => None,
        })
    });
    // Every definition of the constructor: its `@overload`s and the implementation.
    let constructor = class
        .method("__init__")
        .or_else(|| class.method("__new__"))
        .map(|f| {
            let signatures: Vec<Signature> = f
                .signatures
                .iter()
                .map(|s| Signature {
                    params: s.params.clone(),
                    returns: None,
                })
                .collect();
            (signatures, constructor_deprecated.flatten())
        });
    if let Some((signatures, deprecated)) = constructor {
        class.signatures = signatures;
        if class.deprecated.is_none() {
            class.deprecated = deprecated;
        }
    } else if let Some(synth) = synth {
        let fields = dataclass::finish(synth, fields);
        class.signatures.push(Signature {
            params: dataclass::params(&fields),
            returns: None,
        });
        class.fields = Some(fields);
    }
    class
}

fn class_body(
    class: &mut Class,
    body: &[Stmt],
    source: &str,
    env: &Env,
    depth: usize,
    fields: &mut Vec<dataclass::Field>,
    branch: Branch,
) {
    if depth > MAX_NESTING {
        return;
    }
    for stmt in body {
        match stmt {
            Stmt::FunctionDef(f) => {
                let name = f.name.as_str();
                if name == "__getattr__" {
                    let (open, names) = match getattr_rule(f, true, env) {
                        GetattrRule::Closed(names) => (Openness::Closed, names),
                        GetattrRule::InstanceData(names) => (Openness::InstanceData, names),
                        GetattrRule::Open => (Openness::Open, Vec::new()),
                    };
                    class.open = class.open.max(open);
                    // Names it answers are attributes of the instances.
                    for n in names {
                        class.members.push((n, Value::Data));
                    }
                }
                let mut info = function_info(f, source, true);
                branch.apply(&mut info);
                let attrs = self_attrs::self_attributes(f, env);
                if attrs.dynamic {
                    class.open = class.open.max(Openness::InstanceData);
                }
                for n in attrs.names {
                    class.members.push((n, Value::Data));
                }
                class
                    .members
                    .push((name.to_string(), Value::Function(info)));
            }
            Stmt::ClassDef(c) => {
                let nested = class_info(c, source, env, depth, branch);
                class
                    .members
                    .push((c.name.to_string(), Value::Class(nested)));
            }
            Stmt::Assign(a) => {
                for t in &a.targets {
                    class_target(class, t, Some(&a.value));
                }
            }
            Stmt::AnnAssign(a) => {
                fields.extend(dataclass::field(a, annotation(&a.annotation, source)));
                class_target(class, &a.target, a.value.as_deref());
            }
            Stmt::If(i) => {
                let bodies =
                    std::iter::once(&i.body).chain(i.elif_else_clauses.iter().map(|c| &c.body));
                let taken = bodies.zip(branch.clauses(i)).filter(|(_, b)| !b.off);
                for (body, branch) in taken {
                    class_body(class, body, source, env, depth + 1, fields, branch);
                }
            }
            Stmt::Try(t) => {
                class_body(class, &t.body, source, env, depth + 1, fields, branch);
                for handler in &t.handlers {
                    let ast::ExceptHandler::ExceptHandler(h) = handler;
                    class_body(class, &h.body, source, env, depth + 1, fields, branch);
                }
                class_body(class, &t.orelse, source, env, depth + 1, fields, branch);
                class_body(class, &t.finalbody, source, env, depth + 1, fields, branch);
            }
            Stmt::With(w) => class_body(class, &w.body, source, env, depth + 1, fields, branch),
            Stmt::For(f) => class_body(class, &f.body, source, env, depth + 1, fields, branch),
            Stmt::Import(imp) => {
                for alias in &imp.names {
                    let bound = alias.asname.as_ref().map_or_else(
                        || alias.name.split('.').next().unwrap_or_default().to_string(),
                        |a| a.to_string(),
                    );
                    class.members.push((bound, Value::Data));
                }
            }
            Stmt::ImportFrom(imp) => {
                for alias in &imp.names {
                    let bound = alias.asname.as_ref().unwrap_or(&alias.name);
                    if bound.as_str() != "*" {
                        class.members.push((bound.to_string(), Value::Data));
                    }
                }
            }
            _ => {}
        }
    }
}

fn class_target(class: &mut Class, target: &Expr, value: Option<&Expr>) {
    match target {
        Expr::Name(n) => {
            let name = n.id.as_str();
            if name == "__slots__" {
                if let Some(slots) = value.and_then(|v| consts::strings(v, &Env::new())) {
                    for s in slots {
                        class.members.push((s, Value::Data));
                    }
                }
            }
            let v = match value {
                Some(Expr::Call(c))
                    if matches!(
                        consts::last_name(&c.func),
                        Some("property" | "cached_property")
                    ) =>
                {
                    Value::Function(Function {
                        property: true,
                        ..Function::default()
                    })
                }
                Some(v) => consts::dotted(v).map_or(Value::Data, Value::Alias),
                None => Value::Data,
            };
            class.members.push((name.to_string(), v));
        }
        Expr::Tuple(t) => t.elts.iter().for_each(|e| class_target(class, e, None)),
        Expr::List(l) => l.elts.iter().for_each(|e| class_target(class, e, None)),
        _ => {}
    }
}
