//! Whether a dotted path exists in one release: followed through re-exports, registered
//! modules, class bases, and open or compiled modules.

use apicompat_surface::{Kind, Symbol};

use crate::reader::{FacetId, PackageIndex};
use crate::stdlib_classes::{self, StdClass};
use crate::IndexError;

/// What one release says about a path.
// `Present` is the common answer: boxing its symbol would cost an allocation per lookup.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// The release has it. `path` is where it was found (the definition for re-exports of
    /// classes and modules along the way).
    Present { path: String, symbol: Symbol },
    /// The release does not have it: `missing` is the first segment that is not there.
    Absent { missing: String },
    /// It cannot be known statically (an open or compiled module, an attribute of a value, a
    /// base class from outside the package).
    Unknown { reason: String },
}

impl Status {
    pub fn is_present(&self) -> bool {
        matches!(self, Status::Present { .. })
    }

    pub fn is_absent(&self) -> bool {
        matches!(self, Status::Absent { .. })
    }
}

/// The most re-exports and bases followed for one path.
const MAX_STEPS: usize = 64;

/// Resolves `path` in release number `release` of `index`.
pub fn status(index: &PackageIndex, path: &str, release: usize) -> Result<Status, IndexError> {
    let mut segments = path.split('.').peekable();
    let Some(first) = segments.next() else {
        return Ok(Status::Absent {
            missing: String::new(),
        });
    };
    let Some(mut facet) = index.facet_in(first, release)? else {
        return Ok(Status::Absent {
            missing: first.to_string(),
        });
    };
    let mut cur = first.to_string();
    while let Some(seg) = segments.next() {
        match member(index, &cur, facet, seg, release, 0)? {
            Step::Found(p, f) => {
                if let Some(s) = uncertain(index, &p, f)? {
                    return Ok(s);
                }
                cur = p;
                facet = f;
            }
            Step::Std(p, kind) => {
                if segments.peek().is_some() {
                    return Ok(Status::Unknown {
                        reason: format!("`{p}` is outside this package's index"),
                    });
                }
                return Ok(Status::Present {
                    path: p,
                    symbol: Symbol {
                        kind: Some(kind),
                        ..Symbol::default()
                    },
                });
            }
            Step::Missing => {
                return Ok(Status::Absent {
                    missing: format!("{cur}.{seg}"),
                })
            }
            Step::Undeclared { reason, .. } | Step::Unknown(reason) => {
                return Ok(Status::Unknown { reason })
            }
        }
    }
    let symbol = index.symbol(facet)?;
    // A submodule its package binds an object over: the path names that object (what
    // attribute access, `from pkg import sub` and calls see); an import finds either.
    if let Some(object) = symbol.shadow.as_deref() {
        if let Some(f) = index.facet_in(object, release)? {
            return Ok(Status::Present {
                path: object.to_string(),
                symbol: index.symbol(f)?,
            });
        }
    }
    Ok(Status::Present { path: cur, symbol })
}

enum Step {
    Found(String, FacetId),
    /// A member of a standard-library base class (`type.mro`, `Enum.value`).
    Std(String, Kind),
    Missing,
    /// Not a member of the class or its bases, but a class in the chain may have names it
    /// does not list: missing when a class along the chain declares the name in some release
    /// (as a method, property or class only, when `callables`), else unknown.
    Undeclared {
        reason: String,
        callables: bool,
    },
    Unknown(String),
}

/// `seg` looked up on the object at `cur`.
fn member(
    index: &PackageIndex,
    cur: &str,
    facet: FacetId,
    seg: &str,
    release: usize,
    depth: usize,
) -> Result<Step, IndexError> {
    if depth > MAX_STEPS {
        return Ok(Step::Unknown(format!(
            "`{cur}` is defined through too many steps"
        )));
    }
    let (kind, open, opaque) = index.kind(facet)?;
    if kind == Kind::Module {
        if let Some(object) = index.symbol(facet)?.shadow {
            return shadowed_member(index, cur, facet, &object, seg, release, depth);
        }
    }
    let direct = format!("{cur}.{seg}");
    if let Some(f) = index.facet_in(&direct, release)? {
        return Ok(Step::Found(direct, f));
    }
    let symbol = index.symbol(facet)?;
    // A re-exported class or module: look in its definition.
    if let Some(canonical) = symbol.canonical.as_deref().filter(|c| *c != cur) {
        if matches!(kind, Kind::Module | Kind::Class | Kind::Unknown) {
            return match index.facet_in(canonical, release)? {
                Some(f) => member(index, canonical, f, seg, release, depth + 1),
                None => Ok(Step::Unknown(format!(
                    "`{cur}` is `{canonical}`, which is outside this package's index"
                ))),
            };
        }
    }
    match kind {
        Kind::Module if opaque => Ok(Step::Unknown(format!(
            "`{cur}` is a compiled module without a stub"
        ))),
        // A standard-library stub: every version's comes from one typeshed.
        Kind::Module if open && symbol.stub_only => {
            if declared_in_some_release(index, &direct, Declared::Anything)? {
                Ok(Step::Missing)
            } else {
                Ok(Step::Unknown(format!(
                    "`{cur}` is known from its stub, which declares no `{seg}` in any version"
                )))
            }
        }
        Kind::Module if open => Ok(Step::Unknown(format!(
            "`{cur}` answers attributes dynamically"
        ))),
        Kind::Module => Ok(Step::Missing),
        Kind::Class => class_member(index, cur, &symbol, seg, release, depth),
        Kind::Attribute if symbol.instance_of.is_some() => {
            instance_member(index, cur, &symbol, seg, release, depth)
        }
        _ => {
            let what = match kind.as_str() {
                "unknown" => "of a kind the index does not know".to_string(),
                k if k.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {k}"),
                k => format!("a {k}"),
            };
            Ok(Step::Unknown(format!(
                "`{cur}` is {what}; its attributes are not indexed"
            )))
        }
    }
}

/// `seg` on submodule `cur` whose package binds another object under its name (`shadow`,
/// `triton.runtime.driver` is a `DriverConfig()`): attribute access on the package finds the
/// object, `from cur import seg` and names bound by it the module. The path cannot tell which
/// way it was reached, so either view's answer counts: found in either, else unknown in
/// either, else missing. (An attribute chain reading a name only the module has is then
/// taken as present: a missed error, where the other choice would break every import.)
fn shadowed_member(
    index: &PackageIndex,
    cur: &str,
    facet: FacetId,
    object: &str,
    seg: &str,
    release: usize,
    depth: usize,
) -> Result<Step, IndexError> {
    let as_object = match index.facet_in(object, release)? {
        Some(f) => member(index, object, f, seg, release, depth + 1)?,
        None => Step::Unknown(format!(
            "`{cur}` is `{object}`, which is outside this package's index"
        )),
    };
    if matches!(as_object, Step::Found(..) | Step::Std(..)) {
        return Ok(as_object);
    }
    let direct = format!("{cur}.{seg}");
    if let Some(f) = index.facet_in(&direct, release)? {
        return Ok(Step::Found(direct, f));
    }
    // The module's own answer (open, compiled), its shadow aside.
    let (_, open, opaque) = index.kind(facet)?;
    let as_module = if opaque {
        Step::Unknown(format!("`{cur}` is a compiled module without a stub"))
    } else if open {
        Step::Unknown(format!("`{cur}` answers attributes dynamically"))
    } else {
        Step::Missing
    };
    Ok(match as_object {
        Step::Missing => as_module,
        other => other,
    })
}

/// `seg` on an instance (`instance_of`): the members of its class and bases, not those of
/// the class's metaclass (they are attributes of the class object only).
fn instance_member(
    index: &PackageIndex,
    cur: &str,
    instance: &Symbol,
    seg: &str,
    release: usize,
    depth: usize,
) -> Result<Step, IndexError> {
    let Some(class) = instance.instance_of.as_deref() else {
        return Ok(Step::Unknown(format!("`{cur}`'s class is not known")));
    };
    match index.facet_in(class, release)? {
        Some(f) if index.kind(f)?.0 == Kind::Class => {
            let direct = format!("{class}.{seg}");
            if let Some(f) = index.facet_in(&direct, release)? {
                return Ok(Step::Found(direct, f));
            }
            let symbol = Symbol {
                metaclass: None,
                ..index.symbol(f)?
            };
            class_member(index, class, &symbol, seg, release, depth + 1)
        }
        _ => Ok(Step::Unknown(format!(
            "`{cur}` is an instance of `{class}`, which is not a class in this release"
        ))),
    }
}

/// `seg` on a class: its bases in order, then its metaclass (whose members are attributes of
/// the class object), then its `__getattr__`.
fn class_member(
    index: &PackageIndex,
    cur: &str,
    class: &Symbol,
    seg: &str,
    release: usize,
    depth: usize,
) -> Result<Step, IndexError> {
    if class.open && !class.open_instance_only {
        // Open: a `__getattr__`, or a compiled class whose stub declares no members.
        return Ok(Step::Unknown(format!(
            "`{cur}` may answer names it does not declare (`__getattr__`, or a compiled class \
             whose stub lists no members)"
        )));
    }
    if seg.starts_with("__") && seg.ends_with("__") {
        return Ok(Step::Unknown(format!("`{seg}` may come from `object`")));
    }
    let mut unknown_base = None;
    // What this class itself may have beyond its members: the instance's data (callables
    // are still judged), or whatever its compiled definition has beyond the stub.
    let mut undeclared = if class.open {
        Some((
            format!("`{cur}` answers the instance's own data (a `__getattr__` reading it, or attributes set under computed names)"),
            true,
        ))
    } else if class.stub_only {
        Some((
            format!("`{cur}` is compiled; its stub may not declare every member"),
            false,
        ))
    } else {
        None
    };
    for base in &class.bases {
        match base_member(index, cur, base, seg, release, depth)? {
            Step::Missing => {}
            found @ (Step::Found(..) | Step::Std(..)) => return Ok(found),
            Step::Undeclared { reason, callables } => {
                undeclared = Some(match undeclared {
                    Some((r, c)) => (r, c || callables),
                    None => (reason, callables),
                });
            }
            Step::Unknown(reason) => unknown_base = Some(reason),
        }
    }
    // A metaclass's members are attributes of the class object: present when it has the
    // name; what it does not know leaves the instances' members as they are.
    if let Some(meta) = &class.metaclass {
        if let found @ (Step::Found(..) | Step::Std(..)) =
            base_member(index, cur, meta, seg, release, depth)?
        {
            return Ok(found);
        }
    }
    if let Some(reason) = unknown_base {
        return Ok(Step::Unknown(reason));
    }
    match undeclared {
        Some((_, callables))
            if declared_in_some_release(
                index,
                &format!("{cur}.{seg}"),
                if callables {
                    Declared::Callables
                } else {
                    Declared::Members
                },
            )? =>
        {
            // A compiled class whose stub declares a nested class without members (pybind's
            // `py::enum_<...>(cls, "RedOpType").export_values()`): the values may be put on
            // the class itself, whatever this release's stub lists (torch 1.13 - 2.0's
            // `ReduceOp.AVG`, declared from 2.1).
            if class.stub_only {
                if let Some(nested) = memberless_nested_class(index, cur, release)? {
                    return Ok(Step::Undeclared {
                        reason: format!(
                            "`{cur}` is compiled, and its stub declares `{nested}` without members, whose values a compiled enum may put on `{cur}`"
                        ),
                        callables: false,
                    });
                }
            }
            Ok(Step::Missing)
        }
        Some((reason, callables)) => Ok(Step::Undeclared { reason, callables }),
        None => Ok(Step::Missing),
    }
}

/// A class nested in compiled class `cur` that its stub declares with no member in `release`
/// (`class RedOpType: ...`).
fn memberless_nested_class(
    index: &PackageIndex,
    cur: &str,
    release: usize,
) -> Result<Option<String>, IndexError> {
    let prefix = format!("{cur}.");
    // In path order: the members of `cur.N` are the run of paths starting `cur.N.`, found by
    // a binary search, so each path is read at most once more.
    let paths = index.paths_with_prefix(&prefix);
    for path in paths.iter().filter(|p| !p[prefix.len()..].contains('.')) {
        let Some(f) = index.facet_in(path, release)? else {
            continue;
        };
        if index.kind(f)?.0 != Kind::Class {
            continue;
        }
        let inner = format!("{path}.");
        let start = paths.partition_point(|p| p.as_str() < inner.as_str());
        let mut declared = false;
        for member in paths[start..].iter().take_while(|p| p.starts_with(&inner)) {
            if index.facet_in(member, release)?.is_some() {
                declared = true;
                break;
            }
        }
        if !declared {
            return Ok(Some(path.clone()));
        }
    }
    Ok(None)
}

/// `seg` on base class `base` of class `cur`: an indexed class, or a standard-library one.
fn base_member(
    index: &PackageIndex,
    cur: &str,
    base: &str,
    seg: &str,
    release: usize,
    depth: usize,
) -> Result<Step, IndexError> {
    match index.facet_in(base, release)? {
        Some(f) if index.kind(f)?.0 == Kind::Class => {
            member(index, base, f, seg, release, depth + 1)
        }
        Some(_) => Ok(Step::Unknown(format!(
            "`{cur}` has base class `{base}`, which is not a class in this release"
        ))),
        None => Ok(match stdlib_classes::lookup(base) {
            Some(StdClass::Members(members)) => match stdlib_classes::member(members, seg) {
                Some(kind) => Step::Std(format!("{}.{seg}", stdlib_classes::qualified(base)), kind),
                None => Step::Missing,
            },
            Some(StdClass::Incomplete) => Step::Unknown(format!(
                "`{cur}` has base class `{base}`, whose members are not all known"
            )),
            None => Step::Unknown(format!(
                "`{cur}` has base class `{base}`, which is not indexed"
            )),
        }),
    }
}

/// What a release says of `path` found as `facet` when it may not exist
/// (`Symbol::uncertain`): unknown, or absent when another release ships it as a module (a
/// file of the wheel is not a compiled name its stub omits: torch 2.0 - 2.2 read `torch.xpu`
/// in functions, for a module registered from outside; torch ships it from 2.3). None for
/// any other facet.
fn uncertain(
    index: &PackageIndex,
    path: &str,
    facet: FacetId,
) -> Result<Option<Status>, IndexError> {
    let (evidence, uncertain) = index.evidence(facet)?;
    if !uncertain {
        return Ok(None);
    }
    if shipped_as_module(index, path)? {
        return Ok(Some(Status::Absent {
            missing: path.to_string(),
        }));
    }
    let reason = if evidence {
        format!("`{path}` is not declared; the release's own code reads it (not at import time)")
    } else {
        format!("`{path}` is bound only by an import that fails unless a module outside the release and its requirements is installed")
    };
    Ok(Some(Status::Unknown { reason }))
}

/// Whether some release of the index has `path` as a module.
fn shipped_as_module(index: &PackageIndex, path: &str) -> Result<bool, IndexError> {
    for (_, facet) in index.entry(path)? {
        if index.kind(facet)?.0 == Kind::Module {
            return Ok(true);
        }
    }
    Ok(false)
}

/// What [`declared_in_some_release`] counts as declaring a name.
#[derive(Clone, Copy, PartialEq)]
enum Declared {
    /// A method, property or nested class of a class.
    Callables,
    /// Any member of a class (an attribute too).
    Members,
    /// Anything, a submodule too (a standard-library stub module's names).
    Anything,
}

/// Whether some release of the index declares `path`, as `what` counts. A name known only
/// from the release's own reads (`Symbol::evidence`) is not a declaration: it says nothing of
/// other releases.
fn declared_in_some_release(
    index: &PackageIndex,
    path: &str,
    what: Declared,
) -> Result<bool, IndexError> {
    for (_, facet) in index.entry(path)? {
        let counts = match index.kind(facet)?.0 {
            Kind::Function | Kind::Property | Kind::Class => true,
            Kind::Attribute | Kind::Unknown => {
                what != Declared::Callables && !index.evidence(facet)?.0
            }
            Kind::Module => what == Declared::Anything,
        };
        if counts {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether the definition at `def_path` lives in a module whose members cannot all be known
/// (open, compiled, or described only by a stub): its signatures come from a stub then, and
/// a compiled function's argument parser may accept keywords the stub does not list.
pub fn defined_in_open_module(
    index: &PackageIndex,
    def_path: &str,
    release: usize,
) -> Result<bool, IndexError> {
    let mut cur = def_path;
    while let Some((parent, _)) = cur.rsplit_once('.') {
        if let Some(f) = index.facet_in(parent, release)? {
            let (kind, open, opaque) = index.kind(f)?;
            if kind == Kind::Module {
                return Ok(open || opaque);
            }
        }
        cur = parent;
    }
    Ok(false)
}
