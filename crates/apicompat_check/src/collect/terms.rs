//! Comparisons of a package's version: the interval reading of `V >= "2.4"`, `V.major >= 2`,
//! `V.release >= (2, 4)` ([`Walker::compare`]), and values computed from the version
//! (`float(V.split(".")[1])`, `parse(V).minor`, `tuple(map(int, V.split(".")[:2]))`) read as
//! [`Term`]s, whose tests are [`Pred::Eval`], evaluated per release (`crate::version_terms`).

use ruff_python_ast::{self as ast, Expr, UnaryOp};

use super::conditions::{const_bound, names_version, names_version_attr};
use super::*;
use crate::version_terms::{Conv, Field, Method, Shape, Term, Value, MAX_TERM_DEPTH};

/// A root is a package, not Python: Python's version tests keep their own reading
/// (`sys.version_info` is a tuple; a target names a minor release, not a micro one).
fn is_python_root(root: &str) -> bool {
    matches!(root, "sys" | "platform")
}

impl<'a> Walker<'a> {
    pub(super) fn compare(&self, c: &ast::ExprCompare) -> Restriction {
        // `"0.15.2" in importlib.metadata.version("torchvision")`: a substring of the version.
        if let ([op @ (ast::CmpOp::In | ast::CmpOp::NotIn)], [right]) = (&*c.ops, &*c.comparators) {
            let part = string_lit(&c.left).zip(self.version_root(right, 0));
            return match part {
                Some((text, root)) => {
                    let holds = Pred::Contains(text);
                    let pred = match op {
                        ast::CmpOp::In => holds,
                        _ => Pred::Not(Box::new(holds)),
                    };
                    Restriction {
                        parts: vec![(root, pred)],
                        complete: true,
                    }
                }
                None => Restriction {
                    parts: Vec::new(),
                    complete: false,
                },
            };
        }
        let mut out = Restriction {
            parts: Vec::new(),
            complete: true,
        };
        let mut left: &Expr = &c.left;
        for (op, right) in c.ops.iter().zip(c.comparators.iter()) {
            // What each side computes from a version, read once for both readings below.
            let terms =
                op_of(*op).map(|_| (self.version_term(left, 0), self.version_term(right, 0)));
            let consts = (self.const_of(left), self.const_of(right));
            let part = op_of(*op).and_then(|op| {
                // `float(V.split(".")[1]) < 7`, `parse(V).minor >= 4`: evaluated per release.
                let terms = terms.as_ref()?;
                if let Some(p) = evaluated_test(terms, &consts, op, false) {
                    return Some(p);
                }
                // `V.major >= 5`, `(V.major, V.minor) < (2, 4)`, `V.release >= (2, 4)`: the
                // leading components (a tuple bound compares as many as it has).
                if let (Some(root), Some(b)) = (self.version_fields(left), int_bound(&consts.1)) {
                    Some((root, Pred::Cmp(op, b)))
                } else if let (Some(b), Some(root)) =
                    (int_bound(&consts.0), self.version_fields(right))
                {
                    Some((root, Pred::Cmp(op.flipped(), b)))
                } else if let (Some(root), Some(b)) =
                    (self.version_root(left, 0), const_bound(right))
                {
                    Some((root, Pred::Cmp(op, b)))
                } else if let (Some(b), Some(root)) =
                    (const_bound(left), self.version_root(right, 0))
                {
                    Some((root, Pred::Cmp(op.flipped(), b)))
                } else {
                    None
                }
            });
            // Components the interval reading did not take (`tuple(map(int, V.split(".")))
            // == (2, 4, 0)` beside a string, a list): evaluated per release too.
            let part = part.or_else(|| evaluated_test(terms.as_ref()?, &consts, op_of(*op)?, true));
            // `torch.__version__ == "parrots"` (a test for another framework): a version is
            // never equal to a string that is no version, so the branch runs on no release.
            let part = part.or_else(|| {
                let never = Pred::Or(Vec::new());
                let pred = match op {
                    ast::CmpOp::Eq => never,
                    ast::CmpOp::NotEq => Pred::Not(Box::new(never)),
                    _ => return None,
                };
                let root = match (non_version_string(left), non_version_string(right)) {
                    (_, true) => self.version_root(left, 0)?,
                    (true, _) => self.version_root(right, 0)?,
                    _ => return None,
                };
                Some((root, pred))
            });
            match part {
                Some(p) => out.parts.push(p),
                None => out.complete = false,
            }
            left = right;
        }
        out
    }

    /// The top-level module whose version's leading components an expression is: `V.major`,
    /// `V[0]` (`sys.version_info[0]`), `V.release`, `(V.major, V.minor)`, `(V.major, V.minor, V.micro)` for `V` derived from
    /// its version (`Version(torch.__version__)`, `sys.version_info`).
    fn version_fields(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Attribute(a) if matches!(a.attr.as_str(), "major" | "release") => {
                self.version_root(&a.value, 0)
            }
            // `sys.version_info[0]`: the major component, as `.major` (a package's version is
            // a string, whose first item is a character).
            Expr::Subscript(s) if int_lit(&s.slice) == Some(0) => self
                .version_root(&s.value, 0)
                .filter(|root| root == "sys" && !matches!(&*s.value, Expr::Subscript(_))),
            Expr::Tuple(t) if (1..=3).contains(&t.elts.len()) => {
                let mut root: Option<String> = None;
                for (el, field) in t.elts.iter().zip(["major", "minor", "micro"]) {
                    let Expr::Attribute(a) = el else {
                        return None;
                    };
                    if a.attr.as_str() != field {
                        return None;
                    }
                    let r = self.version_root(&a.value, 0)?;
                    if root.get_or_insert_with(|| r.clone()) != &r {
                        return None;
                    }
                }
                root
            }
            _ => None,
        }
    }

    /// The package whose version `e` is computed from, and the computation.
    pub(super) fn version_term(&self, e: &Expr, depth: usize) -> Option<(String, Term)> {
        if depth > MAX_TERM_DEPTH {
            return None;
        }
        let d = depth + 1;
        // `get_torch_version()`, a function of this file returning the version.
        if let Expr::Call(c) = e {
            if let (Expr::Name(f), true) = (&*c.func, c.arguments.is_empty()) {
                if let Some(Bound::VersionReturner(root)) = self.lookup(f.id.as_str()) {
                    return Some((root.clone(), Term::Version));
                }
            }
        }
        if let Some(name) = self.project_value(e) {
            return Some((HELPER_ROOT.to_string(), Term::Project(name)));
        }
        let (root, term) = match e {
            Expr::Name(n) => match self.lookup(n.id.as_str())? {
                Bound::VersionTerm(root, term) => (root.clone(), term.clone()),
                // A name bound to `X.__version__` by an import.
                Bound::Path { .. } => (self.version_root(e, 0)?, Term::Version),
                // `VersionOf`: derived in a way no term reads.
                _ => return None,
            },
            Expr::Attribute(a) => match field_of(a.attr.as_str()) {
                Some(f) => {
                    let (root, inner) = self.version_term(&a.value, d)?;
                    (root, Term::Field(Box::new(inner), f))
                }
                None if names_version_attr(a.attr.as_str()) => {
                    let (path, _) = self.resolve(e)?;
                    if !names_version(&path) {
                        return None;
                    }
                    (path.split('.').next()?.to_string(), Term::Version)
                }
                None => return None,
            },
            Expr::Subscript(s) => {
                let (root, inner) = self.version_term(&s.value, d)?;
                let term = match &*s.slice {
                    Expr::Slice(sl) if sl.step.is_none() => {
                        let bound = |b: &Option<Box<Expr>>| match b {
                            None => Some(None),
                            Some(e) => int_lit(e).map(Some),
                        };
                        Term::Slice(Box::new(inner), bound(&sl.lower)?, bound(&sl.upper)?)
                    }
                    i => Term::Index(Box::new(inner), int_lit(i)?),
                };
                (root, term)
            }
            Expr::Call(call) => self.call_term(e, call, d)?,
            // `[int(p) for p in X]`: compared with a list as a tuple with a tuple.
            Expr::ListComp(_) => {
                let (each, inner) = self.mapped(e)?;
                let (root, inner) = self.version_term(inner, d)?;
                (root, Term::Map(each, Box::new(inner)))
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. })
                if !elts.is_empty() && elts.len() <= 4 =>
            {
                let mut root: Option<String> = None;
                let mut terms = Vec::with_capacity(elts.len());
                for el in elts {
                    match self.version_term(el, d) {
                        Some((r, term)) => {
                            if root.get_or_insert_with(|| r.clone()) != &r {
                                return None;
                            }
                            terms.push(term);
                        }
                        None => terms.push(const_term(el, d)?),
                    }
                }
                (root?, Term::Seq(terms))
            }
            _ => return None,
        };
        (!is_python_root(&root)).then_some((root, term))
    }

    /// A value of another module of the project, by name (`TORCH_VERSION` imported from the
    /// project), or a call without arguments of a function of the project (`get_torch_version()`,
    /// as `name()`): resolved once every file is read (`crate::link`).
    fn project_value(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Name(n) if self.imported_here(n.id.as_str()) => Some(n.id.to_string()),
            Expr::Call(c) if c.arguments.is_empty() => {
                let Expr::Name(f) = &*c.func else {
                    return None;
                };
                let name = f.id.as_str();
                let own = matches!(self.lookup(name), Some(Bound::Function));
                (own || self.imported_here(name)).then(|| format!("{name}()"))
            }
            _ => None,
        }
    }

    fn call_term(&self, e: &Expr, call: &ast::ExprCall, d: usize) -> Option<(String, Term)> {
        let args = &call.arguments.args;
        if let Expr::Attribute(a) = &*call.func {
            if let Some(m) = method_of(a.attr.as_str(), args, call.arguments.keywords.is_empty()) {
                let (root, inner) = self.version_term(&a.value, d)?;
                return Some((root, Term::Method(Box::new(inner), m)));
            }
        }
        let conv = match &*call.func {
            Expr::Name(n) if self.lookup(n.id.as_str()).is_none() => match n.id.as_str() {
                "int" => Some(Conv::Int),
                "float" => Some(Conv::Float),
                "str" => Some(Conv::Str),
                "tuple" | "list" => Some(Conv::Seq),
                _ => None,
            },
            _ => None,
        };
        let conv = conv.or_else(|| {
            let name = dotted(&call.func)?;
            VERSION_PARSERS
                .contains(&last_segment(&name))
                .then_some(Conv::Parse)
        });
        let Some(conv) = conv else {
            // `importlib.metadata.version("torch")` and the project's version getters.
            let root = self.version_root(e, 0)?;
            return Some((root, Term::Version));
        };
        let ([arg], true) = (&**args, call.arguments.keywords.is_empty()) else {
            return None;
        };
        if conv == Conv::Seq {
            if let Some((each, inner)) = self.mapped(arg) {
                let (root, inner) = self.version_term(inner, d)?;
                return Some((root, Term::Map(each, Box::new(inner))));
            }
        }
        let (root, inner) = self.version_term(arg, d)?;
        Some((root, Term::Conv(conv, Box::new(inner))))
    }

    /// `map(int, X)` and `(int(p) for p in X)`: the conversion and `X`.
    fn mapped<'e>(&self, e: &'e Expr) -> Option<(Conv, &'e Expr)> {
        let each = |f: &Expr| match f {
            Expr::Name(n) if self.lookup(n.id.as_str()).is_none() => match n.id.as_str() {
                "int" => Some(Conv::Int),
                "float" => Some(Conv::Float),
                "str" => Some(Conv::Str),
                _ => None,
            },
            _ => None,
        };
        match e {
            Expr::Call(c) if self.is_builtin(&c.func, "map") => match &*c.arguments.args {
                [f, x] => Some((each(f)?, x)),
                _ => None,
            },
            Expr::Generator(ast::ExprGenerator {
                generators, elt, ..
            })
            | Expr::ListComp(ast::ExprListComp {
                generators, elt, ..
            }) => {
                let [gen] = &**generators else {
                    return None;
                };
                if !gen.ifs.is_empty() || gen.is_async {
                    return None;
                }
                let (Expr::Name(var), Expr::Call(c)) = (&gen.target, &**elt) else {
                    return None;
                };
                let [Expr::Name(x)] = &*c.arguments.args else {
                    return None;
                };
                (x.id == var.id).then_some(())?;
                Some((each(&c.func)?, &gen.iter))
            }
            _ => None,
        }
    }
}

/// A term and the package whose version it reads.
type Rooted = (String, Term);

/// `left op right` as a test evaluated per release, when one side computes a value from a
/// package's version that the interval reading does not cover (one component, a number, a
/// field) and the other side is a constant or computed from the same version; `terms` are what
/// [`Walker::version_term`] reads on each side. Components (`map(int, V.split(".")[:2])`) are
/// read this way only when the interval reading fails (`components_too`).
fn evaluated_test(
    terms: &(Option<Rooted>, Option<Rooted>),
    consts: &(Option<Term>, Option<Term>),
    op: Op,
    components_too: bool,
) -> Option<(String, Pred)> {
    let (l, r) = terms;
    let root = match (l, r) {
        (Some((a, _)), Some((b, _))) if a != b => return None,
        (Some((a, _)), _) | (_, Some((a, _))) => a.clone(),
        _ => return None,
    };
    let wanted = |t: &Term| match t.shape() {
        Shape::Other => true,
        Shape::Components => components_too,
        Shape::Text => false,
    };
    if !l.iter().chain(r).any(|(_, t)| wanted(t)) {
        return None;
    }
    let lt = l
        .as_ref()
        .map(|(_, t)| t.clone())
        .or_else(|| consts.0.clone())?;
    let rt = r
        .as_ref()
        .map(|(_, t)| t.clone())
        .or_else(|| consts.1.clone())?;
    Some((root, Pred::Eval(Box::new((lt, op, rt)))))
}

/// `int(...)`, `float(...)`, `tuple(...)` and the like, or an item of something: the shapes
/// of a term [`Walker::version_root`] does not take for the version itself.
pub(super) fn converts(e: &Expr) -> bool {
    match e {
        Expr::Call(call) => matches!(
            &*call.func,
            Expr::Name(n) if matches!(n.id.as_str(), "int" | "float" | "str" | "tuple" | "list")
        ),
        Expr::Subscript(_) | Expr::Tuple(_) => true,
        _ => false,
    }
}

fn field_of(attr: &str) -> Option<Field> {
    Some(match attr {
        "major" => Field::Major,
        "minor" => Field::Minor,
        "micro" => Field::Micro,
        "release" => Field::Release,
        "base_version" => Field::BaseVersion,
        "public" => Field::Public,
        _ => return None,
    })
}

fn method_of(name: &str, args: &[Expr], no_keywords: bool) -> Option<Method> {
    if !no_keywords {
        return None;
    }
    Some(match (name, args) {
        ("split", []) => Method::Split(None),
        ("split", [sep]) => Method::Split(Some(string_lit(sep)?)),
        ("strip" | "lstrip" | "rstrip", rest) => {
            let chars = match rest {
                [] => None,
                [c] => Some(string_lit(c)?),
                _ => return None,
            };
            Method::Strip {
                left: name != "rstrip",
                right: name != "lstrip",
                chars,
            }
        }
        ("replace", [a, b]) => Method::Replace(string_lit(a)?, string_lit(b)?),
        _ => return None,
    })
}

/// An integer literal, negative ones included.
fn int_lit(e: &Expr) -> Option<i64> {
    match e {
        Expr::NumberLiteral(n) => match &n.value {
            ast::Number::Int(i) => i64::try_from(i.as_u64()?).ok(),
            _ => None,
        },
        Expr::UnaryOp(u) if u.op == UnaryOp::USub => int_lit(&u.operand).map(|i| -i),
        _ => None,
    }
}

/// A constant compared with a computed version value: a string, a number, a tuple or list of
/// them, or a parsed version string.
fn const_term(e: &Expr, depth: usize) -> Option<Term> {
    fn value(e: &Expr, depth: usize) -> Option<Value> {
        if depth > MAX_TERM_DEPTH {
            return None;
        }
        Some(match e {
            Expr::StringLiteral(s) => Value::Str(s.value.to_str().to_string()),
            Expr::NumberLiteral(n) => match &n.value {
                ast::Number::Float(f) => Value::Float(*f),
                _ => Value::Int(int_lit(e)?),
            },
            Expr::UnaryOp(u) if u.op == UnaryOp::USub => match value(&u.operand, depth + 1)? {
                Value::Float(f) => Value::Float(-f),
                Value::Int(i) => Value::Int(-i),
                _ => return None,
            },
            Expr::Tuple(t) => Value::Seq(
                t.elts
                    .iter()
                    .map(|x| value(x, depth + 1))
                    .collect::<Option<_>>()?,
            ),
            Expr::List(t) => Value::Seq(
                t.elts
                    .iter()
                    .map(|x| value(x, depth + 1))
                    .collect::<Option<_>>()?,
            ),
            Expr::Call(call) => {
                let name = dotted(&call.func)?;
                if !VERSION_PARSERS.contains(&last_segment(&name)) {
                    return None;
                }
                let [arg] = &*call.arguments.args else {
                    return None;
                };
                match value(arg, depth + 1)? {
                    Value::Str(s) => Value::Ver(s),
                    _ => return None,
                }
            }
            _ => return None,
        })
    }
    value(e, depth).map(Term::Lit)
}

/// A string literal that no version parses from (`"parrots"`).
fn non_version_string(expr: &Expr) -> bool {
    matches!(expr, Expr::StringLiteral(s) if VBound::parse_str(s.value.to_str()).is_none())
}

/// An integer or a tuple of integers compared with a version's leading components (from
/// [`Walker::const_of`]).
fn int_bound(c: &Option<Term>) -> Option<VBound> {
    let int = |v: &Value| match v {
        Value::Int(i) => u64::try_from(*i).ok(),
        _ => None,
    };
    match c.as_ref()? {
        Term::Lit(Value::Int(i)) => Some(VBound::Tuple(vec![u64::try_from(*i).ok()?])),
        Term::Lit(Value::Seq(items)) if !items.is_empty() => Some(VBound::Tuple(
            items.iter().map(int).collect::<Option<Vec<u64>>>()?,
        )),
        // `parse("2.8.0").release`: the constant's release components.
        Term::Field(inner, Field::Release) => match &**inner {
            Term::Lit(Value::Ver(v)) => match VBound::parse_str(v)? {
                VBound::Version(v) => Some(VBound::Tuple(v.release().to_vec())),
                VBound::Tuple(_) | VBound::Named(_) => None,
            },
            _ => None,
        },
        _ => None,
    }
}

impl Walker<'_> {
    /// A constant a computed version value is compared with: a literal ([`const_term`]), the
    /// release of a parsed one (`parse("2.8.0").release`), or a name bound to a tuple of
    /// integers (`_MIN_TORCH_VERSION = (2, 9, 1)`).
    pub(super) fn const_of(&self, e: &Expr) -> Option<Term> {
        match e {
            Expr::Name(n) => match self.lookup(n.id.as_str())? {
                Bound::Const(t) => Some(t.clone()),
                _ => None,
            },
            Expr::Attribute(a) if a.attr.as_str() == "release" => {
                let Some(VBound::Version(v)) = const_bound(&a.value) else {
                    return None;
                };
                Some(Term::Field(
                    Box::new(Term::Lit(Value::Ver(v.to_string()))),
                    Field::Release,
                ))
            }
            _ => const_term(e, 0),
        }
    }
}
