//! `diff` between two releases of a small package indexed in memory.

use std::collections::BTreeMap;

use apicompat_index::diff::diff;
use apicompat_index::{Catalog, IndexBuilder};
use apicompat_surface::{Kind, Param, ParamKind, Signature, Surface, Symbol};

fn sym(kind: Kind) -> Symbol {
    Symbol {
        kind: Some(kind),
        ..Symbol::default()
    }
}

fn alias(kind: Kind, canonical: &str) -> Symbol {
    Symbol {
        kind: Some(kind),
        canonical: Some(canonical.into()),
        ..Symbol::default()
    }
}

fn param(name: &str, kind: ParamKind, default: bool) -> Param {
    Param {
        name: name.into(),
        kind,
        default,
        annotation: None,
    }
}

fn func(params: Vec<Param>, deprecated: Option<&str>) -> Symbol {
    Symbol {
        kind: Some(Kind::Function),
        signatures: vec![Signature {
            params,
            returns: None,
        }],
        deprecated: deprecated.map(str::to_string),
        ..Symbol::default()
    }
}

fn surface(version: &str, entries: Vec<(&str, Symbol)>) -> Surface {
    Surface {
        package: "pkg".into(),
        version: version.into(),
        symbols: entries
            .into_iter()
            .map(|(p, s)| (p.to_string(), s))
            .collect::<BTreeMap<_, _>>(),
        ..Surface::default()
    }
}

fn catalog() -> Catalog {
    use ParamKind::*;
    let old = surface(
        "1.0.0",
        vec![
            ("pkg", sym(Kind::Module)),
            ("pkg._impl", sym(Kind::Module)),
            ("pkg._impl.Thing", sym(Kind::Class)),
            ("pkg.Thing", alias(Kind::Class, "pkg._impl.Thing")),
            ("pkg.OldName", alias(Kind::Class, "pkg._impl.Thing")),
            ("pkg.gone", sym(Kind::Module)),
            ("pkg.gone.helper", func(vec![], None)),
            (
                "pkg.f",
                func(
                    vec![
                        param("a", PositionalOrKeyword, false),
                        param("b", PositionalOrKeyword, true),
                        param("c", PositionalOrKeyword, true),
                        param("d", PositionalOrKeyword, true),
                    ],
                    None,
                ),
            ),
            (
                "pkg.g",
                func(vec![param("x", PositionalOrKeyword, false)], None),
            ),
            (
                "pkg.h",
                func(
                    vec![
                        param("x", PositionalOrKeyword, false),
                        param("kw", VarKeyword, false),
                    ],
                    None,
                ),
            ),
            ("pkg.typing_any", alias(Kind::Unknown, "typing.Any")),
        ],
    );
    let new = surface(
        "2.0.0",
        vec![
            ("pkg", sym(Kind::Module)),
            ("pkg.core", sym(Kind::Module)),
            ("pkg.core.Thing", sym(Kind::Class)),
            // The old private module is kept as an alias of the new one's class.
            ("pkg._impl", sym(Kind::Module)),
            ("pkg._impl.Thing", alias(Kind::Class, "pkg.core.Thing")),
            ("pkg.Thing", alias(Kind::Class, "pkg.core.Thing")),
            ("pkg.NewName", alias(Kind::Class, "pkg.core.Thing")),
            ("pkg.public", sym(Kind::Module)),
            ("pkg.public.Thing", alias(Kind::Class, "pkg.core.Thing")),
            ("pkg.public.extra", func(vec![], None)),
            (
                "pkg.f",
                func(
                    vec![
                        param("a", PositionalOrKeyword, false),
                        param("b", PositionalOrKeyword, false),
                        param("c", KeywordOnly, true),
                        param("e", KeywordOnly, true),
                    ],
                    None,
                ),
            ),
            (
                "pkg.g",
                func(vec![param("y", PositionalOrKeyword, false)], Some("use h")),
            ),
            (
                "pkg.h",
                func(vec![param("x", PositionalOrKeyword, false)], None),
            ),
            ("pkg.typing_any", alias(Kind::Unknown, "typing.Any")),
        ],
    );
    let mut b = IndexBuilder::new("pkg");
    b.add(&old).unwrap();
    b.add(&new).unwrap();
    let bytes: &'static [u8] = Box::leak(b.finish().unwrap().into_boxed_slice());
    let embedded: &'static [(&'static str, &'static [u8])] =
        Box::leak(vec![("pkg", bytes)].into_boxed_slice());
    Catalog::open(embedded, None)
}

#[test]
fn added_removed_moved_signatures_deprecations() {
    let catalog = catalog();
    let view = catalog.package("pkg").unwrap().unwrap();
    let d = diff(view, 0, 1, "").unwrap();
    assert_eq!((d.from.as_str(), d.to.as_str()), ("1.0.0", "2.0.0"));

    // Modules added with their members counted under them; the public path of the moved class
    // is the same object as the old paths.
    let added: Vec<&str> = d.added.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(added, ["pkg.NewName", "pkg.core", "pkg.public"]);
    let removed: Vec<&str> = d.removed.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(removed, ["pkg.OldName", "pkg.gone"]);

    // One entry per moved object, named by its old definition site, with its re-exports.
    let moved: Vec<(&str, &str, &str, Vec<&str>)> = d
        .moved
        .iter()
        .map(|m| {
            (
                m.path.as_str(),
                m.from.as_str(),
                m.to.as_str(),
                m.also.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        moved,
        [(
            "pkg._impl.Thing",
            "pkg._impl.Thing",
            "pkg.core.Thing",
            vec!["pkg.Thing"]
        )]
    );

    let f = d.signatures.iter().find(|s| s.path == "pkg.f").unwrap();
    assert_eq!(
        f.changes,
        [
            "parameter `d` renamed to `e`",
            "parameter `b` made required",
            "parameter `c` made keyword-only",
        ]
    );
    let h = d.signatures.iter().find(|s| s.path == "pkg.h").unwrap();
    assert_eq!(h.changes, ["no longer accepts **kwargs"]);
    let g = d.signatures.iter().find(|s| s.path == "pkg.g").unwrap();
    assert_eq!(g.changes, ["parameter `x` renamed to `y`"]);
    assert_eq!(d.deprecated.len(), 1);
    assert_eq!(
        (
            d.deprecated[0].path.as_str(),
            d.deprecated[0].message.as_str()
        ),
        ("pkg.g", "use h")
    );

    // Backwards: the public module and the new definition are removed, the old paths still
    // name the same object.
    let back = diff(view, 1, 0, "").unwrap();
    let removed: Vec<&str> = back.removed.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(removed, ["pkg.NewName", "pkg.core", "pkg.public"]);
    assert_eq!(back.added[1].path, "pkg.gone");

    // A prefix limits the comparison.
    let only = diff(view, 0, 1, "pkg.public").unwrap();
    assert_eq!(only.added.len(), 1);
    assert!(only.removed.is_empty() && only.signatures.is_empty());
}

#[test]
fn same_object_and_still_at() {
    let catalog = catalog();
    let view = catalog.package("pkg").unwrap().unwrap();
    // Within `pkg.public`, `Thing` is listed under its module; compare the class paths directly.
    let d = diff(view, 0, 1, "pkg.core.Thing").unwrap();
    assert!(d.added.is_empty(), "counted with pkg.core: {:?}", d.added);
    let d = diff(view, 0, 1, "pkg.public.Thing").unwrap();
    assert!(d.added.is_empty());
    // A new name of the moved class is the same object as the names the old release had for
    // it (found through the move of its definition); a dropped name is still reachable under
    // the others.
    let d = diff(view, 0, 1, "").unwrap();
    let new_name = d.added.iter().find(|a| a.path == "pkg.NewName").unwrap();
    assert_eq!(
        new_name.same_object_as,
        ["pkg.Thing", "pkg.OldName", "pkg._impl.Thing"]
    );
    let old_name = d.removed.iter().find(|r| r.path == "pkg.OldName").unwrap();
    assert_eq!(
        old_name.still_at,
        [
            "pkg.Thing",
            "pkg.NewName",
            "pkg.core.Thing",
            "pkg.public.Thing",
            "pkg._impl.Thing"
        ]
    );
    // Modules have no other names.
    assert!(d
        .added
        .iter()
        .find(|a| a.path == "pkg.core")
        .unwrap()
        .same_object_as
        .is_empty());
}
