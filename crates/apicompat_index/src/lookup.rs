//! Whether a dotted path exists in one release: followed through re-exports, registered
//! modules, class bases, and open or compiled modules.

use apicompat_surface::{Kind, Symbol};

use crate::reader::{FacetId, PackageIndex};
use crate::IndexError;

/// What one release says about a path.
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

/// Base classes from outside the package that add no names other than dunders.
const PLAIN_BASES: &[&str] = &[
    "object",
    "Generic",
    "Protocol",
    "ABC",
    "NamedTuple",
    "TypedDict",
];

/// Resolves `path` in release number `release` of `index`.
pub fn status(index: &PackageIndex, path: &str, release: usize) -> Result<Status, IndexError> {
    let mut segments = path.split('.');
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
    for seg in segments {
        match member(index, &cur, facet, seg, release, 0)? {
            Step::Found(p, f) => {
                cur = p;
                facet = f;
            }
            Step::Missing => {
                return Ok(Status::Absent {
                    missing: format!("{cur}.{seg}"),
                })
            }
            Step::Unknown(reason) => return Ok(Status::Unknown { reason }),
        }
    }
    Ok(Status::Present {
        path: cur,
        symbol: index.symbol(facet)?,
    })
}

enum Step {
    Found(String, FacetId),
    Missing,
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
    let direct = format!("{cur}.{seg}");
    if let Some(f) = index.facet_in(&direct, release)? {
        return Ok(Step::Found(direct, f));
    }
    let (kind, open, opaque) = index.kind(facet)?;
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
        Kind::Module if open => Ok(Step::Unknown(format!(
            "`{cur}` answers attributes dynamically"
        ))),
        Kind::Module => Ok(Step::Missing),
        Kind::Class => class_member(index, cur, &symbol, seg, release, depth),
        _ => Ok(Step::Unknown(format!(
            "`{cur}` is a {}; its attributes are not indexed",
            kind.as_str()
        ))),
    }
}

fn class_member(
    index: &PackageIndex,
    cur: &str,
    class: &Symbol,
    seg: &str,
    release: usize,
    depth: usize,
) -> Result<Step, IndexError> {
    if class.open {
        return Ok(Step::Unknown(format!("`{cur}` defines `__getattr__`")));
    }
    if seg.starts_with("__") && seg.ends_with("__") {
        return Ok(Step::Unknown(format!("`{seg}` may come from `object`")));
    }
    let mut unknown_base = None;
    for base in &class.bases {
        match index.facet_in(base, release)? {
            Some(f) if index.kind(f)?.0 == Kind::Class => {
                match member(index, base, f, seg, release, depth + 1)? {
                    Step::Missing => {}
                    found @ Step::Found(..) => return Ok(found),
                    Step::Unknown(reason) => unknown_base = Some(reason),
                }
            }
            _ => {
                let last = base.rsplit('.').next().unwrap_or(base);
                if !PLAIN_BASES.contains(&last) {
                    unknown_base = Some(format!(
                        "`{cur}` has base class `{base}`, which is not indexed"
                    ));
                }
            }
        }
    }
    Ok(match unknown_base {
        Some(reason) => Step::Unknown(reason),
        None => Step::Missing,
    })
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
