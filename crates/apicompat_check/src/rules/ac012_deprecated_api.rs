use apicompat_index::ranges;

use super::{mask, Rule, RuleInfo};
use crate::collect::Use;
use crate::model::{Finding, Fix, FixKind, Severity};
use crate::stability::{base_finding, Pending};
use crate::targets::Target;

/// ## What it does
/// Finds uses (imports, attribute chains, `getattr` with a literal name) of modules, classes
/// and functions that a targeted release marks as deprecated: a `DeprecationWarning` or
/// `FutureWarning` raised in the body, a `@deprecated` decorator, or a deprecation note that
/// the index recorded. The finding gives the release that first deprecated it, the message
/// (with the replacement it names), and the release that removed it, if one did.
///
/// ## Why is this bad?
/// The code works today but warns, and a later release removes the API.
///
/// ## Example
/// With `torch>=2.4` declared:
/// ```python
/// from torch.cuda.amp import autocast  # deprecated since 2.4.0: use torch.amp.autocast("cuda")
/// ```
///
/// ## How to fix
/// Use the replacement the message names:
/// ```python
/// from torch.amp import autocast
/// with autocast("cuda"):
///     ...
/// ```
/// The fix says where targeted releases lack that replacement (`torch.amp.GradScaler`, new in
/// torch 2.3): raise the lower bound, or keep both behind a test of the version.
pub struct DeprecatedApi;

impl RuleInfo for DeprecatedApi {
    const RULE: Rule = Rule {
        code: "AC012",
        name: "deprecated-api",
        severity: Severity::Warning,
        summary: "an API that targeted releases mark as deprecated is used",
    };
}

/// The finding on a use of a deprecated path, with the deprecation message and its
/// replacement.
pub(crate) fn finding(p: &Pending<'_>, u: &Use, target: &Target) -> Finding {
    let view = p.view;
    let versions = view.versions();
    let n = versions.len();
    let mut f = base_finding(DeprecatedApi::RULE, u, view, &p.present, target);
    let deprecated_at: Vec<usize> = (0..n).filter(|&r| p.deprecated[r].is_some()).collect();
    let targeted: Vec<usize> = target
        .releases
        .iter()
        .copied()
        .filter(|&r| p.deprecated.get(r).is_some_and(Option::is_some))
        .collect();
    let first = deprecated_at.first().copied().unwrap_or(0);
    // The message of the newest targeted release that deprecates it.
    let message = targeted
        .last()
        .and_then(|&r| p.deprecated[r].clone())
        .map(|m| one_line(&m))
        .filter(|m| !m.is_empty());
    let pkg = view.name();
    let since = match deprecated_at.last() {
        // Deprecated in the oldest indexed release already: since when is not known.
        Some(&last) if last == n - 1 && first == 0 && n > 1 => format!(
            "in every indexed release of {pkg} ({} - {})",
            versions[0],
            versions[n - 1]
        ),
        Some(&last) if last == n - 1 => format!("since {pkg} {}", versions[first]),
        _ => format!(
            "in {pkg} {}",
            ranges(&versions, &mask(n, &deprecated_at)).join(", ")
        ),
    };
    let removed = (0..n)
        .rev()
        .take_while(|&r| !p.present[r])
        .last()
        .filter(|&r| r > first)
        .map(|r| format!("; it is gone from {pkg} {}", versions[r]))
        .unwrap_or_default();
    let listed = if targeted.len() <= 3 {
        targeted
            .iter()
            .map(|&r| versions[r].clone())
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        ranges(&versions, &mask(n, &targeted)).join(", ")
    };
    f.message = match &message {
        Some(m) => format!(
            "`{}` is deprecated {since} (targeted: {listed}){removed}: \"{m}\"",
            u.path
        ),
        None => format!(
            "`{}` is deprecated {since} (targeted: {listed}){removed}",
            u.path
        ),
    };
    let replacement = message.as_deref().and_then(suggested);
    f.fixes.push(Fix {
        kind: FixKind::Rewrite,
        message: match &replacement {
            Some(r) => format!(
                "use `{r}` as the deprecation message says{}",
                replacement_missing(view, r, &target.releases)
            ),
            None => "move off it before a release removes it".to_string(),
        },
        replacement,
        releases: Vec::new(),
        requirement: None,
    });
    f
}

/// Where a replacement that is a path of the package is absent from some targeted releases:
/// `` (it is not in torch 2.4.0 - 2.12.1, which the targets admit)`` (study 12: torch's
/// `all_gather_into_tensor` names `all_gather_single`, new in 2.13). Empty otherwise, also for
/// a replacement that is code (`torch.amp.autocast('cuda', ...)` reads as its callee).
fn replacement_missing(
    view: &apicompat_index::PackageView,
    replacement: &str,
    targeted: &[usize],
) -> String {
    let path = replacement.split('(').next().unwrap_or(replacement).trim();
    let root = path.split('.').next().unwrap_or("");
    let plain = path
        .split('.')
        .all(|s| !s.is_empty() && s.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()));
    if !plain || view.name() != root && !view.roots().iter().any(|r| r == root) {
        return String::new();
    }
    let versions = view.versions();
    let absent: Vec<usize> = targeted
        .iter()
        .copied()
        .filter(|&r| view.status(path, r).is_ok_and(|s| s.is_absent()))
        .collect();
    if absent.is_empty() {
        return String::new();
    }
    format!(
        " (it is not in {} {}, which the targets admit)",
        view.name(),
        ranges(&versions, &mask(versions.len(), &absent)).join(", ")
    )
}

/// A deprecation message on one line: its line breaks and runs of spaces (a message built
/// from several string literals, `"...\n"`) become single spaces, so the output does not show
/// them escaped as `\n`.
fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The replacement a deprecation message names: the code after "use" (`Please use
/// `torch.amp.autocast('cuda', args...)` instead.` -> `torch.amp.autocast('cuda', args...)`).
fn suggested(message: &str) -> Option<String> {
    let lower = message.to_ascii_lowercase();
    let at = [
        "use `",
        "use the `",
        "in favor of `",
        "instead use `",
        "replaced by `",
    ]
    .iter()
    .filter_map(|p| lower.find(p).map(|i| i + p.len()))
    .min()?;
    let rest = message.get(at..)?;
    let end = rest.find('`')?;
    let code = rest[..end].trim();
    (!code.is_empty()).then(|| code.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deprecation_messages_are_put_on_one_line() {
        assert_eq!(
            one_line("`a` is deprecated.\n  Please use `b`  instead.\n"),
            "`a` is deprecated. Please use `b` instead."
        );
    }

    #[test]
    fn replacements_named_by_deprecation_messages() {
        assert_eq!(
            suggested("`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead."),
            Some("torch.amp.autocast('cuda', args...)".to_string())
        );
        assert_eq!(suggested("deprecated"), None);
    }
}
