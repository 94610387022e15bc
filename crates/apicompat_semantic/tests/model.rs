//! The model on small projects against a fake index: scopes, bindings, classes, returns and
//! the honesty rules (exact vs bound, unknown where the model cannot know).

use std::collections::HashMap;

use apicompat_semantic::{
    extract, Found, IndexQuery, Model, ModuleFacts, ModuleName, PathKind, Receiver,
};
use ruff_python_ast::PySourceType;

/// `lib` is an indexed package: `lib.Opt` (a class with `step`, `to` returning `Self`,
/// `clone` returning `T`, `peer` returning `Other`), `lib.Other`, `lib.make` (returns `Opt`).
struct Fake(HashMap<&'static str, Found>);

fn fake() -> Fake {
    let mut m = HashMap::new();
    let mut add = |path: &'static str, kind, returns: Option<&str>| {
        m.insert(
            path,
            Found {
                kind,
                canonical: path.to_string(),
                returns: returns.map(str::to_string),
            },
        );
    };
    add("lib", PathKind::Module, None);
    add("lib.Opt", PathKind::Class, None);
    add("lib.Other", PathKind::Class, None);
    add("lib.T", PathKind::Other, None);
    add("lib.Opt.step", PathKind::Function, None);
    add("lib.Opt.to", PathKind::Function, Some("Self"));
    add("lib.Opt.clone", PathKind::Function, Some("T"));
    add("lib.Opt.peer", PathKind::Function, Some("Other"));
    add("lib.make", PathKind::Function, Some("Optional[Opt]"));
    Fake(m)
}

impl IndexQuery for Fake {
    fn is_indexed_root(&self, root: &str) -> bool {
        root == "lib"
    }
    fn lookup(&self, path: &str) -> Option<Found> {
        self.0.get(path).cloned()
    }
}

fn facts(source: &str, name: &str) -> (ModuleName, ModuleFacts) {
    let parsed = ruff_python_parser::parse_unchecked_source(source, PySourceType::Python);
    let module = ModuleName {
        name: Some(name.to_string()),
        is_package: false,
        aliases: Vec::new(),
    };
    let f = extract(parsed.suite(), &module);
    (module, f)
}

/// The receiver of every attribute read named `probe` in module 0, in source order: the
/// indexed class, and whether the object is exactly of it.
fn probes(model: &Model, name: &str) -> Vec<Option<(String, bool)>> {
    model.modules()[0]
        .sites
        .iter()
        .filter(|s| s.name == name)
        .map(|s| model.receiver(0, s).map(|r: Receiver| (r.class, r.exact)))
        .collect()
}

fn exact(class: &str) -> Option<(String, bool)> {
    Some((class.to_string(), true))
}

fn bound(class: &str) -> Option<(String, bool)> {
    Some((class.to_string(), false))
}

fn run(source: &str) -> Vec<Option<(String, bool)>> {
    let index = fake();
    let model = Model::new(vec![facts(source, "main")], &index);
    probes(&model, "probe")
}

#[test]
fn constructors_annotations_and_returns() {
    let got = run("import lib\nfrom lib import Opt\n\ndef f(a: lib.Opt, b: \"Optional[Opt]\", c):\n    x = Opt()\n    x.probe\n    a.probe\n    b.probe\n    c.probe\n    lib.make().probe\n    x.to().probe\n    a.to().probe\n    x.clone().probe\n    x.peer().probe\n");
    // `c.probe`: an unannotated parameter of a function nobody calls is unknown.
    assert_eq!(
        got,
        [
            exact("lib.Opt"),
            bound("lib.Opt"),
            bound("lib.Opt"),
            None,
            bound("lib.Opt"),
            exact("lib.Opt"),
            bound("lib.Opt"),
            exact("lib.Opt"),
            bound("lib.Other"),
        ]
    );
}

#[test]
fn scopes_follow_python() {
    let got = run("import lib\n\nx = lib.Opt()\n\nclass C:\n    x = 1\n    def m(self):\n        x.probe\n\ndef g():\n    global y\n    y = lib.Other()\n\ndef h():\n    y.probe\n    [x.probe for x in range(3)]\n    x = None\n    x.probe\n");
    // In a method the class body is not visible; `global` binds the module's name; a
    // comprehension's target hides the outer name (that read is not even recorded); a local
    // `x = None` hides the global.
    assert_eq!(got, [exact("lib.Opt"), exact("lib.Other"), None]);
}

#[test]
fn nonlocal_names_are_the_enclosing_functions() {
    let got = run("import lib\n\ndef outer():\n    x = lib.Opt()\n    def inner():\n        nonlocal x\n        x.probe\n    def other():\n        nonlocal x\n        x = None\n        x.probe\n");
    // A read after `nonlocal x` finds the enclosing binding; a binding after it is kept (the
    // model does not write it back into the enclosing scope), so that read is unknown.
    assert_eq!(got, [exact("lib.Opt"), None]);
}

#[test]
fn attributes_stored_by_every_class_of_the_hierarchy() {
    let got = run("import lib\n\nclass Base:\n    def __init__(self, opt):\n        self.opt = opt\n        self.other = lib.Other()\n\nclass Sub(Base):\n    def __init__(self, opt):\n        super().__init__(opt)\n        if opt:\n            self.opt = lib.Opt()\n        self.other = lib.Other()\n\n    def f(self):\n        self.opt.probe\n        self.other.probe\n");
    // `Base` stores whatever it is given (unknown): `Sub`'s own store does not decide the
    // type alone. Where every class stores the same class, it is known.
    assert_eq!(got, [None, exact("lib.Other")]);
}

#[test]
fn rebinding_through_the_name_itself() {
    let got = run("import lib\n\ndef f():\n    m = lib.Opt()\n    m = m.to()\n    m.probe\n    n = lib.Opt()\n    n = n.peer()\n    n.probe\n");
    // `m.to()` gives nothing new; `n.peer()` gives another class: unknown.
    assert_eq!(got, [exact("lib.Opt"), None]);
}

#[test]
fn project_classes_and_their_indexed_bases() {
    let got = run("import lib\n\nclass Mine(lib.Opt):\n    def own(self):\n        pass\n\nclass Open(lib.Opt):\n    def __getattr__(self, name):\n        return 1\n\nclass Two(lib.Opt, lib.Other):\n    pass\n\nclass Holder:\n    def __init__(self):\n        self.opt = Mine()\n\ndef f(h: Holder):\n    Mine().probe\n    Open().probe\n    Two().probe\n    h.opt.probe\n    Mine().own\n");
    assert_eq!(got, [exact("lib.Opt"), None, None, exact("lib.Opt")]);
}

#[test]
fn containers_unpacking_and_other_modules() {
    let index = fake();
    let state = facts(
        "import lib\n\nOPT = lib.Opt()\nCLASSES = {\"a\": lib.Opt}\n",
        "state",
    );
    let main = facts(
        "from state import OPT, CLASSES\nimport lib\n\ndef f(k):\n    OPT.probe\n    CLASSES[k]().probe\n    a, b = lib.Opt(), lib.Other()\n    b.probe\n    first, *rest = [lib.Opt()]\n    first.probe\n",
        "main",
    );
    let model = Model::new(vec![main, state], &index);
    assert_eq!(
        probes(&model, "probe"),
        [
            exact("lib.Opt"),
            exact("lib.Opt"),
            exact("lib.Other"),
            exact("lib.Opt")
        ]
    );
}

#[test]
fn cycles_and_deep_chains_end() {
    // Mutually recursive functions, a self-referential class attribute and a 3,000-link
    // chain: every query ends, unknown where it cannot be known.
    let chain = ".to()".repeat(3000);
    let src = format!("import lib\n\ndef f():\n    return g()\n\ndef g():\n    return f()\n\nclass A:\n    def __init__(self):\n        self.a = self.a\n\ndef h():\n    f().probe\n    A().a.probe\n    lib.Opt(){chain}.probe\n");
    let got = run(&src);
    assert_eq!(got.len(), 3);
    assert_eq!(&got[..2], [None, None]);
}

#[test]
fn isinstance_tests_narrow_where_they_hold_or_failed() {
    let got = run("import lib\nfrom lib import Opt, Other\n\nclass Mine(lib.Opt):\n    pass\n\ndef f(x, y: \"Union[Opt, Other]\", items):\n    if isinstance(x, Opt):\n        x.probe\n    x.probe\n    if isinstance(y, Opt):\n        y.probe\n    else:\n        y.probe\n    if not isinstance(x, lib.Opt):\n        return\n    x.probe\n    for m in items:\n        if isinstance(m, (Opt, Other)):\n            m.probe\n    [m.probe for m in items if isinstance(m, Other)]\n    isinstance(items, Opt) and items.probe\n    z = Mine()\n    if isinstance(z, Opt):\n        z.probe\n    def inner():\n        x.probe\n");
    // An unannotated parameter nobody passes is unknown until a test holds; a union keeps
    // the tested alternative, its `else` the others; the code after `if not isinstance(...):
    // return` is where it held; a tuple of classes is a union; comprehension conditions and
    // `and` operands hold for what follows them; an exact object of a subclass stays exact;
    // a nested function runs later (the test says nothing there).
    assert_eq!(
        got,
        [
            bound("lib.Opt"),
            None,
            bound("lib.Opt"),
            bound("lib.Other"),
            bound("lib.Opt"),
            bound("lib.Opt"),
            bound("lib.Other"),
            bound("lib.Opt"),
            exact("lib.Opt"),
            None,
        ]
    );
}

#[test]
fn a_binding_of_the_tested_name_ends_the_test() {
    let got = run("import lib\nfrom lib import Opt\n\ndef f(x, h):\n    if isinstance(x, Opt):\n        x.probe\n        x = make()\n        x.probe\n    if isinstance(h.opt, Opt):\n        h.opt.probe\n        h.opt.step().probe\n        h.opt = None\n        h.opt.probe\n    while isinstance(x, Opt):\n        x.probe\n    assert isinstance(h, Opt)\n    h.probe\n");
    // After `x = make()` the test no longer holds; attributes of parameters narrow too, and so
    // do `while` tests and `assert`.
    assert_eq!(
        got,
        [
            bound("lib.Opt"),
            None,
            bound("lib.Opt"),
            None,
            None,
            bound("lib.Opt"),
            bound("lib.Opt")
        ]
    );
}

#[test]
fn super_is_an_object_of_the_one_base() {
    let got = run("import lib\n\nclass Mine(lib.Opt):\n    def f(self):\n        super().probe\n        super(Mine, self).probe\n\n    @staticmethod\n    def s():\n        super().probe\n\n    def g(self):\n        def inner():\n            super().probe\n        [super().probe for _ in range(2)]\n\nclass Two(lib.Opt, lib.Other):\n    def f(self):\n        super().probe\n\nclass Over(Mine):\n    def probe(self):\n        pass\n\nclass Below(Over):\n    def f(self):\n        super().probe\n\nclass Plain:\n    def f(self):\n        super().probe\n");
    // Only directly in a method of a class with one base; a project base that defines the
    // member answers it itself (not the index); a class without a base derives from `object`.
    assert_eq!(
        got,
        [
            bound("lib.Opt"),
            bound("lib.Opt"),
            None,
            None,
            None,
            None,
            None,
            None
        ]
    );
}
