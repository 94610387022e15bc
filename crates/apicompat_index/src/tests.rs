//! Index building, reading and lookups on small surfaces.

use apicompat_surface::{Kind, Param, ParamKind, Signature, Surface, Symbol};

use crate::{ranges, status, IndexBuilder, PackageIndex, Status};

fn sym(kind: Kind) -> Symbol {
    Symbol {
        kind: Some(kind),
        ..Symbol::default()
    }
}

fn surface(version: &str, entries: &[(&str, Symbol)]) -> Surface {
    Surface {
        package: "pkg".into(),
        version: version.into(),
        symbols: entries
            .iter()
            .map(|(p, s)| (p.to_string(), s.clone()))
            .collect(),
        ..Surface::default()
    }
}

fn releases() -> Vec<Surface> {
    let class = |bases: &[&str]| Symbol {
        kind: Some(Kind::Class),
        bases: bases.iter().map(|b| b.to_string()).collect(),
        ..Symbol::default()
    };
    let alias = |kind, canonical: &str| Symbol {
        kind: Some(kind),
        canonical: Some(canonical.into()),
        ..Symbol::default()
    };
    let f = Symbol {
        kind: Some(Kind::Function),
        signatures: vec![Signature {
            params: vec![Param {
                name: "x".into(),
                kind: ParamKind::PositionalOrKeyword,
                default: false,
                annotation: Some("int".into()),
            }],
            returns: None,
        }],
        deprecated: Some("use g".into()),
        ..Symbol::default()
    };
    let open_module = Symbol {
        kind: Some(Kind::Module),
        open: true,
        ..Symbol::default()
    };
    vec![
        surface(
            "1.10.0",
            &[
                ("pkg", sym(Kind::Module)),
                ("pkg.old", sym(Kind::Module)),
                ("pkg.old.Base", class(&["object"])),
                ("pkg.old.Base.method", f.clone()),
                ("pkg.old.Thing", class(&["pkg.old.Base"])),
                ("pkg.old.Ext", class(&["external.Foreign"])),
                ("pkg.lazy", open_module.clone()),
            ],
        ),
        surface(
            "1.9.0",
            &[("pkg", sym(Kind::Module)), ("pkg.old", sym(Kind::Module))],
        ),
        surface(
            "2.0.0",
            &[
                ("pkg", sym(Kind::Module)),
                ("pkg.new", sym(Kind::Module)),
                ("pkg.new.Thing", class(&[])),
                ("pkg.new.Thing.method", f),
                ("pkg.Thing", alias(Kind::Class, "pkg.new.Thing")),
                ("pkg.old", alias(Kind::Module, "pkg.new")),
            ],
        ),
    ]
}

fn build(surfaces: &[Surface]) -> Vec<u8> {
    let mut b = IndexBuilder::new("pkg");
    for s in surfaces {
        b.add(s).unwrap();
    }
    b.finish().unwrap()
}

#[test]
fn releases_are_ordered_by_version_and_bytes_are_reproducible() {
    let mut surfaces = releases();
    let a = build(&surfaces);
    surfaces.reverse();
    let b = build(&surfaces);
    assert_eq!(
        a, b,
        "the same surfaces in another order must give the same bytes"
    );
    let index = PackageIndex::from_bytes(&a).unwrap();
    let versions: Vec<_> = index
        .releases()
        .iter()
        .map(|r| r.version.as_str())
        .collect();
    assert_eq!(versions, ["1.9.0", "1.10.0", "2.0.0"]);
    assert_eq!(index.roots(), ["pkg"]);
    index.validate().unwrap();
}

#[test]
fn wheel_pythons_filled_in_give_the_bytes_the_builder_writes() {
    let plain = releases();
    let mut tagged = releases();
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let wheels = |v: &str| match v {
        "1.9.0" => Some((
            strings(&["3.8", "3.9"]),
            strings(&["linux_x86_64", "macos_x86_64"]),
        )),
        "2.0.0" => Some((strings(&["3.8+"]), Vec::new())),
        _ => None,
    };
    for s in &mut tagged {
        let (pythons, platforms) = wheels(&s.version).unwrap_or_default();
        s.meta.wheel_pythons = pythons;
        s.meta.wheel_platforms = platforms;
    }
    let filled = PackageIndex::from_bytes(&build(&plain))
        .unwrap()
        .with_wheels(&wheels)
        .unwrap();
    assert_eq!(filled, build(&tagged));
    let index = PackageIndex::from_bytes(&filled).unwrap();
    index.validate().unwrap();
    let h = &index.releases()[0];
    assert!(h.has_wheel_for(3, 9) && !h.has_wheel_for(3, 10));
    assert_eq!(h.wheel_pythons_text(), "3.8 - 3.9");
    assert!(h.has_wheel_on("macos_x86_64") && !h.has_wheel_on("macos_arm64"));
    assert!(
        index.releases()[2].has_wheel_on("macos_arm64"),
        "empty: any platform"
    );
    let abi3 = &index.releases()[2];
    assert!(abi3.has_wheel_for(3, 14) && !abi3.has_wheel_for(3, 7));
    assert_eq!(abi3.wheel_pythons_text(), "3.8 and newer");
    assert!(
        index.releases()[1].has_wheel_for(2, 7),
        "empty: no narrowing"
    );
    // Releases without the field are written as before.
    let plain = PackageIndex::from_bytes(&build(&plain)).unwrap();
    let json = serde_json::to_string(&plain.releases()[0]).unwrap();
    assert!(!json.contains("wheel_pythons"), "{json}");
}

#[test]
fn lookups_follow_aliases_and_bases() {
    let index = PackageIndex::from_bytes(&build(&releases())).unwrap();
    let st = |p: &str, r: usize| status(&index, p, r).unwrap();
    // Inherited member.
    assert!(st("pkg.old.Thing.method", 1).is_present());
    assert!(st("pkg.old.Thing.method", 0).is_absent());
    // Through a module alias and a class re-export.
    match st("pkg.old.Thing.method", 2) {
        Status::Present { path, symbol } => {
            assert_eq!(path, "pkg.new.Thing.method");
            assert_eq!(symbol.deprecated.as_deref(), Some("use g"));
            assert_eq!(symbol.signatures[0].render(), "(x: int)");
        }
        other => panic!("{other:?}"),
    }
    assert!(st("pkg.Thing.method", 2).is_present());
    // Absent member of a class with plain bases; unknown through a foreign base.
    assert_eq!(
        st("pkg.old.Base.nothing", 1),
        Status::Absent {
            missing: "pkg.old.Base.nothing".into()
        }
    );
    assert!(matches!(
        st("pkg.old.Ext.anything", 1),
        Status::Unknown { .. }
    ));
    // Open module: unknown, not absent.
    assert!(matches!(st("pkg.lazy.anything", 1), Status::Unknown { .. }));
    assert!(st("pkg.lazy", 2).is_absent());
    assert!(st("other.thing", 0).is_absent());
}

#[test]
fn corrupt_bytes_are_errors_not_panics() {
    let good = build(&releases());
    assert!(PackageIndex::from_bytes(&[]).is_err());
    assert!(PackageIndex::from_bytes(b"not an index at all").is_err());
    assert!(PackageIndex::from_bytes(&good[..good.len() / 2]).is_err());
    // Flip bytes of the decompressed payload and recompress: reading must fail cleanly or
    // succeed, never panic.
    let raw = lz4_flex::decompress_size_prepended(&good).unwrap();
    for i in (0..raw.len()).step_by(7) {
        let mut bad = raw.clone();
        bad[i] ^= 0x5a;
        let bytes = lz4_flex::compress_prepend_size(&bad);
        if let Ok(index) = PackageIndex::from_bytes(&bytes) {
            let _ = index.validate();
            for r in 0..index.releases().len() {
                let _ = status(&index, "pkg.old.Thing.method", r);
            }
        }
    }
}

#[test]
fn ranges_group_contiguous_releases() {
    let all = ["1.0", "1.1", "2.0", "2.1", "3.0"];
    assert_eq!(
        ranges(&all, &[false, true, true, false, true]),
        ["1.1 - 2.0", "3.0"]
    );
    assert!(ranges(&all, &[false; 5]).is_empty());
}

#[test]
fn extensible_modules_make_never_defined_names_unknown() {
    let module = |extensible| Symbol {
        kind: Some(Kind::Module),
        extensible,
        importable: true,
        ..Symbol::default()
    };
    let surfaces = [
        surface("1.0", &[("pkg", module(true)), ("pkg.sub", module(false))]),
        surface(
            "2.0",
            &[
                ("pkg", module(true)),
                ("pkg.sub", module(false)),
                ("pkg.compile", sym(Kind::Function)),
            ],
        ),
    ];
    let bytes: &'static [u8] = Box::leak(build(&surfaces).into_boxed_slice());
    let embedded: &'static [(&'static str, &'static [u8])] =
        Box::leak(vec![("pkg", bytes)].into_boxed_slice());
    let catalog = crate::Catalog::open(embedded, None);
    let view = catalog.package("pkg").unwrap().unwrap();
    // Defined by a later release: absent in the older one, as usual.
    assert!(view.status("pkg.compile", 0).unwrap().is_absent());
    // Defined by no release of an extensible module: unknown (a plugin may add it).
    assert!(matches!(
        view.status("pkg.npu.device_count", 1).unwrap(),
        Status::Unknown { .. }
    ));
    // Modules that are not extensible keep reporting absences.
    assert!(view.status("pkg.sub.nothing", 1).unwrap().is_absent());
}

#[test]
fn instance_data_getattr_makes_methods_of_other_releases_absent() {
    let class = |bases: &[&str], open, instance_only| Symbol {
        kind: Some(Kind::Class),
        bases: bases.iter().map(|b| b.to_string()).collect(),
        open,
        open_instance_only: instance_only,
        ..Symbol::default()
    };
    let common = |module: Symbol| {
        vec![
            ("pkg", sym(Kind::Module)),
            ("pkg.Module", module),
            ("pkg.Linear", class(&["pkg.Module"], false, false)),
            ("pkg.Proxy", class(&[], true, false)),
        ]
    };
    let mut new = common(class(&["object"], true, true));
    new.push(("pkg.Module.set_submodule", sym(Kind::Function)));
    new.push(("pkg.Module.training", sym(Kind::Attribute)));
    new.push(("pkg.Linear.extra", sym(Kind::Property)));
    new.push(("pkg.Proxy.set_submodule", sym(Kind::Function)));
    let surfaces = [
        surface("1.0", &common(class(&["object"], true, true))),
        surface("2.0", &new),
    ];
    let index = PackageIndex::from_bytes(&build(&surfaces)).unwrap();
    let st = |p: &str, r: usize| status(&index, p, r).unwrap();
    // A method some release has: absent where it is missing, through subclasses too.
    assert!(st("pkg.Module.set_submodule", 0).is_absent());
    assert!(st("pkg.Linear.set_submodule", 0).is_absent());
    assert!(st("pkg.Linear.set_submodule", 1).is_present());
    // A property of the subclass in another release.
    assert!(st("pkg.Linear.extra", 0).is_absent());
    // Attributes and names no release defines may be registered instance data: unknown.
    assert!(matches!(
        st("pkg.Module.training", 0),
        Status::Unknown { .. }
    ));
    assert!(matches!(st("pkg.Linear.weight", 1), Status::Unknown { .. }));
    // A `__getattr__` that answers anything keeps every missing name unknown.
    assert!(matches!(
        st("pkg.Proxy.set_submodule", 0),
        Status::Unknown { .. }
    ));
    // The flag survives the index.
    let f = index.facet_in("pkg.Module", 0).unwrap().unwrap();
    assert!(index.symbol(f).unwrap().open_instance_only);
}

#[test]
fn standard_library_bases_and_metaclasses_are_known() {
    let class = |bases: &[&str], metaclass: Option<&str>| Symbol {
        kind: Some(Kind::Class),
        bases: bases.iter().map(|b| b.to_string()).collect(),
        metaclass: metaclass.map(str::to_string),
        ..Symbol::default()
    };
    let surfaces = [surface(
        "1.0",
        &[
            ("pkg", sym(Kind::Module)),
            ("pkg._TensorMeta", class(&["type"], None)),
            ("pkg._TensorMeta.meta_prop", sym(Kind::Property)),
            ("pkg._TensorBase", class(&[], Some("pkg._TensorMeta"))),
            ("pkg._TensorBase.add", sym(Kind::Function)),
            ("pkg.Tensor", class(&["pkg._TensorBase"], None)),
            ("pkg.Activity", class(&["enum.Enum"], None)),
            ("pkg.Activity.CPU", sym(Kind::Attribute)),
            ("pkg.Error", class(&["RuntimeError"], None)),
            ("pkg.Foreign", class(&["numpy.ndarray"], None)),
            ("pkg.Meta", class(&[], Some("third.party.Meta"))),
        ],
    )];
    let index = PackageIndex::from_bytes(&build(&surfaces)).unwrap();
    let st = |p: &str| status(&index, p, 0).unwrap();
    // Not a member of the class, its bases, its metaclass or `type`: absent.
    assert!(st("pkg.Tensor.untyped_storage").is_absent());
    assert!(st("pkg.Tensor.add").is_present());
    // The metaclass's members are attributes of the class object.
    assert!(st("pkg.Tensor.meta_prop").is_present());
    match st("pkg.Tensor.mro") {
        Status::Present { path, symbol } => {
            assert_eq!(path, "builtins.type.mro");
            assert_eq!(symbol.kind(), Kind::Function);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(st("pkg.Tensor.mro.x"), Status::Unknown { .. }));
    // Enum members from typeshed; a missing enum member is absent.
    assert!(st("pkg.Activity.CPU").is_present());
    assert!(st("pkg.Activity.value").is_present());
    assert!(st("pkg.Activity.XPU").is_absent());
    assert!(st("pkg.Error.with_traceback").is_present());
    assert!(st("pkg.Error.nothing").is_absent());
    // Bases from outside the standard library stay unknown; an unknown metaclass does not
    // make the instances' members unknown.
    assert!(matches!(st("pkg.Foreign.x"), Status::Unknown { .. }));
    assert!(st("pkg.Meta.x").is_absent());
}

#[test]
fn format_1_indexes_are_still_read() {
    // Written by the format-1 builder from `class _M(type)`, `class C(metaclass=_M)` with a
    // method `f`, and `class E(Exception)`: the metaclass was stored among the bases then.
    let index = PackageIndex::from_bytes(include_bytes!("../tests/data/format1.apix")).unwrap();
    index.validate().unwrap();
    let facet = index.facet_in("pkg.C", 0).unwrap().unwrap();
    let c = index.symbol(facet).unwrap();
    assert_eq!(c.bases, ["pkg._M"]);
    assert_eq!(c.metaclass, None);
    assert!(!c.open_instance_only);
    assert!(status(&index, "pkg.C.f", 0).unwrap().is_present());
    assert!(status(&index, "pkg.C.g", 0).unwrap().is_absent());
    assert!(status(&index, "pkg.E.with_traceback", 0)
        .unwrap()
        .is_present());
    // The lookups by last segment, derived on load (format 3 stores them).
    assert_eq!(index.paths_named("f"), ["pkg.C.f"]);
    assert_eq!(index.subclasses_named("Exception"), ["E"]);
    assert!(
        index.upgraded().is_err(),
        "format 1 facets need their surfaces"
    );
    // This build writes the newer format.
    let raw = lz4_flex::decompress_size_prepended(&build(&releases())).unwrap();
    assert_eq!(raw[7], crate::format::FORMAT);
    assert_eq!(crate::format::FORMAT, 3);
}

#[test]
fn stub_classes_judge_only_names_some_release_declares() {
    let stub_class = |bases: &[&str]| Symbol {
        kind: Some(Kind::Class),
        bases: bases.iter().map(|b| b.to_string()).collect(),
        stub_only: true,
        ..Symbol::default()
    };
    let python_class = Symbol {
        kind: Some(Kind::Class),
        bases: vec!["pkg._C.TensorBase".into()],
        ..Symbol::default()
    };
    let common = || {
        vec![
            ("pkg", sym(Kind::Module)),
            ("pkg._C", sym(Kind::Module)),
            ("pkg._C.Activity", stub_class(&["enum.Enum"])),
            ("pkg._C.Activity.CPU", sym(Kind::Attribute)),
            ("pkg._C.TensorBase", stub_class(&[])),
            ("pkg.Tensor", python_class.clone()),
        ]
    };
    let mut new = common();
    new.push(("pkg._C.Activity.XPU", sym(Kind::Attribute)));
    new.push(("pkg._C.TensorBase.untyped_storage", sym(Kind::Function)));
    let surfaces = [surface("1.0", &common()), surface("2.0", &new)];
    let index = PackageIndex::from_bytes(&build(&surfaces)).unwrap();
    let st = |p: &str, r: usize| status(&index, p, r).unwrap();
    // Declared by a later stub: absent where the stub lacks it, also through a subclass.
    assert!(st("pkg._C.Activity.XPU", 0).is_absent());
    assert!(st("pkg._C.Activity.XPU", 1).is_present());
    assert!(st("pkg.Tensor.untyped_storage", 0).is_absent());
    // Declared by no stub: the compiled class may still have it.
    assert!(matches!(
        st("pkg._C.Activity.MTIA", 1),
        Status::Unknown { .. }
    ));
    assert!(matches!(st("pkg.Tensor.is_xpu", 1), Status::Unknown { .. }));
    let f = index.facet_in("pkg._C.TensorBase", 0).unwrap().unwrap();
    let s = index.symbol(f).unwrap();
    assert!(s.stub_only && !s.open && !s.open_instance_only);
}

/// A standard-library stub module (open, `stub_only`): a name, function or submodule another
/// release declares is absent where this one lacks it; a name no release declares is unknown.
/// A plain open module (another package's stub) leaves both unknown.
#[test]
fn standard_library_stub_modules_judge_names_other_releases_declare() {
    let stub_module = |stub_only: bool| Symbol {
        kind: Some(Kind::Module),
        open: true,
        stub_only,
        ..Symbol::default()
    };
    for stub_only in [true, false] {
        let old = surface(
            "3.10",
            &[
                ("inspect", stub_module(stub_only)),
                ("inspect.getargspec", sym(Kind::Function)),
            ],
        );
        let new = surface(
            "3.11",
            &[
                ("inspect", stub_module(stub_only)),
                ("inspect.sub", stub_module(stub_only)),
            ],
        );
        let index = PackageIndex::from_bytes(&build(&[old, new])).unwrap();
        let st = |p: &str, r: usize| status(&index, p, r).unwrap();
        let f = index.facet_in("inspect", 1).unwrap().unwrap();
        let read = index.symbol(f).unwrap();
        assert_eq!(read.stub_only, stub_only);
        assert!(read.open && !read.open_instance_only);
        assert!(st("inspect.getargspec", 0).is_present());
        assert!(matches!(st("inspect.nothing", 1), Status::Unknown { .. }));
        if stub_only {
            assert!(st("inspect.getargspec", 1).is_absent());
            assert!(st("inspect.sub", 0).is_absent());
        } else {
            assert!(matches!(
                st("inspect.getargspec", 1),
                Status::Unknown { .. }
            ));
            assert!(matches!(st("inspect.sub", 0), Status::Unknown { .. }));
        }
    }
}

/// A compiled class whose stub body is `...` in one release (open there) and lists members
/// in another: every name is unknown where the stub is empty, also names the other release
/// declares; a base the index does not know (`with_metaclass(...)`) leaves names unknown.
#[test]
fn empty_stub_classes_and_unknown_call_bases_leave_names_unknown() {
    let class = |bases: &[&str], open: bool| Symbol {
        kind: Some(Kind::Class),
        bases: bases.iter().map(|b| b.to_string()).collect(),
        stub_only: true,
        open,
        ..Symbol::default()
    };
    let function = |bases: &[&str]| Symbol {
        stub_only: false,
        ..class(bases, false)
    };
    let old = vec![
        ("pkg", sym(Kind::Module)),
        ("pkg._C", sym(Kind::Module)),
        ("pkg._C._FunctionBase", class(&[], true)),
        ("pkg.Function", function(&["pkg._C._FunctionBase"])),
        ("pkg.Function.forward", sym(Kind::Function)),
        ("pkg.Other", function(&["six.with_metaclass(...)"])),
    ];
    let new = vec![
        ("pkg", sym(Kind::Module)),
        ("pkg._C", sym(Kind::Module)),
        ("pkg._C._FunctionBase", class(&[], false)),
        ("pkg._C._FunctionBase.saved_tensors", sym(Kind::Attribute)),
        ("pkg.Function", function(&["pkg._C._FunctionBase"])),
        ("pkg.Function.forward", sym(Kind::Function)),
        ("pkg.Function.apply", sym(Kind::Function)),
        ("pkg.Other", function(&[])),
    ];
    let surfaces = [surface("1.0", &old), surface("2.0", &new)];
    let index = PackageIndex::from_bytes(&build(&surfaces)).unwrap();
    let st = |p: &str, r: usize| status(&index, p, r).unwrap();
    let unknown = |s: Status| matches!(s, Status::Unknown { .. });
    assert!(unknown(st("pkg.Function.apply", 0)));
    assert!(unknown(st("pkg.Function.saved_tensors", 0)));
    assert!(st("pkg.Function.forward", 0).is_present());
    // The release whose stub lists members keeps the stub-class rule.
    assert!(st("pkg.Function.saved_tensors", 1).is_present());
    assert!(unknown(st("pkg.Function.anything", 1)));
    assert!(unknown(st("pkg.Other.anything", 0)));
    assert!(st("pkg.Other.anything", 1).is_absent());
}

/// numpy's migration notes repeat across releases: stored once in the header, read back
/// whole for every release.
#[test]
fn repeated_removal_notes_are_stored_once_and_read_back() {
    let notes = |n: &[(&str, &str)]| {
        n.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let with = |version: &str, removed| {
        let mut s = surface(version, &[("pkg", sym(Kind::Module))]);
        s.meta.removed = removed;
        s
    };
    let long = "Use `np.nan` instead. ".repeat(40);
    let a = notes(&[("pkg.NaN", long.as_str())]);
    let b = notes(&[
        ("pkg.NaN", long.as_str()),
        ("pkg.float_", "Use `np.float64`."),
    ]);
    let surfaces = [
        with("1.0", a.clone()),
        with("1.1", a.clone()),
        with("1.2", b.clone()),
        with("1.3", a.clone()),
        with("1.4", Default::default()),
        with("1.5", b.clone()),
    ];
    let bytes = build(&surfaces);
    let index = PackageIndex::from_bytes(&bytes).unwrap();
    let read: Vec<_> = index.releases().iter().map(|r| r.removed.clone()).collect();
    assert_eq!(
        read,
        [a.clone(), a.clone(), b.clone(), a, Default::default(), b]
    );
    // Each distinct set of notes is in the file once (before compression): 2, not 5.
    let raw = lz4_flex::decompress_size_prepended(&bytes).unwrap();
    assert_eq!(String::from_utf8_lossy(&raw).matches("pkg.NaN").count(), 2);
}

/// A size prefix larger than LZ4 can expand the bytes to is damage: refused before anything
/// is allocated for it.
#[test]
fn an_impossible_size_prefix_is_refused() {
    let mut index = build(&releases());
    index[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = PackageIndex::from_bytes(&index)
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("size prefix"), "{err}");
    assert!(PackageIndex::from_bytes(&[0xff, 0xff]).is_err());
}

/// The data file: written twice the same; a package is read back only when its bytes match the
/// table; a file from another build, cut short or damaged is refused, never trusted.
#[test]
fn data_file_round_trip_and_damage() {
    use crate::catalog::Catalog;
    use crate::datafile::{self, DataSource};
    let index = build(&releases());
    let data = datafile::write(vec![("pkg".into(), index.clone())]).expect("write");
    assert_eq!(
        data,
        datafile::write(vec![("pkg".into(), index.clone())]).expect("write")
    );
    let dir = std::env::temp_dir().join(format!("apicompat-datafile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join("d.apid");
    std::fs::write(&path, &data).expect("write");
    let (toc, _) = datafile::read_toc(&path).expect("toc");
    let entries = datafile::parse_toc(&toc).expect("parse");
    assert_eq!(entries[0].package, "pkg");
    assert_eq!(entries[0].roots, ["pkg"]);

    let open = |p: &std::path::Path| {
        Catalog::open_with_data(&[], DataSource::find(&[p.to_path_buf()], &toc), None)
    };
    let catalog = open(&path);
    assert!(catalog.unavailable().is_empty());
    assert_eq!(catalog.roots("pkg").expect("roots"), ["pkg"]);
    let view = catalog.package("pkg").expect("ok").expect("present");
    assert_eq!(view.releases().len(), releases().len());
    assert_eq!(view.releases()[0].origin.as_str(), "data file");

    // One byte of the payload changed: the table still matches, the index is refused when
    // decoded (its checksum).
    let mut damaged = data.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 0xff;
    std::fs::write(&path, &damaged).expect("write");
    let catalog = open(&path);
    let err = catalog.package("pkg").err().expect("refused").to_string();
    assert!(err.contains("corrupt index"), "{err}");
    assert!(catalog.late_warnings()[0].contains("not trusted"));

    // Cut short, from another build, missing: unavailable with the reason.
    for (bytes, reason) in [
        (data[..20].to_vec(), "cut short"),
        (
            datafile::write(vec![("other".into(), index)]).expect("write"),
            "another build",
        ),
    ] {
        std::fs::write(&path, &bytes).expect("write");
        let catalog = open(&path);
        assert!(catalog.package("pkg").expect("ok").is_none());
        assert!(catalog.unavailable()[0].reason.contains(reason), "{reason}");
    }
    let catalog = open(&dir.join("missing.apid"));
    assert_eq!(catalog.unavailable()[0].package, "pkg");
    assert!(catalog.unavailable()[0].reason.contains("missing"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn attribute_chains_through_a_shadowed_submodule_see_the_object() {
    let module = |shadow: Option<&str>| Symbol {
        kind: Some(Kind::Module),
        importable: true,
        shadow: shadow.map(str::to_string),
        ..Symbol::default()
    };
    let f = Symbol {
        kind: Some(Kind::Function),
        signatures: vec![Signature::default()],
        ..Symbol::default()
    };
    let common = |driver: Symbol, fsdp: Symbol, object: Symbol| {
        vec![
            ("pkg", sym(Kind::Module)),
            ("pkg.runtime", module(None)),
            ("pkg.runtime.driver", driver),
            ("pkg.runtime.driver.DriverConfig", sym(Kind::Class)),
            (
                "pkg.runtime.driver.DriverConfig.active",
                sym(Kind::Property),
            ),
            (
                "pkg.runtime.driver.DriverConfig.set_active",
                sym(Kind::Function),
            ),
            ("pkg.runtime.driver.driver", object),
            ("pkg.fsdp", module(None)),
            ("pkg.fsdp.fully_shard", fsdp),
            ("pkg.fsdp.fully_shard.fully_shard", f.clone()),
        ]
    };
    let instance = Symbol {
        kind: Some(Kind::Attribute),
        instance_of: Some("pkg.runtime.driver.DriverConfig".into()),
        ..Symbol::default()
    };
    let surfaces = [
        // 1.0: the package does not rebind the names.
        surface(
            "1.0",
            &common(module(None), module(None), sym(Kind::Attribute)),
        ),
        surface(
            "2.0",
            &common(
                module(Some("pkg.runtime.driver.driver")),
                module(Some("pkg.fsdp.fully_shard.fully_shard")),
                instance,
            ),
        ),
    ];
    let index = PackageIndex::from_bytes(&build(&surfaces)).unwrap();
    let st = |p: &str, r: usize| status(&index, p, r).unwrap();
    // Attribute access sees the instance: its class's members.
    assert!(st("pkg.runtime.driver.active", 1).is_present());
    assert!(st("pkg.runtime.driver.set_active", 1).is_present());
    assert!(st("pkg.runtime.driver.active", 0).is_absent());
    // Imports from the module still find it.
    assert!(st("pkg.runtime.driver.DriverConfig", 1).is_present());
    assert!(st("pkg.runtime.driver.driver.active", 1).is_present());
    // What neither the object nor the module has is missing.
    assert_eq!(
        st("pkg.runtime.driver.nothing", 1),
        Status::Absent {
            missing: "pkg.runtime.driver.nothing".into()
        }
    );
    // The path itself names the object: a function, whose calls are judged.
    match st("pkg.fsdp.fully_shard", 1) {
        Status::Present { path, symbol } => {
            assert_eq!(path, "pkg.fsdp.fully_shard.fully_shard");
            assert_eq!(symbol.kind(), Kind::Function);
        }
        other => panic!("{other:?}"),
    }
    match st("pkg.fsdp.fully_shard", 0) {
        Status::Present { symbol, .. } => assert_eq!(symbol.kind(), Kind::Module),
        other => panic!("{other:?}"),
    }
    assert!(st("pkg.fsdp.fully_shard.fully_shard", 1).is_present());
    // The fields survive the index.
    let f = index.facet_in("pkg.runtime.driver", 1).unwrap().unwrap();
    assert_eq!(
        index.symbol(f).unwrap().shadow.as_deref(),
        Some("pkg.runtime.driver.driver")
    );
    let f = index
        .facet_in("pkg.runtime.driver.driver", 1)
        .unwrap()
        .unwrap();
    assert_eq!(
        index.symbol(f).unwrap().instance_of.as_deref(),
        Some("pkg.runtime.driver.DriverConfig")
    );
}

/// A predicate's implied paths survive the index, alone and beside an `instance_of`.
#[test]
fn implied_paths_round_trip() {
    let predicate = Symbol {
        kind: Some(Kind::Function),
        implies: vec!["torch.xpu".into(), "torch.xpu.is_available".into()],
        ..Symbol::default()
    };
    let both = Symbol {
        kind: Some(Kind::Attribute),
        instance_of: Some("pkg.C".into()),
        implies: vec!["torch.npu".into()],
        ..Symbol::default()
    };
    let surfaces = [surface(
        "1.0",
        &[
            ("pkg", sym(Kind::Module)),
            ("pkg.C", sym(Kind::Class)),
            ("pkg.is_xpu_available", predicate.clone()),
            ("pkg.obj", both.clone()),
            ("pkg.plain", sym(Kind::Function)),
        ],
    )];
    let bytes = build(&surfaces);
    let index = PackageIndex::from_bytes(&bytes).unwrap();
    let read = |p: &str| {
        index
            .symbol(index.facet_in(p, 0).unwrap().unwrap())
            .unwrap()
    };
    assert_eq!(read("pkg.is_xpu_available").implies, predicate.implies);
    assert_eq!(read("pkg.obj").implies, both.implies);
    assert_eq!(read("pkg.obj").instance_of, both.instance_of);
    assert!(read("pkg.plain").implies.is_empty());
    assert_eq!(read("pkg.plain").instance_of, None);
    // Building twice gives the same bytes.
    assert_eq!(build(&surfaces), bytes);
}
