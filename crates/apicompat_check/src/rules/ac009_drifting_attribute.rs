use apicompat_index::PackageView;

use super::{guard, mask, pin, Releases, Rule, RuleInfo};
use crate::collect::MemberUse;
use crate::members::MemberDef;
use crate::model::{Finding, Severity};

/// ## What it does
/// Finds private attributes (`_name`) read on objects whose type is not known statically (a
/// parameter, a local variable, a call's result) when the project never defines that name
/// itself and the classes of exactly one indexed package the file imports define it only in
/// some releases:
/// `optimizer._param_store` on a ColossalAI ZeRO optimizer, whose class has `_param_store` in
/// colossalai 0.3.0 - 0.4.0 only.
///
/// It stays quiet for names the project defines anywhere, names of builtin types' methods,
/// names some class of an imported package has in every release, names that more than three
/// classes or several packages define, receivers that are imported names or literals, objects
/// made by a package the index does not have or by the standard library (its classes are
/// known from stubs, which leave private attributes out: `with Pool(n) as p: p._pool`), and
/// reads guarded by `hasattr` or `try/except AttributeError`. A release where a defining class
/// is there but may answer the name anyway (it defines `__getattr__`, or has a base class from
/// outside the index) is unknown, never missing.
///
/// Where the receiver's class is known, only that class counts, and the finding says so: an
/// object built by calling an indexed class (`opt = LowLevelZeroOptimizer(...)`), a parameter
/// annotated with one (`optimizer: LowLevelZeroOptimizer`), or a name checked with
/// `isinstance(x, C)` in the `if` around the read. Releases that lack the class itself are
/// left to AC001/AC002.
///
/// The finding suggests replacements from the index: the member of the same class that the
/// rest of the chain names, in the releases that lack the attribute
/// (`optimizer._param_store.working_to_master_param` -> `optimizer.working_to_master_param`
/// in 0.4.1 - 0.5.0), and, best, a related member (sharing the most words with the chain,
/// public names first) present in every release the use runs on
/// (`optimizer.get_working_to_master_map()`).
///
/// ## Why is this bad?
/// On the releases where no class defines the name, the read raises `AttributeError` (private
/// attributes come and go without deprecation).
///
/// ## Example
/// With `colossalai>=0.4.0` declared:
/// ```python
/// def master_params(optimizer):
///     return optimizer._param_store.working_to_master_param  # gone in 0.4.1
/// ```
///
/// ## How to fix
/// Use the replacement the finding names (best: the member present in every targeted
/// release), pin the releases that define it, or guard the read:
/// ```python
/// if hasattr(optimizer, "_param_store"):
///     mapping = optimizer._param_store.working_to_master_param
/// ```
pub struct DriftingAttribute;

impl RuleInfo for DriftingAttribute {
    const RULE: Rule = Rule {
        code: "AC009",
        name: "drifting-attribute",
        severity: Severity::Error,
        summary: "a private attribute of an object of unknown type that indexed classes define only in some releases",
    };
}

/// The AC009 finding for a read that `missing` releases (positions in `view`) break.
pub(crate) fn finding(
    m: &MemberUse,
    view: &PackageView,
    def: &MemberDef,
    missing: &[usize],
    target_source: Option<&str>,
    target_short: &str,
) -> Finding {
    let versions = view.versions();
    let n = versions.len();
    let pkg = view.name();
    let releases = Releases::of(&versions, &mask(n, missing), &def.releases);
    let classes = match def.classes.as_slice() {
        [one] => format!("`{one}`"),
        many => format!(
            "{} classes ({})",
            many.len(),
            many.iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let listed = releases.listed();
    let symbol = format!("{}.{}", m.receiver, m.name);
    let message = format!(
        "`{}` is defined only by {classes} in {pkg} {}; {pkg} {listed} ({target_short}) have no class defining it",
        m.name,
        releases.present_ranges.join(", ")
    );
    let mut fixes = Vec::new();
    let first_missing = missing.first().copied().unwrap_or(0);
    let last_missing = missing.last().copied().unwrap_or(0);
    let after = (last_missing + 1..n).find(|&i| def.releases[i]);
    let before = (0..first_missing).any(|i| def.releases[i]);
    let parsed: Vec<&apicompat_requirements::Version> =
        view.releases().iter().map(|r| &r.version).collect();
    let bound = |i: usize| crate::pins::series_start(&parsed, i).unwrap_or(versions[i].clone());
    if let Some(a) = after {
        fixes.push(pin(format!("{pkg}>={}", bound(a))));
    } else if before {
        fixes.push(pin(format!("{pkg}<{}", bound(first_missing))));
    }
    fixes.push(guard(match m.receiver.as_str() {
        "(...)" => "guard the use with `try: ... except AttributeError:`".to_string(),
        r => format!("guard the use with `if hasattr({r}, \"{}\"):`", m.name),
    }));
    let rule = DriftingAttribute::RULE;
    releases.named_in(Finding {
        symbol,
        package: pkg.to_string(),
        message,
        fixes,
        target_source: target_source.map(str::to_string),
        ..Finding::of_use(&rule, m.guarded, m.reach)
    })
}
