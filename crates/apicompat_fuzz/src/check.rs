//! `check`'s per-file analysis and the project-wide semantic model on a small project.

use apicompat_hash::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use apicompat_check::files::{analyze_bytes, Analyzed};
use apicompat_check::link::link;
use apicompat_check::objects::module_facts;
use apicompat_semantic::{Found, IndexQuery, Model, ModuleName, PathKind};
use ruff_text_size::Ranged as _;

/// Separates the files of the project in one input (a line of its own).
const FILE_SEPARATOR: &[u8] = b"\n#---\n";
const MAX_FILES: usize = 4;

/// The whole per-file analysis of `check` (parse, uses with guards and versions, process-group
/// facts, semantic facts: [`analyze_bytes`]) on each file of a small project, the version
/// helpers resolved across its files, then the semantic model of the project against a small
/// fake index, asked for the receiver of every attribute read and the keys of every `**`
/// argument (what [`apicompat_check::objects::member_uses`] asks).
///
/// The input is up to four files separated by lines `#---`: the first is `pkg/__init__.py`,
/// the others `pkg/modN.py`. Runs on a thread with the stack of `check`'s workers.
pub fn check_file(data: &[u8]) {
    crate::with_stack(crate::CHECK_STACK, || analyze(data));
}

fn analyze(data: &[u8]) {
    let roots: HashSet<String> = ["lib", "torch"].iter().map(|s| s.to_string()).collect();
    let mut analyzed: Vec<Arc<Analyzed>> = split_files(data)
        .into_iter()
        .enumerate()
        .map(|(i, bytes)| {
            let (path, module) = if i == 0 {
                ("pkg/__init__.py".to_string(), "pkg".to_string())
            } else {
                (format!("pkg/mod{i}.py"), format!("pkg.mod{i}"))
            };
            let name = ModuleName {
                name: Some(module),
                is_package: i == 0,
                aliases: Vec::new(),
            };
            Arc::new(analyze_bytes(PathBuf::from(path), name, bytes, &roots))
        })
        .collect();
    // `lib`'s functions are version helpers of an indexed package (`indexed_helpers`).
    let helper = apicompat_check::versions::VersionHelper::comparison(
        "torch".to_string(),
        apicompat_check::versions::Op::Ge,
        "version".to_string(),
        0,
    );
    link(&mut analyzed, &|path| {
        path.starts_with("lib.").then(|| helper.clone())
    });
    for a in &analyzed {
        // Positions of everything a finding may point at.
        for u in &a.uses.uses {
            let _ = a.position(u.range.start());
            let _ = a.position(u.range.end());
        }
        for (range, _) in &a.syntax_errors {
            let _ = a.position(range.start());
        }
        for site in &a.uses.sites {
            let _ = a.position(site.range.end());
        }
    }
    let modules = module_facts(&analyzed);
    let index = FakeIndex::new();
    let model = Model::new(modules, &index);
    for (m, facts) in model.modules().iter().enumerate() {
        let m = m as u32;
        let _ = model.module_name(m);
        for site in &facts.sites {
            let _ = model.receiver(m, site);
            let _ = model.receiver_type(m, site);
        }
        for splat in &facts.splats {
            let _ = model.splat(m, splat);
        }
    }
}

fn split_files(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while out.len() + 1 < MAX_FILES {
        let Some(at) = rest
            .windows(FILE_SEPARATOR.len())
            .position(|w| w == FILE_SEPARATOR)
        else {
            break;
        };
        out.push(&rest[..at + 1]);
        rest = &rest[at + FILE_SEPARATOR.len()..];
    }
    out.push(rest);
    out
}

/// A small index: `lib` (classes `Opt`, `Other`, `Module`, functions returning them) and
/// `torch` (`nn.Module`, `nn.Linear`, `optim.Adam`, `distributed.new_group` returning a
/// `ProcessGroup`). Any other `lib.X` path is a class when `X` is capitalized, else a
/// function returning `Self`: types flow through any chain the fuzzer writes.
struct FakeIndex(HashMap<&'static str, Found>);

impl FakeIndex {
    fn new() -> FakeIndex {
        let mut m = HashMap::default();
        let mut add = |path: &'static str, kind, returns: Option<&str>, canonical: &str| {
            m.insert(
                path,
                Found {
                    kind,
                    canonical: canonical.to_string(),
                    returns: returns.map(str::to_string),
                },
            );
        };
        add("lib", PathKind::Module, None, "lib");
        add("lib.Opt", PathKind::Class, None, "lib.Opt");
        add("lib.Other", PathKind::Class, None, "lib._impl.Other");
        add("lib.T", PathKind::Other, None, "lib.T");
        add("lib.Opt.step", PathKind::Function, None, "lib.Opt.step");
        add("lib.Opt.to", PathKind::Function, Some("Self"), "lib.Opt.to");
        add(
            "lib.Opt.clone",
            PathKind::Function,
            Some("T"),
            "lib.Opt.clone",
        );
        add(
            "lib.Opt.peer",
            PathKind::Function,
            Some("Other"),
            "lib.Opt.peer",
        );
        add(
            "lib.Opt.many",
            PathKind::Function,
            Some("list[Opt]"),
            "lib.Opt.many",
        );
        add(
            "lib.Opt.prop",
            PathKind::Property,
            Some("Other"),
            "lib.Opt.prop",
        );
        add(
            "lib.make",
            PathKind::Function,
            Some("Optional[Opt]"),
            "lib.make",
        );
        add(
            "lib.either",
            PathKind::Function,
            Some("Opt | Other | None"),
            "lib.either",
        );
        add("lib.odd", PathKind::Function, Some("[[[(("), "lib.odd");
        add("torch", PathKind::Module, None, "torch");
        add("torch.nn", PathKind::Module, None, "torch.nn");
        add(
            "torch.nn.Module",
            PathKind::Class,
            None,
            "torch.nn.modules.module.Module",
        );
        add(
            "torch.nn.Linear",
            PathKind::Class,
            None,
            "torch.nn.modules.linear.Linear",
        );
        add("torch.optim", PathKind::Module, None, "torch.optim");
        add(
            "torch.optim.Adam",
            PathKind::Class,
            None,
            "torch.optim.adam.Adam",
        );
        add(
            "torch.distributed",
            PathKind::Module,
            None,
            "torch.distributed",
        );
        add(
            "torch.distributed.new_group",
            PathKind::Function,
            Some("ProcessGroup"),
            "torch.distributed.distributed_c10d.new_group",
        );
        FakeIndex(m)
    }
}

impl IndexQuery for FakeIndex {
    fn is_indexed_root(&self, root: &str) -> bool {
        root == "lib" || root == "torch"
    }

    fn lookup(&self, path: &str) -> Option<Found> {
        if let Some(found) = self.0.get(path) {
            return Some(found.clone());
        }
        let rest = path.strip_prefix("lib.")?;
        let last = rest.rsplit('.').next().unwrap_or(rest);
        let class = last.chars().next().is_some_and(char::is_uppercase);
        Some(Found {
            kind: if class {
                PathKind::Class
            } else {
                PathKind::Function
            },
            canonical: path.to_string(),
            returns: (!class).then(|| "Self".to_string()),
        })
    }
}
