//! The expressions the model keeps after the syntax tree is dropped: names, attributes, calls,
//! subscripts, literals of containers and the unions annotations write. Anything else is
//! [`Sym::Unknown`]. Conversion is bounded in depth ([`MAX_SYM_DEPTH`]) and width, so a
//! file's expressions cost at most a constant factor of its size.

use crate::atom::{atom, Atom};
use ruff_python_ast::{self as ast, Expr, Operator};

/// Expressions nested deeper than this become [`Sym::Unknown`].
pub const MAX_SYM_DEPTH: usize = 24;
/// Positional arguments, keywords and container items kept per expression.
const MAX_ITEMS: usize = 32;

/// A value expression (or, inside [`crate::facts::Def::Declared`], a type expression).
#[derive(Debug, Clone, PartialEq)]
pub enum Sym {
    Unknown,
    /// `None`.
    None,
    /// A literal that is not `None` (`1`, `"a"`, f-strings, `True`): never an indexed object.
    Literal,
    Name(Atom),
    Attr(Box<Sym>, Atom),
    Call(Box<CallSym>),
    /// `x[...]`: in a value, an item of `x`; in an annotation, the generic `x` (or the union
    /// of `Optional[...]` / `Union[...]`, the tuple of `Tuple[...]`, see [`annotation`]).
    Subscript(Box<Sym>),
    /// `a | b`, `Optional[a]`, `Union[a, b]` in annotations; `a or b`, `x if c else y`.
    Union(Vec<Sym>),
    /// A list, tuple or set literal (an annotation `Tuple[a, b]` too).
    Seq(Vec<Sym>),
    /// A dict literal: string keys and values (`**x` items have no key).
    Dict(Vec<(Option<Atom>, Sym)>),
}

/// A call: the callee, and the shape of its arguments (their values are not kept: what a
/// call returns depends on its callee only).
#[derive(Debug, Clone, PartialEq)]
pub struct CallSym {
    pub func: Sym,
    /// Positional arguments given (`*args` counts as one).
    pub positional: u32,
    /// Keyword names; `None` for `**kwargs`.
    pub keywords: Vec<Option<Atom>>,
}

/// A value expression.
pub fn value(expr: &Expr) -> Sym {
    convert(expr, 0, false)
}

/// A type expression (an annotation): string annotations are parsed, `Optional[X]` and
/// `Union[...]` become unions, `Tuple[a, b]` a sequence.
pub fn annotation(expr: &Expr) -> Sym {
    convert(expr, 0, true)
}

fn convert(expr: &Expr, depth: usize, annot: bool) -> Sym {
    if depth >= MAX_SYM_DEPTH {
        return Sym::Unknown;
    }
    let d = depth + 1;
    match expr {
        Expr::Name(n) => Sym::Name(atom(n.id.as_str())),
        Expr::Attribute(a) => {
            Sym::Attr(Box::new(convert(&a.value, d, annot)), atom(a.attr.as_str()))
        }
        Expr::NoneLiteral(_) => Sym::None,
        Expr::StringLiteral(s) if annot => {
            let text = s.value.to_str();
            if text.len() > 512 {
                return Sym::Unknown;
            }
            match ruff_python_parser::parse_expression(text) {
                Ok(parsed) => convert(parsed.expr(), d, true),
                Err(_) => Sym::Unknown,
            }
        }
        Expr::StringLiteral(_)
        | Expr::BytesLiteral(_)
        | Expr::FString(_)
        | Expr::NumberLiteral(_)
        | Expr::BooleanLiteral(_)
        | Expr::EllipsisLiteral(_) => Sym::Literal,
        Expr::BinOp(b) if annot && b.op == Operator::BitOr => {
            Sym::Union(vec![convert(&b.left, d, true), convert(&b.right, d, true)])
        }
        Expr::Subscript(s) if annot => generic(s, d),
        Expr::Subscript(s) => Sym::Subscript(Box::new(convert(&s.value, d, false))),
        Expr::Call(c) if !annot => Sym::Call(Box::new(call(c, d))),
        Expr::BoolOp(b) if !annot && b.op == ast::BoolOp::Or => Sym::Union(
            b.values
                .iter()
                .take(MAX_ITEMS)
                .map(|v| convert(v, d, false))
                .collect(),
        ),
        Expr::If(i) if !annot => Sym::Union(vec![
            convert(&i.body, d, false),
            convert(&i.orelse, d, false),
        ]),
        Expr::List(l) => seq(&l.elts, d, annot),
        Expr::Tuple(t) => seq(&t.elts, d, annot),
        Expr::Set(s) if !annot => seq(&s.elts, d, false),
        Expr::Dict(dict) if !annot => {
            if dict.items.len() > MAX_ITEMS {
                return Sym::Unknown;
            }
            Sym::Dict(
                dict.items
                    .iter()
                    .map(|item| {
                        let key = match &item.key {
                            None => None,
                            Some(Expr::StringLiteral(k)) => Some(atom(k.value.to_str())),
                            Some(_) => Some(""),
                        };
                        (key, convert(&item.value, d, false))
                    })
                    .collect(),
            )
        }
        Expr::Named(n) => convert(&n.value, d, annot),
        Expr::Await(_) => Sym::Unknown,
        _ => Sym::Unknown,
    }
}

fn seq(elts: &[Expr], d: usize, annot: bool) -> Sym {
    if elts.len() > MAX_ITEMS || elts.iter().any(|e| matches!(e, Expr::Starred(_))) {
        return Sym::Unknown;
    }
    Sym::Seq(elts.iter().map(|e| convert(e, d, annot)).collect())
}

fn call(c: &ast::ExprCall, d: usize) -> CallSym {
    CallSym {
        func: convert(&c.func, d, false),
        positional: u32::try_from(c.arguments.args.len()).unwrap_or(u32::MAX),
        keywords: c
            .arguments
            .keywords
            .iter()
            .take(MAX_ITEMS)
            .map(|k| k.arg.as_ref().map(|a| atom(a.as_str())))
            .collect(),
    }
}

/// `X[...]` in an annotation.
fn generic(s: &ast::ExprSubscript, d: usize) -> Sym {
    let items: Vec<&Expr> = match &*s.slice {
        Expr::Tuple(t) => t.elts.iter().collect(),
        e => vec![e],
    };
    let last = match &*s.value {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.as_str(),
        _ => "",
    };
    match last {
        "Optional" => Sym::Union(vec![
            items.first().map_or(Sym::Unknown, |e| convert(e, d, true)),
            Sym::None,
        ]),
        "Union" => Sym::Union(
            items
                .iter()
                .take(MAX_ITEMS)
                .map(|e| convert(e, d, true))
                .collect(),
        ),
        "Tuple" | "tuple" => {
            if items.len() > MAX_ITEMS
                || items.iter().any(|e| matches!(e, Expr::EllipsisLiteral(_)))
            {
                Sym::Unknown
            } else {
                Sym::Seq(items.iter().map(|e| convert(e, d, true)).collect())
            }
        }
        // `Annotated[X, ...]` is `X`; `Type[X]`, `Callable[...]`, containers are not instances.
        "Annotated" => items.first().map_or(Sym::Unknown, |e| convert(e, d, true)),
        _ => Sym::Subscript(Box::new(convert(&s.value, d, true))),
    }
}
