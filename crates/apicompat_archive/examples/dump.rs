//! `cargo run -p apicompat_archive --example dump -- PATH [PACKAGE]`: prints what
//! `read_path` finds.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: dump PATH [PACKAGE]");
        std::process::exit(2);
    };
    let package = args.next();
    match apicompat_archive::read_path(std::path::Path::new(&path), package.as_deref()) {
        Ok(tree) => {
            println!("metadata: {:#?}", tree.metadata);
            println!("top_level: {:?}", tree.top_level);
            let ext = tree
                .files
                .iter()
                .filter(|f| f.data.is_empty() && f.path.ends_with(".so"))
                .count();
            let bytes: usize = tree.files.iter().map(|f| f.data.len()).sum();
            println!(
                "files: {} ({} extension modules, {} bytes)",
                tree.files.len(),
                ext,
                bytes
            );
            for f in tree.files.iter().take(10) {
                println!("  {} ({} bytes)", f.path, f.data.len());
            }
            println!("problems: {}", tree.problems.len());
            for p in tree.problems.iter().take(20) {
                println!("  {p}");
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
