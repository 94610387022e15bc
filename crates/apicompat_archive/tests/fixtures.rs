//! Archives and trees the tests build themselves: layouts, metadata fallbacks, and hostile or
//! broken inputs (unsafe paths, zip bombs, truncation, symlink loops...).

use std::io::Write;
use std::path::{Path, PathBuf};

use apicompat_archive::zipwrite::{deflate, small_wheel, RawMember, ZipWriter};
use apicompat_archive::{read_path, read_sdist_bytes, read_zip_bytes, ArchiveError, SourceTree};

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir(name: &str) -> TempDir {
    let p = std::env::temp_dir().join(format!("apicompat-archive-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&p);
    std::fs::create_dir_all(&p).unwrap();
    TempDir(p)
}

fn write(path: &Path, data: &[u8]) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, data).unwrap();
}

fn paths(tree: &SourceTree) -> Vec<&str> {
    tree.files.iter().map(|f| f.path.as_str()).collect()
}

/// A tar.gz; names are written raw into the header, so unsafe names are possible.
/// A `None` body makes a symlink to `../../etc/passwd`.
fn targz(entries: &[(&str, Option<&[u8]>)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, body) in entries {
        let mut header = tar::Header::new_gnu();
        {
            let gnu = header.as_gnu_mut().unwrap();
            gnu.name[..name.len()].copy_from_slice(name.as_bytes());
        }
        header.set_mode(0o644);
        match body {
            Some(data) => {
                header.set_size(data.len() as u64);
                header.set_entry_type(tar::EntryType::Regular);
                header.set_cksum();
                builder.append(&header, *data).unwrap();
            }
            None => {
                header.set_size(0);
                header.set_entry_type(tar::EntryType::Symlink);
                header.set_link_name("../../etc/passwd").unwrap();
                header.set_cksum();
                builder.append(&header, std::io::empty()).unwrap();
            }
        }
    }
    let tar = builder.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    gz.finish().unwrap()
}

#[test]
fn wheel_from_file_and_memory() {
    let dir = tempdir("wheel");
    let path = dir.0.join("pkg-1.0-py3-none-any.whl");
    let data = small_wheel();
    write(&path, &data);
    for tree in [
        read_path(&path, None).unwrap(),
        read_zip_bytes("pkg.whl", &data).unwrap(),
    ] {
        assert_eq!(
            paths(&tree),
            vec![
                "pkg/__init__.py",
                "pkg/_ext.so",
                "pkg/mod.py",
                "pkg/mod.pyi"
            ]
        );
        assert!(tree.file("pkg/_ext.so").unwrap().data.is_empty());
        assert_eq!(
            tree.file("pkg/mod.pyi").unwrap().data,
            b"def f(x: int) -> str: ...\n"
        );
        assert_eq!(tree.top_level, vec!["pkg"]);
        assert_eq!(tree.metadata.name.as_deref(), Some("pkg"));
        assert_eq!(tree.metadata.version.as_deref(), Some("1.0"));
        assert_eq!(tree.metadata.requires_python.as_deref(), Some(">=3.8"));
        assert_eq!(tree.metadata.requires_dist.len(), 2);
        assert!(tree.problems.is_empty(), "{:?}", tree.problems);
    }
}

#[test]
fn wheel_without_top_level_and_with_data_dirs() {
    let mut z = ZipWriter::new();
    z.add("mod_a.py", b"x = 1\n", true);
    z.add("_speedups.cpython-311-darwin.so", b"\x7fELF", false);
    z.add("pkg_b/__init__.py", b"", false);
    z.add("pkg_b-2.0.data/purelib/pkg_c/__init__.py", b"y = 2\n", true);
    z.add("pkg_b-2.0.data/scripts/tool", b"#!/bin/sh\n", false);
    z.add("tests/test_a.py", b"", false);
    z.add(
        "pkg_b-2.0.dist-info/METADATA",
        b"Name: pkg-b\nVersion: 2.0\n",
        false,
    );
    z.add("pkg_b-2.0.dist-info/WHEEL", b"Wheel-Version: 1.0\n", false);
    let data = z.finish();
    // Named .zip, yet recognised as a wheel through its dist-info/WHEEL.
    let tree = read_zip_bytes("something.zip", &data).unwrap();
    assert_eq!(
        paths(&tree),
        vec![
            "_speedups.so",
            "mod_a.py",
            "pkg_b/__init__.py",
            "pkg_c/__init__.py"
        ]
    );
    assert_eq!(tree.top_level, vec!["_speedups", "mod_a", "pkg_b", "pkg_c"]);
    assert_eq!(tree.metadata.name.as_deref(), Some("pkg-b"));
}

#[test]
fn unsafe_zip_members_are_skipped() {
    let mut z = ZipWriter::new();
    z.add("../evil.py", b"import os\n", false);
    z.add("/abs.py", b"", false);
    z.add("C:\\win.py", b"", false);
    z.add("pkg/../../up.py", b"", false);
    z.add("pkg/__init__.py", b"ok = True\n", false);
    z.add_raw(RawMember {
        name: "pkg/link.py",
        method: 0,
        crc: crc32fast::hash(b"/etc/passwd"),
        compressed: b"/etc/passwd",
        uncompressed_size: 11,
        unix_mode: 0o120777,
    });
    let tree = read_zip_bytes("evil-1.0-py3-none-any.whl", &z.finish()).unwrap();
    assert_eq!(paths(&tree), vec!["pkg/__init__.py"]);
    let problems = tree.problems.join("\n");
    for name in [
        "../evil.py",
        "/abs.py",
        "C:\\win.py",
        "pkg/../../up.py",
        "pkg/link.py",
    ] {
        assert!(problems.contains(name), "{name} not in {problems}");
    }
}

#[test]
fn zip_bombs_and_lies_are_skipped() {
    let zeros = vec![0u8; 100 << 20];
    let bomb = deflate(&zeros);
    assert!(bomb.len() < 200_000);
    let mut z = ZipWriter::new();
    z.add_raw(RawMember {
        name: "pkg/bomb.py",
        method: 8,
        crc: crc32fast::hash(&zeros),
        compressed: &bomb,
        uncompressed_size: zeros.len() as u32,
        unix_mode: 0,
    });
    // Claims 10 bytes, inflates to 1 MiB.
    let liar = deflate(&zeros[..1 << 20]);
    z.add_raw(RawMember {
        name: "pkg/liar.py",
        method: 8,
        crc: 0,
        compressed: &liar,
        uncompressed_size: 10,
        unix_mode: 0,
    });
    z.add_raw(RawMember {
        name: "pkg/badcrc.py",
        method: 0,
        crc: 1234,
        compressed: b"x = 1\n",
        uncompressed_size: 6,
        unix_mode: 0,
    });
    z.add_raw(RawMember {
        name: "pkg/bzip2.py",
        method: 12,
        crc: 0,
        compressed: b"BZh9",
        uncompressed_size: 4,
        unix_mode: 0,
    });
    z.add("pkg/__init__.py", b"", false);
    let tree = read_zip_bytes("bomb-1.0-py3-none-any.whl", &z.finish()).unwrap();
    assert_eq!(paths(&tree), vec!["pkg/__init__.py"]);
    let problems = tree.problems.join("\n");
    assert!(
        problems.contains("pkg/bomb.py: skipped: member too large"),
        "{problems}"
    );
    assert!(problems.contains("pkg/liar.py"), "{problems}");
    assert!(
        problems.contains("pkg/badcrc.py: skipped: CRC32 mismatch"),
        "{problems}"
    );
    assert!(
        problems.contains("pkg/bzip2.py: skipped: unsupported"),
        "{problems}"
    );
}

#[test]
fn overlapping_entries_are_refused() {
    // One 1 MiB member named 200 times: 200 MiB from a few kilobytes.
    let body = "x = 0\n".repeat((1 << 20) / 6);
    let mut z = ZipWriter::new();
    z.add("pkg/__init__.py", b"", false);
    z.add("pkg/m0.py", body.as_bytes(), true);
    for i in 1..200 {
        z.alias_last(&format!("pkg/m{i}.py"));
    }
    let data = z.finish();
    assert!(data.len() < 64 << 10, "{} bytes", data.len());
    let err = read_zip_bytes("bomb-1.0-py3-none-any.whl", &data)
        .expect_err("overlapping entries are refused")
        .to_string();
    assert!(
        err.contains("members `pkg/m0.py` and `pkg/m1.py` overlap in the archive"),
        "{err}"
    );
}

#[test]
fn broken_files_give_clear_errors() {
    let dir = tempdir("broken");
    let missing = dir.0.join("missing.whl");
    let err = read_path(&missing, None).unwrap_err();
    assert!(matches!(err, ArchiveError::NotFound { .. }));
    assert!(err.to_string().contains("missing.whl"), "{err}");

    let empty = dir.0.join("empty.whl");
    write(&empty, b"");
    let err = read_path(&empty, None).unwrap_err();
    assert!(matches!(err, ArchiveError::Empty { .. }), "{err}");

    let text = dir.0.join("text-1.0-py3-none-any.whl");
    write(&text, b"<html>404 Not Found</html>\n");
    let err = read_path(&text, None).unwrap_err();
    assert!(matches!(err, ArchiveError::UnknownFormat { .. }), "{err}");
    assert!(err.to_string().contains("expected a zip archive"), "{err}");

    let wheel = small_wheel();
    for cut in [wheel.len() - 5, wheel.len() / 2, 30, 4] {
        let truncated = dir.0.join(format!("cut{cut}-1.0-py3-none-any.whl"));
        write(&truncated, &wheel[..cut]);
        let err = read_path(&truncated, None).unwrap_err();
        assert!(matches!(err, ArchiveError::Zip { .. }), "{cut}: {err}");
        assert!(err.to_string().contains("truncated"), "{err}");
        assert!(read_zip_bytes("x.whl", &wheel[..cut]).is_err());
    }
    assert!(matches!(
        read_zip_bytes("x.whl", b""),
        Err(ArchiveError::Empty { .. })
    ));

    let sdist = targz(&[("p-1.0/p/__init__.py", Some(&[b'x'; 5000]))]);
    let truncated = dir.0.join("p-1.0.tar.gz");
    write(&truncated, &sdist[..sdist.len() / 2]);
    let err = read_path(&truncated, None).unwrap_err();
    assert!(matches!(err, ArchiveError::Tar { .. }), "{err}");
    assert!(err.to_string().contains("p-1.0.tar.gz"), "{err}");

    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&[b'z'; 2000]).unwrap();
    let not_tar = gz.finish().unwrap();
    assert!(matches!(
        read_sdist_bytes("x.tar.gz", &not_tar),
        Err(ArchiveError::Tar { .. })
    ));
    assert!(matches!(
        read_sdist_bytes("x.tar.bz2", b"BZh91AY&SY"),
        Err(ArchiveError::UnknownFormat { .. })
    ));
    // Random bytes never panic.
    let mut seed = 0x1234_5678u32;
    for len in [1usize, 22, 100, 4096] {
        let junk: Vec<u8> = (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (seed >> 24) as u8
            })
            .collect();
        let _ = read_zip_bytes("j.whl", &junk);
        let _ = read_sdist_bytes("j.tar.gz", &junk);
        let mut zipish = b"PK\x03\x04".to_vec();
        zipish.extend_from_slice(&junk);
        let _ = read_zip_bytes("j.whl", &zipish);
    }
}

#[test]
fn corrupt_central_directories_never_panic() {
    let wheel = small_wheel();
    // Flip every byte of the central directory and end record, one at a time.
    let cd_start = wheel.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    for i in cd_start..wheel.len() {
        for value in [0u8, 0xff] {
            let mut bad = wheel.clone();
            bad[i] = value;
            let _ = read_zip_bytes("x.whl", &bad);
        }
    }
}

#[test]
fn sdist_with_src_layout_and_pkg_info() {
    let pkg_info: &[u8] = b"Metadata-Version: 2.1\nName: My.Project\nVersion: 3.1\nRequires-Dist: attrs>=20\nRequires-Python: >=3.9\n";
    let data = targz(&[
        ("my.project-3.1/PKG-INFO", Some(pkg_info)),
        (
            "my.project-3.1/setup.py",
            Some(b"from setuptools import setup\n"),
        ),
        (
            "my.project-3.1/src/my_project/__init__.py",
            Some(b"v = 1\n"),
        ),
        (
            "my.project-3.1/src/my_project/sub/x.pyi",
            Some(b"def f() -> int: ...\n"),
        ),
        (
            "my.project-3.1/src/my_project/_native.abi3.so",
            Some(b"\x7fELF"),
        ),
        ("my.project-3.1/tests/test_x.py", Some(b"")),
        ("my.project-3.1/docs/conf.py", Some(b"")),
        ("../evil.py", Some(b"")),
        ("/abs/evil.py", Some(b"")),
        ("my.project-3.1/src/my_project/link.py", None),
    ]);
    // The unsafe members break the common top folder: the layout falls back to no stripping,
    // so read the safe members through a clean archive as well.
    let tree = read_sdist_bytes("my.project-3.1.tar.gz", &data).unwrap();
    let problems = tree.problems.join("\n");
    assert!(problems.contains("../evil.py: skipped"), "{problems}");
    assert!(problems.contains("/abs/evil.py: skipped"), "{problems}");
    assert!(problems.contains("link.py: skipped, link"), "{problems}");

    let clean = targz(&[
        ("my.project-3.1/PKG-INFO", Some(pkg_info)),
        (
            "my.project-3.1/setup.py",
            Some(b"from setuptools import setup\n"),
        ),
        (
            "my.project-3.1/src/my_project/__init__.py",
            Some(b"v = 1\n"),
        ),
        (
            "my.project-3.1/src/my_project/sub/x.pyi",
            Some(b"def f() -> int: ...\n"),
        ),
        (
            "my.project-3.1/src/my_project/_native.abi3.so",
            Some(b"\x7fELF"),
        ),
        ("my.project-3.1/tests/test_x.py", Some(b"")),
    ]);
    let tree = read_sdist_bytes("my.project-3.1.tar.gz", &clean).unwrap();
    assert_eq!(
        paths(&tree),
        vec![
            "my_project/__init__.py",
            "my_project/_native.so",
            "my_project/sub/x.pyi"
        ]
    );
    assert_eq!(tree.top_level, vec!["my_project"]);
    assert_eq!(tree.metadata.name.as_deref(), Some("My.Project"));
    assert_eq!(tree.metadata.requires_dist, vec!["attrs>=20"]);
    assert_eq!(
        tree.metadata.requires_dist_source.as_deref(),
        Some("PKG-INFO")
    );
    assert!(tree.problems.is_empty(), "{:?}", tree.problems);
}

#[test]
fn sdist_egg_info_and_requirements_fallbacks() {
    // egg-info: top_level.txt and requires.txt with sections.
    let data = targz(&[
        (
            "foo-1.0/PKG-INFO",
            Some(b"Metadata-Version: 1.2\nName: foo\nVersion: 1.0\n"),
        ),
        ("foo-1.0/foo.egg-info/PKG-INFO", Some(b"Name: foo\n")),
        (
            "foo-1.0/foo.egg-info/top_level.txt",
            Some(b"bar\nfoo\ntests\n"),
        ),
        (
            "foo-1.0/foo.egg-info/requires.txt",
            Some(b"torch>=1.11\n\n[dev]\npytest\n\n[:sys_platform == \"win32\"]\npywin32\n"),
        ),
        ("foo-1.0/requirements.txt", Some(b"not-used\n")),
        ("foo-1.0/foo/__init__.py", Some(b"")),
        ("foo-1.0/bar.py", Some(b"")),
        ("foo-1.0/tests/__init__.py", Some(b"")),
        ("foo-1.0/examples/demo.py", Some(b"")),
    ]);
    let tree = read_sdist_bytes("foo-1.0.tar.gz", &data).unwrap();
    assert_eq!(tree.top_level, vec!["bar", "foo"]);
    assert_eq!(paths(&tree), vec!["bar.py", "foo/__init__.py"]);
    assert_eq!(
        tree.metadata.requires_dist,
        vec![
            "torch>=1.11",
            "pytest; extra == \"dev\"",
            "pywin32; sys_platform == \"win32\""
        ]
    );
    assert_eq!(
        tree.metadata.requires_dist_source.as_deref(),
        Some("foo.egg-info/requires.txt")
    );

    // No egg-info: requirements/requirements.txt, and every top-level package but tests/docs.
    let data = targz(&[
        (
            "Baz-2.0/PKG-INFO",
            Some(b"Metadata-Version: 2.1\nName: Baz\nVersion: 2.0\n"),
        ),
        ("Baz-2.0/setup.py", Some(b"")),
        ("Baz-2.0/versioneer.py", Some(b"")),
        (
            "Baz-2.0/requirements/requirements.txt",
            Some(b"# deps\nnumpy>=1\n-r extra.txt\n"),
        ),
        ("Baz-2.0/alpha/__init__.py", Some(b"")),
        ("Baz-2.0/beta/__init__.py", Some(b"")),
        ("Baz-2.0/docs/__init__.py", Some(b"")),
        ("Baz-2.0/tests/__init__.py", Some(b"")),
    ]);
    let tree = read_sdist_bytes("Baz-2.0.tar.gz", &data).unwrap();
    assert_eq!(tree.top_level, vec!["alpha", "beta"]);
    assert_eq!(paths(&tree), vec!["alpha/__init__.py", "beta/__init__.py"]);
    assert_eq!(tree.metadata.requires_dist, vec!["numpy>=1"]);
    assert_eq!(
        tree.metadata.requires_dist_source.as_deref(),
        Some("requirements/requirements.txt")
    );

    // A zip sdist, named after the project: only that package.
    let mut z = ZipWriter::new();
    z.add("qux-0.1/PKG-INFO", b"Name: qux\nVersion: 0.1\n", false);
    z.add("qux-0.1/qux/__init__.py", b"", true);
    z.add("qux-0.1/other/__init__.py", b"", true);
    let tree = read_sdist_bytes("qux-0.1.zip", &z.finish()).unwrap();
    assert_eq!(tree.top_level, vec!["qux"]);
    assert_eq!(paths(&tree), vec!["qux/__init__.py"]);
    assert_eq!(tree.metadata.requires_dist_source, None);
}

#[cfg(unix)]
#[test]
fn directory_trees_with_symlink_loops() {
    let dir = tempdir("loop");
    let root = dir.0.join("proj-1.0");
    write(&root.join("setup.py"), b"");
    write(&root.join("proj/__init__.py"), b"x = 1\n");
    write(&root.join("proj/sub/mod.py"), b"y = 2\n");
    std::os::unix::fs::symlink("..", root.join("proj/sub/loop")).unwrap();
    std::os::unix::fs::symlink(&root, root.join("proj/self")).unwrap();
    std::os::unix::fs::symlink("does-not-exist", root.join("proj/broken.py")).unwrap();
    let tree = read_path(&root, None).unwrap();
    assert_eq!(paths(&tree), vec!["proj/__init__.py", "proj/sub/mod.py"]);
    assert_eq!(tree.top_level, vec!["proj"]);
    let problems = tree.problems.join("\n");
    assert!(problems.contains("symlink loop"), "{problems}");
    assert!(problems.contains("broken symbolic link"), "{problems}");

    // The same tree through a wrapper directory, and the package directory itself.
    let tree = read_path(&dir.0, None).unwrap();
    assert_eq!(paths(&tree), vec!["proj/__init__.py", "proj/sub/mod.py"]);
    let tree = read_path(&root.join("proj"), None).unwrap();
    assert_eq!(paths(&tree), vec!["proj/__init__.py", "proj/sub/mod.py"]);
    assert_eq!(tree.top_level, vec!["proj"]);
    let problems = tree.problems.join("\n");
    assert!(problems.contains("outside the tree"), "{problems}");
}

#[cfg(unix)]
#[test]
fn file_symlinks_leading_outside_the_tree_are_skipped() {
    let dir = tempdir("outside");
    let secret = dir.0.join("secret.py");
    write(&secret, b"password = 'hunter2'\n");
    let root = dir.0.join("proj-1.0");
    write(&root.join("setup.py"), b"");
    write(&root.join("proj/__init__.py"), b"x = 1\n");
    write(&root.join("proj/real.py"), b"y = 2\n");
    std::os::unix::fs::symlink(&secret, root.join("proj/leak.py")).unwrap();
    std::os::unix::fs::symlink("real.py", root.join("proj/alias.py")).unwrap();
    let tree = read_path(&root, None).unwrap();
    assert_eq!(
        paths(&tree),
        vec!["proj/__init__.py", "proj/alias.py", "proj/real.py"]
    );
    let problems = tree.problems.join("\n");
    assert!(
        problems.contains("leak.py: skipped, symbolic link to a file outside the tree"),
        "{problems}"
    );

    // Site-packages: a RECORD entry and a top-level module that are links to outside files.
    let site = dir.0.join("site");
    write(&site.join("good.py"), b"ok = 1\n");
    std::os::unix::fs::symlink(&secret, site.join("evil.py")).unwrap();
    write(
        &site.join("evil-1.0.dist-info/METADATA"),
        b"Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
    );
    write(&site.join("evil-1.0.dist-info/RECORD"), b"evil.py,,\n");
    let tree = read_path(&site, Some("evil")).unwrap();
    assert!(paths(&tree).is_empty(), "{:?}", paths(&tree));
    assert!(
        tree.problems.join("\n").contains("outside the tree"),
        "{:?}",
        tree.problems
    );
    std::fs::remove_file(site.join("evil-1.0.dist-info/RECORD")).unwrap();
    write(&site.join("evil-1.0.dist-info/top_level.txt"), b"evil\n");
    let tree = read_path(&site, Some("evil")).unwrap();
    assert!(paths(&tree).is_empty(), "{:?}", paths(&tree));
}

#[test]
fn site_packages_selects_one_distribution() {
    let dir = tempdir("site");
    let site = &dir.0;
    write(&site.join("six.py"), b"# six\n");
    write(
        &site.join("six-1.16.0.dist-info/METADATA"),
        b"Metadata-Version: 2.1\nName: six\nVersion: 1.16.0\n",
    );
    write(&site.join("six-1.16.0.dist-info/top_level.txt"), b"six\n");
    write(
        &site.join("six-1.16.0.dist-info/RECORD"),
        b"six.py,sha256=x,6\nsix-1.16.0.dist-info/METADATA,,\n../../../bin/six-tool,,\n",
    );
    write(
        &site.join("My_Pkg-2.0.dist-info/METADATA"),
        b"Name: my-pkg\nVersion: 2.0\nRequires-Dist: six\n",
    );
    write(
        &site.join("My_Pkg-2.0.dist-info/RECORD"),
        b"mypkg/__init__.py,,\nmypkg/_c.cpython-312-x86_64-linux-gnu.so,,\nmypkg/gone.py,,\n\"mypkg/we,ird.py\",,\n",
    );
    write(&site.join("mypkg/__init__.py"), b"");
    write(
        &site.join("mypkg/_c.cpython-312-x86_64-linux-gnu.so"),
        b"\x7fELF",
    );
    write(&site.join("mypkg/we,ird.py"), b"");
    write(
        &site.join("legacy-0.1-py3.8.egg-info/PKG-INFO"),
        b"Name: legacy\nVersion: 0.1\n",
    );
    write(
        &site.join("legacy-0.1-py3.8.egg-info/top_level.txt"),
        b"legacy\n",
    );
    write(
        &site.join("legacy-0.1-py3.8.egg-info/requires.txt"),
        b"six\n",
    );
    write(&site.join("legacy/__init__.py"), b"");

    let err = read_path(site, None).unwrap_err();
    assert!(
        matches!(err, ArchiveError::AmbiguousPackage { .. }),
        "{err}"
    );
    let err = read_path(site, Some("nope")).unwrap_err();
    assert!(matches!(err, ArchiveError::PackageNotFound { .. }), "{err}");
    assert!(err.to_string().contains("my-pkg"), "{err}");

    let six = read_path(site, Some("SIX")).unwrap();
    assert_eq!(paths(&six), vec!["six.py"]);
    assert_eq!(six.top_level, vec!["six"]);
    assert_eq!(six.metadata.version.as_deref(), Some("1.16.0"));

    let mine = read_path(site, Some("my.pkg")).unwrap();
    assert_eq!(
        paths(&mine),
        vec!["mypkg/__init__.py", "mypkg/_c.so", "mypkg/we,ird.py"]
    );
    assert_eq!(mine.top_level, vec!["mypkg"]);
    assert_eq!(mine.metadata.requires_dist, vec!["six"]);
    assert!(
        mine.problems.iter().any(|p| p.contains("gone.py")),
        "{:?}",
        mine.problems
    );

    let legacy = read_path(site, Some("legacy")).unwrap();
    assert_eq!(paths(&legacy), vec!["legacy/__init__.py"]);
    assert_eq!(legacy.metadata.requires_dist, vec!["six"]);
}
