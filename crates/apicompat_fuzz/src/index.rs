//! The index reader and the lookups `check` makes on what it returns.

use apicompat_index::lookup::defined_in_open_module;
use apicompat_index::{status, PackageIndex};

/// Paths looked up per input (each in a few releases).
const MAX_PATHS: usize = 48;
const MAX_RELEASES: usize = 4;

/// [`PackageIndex::from_bytes`], then on an index that reads: `validate`, the header, every
/// path's records and facets (symbols, kinds), and `status` (through re-exports, bases, open
/// modules) and `defined_in_open_module` for its paths, their parents and a few made-up
/// children in a few releases.
///
/// An index is lz4-compressed with a CRC-32 of the body, which random bytes never pass: when
/// the first byte is even, the rest is taken as the body and framed (CRC-32 appended, then
/// compressed) before reading, so the structure behind the checksum is what gets fuzzed; when
/// it is odd, the rest is read as it is. The seeds are bodies.
pub fn index(data: &[u8]) {
    let (mode, body) = data.split_first().unwrap_or((&0, &[]));
    let read = if mode % 2 == 0 {
        PackageIndex::from_bytes(&frame(body))
    } else {
        PackageIndex::from_bytes(body)
    };
    if let Ok(index) = read {
        use_index(&index);
    }
}

/// An index file's bytes from its body (what `IndexBuilder::finish` does last).
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut data = body.to_vec();
    data.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    lz4_flex::compress_prepend_size(&data)
}

/// The body of an index file (for writing seeds), if it is one.
pub fn unframe(file: &[u8]) -> Option<Vec<u8>> {
    let mut data = lz4_flex::decompress_size_prepended(file).ok()?;
    data.truncate(data.len().checked_sub(4)?);
    Some(data)
}

fn use_index(index: &PackageIndex) {
    let _ = index.validate();
    let _ = index.package();
    let releases = index.releases().len();
    let _ = index.versions();
    let roots = index.roots();
    let _ = index.path_count();
    for r in 0..releases.min(MAX_RELEASES) {
        let _ = index.release_path_count(r);
    }
    let mut paths = Vec::new();
    index.for_each_path(|p| {
        if paths.len() < MAX_PATHS {
            paths.push(p.to_string());
        }
    });
    index.for_each_facets(|_, facets| {
        for &f in facets.iter().take(4) {
            let _ = index.kind(f);
        }
    });
    let last = releases.saturating_sub(1);
    if releases > 0 {
        let _ = index.for_each_pair("", 0, last, |_, _, _, _| {});
    }
    for root in &roots {
        let _ = index.paths_with_prefix(root);
    }
    for p in paths.iter().take(8) {
        let last = p.rsplit('.').next().unwrap_or(p);
        let _ = index.paths_named(last);
        let _ = index.subclasses_named(last);
    }
    let mut probes: Vec<String> = Vec::new();
    for p in &paths {
        probes.push(p.clone());
        probes.push(format!("{p}.zz_missing"));
        if let Some((parent, _)) = p.rsplit_once('.') {
            probes.push(parent.to_string());
        }
    }
    probes.push("nowhere.at.all".to_string());
    probes.push(String::new());
    for p in &probes {
        if let Ok(entry) = index.entry(p) {
            for (set, facet) in entry.iter().take(8) {
                let _ = set.iter().take(MAX_RELEASES).count();
                let _ = index.symbol(*facet);
                let _ = index.kind_and_canonical(*facet);
            }
        }
        // Releases the index has (callers only ask about those).
        for r in (0..releases.min(MAX_RELEASES)).chain((releases > 0).then_some(last)) {
            let _ = status(index, p, r);
            let _ = index.facet_in(p, r);
            let _ = defined_in_open_module(index, p, r);
        }
    }
}
