//! Dev helper: every path of every release of index files (`.apix`) and data files (`.apid`),
//! decoded, one line each: `package<TAB>release number<TAB>version<TAB>path<TAB>symbol as
//! JSON`, by package, path, release. Two dumps
//! compared line by line show what a regeneration changed in the surfaces. With `--headers`
//! first, each release's header too (`package<TAB>release<TAB>version<TAB>#header<TAB>JSON`).
//! `cargo run --release -p apicompat_index --example index_dump -- FILE... > dump.tsv`

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::Path;

use apicompat_index::datafile::{read_toc, DataFile};
use apicompat_index::PackageIndex;

fn dump(bytes: &[u8], headers: bool) -> Result<(), String> {
    let index = PackageIndex::from_bytes(bytes).map_err(|e| e.to_string())?;
    let versions: Vec<String> = index.releases().iter().map(|r| r.version.clone()).collect();
    if headers {
        for (release, h) in index.releases().iter().enumerate() {
            let json = serde_json::to_string(h).unwrap_or_default();
            let package = index.package();
            println!("{package}\t{release}\t{}\t#header\t{json}", h.version);
        }
    }
    let mut decoded: HashMap<u32, String> = HashMap::new();
    let mut paths = Vec::new();
    index.for_each_path(|p| paths.push(p.to_string()));
    for path in &paths {
        for (release, version) in versions.iter().enumerate() {
            let Some(facet) = index.facet_in(path, release).map_err(|e| e.to_string())? else {
                continue;
            };
            let json = match decoded.entry(facet) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => {
                    let s = index.symbol(facet).map_err(|e| format!("{path}: {e}"))?;
                    e.insert(serde_json::to_string(&s).unwrap_or_default())
                }
            };
            println!("{}\t{release}\t{version}\t{path}\t{json}", index.package());
        }
    }
    Ok(())
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let headers = args.first().is_some_and(|a| a == "--headers");
    if headers {
        args.remove(0);
    }
    for arg in args {
        let path = Path::new(&arg);
        let result = if arg.ends_with(".apid") {
            read_toc(path).and_then(|(toc, _)| {
                let file = DataFile::open(path, &toc)?;
                for entry in &file.entries {
                    dump(&file.read(entry)?, headers)?;
                }
                Ok(())
            })
        } else {
            std::fs::read(path)
                .map_err(|e| e.to_string())
                .and_then(|b| dump(&b, headers))
        };
        if let Err(e) = result {
            eprintln!("{arg}: {e}");
            std::process::exit(1);
        }
    }
}
