//! What one file says about process groups, as far as AC010 needs it: the classes it defines
//! (what their methods store on `self`, what they pass to `super().__init__`, which copy hooks
//! they define), the functions it defines (what they return), and the places that copy or
//! pickle something (`copy.deepcopy(model)`, `torch.save(obj, f)`), each with the copied
//! expression traced back through local variables, `**kwargs` dicts and parameters as a
//! [`Val`]. Nothing here looks at the index: [`super::eval`] does that for the whole project.

use apicompat_hash::HashMap;
use std::sync::Arc;

use apicompat_semantic::atom::{atom, Atom};

use ruff_python_ast::{self as ast, Expr, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::collect::MAX_DEPTH;

/// A traced value larger than this (in nodes) is given up on (`Val::Unknown`).
const MAX_VAL_NODES: usize = 400;

/// How an expression's value was made, as far as it can be followed inside one file.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Unknown,
    NoneLit,
    /// Another literal (a number, a string): never a process group.
    Lit,
    /// A parameter of the function it is used in.
    Param(Arc<ParamInfo>),
    /// `self` in a method of the class with this position in [`FileFacts::classes`].
    SelfObj(usize),
    /// `super()`.
    Super,
    /// A dotted path reached through an import (`torch.distributed.new_group`, `copy.deepcopy`,
    /// a relative `.model.MyModel`).
    Ref(Atom),
    /// A class defined in this file (position in [`FileFacts::classes`]).
    LocalClass(usize),
    /// A function defined at the top level of this file (its id).
    LocalFunc(u32),
    /// A builtin name (`dict`, `list`).
    Builtin(Atom),
    /// `value.attr`.
    Attr(Arc<Val>, Atom, TextRange),
    Call(Arc<CallVal>),
    /// A dict literal or `dict(...)`: string keys with their values; a `None` key is a `**x`
    /// entry (its value is what is spread).
    Dict(Arc<Vec<(Option<Atom>, Val, TextRange)>>),
    /// A list, tuple or set literal.
    Seq(Arc<Vec<Val>>),
    /// Item `n` of a tuple unpacking.
    Item(Arc<Val>, usize),
    /// `value[key]`: the item of a string key or an index, or any item (`MODELS[name]`).
    Index(Arc<Val>, Option<Key>),
    /// Either value (`a if c else b`, `a or b`, assignments in different branches).
    Either(Arc<Val>, Arc<Val>),
    /// An object of the class given (`Ref` or `LocalClass`), known from an `isinstance` check
    /// (where).
    Instance(Arc<Val>, TextRange),
}

/// A constant subscript: `d["key"]`, `items[0]`.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    Name(Atom),
    Position(usize),
}

impl Val {
    /// Whether the value has more than `budget` nodes, counting only until it is known (a
    /// value shares its parts with the values it was built from: counting them all again at
    /// every binding cost a tenth of a run on large projects).
    fn larger_than(&self, budget: usize) -> bool {
        let mut left = budget;
        !self.count_within(&mut left)
    }

    /// Takes this value's nodes from `left`; false once they do not fit.
    fn count_within(&self, left: &mut usize) -> bool {
        if *left == 0 {
            return false;
        }
        *left -= 1;
        match self {
            Val::Attr(v, _, _) | Val::Item(v, _) | Val::Instance(v, _) | Val::Index(v, _) => {
                v.count_within(left)
            }
            Val::Call(c) => {
                c.func.count_within(left)
                    && c.args.iter().all(|v| v.count_within(left))
                    && c.kwargs.iter().all(|(_, v, _)| v.count_within(left))
                    && c.splats.iter().all(|(v, _)| v.count_within(left))
            }
            Val::Dict(entries) => entries.iter().all(|(_, v, _)| v.count_within(left)),
            Val::Seq(items) => items.iter().all(|v| v.count_within(left)),
            Val::Either(a, b) => a.count_within(left) && b.count_within(left),
            _ => true,
        }
    }

    fn capped(self) -> Val {
        if self.larger_than(MAX_VAL_NODES) {
            Val::Unknown
        } else {
            self
        }
    }
}

/// A call, its callee and arguments traced.
#[derive(Debug, Clone, PartialEq)]
pub struct CallVal {
    pub func: Val,
    pub args: Vec<Val>,
    /// A `*args` argument: later positions are not known.
    pub star_args: bool,
    pub kwargs: Vec<(Atom, Val, TextRange)>,
    /// `**x` arguments, with where each is.
    pub splats: Vec<(Val, TextRange)>,
    pub range: TextRange,
}

/// How a parameter is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Positional,
    KeywordOnly,
    VarPositional,
    VarKeyword,
}

/// A parameter's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Default {
    Required,
    NoneLit,
    Other,
}

/// A parameter of a function of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamInfo {
    /// The id of the function it belongs to.
    pub owner: u32,
    pub name: Atom,
    /// The annotation as written.
    pub annotation: Option<String>,
    pub default: Default,
    pub kind: ParamKind,
    pub range: TextRange,
}

/// A function or method of the file.
#[derive(Debug, Clone)]
pub struct FuncFacts {
    pub id: u32,
    pub name: Atom,
    /// The class it is a method of (position in [`FileFacts::classes`]).
    pub class: Option<usize>,
    /// Its parameters, without the `self`/`cls` of a method.
    pub params: Vec<Arc<ParamInfo>>,
    /// The values of its `return` statements.
    pub returns: Vec<Val>,
    /// Defined at the top level of the file (callable by name from other files).
    pub top_level: bool,
}

/// `self.attr = value` in a method.
#[derive(Debug, Clone)]
pub struct Store {
    pub attr: Atom,
    pub val: Val,
    pub range: TextRange,
    /// The id of the method.
    pub func: u32,
}

/// `super().__init__(...)` or `Base.__init__(self, ...)` in a method.
#[derive(Debug, Clone)]
pub struct SuperInit {
    /// The base named explicitly (`Base.__init__(self, ...)`); `None` for `super()`.
    pub base: Option<Val>,
    /// The arguments (without `self`).
    pub call: CallVal,
    pub func: u32,
}

/// A class of the file.
#[derive(Debug, Clone)]
pub struct ClassFacts {
    pub name: Atom,
    pub range: TextRange,
    pub bases: Vec<Val>,
    /// The special methods it defines that change how copies and pickles are made
    /// (`__deepcopy__`, `__copy__`, `__getstate__`, `__reduce__`, `__reduce_ex__`).
    pub hooks: Vec<String>,
    /// Ids of its methods.
    pub methods: Vec<u32>,
    /// The id of its `__init__`.
    pub init: Option<u32>,
    pub stores: Vec<Store>,
    pub supers: Vec<SuperInit>,
}

/// What a copy or pickle does with the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// `copy.deepcopy`: copies everything the object holds.
    Deep,
    /// `copy.copy`: copies only the object itself (what it holds is shared).
    Shallow,
    /// `pickle.dump(s)`, `torch.save`, the object collectives: pickles everything it holds.
    Pickle,
}

/// Where an object is copied or pickled.
#[derive(Debug, Clone)]
pub struct CopySite {
    pub kind: CopyKind,
    /// The function, as a dotted path (`copy.deepcopy`).
    pub func: String,
    /// The call as written, shortened (`deepcopy(model)`).
    pub written: String,
    /// The argument copied. For the list argument of `broadcast_object_list`, the list.
    pub arg: Val,
    pub range: TextRange,
    pub stmt_start: TextSize,
    pub in_function: bool,
    /// The name the result is assigned to (`ema` in `ema = deepcopy(model)`).
    pub target: Option<String>,
}

/// What one file says (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct FileFacts {
    pub classes: Vec<ClassFacts>,
    pub functions: Vec<FuncFacts>,
    /// Position in `functions` by function id.
    pub function_index: apicompat_hash::HashMap<u32, usize>,
    pub copies: Vec<CopySite>,
    /// Names called as functions somewhere in the file (`autocast` in `with autocast():`).
    pub called: apicompat_hash::HashSet<String>,
    /// The base-class expressions of the file's classes.
    pub base_ranges: Vec<TextRange>,
    /// Attribute reads on names whose class is known (AC009 checks them against it).
    pub typed: Vec<TypedRead>,
    /// Module-level dicts, lists and tuples (`MODELS = {"dit": DiT}`), which other files
    /// import and subscript.
    pub containers: Vec<(String, Val)>,
    /// Expressions evaluated while reading the file: linear in its size (a test holds the
    /// walker to that).
    pub eval_steps: u64,
}

impl FileFacts {
    /// Takes out what only AC010 reads (its classes, functions, copy sites and containers),
    /// for the caller to free: the names called, the base ranges and the typed reads stay for
    /// AC012 and AC009.
    pub fn take_ac010_only(&mut self) -> impl Send + 'static {
        (
            std::mem::take(&mut self.classes),
            std::mem::take(&mut self.functions),
            std::mem::take(&mut self.function_index),
            std::mem::take(&mut self.copies),
            std::mem::take(&mut self.containers),
        )
    }
}

/// How the class of a receiver is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeSource {
    /// Built by calling the class (where).
    Built(TextRange),
    /// A parameter annotated with it (where).
    Annotated(TextRange),
    /// Checked with `isinstance` (where).
    Checked(TextRange),
}

/// `x.attr` where `x` is known to be an object of `class` (a dotted path through imports,
/// not yet checked against the index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedRead {
    /// The range of `x.attr`.
    pub range: TextRange,
    pub class: String,
    pub how: TypeSource,
}

impl FileFacts {
    pub fn function(&self, id: u32) -> Option<&FuncFacts> {
        self.function_index
            .get(&id)
            .and_then(|&i| self.functions.get(i))
    }
}

/// The functions that copy or pickle their argument: (dotted path, kind, position of the
/// argument, its keyword name, whether the argument is a list of objects).
pub const COPY_FUNCTIONS: &[(&str, CopyKind, usize, &str, bool)] = &[
    ("copy.deepcopy", CopyKind::Deep, 0, "x", false),
    ("copy.copy", CopyKind::Shallow, 0, "x", false),
    ("pickle.dump", CopyKind::Pickle, 0, "obj", false),
    ("pickle.dumps", CopyKind::Pickle, 0, "obj", false),
    ("torch.save", CopyKind::Pickle, 0, "obj", false),
    (
        "torch.serialization.save",
        CopyKind::Pickle,
        0,
        "obj",
        false,
    ),
    (
        "torch.distributed.broadcast_object_list",
        CopyKind::Pickle,
        0,
        "object_list",
        true,
    ),
    (
        "torch.distributed.distributed_c10d.broadcast_object_list",
        CopyKind::Pickle,
        0,
        "object_list",
        true,
    ),
    (
        "torch.distributed.all_gather_object",
        CopyKind::Pickle,
        1,
        "obj",
        false,
    ),
    (
        "torch.distributed.distributed_c10d.all_gather_object",
        CopyKind::Pickle,
        1,
        "obj",
        false,
    ),
    (
        "torch.distributed.gather_object",
        CopyKind::Pickle,
        0,
        "obj",
        false,
    ),
    (
        "torch.distributed.distributed_c10d.gather_object",
        CopyKind::Pickle,
        0,
        "obj",
        false,
    ),
];

/// The last segments of the [`COPY_FUNCTIONS`] paths (a test holds them to it).
const COPY_NAMES: &[&str] = &[
    "deepcopy",
    "copy",
    "dump",
    "dumps",
    "save",
    "broadcast_object_list",
    "all_gather_object",
    "gather_object",
];

/// Whether a file may copy or pickle an object: one of its names, or a string, is the last
/// segment of a [`COPY_FUNCTIONS`] path. A copy site's callee resolves to such a path within
/// the file, by an attribute (`copy.deepcopy`) or a name an import binds (`from torch import
/// save as s`), so its last segment is written in the file. (A name that is not ASCII may be
/// normalized by the parser: it counts too.)
pub fn may_copy(tokens: &ruff_python_ast::token::Tokens, text: &str) -> bool {
    use ruff_python_ast::token::TokenKind;
    let named = |word: &str| COPY_NAMES.contains(&word);
    tokens.iter().any(|t| {
        let written = text.get(t.range().start().to_usize()..t.range().end().to_usize());
        let Some(written) = written else {
            return false;
        };
        match t.kind() {
            TokenKind::Name => !written.is_ascii() || named(written),
            TokenKind::String => named(
                written
                    .trim_start_matches(|c: char| c.is_ascii_alphabetic())
                    .trim_matches(|c| c == '"' || c == '\''),
            ),
            TokenKind::FStringMiddle | TokenKind::TStringMiddle => named(written),
            _ => false,
        }
    })
}

/// Special methods that decide how an object is copied or pickled.
const HOOKS: &[&str] = &[
    "__deepcopy__",
    "__copy__",
    "__getstate__",
    "__reduce__",
    "__reduce_ex__",
];

const BUILTINS: &[&str] = &["dict", "list", "tuple", "set", "super", "getattr"];

mod exprs;
mod walker;

pub use walker::extract;

struct Deferred<'a> {
    def: &'a ast::StmtFunctionDef,
    class: Option<usize>,
    id: u32,
}

/// A function being walked.
struct Frame {
    env: HashMap<String, Val>,
    id: u32,
    class: Option<usize>,
}

struct Walker<'a> {
    text: &'a str,
    out: FileFacts,
    /// Module-level bindings.
    module: HashMap<String, Val>,
    /// The functions being walked, innermost last (empty at module level).
    frames: Vec<Frame>,
    next_id: u32,
    depth: usize,
    stmt_start: TextSize,
    deferred: Vec<Deferred<'a>>,
    /// Calls of [`Walker::val`].
    steps: std::cell::Cell<u64>,
}

/// A string key of a dict or subscript, interned; a key too long to be a name (the only keys
/// the rule looks up) is kept as one that matches no name, so the table of names stays small.
fn key_atom(s: &str) -> Atom {
    if s.len() <= 128 {
        atom(s)
    } else {
        "\u{0}long key"
    }
}

/// `a_very_long_expression(...)` shortened for messages.
fn shorten(s: &str) -> String {
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 40 {
        let head: String = one_line.chars().take(37).collect();
        format!("{head}...")
    } else {
        one_line
    }
}

/// The calls in an expression, outermost first (not inside lambdas).
fn collect_calls<'a>(
    e: &'a Expr,
    out: &mut Vec<&'a ast::ExprCall>,
    attrs: &mut Vec<&'a ast::ExprAttribute>,
    depth: usize,
) {
    use ruff_python_ast::visitor::{self, Visitor};
    struct V<'a, 'o> {
        out: &'o mut Vec<&'a ast::ExprCall>,
        attrs: &'o mut Vec<&'a ast::ExprAttribute>,
        depth: usize,
    }
    impl<'a> Visitor<'a> for V<'a, '_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.depth >= MAX_DEPTH {
                return;
            }
            if let Expr::Lambda(_) = e {
                return;
            }
            if let Expr::Call(c) = e {
                self.out.push(c);
            }
            if let Expr::Attribute(a) = e {
                if matches!(&*a.value, Expr::Name(_)) {
                    self.attrs.push(a);
                }
            }
            self.depth += 1;
            visitor::walk_expr(self, e);
            self.depth -= 1;
        }
    }
    let mut v = V { out, attrs, depth };
    v.visit_expr(e);
}

/// `a`, `a.b.c`: names and attributes only.
fn is_dotted_name(mut e: &Expr) -> bool {
    loop {
        match e {
            Expr::Name(_) => return true,
            Expr::Attribute(a) => e = &a.value,
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(src: &str) -> FileFacts {
        let parsed = ruff_python_parser::parse_module(src).expect("parses");
        extract(parsed.suite(), src)
    }

    /// Every file with a copy site is one `may_copy` keeps (the others are read only when
    /// AC010 follows an object into them); a mention in a comment or in prose is not a name.
    #[test]
    fn copy_names_are_the_last_segments_of_the_copy_functions() {
        let mut last: Vec<&str> = COPY_FUNCTIONS
            .iter()
            .map(|c| c.0.rsplit('.').next().unwrap_or(c.0))
            .collect();
        last.sort_unstable();
        last.dedup();
        let mut names = COPY_NAMES.to_vec();
        names.sort_unstable();
        assert_eq!(last, names);
    }

    #[test]
    fn may_copy_keeps_every_file_with_a_copy_site() {
        let may = |src: &str| {
            let parsed = ruff_python_parser::parse_module(src).expect("parses");
            may_copy(parsed.tokens(), src)
        };
        let copying = [
            "import copy\nb = copy.deepcopy(a)\n",
            "from copy import deepcopy as dc\nb = dc(a)\n",
            "import torch as th\nth.save(m, 'p')\n",
            "from torch import *\nsave(m, 'p')\n",
            "import pickle\nf = pickle.dumps\nf(m)\n",
            "import torch.distributed as d\nd.broadcast_object_list([m])\n",
            "import copy\nf = getattr(copy, 'copy')\n",
        ];
        for src in copying {
            // (The walker does not follow a star import or `getattr`: kept all the same.)
            let unfollowed = src.contains('*') || src.contains("getattr");
            assert!(unfollowed || !facts(src).copies.is_empty(), "{src}");
            assert!(may(src), "{src}");
        }
        let quiet = [
            "# You may obtain a copy of the License\nimport torch\nx = torch.zeros(1)\n",
            "def f(model):\n    \"\"\"Save a copy.\"\"\"\n    return model.save_pretrained('p')\n",
            "class Model:\n    def __init__(self, group):\n        self.group = group\n",
        ];
        for src in quiet {
            assert!(facts(src).copies.is_empty(), "{src}");
            assert!(!may(src), "{src}");
        }
    }

    #[test]
    fn kwargs_dict_and_stores_are_traced() {
        let f = facts(
            "\
from copy import deepcopy
from .model import Model

class M:
    def __init__(self, cfg, process_group=None):
        super().__init__()
        self.process_group = process_group

def main(plugin):
    kwargs = dict(process_group=plugin.tp_group)
    model = Model(cfg, **kwargs)
    ema = deepcopy(model)
",
        );
        assert_eq!(f.classes.len(), 1);
        let c = &f.classes[0];
        assert_eq!(c.stores.len(), 1);
        assert_eq!(c.stores[0].attr, "process_group");
        assert!(matches!(&c.stores[0].val, Val::Param(p) if p.name == "process_group"));
        assert_eq!(c.supers.len(), 1);
        assert_eq!(f.copies.len(), 1);
        let site = &f.copies[0];
        assert_eq!(site.written, "deepcopy(model)");
        let Val::Call(call) = &site.arg else {
            panic!("{:?}", site.arg)
        };
        assert_eq!(call.func, Val::Ref(".model.Model"));
        assert_eq!(call.splats.len(), 1);
        assert!(matches!(&call.splats[0].0, Val::Dict(e) if e[0].0 == Some("process_group")));
    }

    #[test]
    fn copies_through_aliases_and_keywords() {
        let f = facts(
            "\
import copy as cp
import torch
import torch.distributed as dist
x = 1
cp.deepcopy(x)
torch.save(obj=x, f='a')
dist.broadcast_object_list([x], src=0)
copy.deepcopy(x)
",
        );
        let funcs: Vec<&str> = f.copies.iter().map(|c| c.func.as_str()).collect();
        assert_eq!(
            funcs,
            [
                "copy.deepcopy",
                "torch.save",
                "torch.distributed.broadcast_object_list"
            ]
        );
    }
}
