//! Dev helper: extract a directory tree and print the surface as JSON.
use std::path::Path;

use apicompat_archive::{SourceFile, SourceTree};

fn walk(root: &Path, dir: &Path, out: &mut Vec<SourceFile>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(root, &p, out);
        } else if let Some(rel) = p.strip_prefix(root).ok().and_then(|r| r.to_str()) {
            if rel.ends_with(".py") || rel.ends_with(".pyi") || rel.ends_with(".so") {
                out.push(SourceFile { path: rel.replace('\\', "/"), data: std::fs::read(&p).unwrap_or_default() });
            }
        }
    }
}

fn main() {
    let root = std::env::args().nth(1).expect("dir");
    let mut files = Vec::new();
    walk(Path::new(&root), Path::new(&root), &mut files);
    let tree = SourceTree { files, ..SourceTree::default() };
    let t = std::time::Instant::now();
    let s = apicompat_extract::extract(&tree, "torch", "x");
    eprintln!("extract: {:?}, {} symbols, {} problems", t.elapsed(), s.symbols.len(), s.problems.len());
    println!("{}", serde_json::to_string(&s).unwrap());
}
