//! Writes the generated seeds (binary inputs: wheels, sdists, index bodies) into `seeds/`:
//! `cargo test -p apicompat_fuzz --test seeds -- --ignored`. The text seeds are written by
//! hand; the committed files are what the replay test and cargo-fuzz read.

use std::io::Write;
use std::path::PathBuf;

use apicompat_archive::zipwrite::ZipWriter;

fn seeds(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("seeds")
        .join(target)
}

fn write(target: &str, name: &str, prefix: u8, data: &[u8]) {
    let mut bytes = vec![prefix];
    bytes.extend_from_slice(data);
    std::fs::write(seeds(target).join(name), bytes).unwrap();
}

const INIT_V1: &[u8] =
    b"from .core import Engine, run\n__all__ = ['Engine', 'run', 'VERSION']\nVERSION = '1.0'\n";
const INIT_V2: &[u8] = b"from .core import *\nfrom .core import Engine as Motor\ndef __getattr__(name):\n    raise AttributeError(name)\n";
const CORE: &[u8] = b"import sys\nclass Base:\n    def step(self, lr=0.1, *, closure=None): ...\nclass Engine(Base):\n    @property\n    def group(self) -> 'ProcessGroup': ...\n    def to(self, device) -> 'Engine': ...\ndef run(x: int, /, y: str = '', **kw) -> Engine: ...\nsys.modules['pkg.alias'] = sys.modules[__name__]\n";
const STUB: &[u8] = b"def compiled(a: int) -> str: ...\n";
const METADATA: &[u8] = b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\nRequires-Dist: torch>=2.0\nRequires-Dist: numpy ; extra == 'np'\nRequires-Python: >=3.8\n\nBody\n";

fn wheel(init: &[u8], compress: bool) -> Vec<u8> {
    let mut z = ZipWriter::new();
    z.add("pkg/__init__.py", init, compress);
    z.add("pkg/core.py", CORE, compress);
    z.add("pkg/_c.pyi", STUB, false);
    z.add("pkg/_c.cpython-312-x86_64-linux-gnu.so", b"\x7fELF", false);
    z.add("pkg-1.0.dist-info/METADATA", METADATA, compress);
    z.add("pkg-1.0.dist-info/top_level.txt", b"pkg\n", false);
    z.add("pkg-1.0.dist-info/RECORD", b"", false);
    z.finish()
}

fn tar(gzip: bool) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, data) in [
        ("pkg-1.0/PKG-INFO", METADATA),
        (
            "pkg-1.0/setup.py",
            b"from setuptools import setup\nsetup(install_requires=['torch'])\n".as_slice(),
        ),
        ("pkg-1.0/src/pkg/__init__.py", INIT_V1),
        ("pkg-1.0/src/pkg/core.py", CORE),
        ("pkg-1.0/pkg.egg-info/requires.txt", b"torch\n[np]\nnumpy\n"),
    ] {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, path, data).unwrap();
    }
    let raw = b.into_inner().unwrap();
    if !gzip {
        return raw;
    }
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&raw).unwrap();
    enc.finish().unwrap()
}

#[test]
#[ignore = "writes the seed corpus"]
fn write_generated_seeds() {
    write("archive", "wheel.whl", 0, &wheel(INIT_V1, true));
    write("archive", "stored.whl", 0, &wheel(INIT_V2, false));
    let mut z = ZipWriter::new();
    z.add("pkg-1.0/PKG-INFO", METADATA, false);
    z.add("pkg-1.0/pkg/__init__.py", INIT_V1, false);
    z.add("pkg-1.0/../evil.py", b"x = 1\n", false);
    write("archive", "sdist.zip", 1, &z.finish());
    write("archive", "sdist.tar.gz", 2, &tar(true));
    write("archive", "sdist.tar", 3, &tar(false));

    let mut builder = apicompat_index::IndexBuilder::new("pkg");
    for (version, init) in [("1.0", INIT_V1), ("2.0rc1", INIT_V2)] {
        let tree =
            apicompat_archive::read_bytes("pkg-1.0-py3-none-any.whl", &wheel(init, true)).unwrap();
        let surface = apicompat_extract::extract(&tree, "pkg", version);
        builder.add(&surface).unwrap();
    }
    let file = builder.finish().unwrap();
    let body = apicompat_fuzz::unframe(&file).unwrap();
    write("index", "two-releases.body", 0, &body);
    write("index", "two-releases.apix", 1, &file);
}

/// The generated seeds are what the readers of this build accept (an index format change
/// needs new seeds: run `write_generated_seeds`), so that fuzzing starts past the checks.
#[test]
fn generated_seeds_are_read() {
    for (name, file) in [
        ("wheel.whl", "pkg-1.0-py3-none-any.whl"),
        ("stored.whl", "pkg-1.0-py3-none-any.whl"),
        ("sdist.zip", "pkg-1.0.zip"),
        ("sdist.tar.gz", "pkg-1.0.tar.gz"),
        ("sdist.tar", ""),
    ] {
        let data = std::fs::read(seeds("archive").join(name)).unwrap();
        let tree = apicompat_archive::read_bytes(file, &data[1..]).unwrap();
        assert!(!tree.files.is_empty(), "{name}");
    }
    let body = std::fs::read(seeds("index").join("two-releases.body")).unwrap();
    let index = apicompat_index::PackageIndex::from_bytes(&apicompat_fuzz::frame(&body[1..]))
        .expect("seeds/index/two-releases.body is stale: run write_generated_seeds");
    assert_eq!(index.releases().len(), 2);
    let file = std::fs::read(seeds("index").join("two-releases.apix")).unwrap();
    apicompat_index::PackageIndex::from_bytes(&file[1..]).unwrap();
}
