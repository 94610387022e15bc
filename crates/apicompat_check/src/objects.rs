//! Members of objects: the project's semantic model ([`apicompat_semantic`]) tells which
//! indexed class an attribute read's receiver is an object of, and the read becomes a use of
//! `Class.member` (and, when it is called, of each keyword it passes), judged in every
//! targeted release like any other use (AC002, AC003).
//!
//! A receiver whose type is not inferred gives nothing. On an exact type (the object was built
//! here), the member is missing where the class lacks it; on a bound (an annotation, a return
//! annotation, `self`), only where the class lacks a member it has in other releases (see
//! [`crate::evaluate`]).

use apicompat_hash::{HashMap, HashSet};
use std::collections::BTreeMap;
use std::sync::Arc;

use apicompat_index::Status;
use apicompat_semantic::{Found, IndexQuery, Model, ModuleFacts, ModuleName, PathKind};
use apicompat_surface::Kind;
use ruff_text_size::TextRange;

use crate::collect::{FileUses, ObjectReceiver, PathTest, SiteContext, Use, UseKind};
use crate::evaluate::Evaluator;
use crate::files::Analyzed;
use crate::rules::CallShape;
use crate::targets::Target;

/// The index as the model asks it: each path in one release of its package, the newest
/// targeted one (the newest indexed one for a package no target names yet).
struct CatalogQuery<'a, 'c> {
    eval: &'a Evaluator<'c>,
    roots: &'a HashSet<String>,
    chosen: &'a BTreeMap<String, Target>,
}

impl IndexQuery for CatalogQuery<'_, '_> {
    fn is_indexed_root(&self, root: &str) -> bool {
        self.roots.contains(root)
    }

    fn lookup(&self, path: &str) -> Option<Found> {
        let root = path.split('.').next().unwrap_or(path);
        if !self.roots.contains(root) {
            return None;
        }
        let view = self.eval.package_for(root)?;
        let release = match self.chosen.get(view.name()) {
            Some(t) => *t.releases.iter().max()?,
            None => view.releases().len().checked_sub(1)?,
        };
        match view.status(path, release) {
            Ok(Status::Present {
                path: found,
                symbol,
            }) => Some(Found {
                kind: match symbol.kind() {
                    Kind::Module => PathKind::Module,
                    Kind::Class => PathKind::Class,
                    Kind::Function => PathKind::Function,
                    Kind::Property => PathKind::Property,
                    Kind::Attribute | Kind::Unknown => PathKind::Other,
                },
                returns: symbol.signatures.first().and_then(|s| s.returns.clone()),
                canonical: symbol.canonical.unwrap_or(found),
            }),
            _ => None,
        }
    }
}

/// Keeps only the reads both walks know: the model's sites that the checker's walk did not
/// resolve as indexed paths, and the checker's contexts of those sites. Every file's facts
/// are held until the model is built, so what cannot be used is dropped right away.
pub fn pair_sites(uses: &mut FileUses, facts: &mut ModuleFacts) {
    let walked: HashSet<TextRange> = uses.sites.iter().map(|c| c.range).collect();
    facts.sites.retain(|s| walked.contains(&s.range));
    facts.splats.retain(|s| walked.contains(&s.range));
    let kept: HashSet<TextRange> = facts
        .sites
        .iter()
        .map(|s| s.range)
        .chain(facts.splats.iter().map(|s| s.range))
        .collect();
    uses.sites.retain(|c| kept.contains(&c.range));
    facts.sites.shrink_to_fit();
    facts.splats.shrink_to_fit();
    uses.sites.shrink_to_fit();
}

/// Each file's module name and semantic facts (shared), for [`member_uses`].
pub fn module_facts(analyzed: &[Arc<Analyzed>]) -> Vec<(ModuleName, Arc<ModuleFacts>)> {
    analyzed
        .iter()
        .map(|a| (a.module.clone(), Arc::clone(&a.semantic)))
        .collect()
}

/// Where the object a private member is read from comes from: (file, range of the read) ->
/// the indexed packages that made it (see [`apicompat_semantic::Model::origins`]).
pub type Origins = HashMap<(usize, TextRange), Vec<String>>;

/// The uses of members of objects in every file: (file, use), and the origins of the objects
/// private members are read from (for AC009). `modules` are the files' facts
/// ([`module_facts`]), in the order of `analyzed`; only the files `reported` marks (all when
/// it is empty) are read for uses, the others tell the model what they define.
pub fn member_uses(
    eval: &Evaluator,
    modules: Vec<(ModuleName, Arc<ModuleFacts>)>,
    analyzed: &[Arc<Analyzed>],
    reported: &[bool],
    roots: &HashSet<String>,
    chosen: &BTreeMap<String, Target>,
) -> (Vec<(usize, Use)>, Origins) {
    let query = CatalogQuery {
        eval,
        roots,
        chosen,
    };
    // Names read other than as a callee (their functions may be called from anywhere).
    let escaping: HashSet<u32> = analyzed
        .iter()
        .flat_map(|a| a.uses.escaping.iter().copied())
        .collect();
    let escapes = |name: &str| escaping.contains(&crate::collect::name_key(name));
    let model = Model::new(modules, &query).with_callers(&escapes);
    let mut out = Vec::new();
    let mut origins = Origins::default();
    for (fi, file) in analyzed.iter().enumerate() {
        if reported.get(fi).copied().unwrap_or(true) {
            file_member_uses(&model, fi, file, &mut out, &mut origins);
        }
    }
    (out, origins)
}

/// [`member_uses`] of one file: its uses added to `out`, the origins of its private reads to
/// `origins`.
fn file_member_uses(
    model: &Model,
    fi: usize,
    file: &Analyzed,
    out: &mut Vec<(usize, Use)>,
    origins: &mut Origins,
) {
    let contexts: HashMap<TextRange, &SiteContext> =
        file.uses.sites.iter().map(|c| (c.range, c)).collect();
    for site in &model.modules()[fi].sites {
        // Reads of indexed paths are uses already; the walk reached every other.
        let Some(ctx) = contexts.get(&site.range) else {
            continue;
        };
        // AC009 judges private names by where their object comes from.
        if site.name.starts_with('_') && !site.name.starts_with("__") {
            let from = model.origins(fi as u32, site);
            if !from.is_empty() {
                origins.insert((fi, site.range), from);
            }
        }
        let Some(receiver) = model.receiver(fi as u32, site) else {
            continue;
        };
        let path = format!("{}.{}", receiver.class, site.name);
        // Alternatives are judged in the releases of the same package only.
        let root = |p: &str| p.split('.').next().unwrap_or(p).to_string();
        if receiver
            .others
            .iter()
            .any(|o| root(o) != root(&receiver.class))
        {
            continue;
        }
        let object = ObjectReceiver {
            exact: receiver.exact,
            text: receiver_text(&file.text, site.range, site.name),
            project_class: receiver.project_class.clone(),
            alternatives: receiver
                .others
                .iter()
                .map(|o| format!("{o}.{}", site.name))
                .collect(),
            declared_by: receiver.via.clone(),
        };
        let mut requires = PathTest::for_use(
            &object_tests(&ctx.requires, &object, &receiver.class),
            &path,
        );
        // `super().m(...)` in an override `m` the project never calls: it runs where the
        // package calls `m`, i.e. where its class has it (`callers/mod.rs`, `hook_requires`).
        let mut guard_at = ctx.guard_at;
        if let Some(at) = ctx.hook {
            let func = ctx.func.and_then(|f| file.uses.functions.get(f as usize));
            if delegates_to_base(&object.text, func, site.name) {
                requires.push(PathTest::exists(path.clone()));
                guard_at = guard_at.or(Some(at));
            }
        }
        let make = |kind: UseKind, range: TextRange| Use {
            guarded: ctx.guarded
                || ctx.call_guarded && matches!(kind, UseKind::Keyword(_) | UseKind::Call(_)),
            kind,
            path: path.clone(),
            base: Some(receiver.class.clone()),
            module: None,
            range,
            stmt_start: ctx.stmt_start,
            reach: ctx.reach,
            versions: ctx.versions.to_vec(),
            receiver: Some(Box::new(object.clone())),
            func: ctx.func,
            guard_at,
            requires: requires.clone(),
        };
        out.push((fi, make(UseKind::Attribute, site.range)));
        if let Some(call) = &site.call {
            for (k, range) in &call.keywords {
                out.push((fi, make(UseKind::Keyword(k.to_string()), *range)));
            }
            if !call.star && !call.double_star {
                let shape = CallShape {
                    positional: call.positional,
                    keywords: call.keywords.iter().map(|(k, _)| k.to_string()).collect(),
                };
                out.push((fi, make(UseKind::Call(shape), call.range)));
            }
        }
    }
    // `f(**options)` with the keys `options` holds.
    for splat in &model.modules()[fi].splats {
        let Some(ctx) = contexts.get(&splat.range) else {
            continue;
        };
        let Some(found) = model.splat(fi as u32, splat) else {
            continue;
        };
        let callee = found.callee;
        let receiver = callee.receiver.as_ref();
        for key in found.keys {
            out.push((
                fi,
                Use {
                    kind: UseKind::Keyword(key),
                    path: callee.path.clone(),
                    base: receiver.map(|r| r.class.clone()),
                    module: None,
                    range: splat.range,
                    stmt_start: ctx.stmt_start,
                    reach: ctx.reach,
                    guarded: ctx.guarded,
                    versions: ctx.versions.to_vec(),
                    func: ctx.func,
                    guard_at: ctx.guard_at,
                    requires: ctx.requires.to_vec(),
                    receiver: receiver.map(|r| {
                        Box::new(ObjectReceiver {
                            exact: r.exact,
                            text: String::new(),
                            project_class: r.project_class.clone(),
                            alternatives: Vec::new(),
                            declared_by: r.via.clone(),
                        })
                    }),
                },
            ));
        }
    }
}

/// The tests a use runs under, where a test on an object (`hasattr(cache, "layers")` false,
/// see [`crate::collect::OBJECT_TEST`]) on the use's own receiver becomes a test of its class
/// (`Cache.layers`, on an instance). Tests on other objects, or on a receiver that may be of
/// several classes, are dropped.
fn object_tests(tests: &[PathTest], object: &ObjectReceiver, class: &str) -> Vec<PathTest> {
    tests
        .iter()
        .filter_map(|t| match t.on_object() {
            Some((text, attr)) if text == object.text && object.alternatives.is_empty() => {
                Some(PathTest {
                    path: format!("{class}.{attr}"),
                    present: t.present,
                    instance: true,
                    alternatives: Vec::new(),
                })
            }
            Some(_) => None,
            None => Some(t.clone()),
        })
        .collect()
}

/// `self.proj` of `self.proj.load_state_dict`, as written (on one line).
fn receiver_text(text: &str, range: TextRange, name: &str) -> String {
    let end = range
        .end()
        .to_usize()
        .saturating_sub(name.len())
        .max(range.start().to_usize());
    let s = text
        .get(range.start().to_usize()..end)
        .unwrap_or("")
        .trim_end()
        .trim_end_matches('.')
        .trim_end();
    let one_line: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 {
        let cut: String = one_line.chars().take(57).collect();
        format!("{cut}...")
    } else {
        one_line
    }
}

/// `super().m(...)` inside the project's own method `m` (`func`): an override handing on to
/// the method it overrides.
pub(crate) fn delegates_to_base(
    receiver: &str,
    func: Option<&crate::collect::FuncEntry>,
    member: &str,
) -> bool {
    receiver.starts_with("super(")
        && func.is_some_and(|f| f.key == crate::collect::name_key(member))
}
