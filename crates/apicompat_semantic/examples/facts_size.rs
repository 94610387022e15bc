//! Peak memory of the semantic facts of a tree: extracts every `.py` file under a directory
//! and keeps the facts, then prints counts (run under `/usr/bin/time -v` for the peak RSS).
//!
//!     EXTERNAL=torch,numpy cargo run --release -p apicompat_semantic --example facts_size -- DIR [keep]

use apicompat_semantic::ModuleName;
use ruff_python_ast::PySourceType;

fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let keep = args.get(2).is_some_and(|a| a == "keep");
    // Top-level modules outside the project, as `check` passes its indexed packages:
    // `EXTERNAL=torch,numpy`.
    let external: Vec<String> = std::env::var("EXTERNAL")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let mut files = Vec::new();
    walk(std::path::Path::new(&args[1]), &mut files);
    let mut kept = Vec::new();
    let (mut sites, mut scopes, mut defs, mut calls) = (0usize, 0usize, 0usize, 0usize);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let parsed = ruff_python_parser::parse_unchecked_source(&text, PySourceType::Python);
        let facts = apicompat_semantic::extract_with(
            parsed.suite(),
            &ModuleName::default(),
            &|r| external.iter().any(|e| e == r),
            &|_| true,
        );
        sites += facts.sites.len();
        calls += facts.calls.len();
        scopes += facts.scopes.len();
        defs += facts
            .scopes
            .iter()
            .map(|s| s.bindings.names().count())
            .sum::<usize>();
        if keep {
            let mut facts = facts;
            if args.get(3).is_some_and(|a| a == "nosites") {
                facts.sites = Vec::new();
            }
            if args.get(3).is_some_and(|a| a == "nofuncs") {
                facts.functions = Vec::new();
                facts.classes = Vec::new();
                facts.splats = Vec::new();
            }
            if args.get(3).is_some_and(|a| a == "nocalls") {
                facts.calls = Vec::new();
            }
            if args.get(3).is_some_and(|a| a == "noscopes") {
                facts.scopes = Vec::new();
            }
            kept.push(facts);
        }
    }
    println!(
        "sizes: Site {} Sym {} Def {} Func {} Class {} Scope {}",
        std::mem::size_of::<apicompat_semantic::Site>(),
        std::mem::size_of::<apicompat_semantic::ir::Sym>(),
        std::mem::size_of::<apicompat_semantic::facts::Def>(),
        std::mem::size_of::<apicompat_semantic::facts::FuncFacts>(),
        std::mem::size_of::<apicompat_semantic::facts::ClassFacts>(),
        std::mem::size_of::<apicompat_semantic::facts::ScopeFacts>(),
    );
    println!(
        "{} files, {sites} sites, {calls} calls, {scopes} scopes, {defs} defs, kept {}",
        files.len(),
        kept.len()
    );
}
