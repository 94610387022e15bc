//! Dev helper: extract a wheel, sdist or directory and print the surface as JSON, with the
//! time of each step on stderr. `cargo run --release -p apicompat_extract --example surface -- PATH [PACKAGE]`
use std::path::Path;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: surface PATH [PACKAGE]");
        std::process::exit(2);
    };
    let package = args.next();
    let t = Instant::now();
    let tree = match apicompat_archive::read_path(Path::new(&path), package.as_deref()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let read = t.elapsed();
    let t = Instant::now();
    let s = apicompat_extract::extract(&tree, package.as_deref().unwrap_or("pkg"), "0");
    eprintln!(
        "read {read:?}, extract {:?}: {} files, {} symbols, {} problems",
        t.elapsed(),
        tree.files.len(),
        s.symbols.len(),
        s.problems.len()
    );
    if std::env::var_os("DUMP_JSON").is_some() {
        println!("{}", serde_json::to_string(&s).unwrap_or_default());
    }
}
