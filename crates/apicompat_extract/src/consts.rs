//! Evaluation of the constant expressions that name things: string literals, lists and tuples
//! of them, dict keys, f-strings and concatenations over module-level constants.

use std::collections::HashMap;

use ruff_python_ast::{self as ast, Expr, InterpolatedStringElement, Operator};

/// A part of an f-string: literal text, or a value interpolated.
pub enum FPart<'a> {
    Text(&'a str),
    Value(&'a ast::InterpolatedElement),
}

/// The parts of an f-string (and of the strings implicitly joined to it), in order.
pub fn fstring_parts(f: &ast::ExprFString) -> Vec<FPart<'_>> {
    let mut out = Vec::new();
    for part in f.value.iter() {
        match part {
            ast::FStringPart::Literal(s) => out.push(FPart::Text(&s.value)),
            ast::FStringPart::FString(fs) => {
                for el in fs.elements.iter() {
                    out.push(match el {
                        InterpolatedStringElement::Literal(l) => FPart::Text(&l.value),
                        InterpolatedStringElement::Interpolation(i) => FPart::Value(i),
                    });
                }
            }
        }
    }
    out
}

/// A constant value: one string (or, for the item of a loop, one of several), or a list of
/// strings (a list, tuple or set literal, or a dict's keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Const {
    Str(Vec<String>),
    List(Vec<String>),
}

impl Const {
    pub fn into_items(self) -> Vec<String> {
        match self {
            Const::Str(v) | Const::List(v) => v,
        }
    }
}

/// Module-level constants by name.
pub type Env = HashMap<String, Const>;

/// At most this many strings come out of one expression.
const MAX_VALUES: usize = 4096;
/// Expressions nested deeper than this are not evaluated.
const MAX_DEPTH: usize = 64;

/// The constant an expression evaluates to, or `None` when that cannot be known statically.
pub fn eval(expr: &Expr, env: &Env) -> Option<Const> {
    eval_at(expr, env, 0)
}

/// The strings of a list-like constant (or the one string of a string constant).
pub fn strings(expr: &Expr, env: &Env) -> Option<Vec<String>> {
    eval(expr, env).map(Const::into_items)
}

/// The single string an expression evaluates to.
pub fn string(expr: &Expr, env: &Env) -> Option<String> {
    match eval(expr, env) {
        Some(Const::Str(mut v)) if v.len() == 1 => v.pop(),
        _ => None,
    }
}

fn eval_at(expr: &Expr, env: &Env, depth: usize) -> Option<Const> {
    if depth > MAX_DEPTH {
        return None;
    }
    let d = depth + 1;
    let out = match expr {
        Expr::StringLiteral(s) => Const::Str(vec![s.value.to_str().to_string()]),
        Expr::List(ast::ExprList { elts, .. })
        | Expr::Tuple(ast::ExprTuple { elts, .. })
        | Expr::Set(ast::ExprSet { elts, .. }) => {
            let mut out = Vec::new();
            for e in elts {
                match e {
                    Expr::Starred(s) => out.extend(eval_at(&s.value, env, d)?.into_items()),
                    e => match eval_at(e, env, d)? {
                        Const::Str(mut v) if v.len() == 1 => out.extend(v.pop()),
                        _ => return None,
                    },
                }
                if out.len() > MAX_VALUES {
                    return None;
                }
            }
            Const::List(out)
        }
        Expr::Dict(dict) => {
            let mut out = Vec::new();
            for item in &dict.items {
                match &item.key {
                    Some(k) => out.push(string(k, env)?),
                    None => out.extend(eval_at(&item.value, env, d)?.into_items()),
                }
            }
            Const::List(out)
        }
        Expr::Name(n) => env.get(n.id.as_str())?.clone(),
        Expr::BinOp(b) if b.op == Operator::Add => {
            match (eval_at(&b.left, env, d)?, eval_at(&b.right, env, d)?) {
                (Const::Str(l), Const::Str(r)) => Const::Str(product(&l, &r)?),
                (Const::List(mut l), Const::List(r)) => {
                    l.extend(r);
                    Const::List(l)
                }
                _ => return None,
            }
        }
        Expr::FString(f) => {
            let mut acc = vec![String::new()];
            for part in fstring_parts(f) {
                match part {
                    FPart::Text(text) => acc.iter_mut().for_each(|a| a.push_str(text)),
                    FPart::Value(i) => {
                        if i.format_spec.is_some() {
                            return None;
                        }
                        let Const::Str(vals) = eval_at(&i.expression, env, d)? else {
                            return None;
                        };
                        acc = product(&acc, &vals)?;
                    }
                }
            }
            Const::Str(acc)
        }
        Expr::Call(call) => {
            let func = dotted(&call.func)?;
            let args = &call.arguments;
            match (func.as_str(), args.args.as_ref()) {
                ("list" | "tuple" | "set" | "sorted" | "frozenset", [arg])
                    if args.keywords.is_empty() =>
                {
                    Const::List(eval_at(arg, env, d)?.into_items())
                }
                _ => {
                    // `X.keys()` on a known dict.
                    let (obj, method) = func.rsplit_once('.')?;
                    match (method, env.get(obj)) {
                        ("keys", Some(Const::List(keys))) if args.args.is_empty() => {
                            Const::List(keys.clone())
                        }
                        _ => return None,
                    }
                }
            }
        }
        Expr::ListComp(c) => Const::List(comprehension(&c.elt, &c.generators, env, d)?),
        Expr::SetComp(c) => Const::List(comprehension(&c.elt, &c.generators, env, d)?),
        Expr::Generator(c) => Const::List(comprehension(&c.elt, &c.generators, env, d)?),
        _ => return None,
    };
    let len = match &out {
        Const::Str(v) | Const::List(v) => v.len(),
    };
    (len <= MAX_VALUES).then_some(out)
}

fn product(left: &[String], right: &[String]) -> Option<Vec<String>> {
    if left.len().saturating_mul(right.len()) > MAX_VALUES {
        return None;
    }
    Some(
        left.iter()
            .flat_map(|l| right.iter().map(move |r| format!("{l}{r}")))
            .collect(),
    )
}

/// `[f(x) for x in LITERAL]` without conditions.
fn comprehension(
    elt: &Expr,
    generators: &[ast::Comprehension],
    env: &Env,
    depth: usize,
) -> Option<Vec<String>> {
    let [generator] = generators else {
        return None;
    };
    if !generator.ifs.is_empty() {
        return None;
    }
    let Expr::Name(target) = &generator.target else {
        return None;
    };
    let items = eval_at(&generator.iter, env, depth)?.into_items();
    let mut inner = env.clone();
    let mut out = Vec::new();
    for item in items {
        inner.insert(target.id.to_string(), Const::Str(vec![item]));
        out.extend(eval_at(elt, &inner, depth)?.into_items());
        if out.len() > MAX_VALUES {
            return None;
        }
    }
    Some(out)
}

/// `a.b.c` for a chain of names and attributes.
pub fn dotted(expr: &Expr) -> Option<String> {
    // First the length (and whether it is a dotted name at all), then one allocation.
    let (mut len, mut depth, mut cur) = (0usize, 0usize, expr);
    loop {
        match cur {
            Expr::Name(n) => {
                len += n.id.len();
                break;
            }
            Expr::Attribute(a) => {
                len += a.attr.len() + 1;
                cur = &a.value;
            }
            _ => return None,
        }
        depth += 1;
        if depth > MAX_DEPTH {
            return None;
        }
    }
    let mut out = String::with_capacity(len);
    push_dotted(expr, &mut out);
    Some(out)
}

/// Writes a chain of names and attributes already known to be one (see [`dotted`]).
fn push_dotted(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Name(n) => out.push_str(n.id.as_str()),
        Expr::Attribute(a) => {
            push_dotted(&a.value, out);
            out.push('.');
            out.push_str(a.attr.as_str());
        }
        _ => {}
    }
}

/// The last segment of a dotted callee: `warnings.warn` -> `warn`.
pub fn last_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(n) => Some(n.id.as_str()),
        Expr::Attribute(a) => Some(a.attr.as_str()),
        _ => None,
    }
}

/// The names of the parameters that can be given by position, in order.
pub(crate) fn positional_names(p: &ruff_python_ast::Parameters) -> Vec<&str> {
    p.posonlyargs
        .iter()
        .chain(&p.args)
        .map(|a| a.parameter.name.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ruff_python_parser::parse_expression;

    fn eval_src(src: &str, env: &Env) -> Option<Vec<String>> {
        let parsed = parse_expression(src).ok()?;
        strings(parsed.expr(), env)
    }

    #[test]
    fn evaluates_literals_and_names() {
        let mut env = Env::new();
        env.insert("subs".into(), Const::List(vec!["a".into(), "b".into()]));
        env.insert("D".into(), Const::List(vec!["k1".into(), "k2".into()]));
        env.insert("p".into(), Const::Str(vec!["pre".into()]));
        assert_eq!(
            eval_src("['x', 'y'] + subs", &env).unwrap(),
            ["x", "y", "a", "b"]
        );
        assert_eq!(
            eval_src("f'pkg.{s}'", &{
                let mut e = env.clone();
                e.insert("s".into(), Const::Str(vec!["m".into()]));
                e
            })
            .unwrap(),
            ["pkg.m"]
        );
        assert_eq!(eval_src("list(D.keys())", &env).unwrap(), ["k1", "k2"]);
        assert_eq!(
            eval_src("[f'_{x}' for x in subs]", &env).unwrap(),
            ["_a", "_b"]
        );
        assert_eq!(eval_src("'a' 'b'", &env).unwrap(), ["ab"]);
        assert_eq!(eval_src("p + '.x'", &env).unwrap(), ["pre.x"]);
        assert!(eval_src("subs + 'x'", &env).is_none());
        assert!(eval_src("foo()", &env).is_none());
        assert!(eval_src("unknown_name", &env).is_none());
    }
}
