use apicompat_hash::HashMap;

use apicompat_index::ranges;

use super::{guard, mask, Rule, RuleInfo};
use crate::collect::{Use, UseKind};
use crate::last_segment;
use crate::model::{Finding, Fix, FixKind, Severity};
use crate::stability::{base_finding, private_segment, Fact, Facts, Pending};
use crate::targets::Target;

/// ## What it does
/// Finds uses of a private module or name of an indexed package: a dotted path with a
/// segment that starts with an underscore (`torch.distributed._tensor`,
/// `torch.distributed._functional_collectives.all_reduce`), reported where the private part is
/// written (an import, an attribute chain), not at every later use of the name bound to it.
/// The finding says how many indexed releases have had it, and where the same object (the
/// same canonical definition) is public in the targeted releases:
/// `torch.distributed.tensor.Partial` from torch 2.5.0 for `torch.distributed._tensor.Partial`.
/// A private path that already has its fallback is not reported: one in a `try` whose
/// handler catches `ImportError` (or `AttributeError`, `Exception`...), and one in such a
/// handler that does not raise again (the fallback itself, as in "How to fix" below). Nor is
/// the underscore API of `typing.NamedTuple` (`_replace`, `_asdict`, `_fields`, `_make`, on
/// any named tuple) and `enum.Enum` (`_name_`, `_value_`, `_missing_`), which their
/// documentation names as public, nor the functions the Python library reference documents
/// under an underscore name (`os._exit`, `sys._getframe`, `sys._current_frames`,
/// `sys._xoptions`).
///
/// ## Why is this bad?
/// Private APIs change or disappear without deprecation; code that uses them breaks on an
/// upgrade with no warning.
///
/// ## Example
/// With `torch>=2.4` declared:
/// ```python
/// from torch.distributed._tensor import Partial  # public as torch.distributed.tensor.Partial from 2.5.0
/// ```
///
/// ## How to fix
/// Use the public path the finding names (raising the lower bound if it is public only in
/// newer releases), or keep a fallback for when the private name goes away:
/// ```python
/// try:
///     from torch.distributed.tensor import Partial
/// except ImportError:
///     from torch.distributed._tensor import Partial
/// ```
pub struct PrivateApi;

impl RuleInfo for PrivateApi {
    const RULE: Rule = Rule {
        code: "AC011",
        name: "private-api",
        severity: Severity::Warning,
        summary: "a private module or name of an indexed package is used",
    };
}

/// The finding on a use of a private path, with the public paths of the same object.
pub(crate) fn finding(
    p: &Pending<'_>,
    u: &Use,
    target: &Target,
    public: &HashMap<String, HashMap<String, Vec<String>>>,
    facts: &mut Facts<'_>,
) -> Finding {
    let view = p.view;
    let versions = view.versions();
    let n = versions.len();
    let mut f = base_finding(PrivateApi::RULE, u, view, &p.present, target);
    let segment = private_segment(&u.path)
        .and_then(|i| u.path.split('.').nth(i))
        .unwrap_or("");
    let what = if last_segment(&u.path) == segment {
        "private"
    } else {
        "inside a private module"
    };
    let count = p.present.iter().filter(|&&b| b).count();
    let newest = p.present.last().copied().unwrap_or(false);
    let lifetime = format!(
        "it is in {count} of the {n} indexed releases ({}){}",
        f.present_ranges.join(", "),
        if newest { "" } else { ", not in the newest" }
    );
    // The same object under a public path, per targeted release.
    let candidates = public
        .get(view.name())
        .and_then(|t| t.get(last_segment(&u.path)))
        .map_or(&[][..], Vec::as_slice);
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for &r in &target.releases {
        let Some(Some(canonical)) = p.canonical.get(r) else {
            continue;
        };
        let found = candidates.iter().find(|c| {
            public_alias(c, canonical)
                && matches!(facts.get(view, c, r), Fact::Present { canonical: theirs, .. } if theirs == *canonical)
        });
        if let Some(c) = found {
            match groups.iter_mut().find(|(g, _)| g == c) {
                Some((_, rs)) => rs.push(r),
                None => groups.push((c.clone(), vec![r])),
            }
        }
    }
    let pkg = view.name();
    let public_text = match groups.as_slice() {
        [] => "no public path names the same object in the targeted releases".to_string(),
        [(path, rs)] if rs.len() == target.releases.len() => {
            format!("the same object is public as `{path}` in every targeted release")
        }
        gs => gs
            .iter()
            .map(|(path, rs)| {
                format!(
                    "in {pkg} {} the same object is public as `{path}`",
                    ranges(&versions, &mask(n, rs)).join(", ")
                )
            })
            .collect::<Vec<_>>()
            .join("; "),
    };
    f.message = format!(
        "`{}` is {what} (`{segment}`): {pkg} may change or remove it in any release without deprecation; {lifetime}; {public_text}",
        u.path
    );
    let last_target = target.releases.last().copied();
    for (path, rs) in &groups {
        let listed: Vec<String> = rs.iter().map(|&r| versions[r].clone()).collect();
        let all = rs.len() == target.releases.len();
        // Public from some release through the newest targeted one: a lower bound drops the
        // private path.
        let suffix = rs.last().copied() == last_target
            && target.releases.iter().skip_while(|&&r| r != rs[0]).count() == rs.len();
        f.fixes.push(Fix {
            kind: FixKind::Moved,
            message: if all {
                format!("use the public `{path}`")
            } else if suffix {
                format!(
                    "use the public `{path}`: require `{pkg}>={}`, or import it with a fallback to the private path on older releases",
                    listed.first().cloned().unwrap_or_default()
                )
            } else {
                format!(
                    "use the public `{path}` in {pkg} {}",
                    ranges(&versions, &mask(n, rs)).join(", ")
                )
            },
            replacement: Some(path.clone()),
            releases: listed,
            requirement: None,
        });
    }
    if groups.is_empty() {
        f.fixes.push(guard(match u.kind {
            UseKind::Import => {
                "guard the import with `try: ... except ImportError:` and keep a fallback"
                    .to_string()
            }
            _ => "guard the use with `hasattr` and keep a fallback".to_string(),
        }));
    }
    f
}

/// Whether a public path is where the package means to publish an object defined at
/// `canonical`: the definition itself, or a name bound in a module above the definition
/// (`torch.distributed.tensor.Partial` for `torch.distributed.tensor.placement_types.Partial`),
/// not an incidental import in an unrelated module.
fn public_alias(path: &str, canonical: &str) -> bool {
    if path == canonical {
        return true;
    }
    let Some((parent, _)) = path.rsplit_once('.') else {
        return false;
    };
    let Some((defining_module, _)) = canonical.rsplit_once('.') else {
        return false;
    };
    defining_module
        .strip_prefix(parent)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}
