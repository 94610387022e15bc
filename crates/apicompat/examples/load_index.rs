//! Benchmark: time to load each embedded package index, and to answer one query over all its
//! releases. Run with `cargo run --release -p apicompat --example load_index`.

use std::time::{Duration, Instant};

use apicompat_index::{Catalog, PackageIndex};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    // The data file's packages: read (with the sha256 check) and decode.
    let data = apicompat::data_file_candidates()
        .into_iter()
        .find(|p| p.is_file())
        .and_then(|p| apicompat_index::datafile::DataFile::open(&p, apicompat::DATA_TOC).ok());
    for entry in data
        .iter()
        .flat_map(|d| d.entries.iter().map(move |e| (d, e)))
    {
        let (file, entry) = entry;
        let loads: Vec<Duration> = (0..21)
            .map(|_| {
                let t = Instant::now();
                let bytes = file.read(entry).expect("data file entry");
                let index = PackageIndex::from_bytes(&bytes).expect("data file index");
                std::hint::black_box(&index);
                t.elapsed()
            })
            .collect();
        println!(
            "{} (data file): {} releases; read, sha256 and load median {:.2} ms",
            entry.package,
            entry.versions.len(),
            median(loads).as_secs_f64() * 1e3
        );
    }
    for (name, bytes) in apicompat::EMBEDDED {
        let loads: Vec<Duration> = (0..21)
            .map(|_| {
                let t = Instant::now();
                let index = PackageIndex::from_bytes(bytes).expect("embedded index");
                std::hint::black_box(&index);
                t.elapsed()
            })
            .collect();
        let catalog = Catalog::open(apicompat::EMBEDDED, None);
        let view = catalog.package(name).ok().flatten().expect("package");
        let root = view.roots().into_iter().next().unwrap_or_default();
        let queries: Vec<Duration> = (0..21)
            .map(|_| {
                let t = Instant::now();
                for r in 0..view.releases().len() {
                    std::hint::black_box(view.status(&format!("{root}.nonexistent.name"), r).ok());
                }
                t.elapsed()
            })
            .collect();
        println!(
            "{name}: {} bytes compressed, {} releases; load median {:.2} ms; one path in every release median {:.3} ms",
            bytes.len(),
            view.releases().len(),
            median(loads).as_secs_f64() * 1e3,
            median(queries).as_secs_f64() * 1e3
        );
    }
    // The table of requirements of packages without a surface.
    if !apicompat::REQUIREMENTS.is_empty() {
        let loads: Vec<Duration> = (0..21)
            .map(|_| {
                let t = Instant::now();
                let table = apicompat_index::requirements_table::RequirementsTable::from_bytes(
                    apicompat::REQUIREMENTS,
                )
                .expect("table of requirements");
                std::hint::black_box(&table);
                t.elapsed()
            })
            .collect();
        println!(
            "table of requirements: {} bytes compressed; load median {:.2} ms",
            apicompat::REQUIREMENTS.len(),
            median(loads).as_secs_f64() * 1e3
        );
    }
}
