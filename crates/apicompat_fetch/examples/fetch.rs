//! `cargo run -p apicompat_fetch --example fetch -- PROJECT VERSION [MERGE_GAP_BYTES]`:
//! chooses a file of the release, fetches its sources and prints what it cost.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(project), Some(version)) = (args.first(), args.get(1)) else {
        eprintln!("usage: fetch PROJECT VERSION [MERGE_GAP_BYTES]");
        std::process::exit(2);
    };
    let mut opts = apicompat_fetch::FetchOptions::default();
    if let Some(gap) = args.get(2).and_then(|g| g.parse().ok()) {
        opts.merge_gap = gap;
    }
    let client = apicompat_fetch::Client::new(opts);
    let run = || -> Result<(), apicompat_fetch::FetchError> {
        let releases = client.list_releases(project)?;
        let Some(release) = releases.iter().find(|r| &r.version == version) else {
            eprintln!("no release {version} of {project}");
            std::process::exit(1);
        };
        let Some(file) = apicompat_fetch::choose_file(release) else {
            eprintln!("release {version} of {project} has no usable file");
            std::process::exit(1);
        };
        let (tree, stats) = client.fetch_release(file)?;
        println!("{} ({:?} bytes)", file.filename, file.size);
        println!("{stats:?}");
        println!(
            "{} files, top_level {:?}, {} problems",
            tree.files.len(),
            tree.top_level,
            tree.problems.len()
        );
        println!("requires_dist ({:?}):", tree.metadata.requires_dist_source);
        for r in &tree.metadata.requires_dist {
            println!("  {r}");
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
