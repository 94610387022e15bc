//! Values computed from a package's version string, evaluated per release:
//! `float(torchvision.__version__.split(".")[1]) < 7`, `int(V.split(".")[0]) >= 2`,
//! `parse(V).minor >= 4`. A condition of this kind is not mapped to an interval of versions;
//! it is computed with each release's own version string, as Python would, so a test of one
//! component (`V.split(".")[1]`, which says nothing about order across majors) is exact.
//!
//! Anything the evaluator does not know (a method it does not model, a conversion Python would
//! refuse, an index out of range) is unknown, and an unknown test admits the release. A result
//! that depends on a local version label (`2.1.0+cu121` on Linux, `2.1.0` elsewhere) is unknown
//! too: both spellings are evaluated and must agree.

use std::cmp::Ordering;

use apicompat_requirements::{parse_version, Version};

use crate::versions::Op;

/// A value in an evaluated version test.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub enum Value {
    /// The version itself, as a string or a parsed version (code that type-checks uses only
    /// what its type has, so one value serves both): compared as a PEP 440 version.
    Ver(String),
    Str(String),
    Int(i64),
    Float(f64),
    /// A tuple or a list.
    Seq(Vec<Value>),
}

impl PartialEq for Value {
    /// Structural equality (floats by their bits), for comparing conditions, not Python's `==`.
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Ver(a), Value::Ver(b)) | (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Seq(a), Value::Seq(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

/// A string method applied to a term.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Method {
    /// `split(sep)`; `None` splits on whitespace.
    Split(Option<String>),
    /// `strip(chars)`, `lstrip`, `rstrip`: which ends, and the characters (`None`: whitespace).
    Strip {
        left: bool,
        right: bool,
        chars: Option<String>,
    },
    Replace(String, String),
}

/// A conversion: `int(x)`, `float(x)`, `str(x)`, `tuple(x)`/`list(x)`, `parse(x)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Conv {
    Int,
    Float,
    Str,
    Seq,
    Parse,
}

/// A field of a parsed version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Field {
    Major,
    Minor,
    Micro,
    Release,
    /// `base_version` and `public`: the version without local label (and, for
    /// `base_version`, without pre/post/dev parts).
    BaseVersion,
    Public,
}

/// A computation over the release's version string.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Term {
    /// The version string of the release.
    Version,
    Lit(Value),
    Method(Box<Term>, Method),
    Index(Box<Term>, i64),
    Slice(Box<Term>, Option<i64>, Option<i64>),
    Conv(Conv, Box<Term>),
    /// `map(int, x)`, `(int(p) for p in x)`: the conversion of every element.
    Map(Conv, Box<Term>),
    Field(Box<Term>, Field),
    /// A tuple written out: `(V.major, V.minor)`.
    Seq(Vec<Term>),
    /// A value another module of the project computes from a version, by name (`from
    /// detectron2.utils.env import TORCH_VERSION`), or what a function of the project without
    /// parameters returns (`get_torch_version()`, as `name()`): resolved once every file is
    /// read ([`Term::resolved`]); until then its value is not known.
    Project(String),
}

/// What a term computes, for choosing how a test of it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// The version text (also `V.split("+")[0]`, `parse(V)`, `str(V)`): tests compare it as a
    /// version, with the interval reading.
    Text,
    /// The version's components as a sequence (`V.split(".")`, `map(int, V.split(".")[:2])`).
    Components,
    /// Anything else: one component, a number, a field.
    Other,
}

/// How deep a term may nest; deeper expressions are not read.
pub const MAX_TERM_DEPTH: usize = 12;

/// The label evaluated beside the plain version (see the module doc).
const LOCAL_LABEL: &str = "+cpu";

impl Term {
    pub fn shape(&self) -> Shape {
        match self {
            Term::Version => Shape::Text,
            Term::Conv(Conv::Parse | Conv::Str, t) => match t.shape() {
                Shape::Text => Shape::Text,
                _ => Shape::Other,
            },
            Term::Field(t, Field::BaseVersion | Field::Public) if t.shape() == Shape::Text => {
                Shape::Text
            }
            Term::Field(t, Field::Release) if t.shape() == Shape::Text => Shape::Components,
            Term::Method(t, Method::Split(Some(sep))) if sep == "." && t.shape() == Shape::Text => {
                Shape::Components
            }
            Term::Method(t, Method::Strip { .. }) if t.shape() == Shape::Text => Shape::Text,
            // `V.split("+")[0]`: the version without its local label.
            Term::Index(t, 0) => match &**t {
                Term::Method(inner, Method::Split(Some(sep)))
                    if sep != "." && inner.shape() == Shape::Text =>
                {
                    Shape::Text
                }
                _ => Shape::Other,
            },
            Term::Slice(t, _, _) | Term::Map(_, t) | Term::Conv(Conv::Seq, t)
                if t.shape() == Shape::Components =>
            {
                Shape::Components
            }
            _ => Shape::Other,
        }
    }

    /// Whether the term reads the version (rather than being a constant).
    pub fn reads_version(&self) -> bool {
        match self {
            Term::Version => true,
            Term::Lit(_) => false,
            Term::Method(t, _)
            | Term::Index(t, _)
            | Term::Slice(t, _, _)
            | Term::Conv(_, t)
            | Term::Map(_, t)
            | Term::Field(t, _) => t.reads_version(),
            Term::Seq(ts) => ts.iter().any(Term::reads_version),
            Term::Project(_) => true,
        }
    }

    /// Whether the term holds a value of another module not resolved yet.
    pub fn has_project(&self) -> bool {
        match self {
            Term::Project(_) => true,
            Term::Version | Term::Lit(_) => false,
            Term::Method(t, _)
            | Term::Index(t, _)
            | Term::Slice(t, _, _)
            | Term::Conv(_, t)
            | Term::Map(_, t)
            | Term::Field(t, _) => t.has_project(),
            Term::Seq(ts) => ts.iter().any(Term::has_project),
        }
    }

    /// The term with each value of another module replaced by what it is, and the package
    /// whose version those values are computed from; `None` when one is not known, or two are
    /// about different packages.
    pub fn resolved(
        &self,
        values: &dyn Fn(&str) -> Option<(String, Term)>,
        root: &mut Option<String>,
        depth: usize,
    ) -> Option<Term> {
        if depth > MAX_TERM_DEPTH {
            return None;
        }
        let d = depth + 1;
        let inner = |t: &Term, root: &mut Option<String>| t.resolved(values, root, d).map(Box::new);
        Some(match self {
            Term::Project(name) => {
                let (r, t) = values(name)?;
                // A value that names another one (`X = TORCH_VERSION`): a few levels.
                let t = t.resolved(values, root, d)?;
                if r != crate::versions::HELPER_ROOT && root.get_or_insert_with(|| r.clone()) != &r
                {
                    return None;
                }
                t
            }
            Term::Version => Term::Version,
            Term::Lit(v) => Term::Lit(v.clone()),
            Term::Method(t, m) => Term::Method(inner(t, root)?, m.clone()),
            Term::Index(t, i) => Term::Index(inner(t, root)?, *i),
            Term::Slice(t, a, b) => Term::Slice(inner(t, root)?, *a, *b),
            Term::Conv(c, t) => Term::Conv(*c, inner(t, root)?),
            Term::Map(c, t) => Term::Map(*c, inner(t, root)?),
            Term::Field(t, f) => Term::Field(inner(t, root)?, *f),
            Term::Seq(ts) => Term::Seq(
                ts.iter()
                    .map(|t| t.resolved(values, root, d))
                    .collect::<Option<Vec<_>>>()?,
            ),
        })
    }

    /// The term's value on the release whose version string is `version`.
    pub fn eval(&self, version: &str) -> Option<Value> {
        self.eval_in(version, 0)
    }

    fn eval_in(&self, version: &str, depth: usize) -> Option<Value> {
        if depth > MAX_TERM_DEPTH {
            return None;
        }
        let d = depth + 1;
        Some(match self {
            Term::Version => Value::Ver(version.to_string()),
            Term::Lit(v) => v.clone(),
            Term::Method(t, m) => method(t.eval_in(version, d)?, m)?,
            Term::Index(t, i) => match t.eval_in(version, d)? {
                Value::Seq(items) => items.get(position(*i, items.len())?)?.clone(),
                Value::Str(s) | Value::Ver(s) => {
                    let chars: Vec<char> = s.chars().collect();
                    Value::Str(chars.get(position(*i, chars.len())?)?.to_string())
                }
                _ => return None,
            },
            Term::Slice(t, a, b) => match t.eval_in(version, d)? {
                Value::Seq(items) => {
                    let (a, b) = bounds(*a, *b, items.len());
                    Value::Seq(items.get(a..b.max(a)).unwrap_or_default().to_vec())
                }
                Value::Str(s) | Value::Ver(s) => {
                    let chars: Vec<char> = s.chars().collect();
                    let (a, b) = bounds(*a, *b, chars.len());
                    Value::Str(chars.get(a..b.max(a)).unwrap_or_default().iter().collect())
                }
                _ => return None,
            },
            Term::Conv(c, t) => convert(*c, t.eval_in(version, d)?)?,
            Term::Map(c, t) => match t.eval_in(version, d)? {
                Value::Seq(items) => Value::Seq(
                    items
                        .into_iter()
                        .map(|v| convert(*c, v))
                        .collect::<Option<Vec<_>>>()?,
                ),
                Value::Str(s) | Value::Ver(s) => Value::Seq(
                    s.chars()
                        .map(|ch| convert(*c, Value::Str(ch.to_string())))
                        .collect::<Option<Vec<_>>>()?,
                ),
                _ => return None,
            },
            Term::Field(t, f) => field(t.eval_in(version, d)?, *f)?,
            Term::Seq(ts) => Value::Seq(
                ts.iter()
                    .map(|t| t.eval_in(version, d))
                    .collect::<Option<Vec<_>>>()?,
            ),
            Term::Project(_) => return None,
        })
    }
}

/// Whether `left op right` holds on `version`; `None` when it cannot be known (see the
/// module doc).
pub fn test_holds(left: &Term, op: Op, right: &Term, version: &Version) -> Option<bool> {
    let plain = version.clone().without_local().to_string();
    let labelled = format!("{plain}{LOCAL_LABEL}");
    let once = |text: &str| -> Option<bool> {
        let ord = compare(&left.eval(text)?, &right.eval(text)?);
        match (op, ord) {
            (Op::Eq, None) => Some(false),
            (Op::Ne, None) => Some(true),
            (_, None) => None,
            (op, Some(ord)) => Some(op.holds(ord)),
        }
    };
    let a = once(&plain)?;
    (once(&labelled)? == a).then_some(a)
}

/// Python's ordering of two values; `None` where Python would raise (or, for `==`, where the
/// values are of kinds that are never equal).
fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Int(x), Value::Float(y)) => (*x as f64).partial_cmp(y),
        (Value::Float(x), Value::Int(y)) => x.partial_cmp(&(*y as f64)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::Ver(x), Value::Ver(y) | Value::Str(y)) | (Value::Str(x), Value::Ver(y)) => {
            let x = parse_version(x.trim()).ok()?;
            let y = parse_version(y.trim()).ok()?;
            Some(x.cmp(&y))
        }
        (Value::Seq(x), Value::Seq(y)) => {
            for (p, q) in x.iter().zip(y) {
                match compare(p, q)? {
                    Ordering::Equal => {}
                    other => return Some(other),
                }
            }
            Some(x.len().cmp(&y.len()))
        }
        _ => None,
    }
}

fn position(i: i64, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let p = if i < 0 { len + i } else { i };
    (0..len).contains(&p).then_some(p as usize)
}

/// Python's clamping of slice bounds.
fn bounds(a: Option<i64>, b: Option<i64>, len: usize) -> (usize, usize) {
    let n = i64::try_from(len).unwrap_or(i64::MAX);
    let clamp = |i: i64| -> usize {
        let p = if i < 0 { (n + i).max(0) } else { i.min(n) };
        p as usize
    };
    (a.map_or(0, clamp), b.map_or(len, clamp))
}

fn method(v: Value, m: &Method) -> Option<Value> {
    let (Value::Str(s) | Value::Ver(s)) = v else {
        return None;
    };
    Some(match m {
        Method::Split(None) => Value::Seq(
            s.split_whitespace()
                .map(|p| Value::Str(p.to_string()))
                .collect(),
        ),
        Method::Split(Some(sep)) if !sep.is_empty() => Value::Seq(
            s.split(sep.as_str())
                .map(|p| Value::Str(p.to_string()))
                .collect(),
        ),
        Method::Split(Some(_)) => return None,
        Method::Strip { left, right, chars } => {
            let strip = |c: char| match chars {
                Some(cs) => cs.contains(c),
                None => c.is_whitespace(),
            };
            let mut t: &str = &s;
            if *left {
                t = t.trim_start_matches(strip);
            }
            if *right {
                t = t.trim_end_matches(strip);
            }
            Value::Str(t.to_string())
        }
        Method::Replace(a, b) if !a.is_empty() => Value::Str(s.replace(a.as_str(), b)),
        Method::Replace(..) => return None,
    })
}

fn convert(c: Conv, v: Value) -> Option<Value> {
    Some(match (c, v) {
        (Conv::Int, Value::Int(i)) => Value::Int(i),
        (Conv::Int, Value::Float(f)) if f.is_finite() => Value::Int(f.trunc() as i64),
        (Conv::Int, Value::Str(s)) => Value::Int(int_text(&s)?),
        (Conv::Float, Value::Int(i)) => Value::Float(i as f64),
        (Conv::Float, Value::Float(f)) => Value::Float(f),
        (Conv::Float, Value::Str(s)) => Value::Float(float_text(&s)?),
        (Conv::Str, Value::Str(s)) => Value::Str(s),
        (Conv::Str, Value::Ver(s)) => Value::Ver(s),
        (Conv::Str, Value::Int(i)) => Value::Str(i.to_string()),
        (Conv::Parse, Value::Str(s) | Value::Ver(s)) => {
            parse_version(s.trim()).ok()?;
            Value::Ver(s)
        }
        (Conv::Seq, Value::Seq(items)) => Value::Seq(items),
        (Conv::Seq, Value::Str(s)) => {
            Value::Seq(s.chars().map(|ch| Value::Str(ch.to_string())).collect())
        }
        _ => return None,
    })
}

/// `int(text)` as Python reads it: optional sign and surrounding whitespace, digits (with
/// single underscores between them).
fn int_text(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
        || !digits.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    t.replace('_', "").parse().ok()
}

/// `float(text)` for the decimal forms a version component can take.
fn float_text(s: &str) -> Option<f64> {
    let t = s.trim();
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let ok = !body.is_empty()
        && body.chars().any(|c| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if !ok {
        return None;
    }
    t.parse().ok()
}

fn field(v: Value, f: Field) -> Option<Value> {
    let Value::Ver(s) = v else {
        return None;
    };
    let version = parse_version(s.trim()).ok()?;
    let release = version.release();
    let component = |i: usize| -> Option<Value> {
        let n = release.get(i).copied().unwrap_or(0);
        Some(Value::Int(i64::try_from(n).ok()?))
    };
    match f {
        Field::Major => component(0),
        Field::Minor => component(1),
        Field::Micro => component(2),
        Field::Release => Some(Value::Seq(
            release
                .iter()
                .map(|n| i64::try_from(*n).ok().map(Value::Int))
                .collect::<Option<Vec<_>>>()?,
        )),
        Field::Public => Some(Value::Ver(version.without_local().to_string())),
        Field::BaseVersion => Some(Value::Ver(
            release
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join("."),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        parse_version(s).unwrap()
    }

    fn split_at(i: i64) -> Term {
        Term::Index(
            Box::new(Term::Method(
                Box::new(Term::Version),
                Method::Split(Some(".".into())),
            )),
            i,
        )
    }

    #[test]
    fn one_component_compares_as_python_computes_it() {
        // `float(torchvision.__version__.split(".")[1]) < 7`
        let minor = Term::Conv(Conv::Float, Box::new(split_at(1)));
        let seven = Term::Lit(Value::Int(7));
        assert_eq!(
            test_holds(&minor, Op::Lt, &seven, &v("0.15.2")),
            Some(false)
        );
        assert_eq!(test_holds(&minor, Op::Lt, &seven, &v("0.6.1")), Some(true));
        // `V.split(".")[0] == "2"`: every 2.x, not only 2.0.
        let major = split_at(0);
        let two = Term::Lit(Value::Str("2".into()));
        assert_eq!(test_holds(&major, Op::Eq, &two, &v("2.2.2")), Some(true));
        assert_eq!(test_holds(&major, Op::Eq, &two, &v("1.13.1")), Some(false));
        // `int(V.split(".")[0]) >= 2` against a string: Python raises, so unknown.
        let int_major = Term::Conv(Conv::Int, Box::new(split_at(0)));
        assert_eq!(test_holds(&int_major, Op::Ge, &two, &v("2.2.2")), None);
    }

    #[test]
    fn a_result_that_depends_on_the_local_label_is_unknown() {
        // `int(V.split(".")[2])`: "0+cu121" on Linux wheels.
        let micro = Term::Conv(Conv::Int, Box::new(split_at(2)));
        let zero = Term::Lit(Value::Int(0));
        assert_eq!(test_holds(&micro, Op::Ge, &zero, &v("2.1.0")), None);
        // Out of range: unknown too.
        let fourth = Term::Conv(Conv::Int, Box::new(split_at(3)));
        assert_eq!(test_holds(&fourth, Op::Ge, &zero, &v("2.1.0")), None);
    }

    #[test]
    fn fields_and_tuples_of_parsed_versions() {
        let parsed = Term::Conv(Conv::Parse, Box::new(Term::Version));
        let minor = Term::Field(Box::new(parsed.clone()), Field::Minor);
        let four = Term::Lit(Value::Int(4));
        assert_eq!(test_holds(&minor, Op::Ge, &four, &v("2.4.1")), Some(true));
        assert_eq!(test_holds(&minor, Op::Ge, &four, &v("2.3.1")), Some(false));
        // `tuple(map(int, V.split(".")[:2])) >= (2, 4)`
        let first_two = Term::Map(
            Conv::Int,
            Box::new(Term::Slice(
                Box::new(Term::Method(
                    Box::new(Term::Version),
                    Method::Split(Some(".".into())),
                )),
                None,
                Some(2),
            )),
        );
        let bound = Term::Lit(Value::Seq(vec![Value::Int(2), Value::Int(4)]));
        assert_eq!(
            test_holds(&first_two, Op::Ge, &bound, &v("2.10.0")),
            Some(true)
        );
        assert_eq!(
            test_holds(&first_two, Op::Ge, &bound, &v("2.3.1")),
            Some(false)
        );
        assert_eq!(first_two.shape(), Shape::Components);
        assert_eq!(minor.shape(), Shape::Other);
        let base = Term::Index(
            Box::new(Term::Method(
                Box::new(Term::Version),
                Method::Split(Some("+".into())),
            )),
            0,
        );
        assert_eq!(base.shape(), Shape::Text);
    }

    #[test]
    fn python_int_reads_signs_and_underscores_only() {
        assert_eq!(int_text(" 12 "), Some(12));
        assert_eq!(int_text("1_0"), Some(10));
        assert_eq!(int_text("0rc1"), None);
        assert_eq!(int_text(""), None);
        assert_eq!(float_text("15"), Some(15.0));
        assert_eq!(float_text("post1"), None);
    }
}
