//! The rules of `apicompat check`, one per file, each with a code (`AC001`), a name, a default
//! severity and a doc comment that says what it finds, why it matters, an example and the fix.

pub(crate) mod ac001_missing_import;
pub(crate) mod ac002_missing_attribute;
pub(crate) mod ac003_unsupported_keyword;
pub(crate) mod ac004_unindexed_package;
pub(crate) mod ac005_syntax_error;
pub(crate) mod ac006_io_error;
pub(crate) mod ac007_unchecked_code;
pub mod ac008_requirement_admits_broken;
pub(crate) mod ac009_drifting_attribute;
pub(crate) mod ac010_copied_process_group;
pub(crate) mod ac011_private_api;
pub(crate) mod ac012_deprecated_api;
pub(crate) mod ac013_call_does_not_bind;

use crate::model::{Finding, Fix, FixKind, Severity};

pub use ac001_missing_import::MissingImport;
pub use ac002_missing_attribute::MissingAttribute;
pub use ac003_unsupported_keyword::UnsupportedKeyword;
pub use ac004_unindexed_package::{
    add_unfetched, FirstImport, Unindexed, UnindexedImport, UnindexedPackage,
};
pub use ac005_syntax_error::SyntaxError;
pub use ac006_io_error::IoError;
pub use ac007_unchecked_code::UncheckedCode;
pub use ac008_requirement_admits_broken::RequirementAdmitsBroken;
pub use ac009_drifting_attribute::DriftingAttribute;
pub use ac010_copied_process_group::CopiedProcessGroup;
pub use ac011_private_api::PrivateApi;
pub use ac012_deprecated_api::DeprecatedApi;
pub use ac013_call_does_not_bind::{binds, CallDoesNotBind, CallShape};

/// A rule's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// One line: what the rule finds.
    pub summary: &'static str,
}

/// Implemented by the marker type of each rule.
pub trait RuleInfo {
    const RULE: Rule;
}

/// Where a use of an indexed path breaks, for the messages of the rules on uses (AC001,
/// AC002, AC003, AC013).
pub(crate) struct Breaks<'a> {
    /// The path used (`torch.compiler.disable`).
    pub path: &'a str,
    pub package: &'a str,
    /// The releases that break, as listed in the message (`2.0.0, 2.0.1` or ranges).
    pub listed: &'a str,
    /// How the targets were chosen, short (`torch>=2.0 in requirements.txt`).
    pub target: &'a str,
    /// Where it works.
    pub works: Works<'a>,
    /// The first segment each release listed lacks, newest first, with its releases when
    /// they are not all listed (`torch._six` in 2.0.0 - 2.15.0; in 1.13 the path's own last).
    pub absent: &'a [(String, Option<String>)],
}

/// Where a use that breaks works.
#[derive(Clone, Copy)]
pub(crate) enum Works<'a> {
    /// In these releases (`from 2.1.0`, `in 2.1.0 - 2.3.1`).
    In(&'a str),
    /// In no indexed release.
    Nowhere,
    /// No release is known to have it, but some may (what they hold is not known).
    NotKnown,
}

/// The message of a path missing in some releases (an import or an attribute), naming the
/// first segment the releases lack where it is not the whole path ([`Breaks::absent`]).
pub(crate) fn missing_message(b: &Breaks) -> String {
    let parents: Vec<String> = b
        .absent
        .iter()
        .filter(|(m, _)| m != b.path)
        .take(3)
        .map(|(m, at)| match at {
            Some(at) => format!("`{m}` does not exist in {at}"),
            None => format!("`{m}` does not exist there"),
        })
        .collect();
    let detail = match parents.is_empty() {
        true => String::new(),
        false => format!(": {}", parents.join(", ")),
    };
    // After a clause on a parent (`torch._dynamo` does not exist in 1.13.0 - 1.13.1), "it"
    // would read as that parent: the path is named again.
    let it = match parents.is_empty() {
        true => "it".to_string(),
        false => format!("`{}`", b.path),
    };
    let tail = match b.works {
        Works::Nowhere => format!("{it} is in no indexed release"),
        Works::NotKnown => format!("whether the other indexed releases have {it} is not known"),
        Works::In(from_on) => format!("{it} exists {from_on}"),
    };
    format!(
        "`{}` is not in {} {} ({}){detail}; {tail}",
        b.path, b.package, b.listed, b.target
    )
}

/// A fix that guards a use.
pub(crate) fn guard(message: String) -> Fix {
    Fix {
        kind: FixKind::Guard,
        message,
        replacement: None,
        releases: Vec::new(),
        requirement: None,
    }
}

/// Flags, one per release of `n`, for the positions in `set`.
pub(crate) fn mask(n: usize, set: &[usize]) -> Vec<bool> {
    let mut out = vec![false; n];
    for &i in set {
        if let Some(flag) = out.get_mut(i) {
            *flag = true;
        }
    }
    out
}

/// The releases a finding on a use names: where it breaks and where it works, by version and
/// as ranges of the package's versions.
pub(crate) struct Releases {
    pub missing_in: Vec<String>,
    pub present_in: Vec<String>,
    pub missing_ranges: Vec<String>,
    pub present_ranges: Vec<String>,
}

impl Releases {
    pub(crate) fn of(versions: &[String], missing: &[bool], present: &[bool]) -> Releases {
        let named = |set: &[bool]| -> Vec<String> {
            versions
                .iter()
                .zip(set)
                .filter(|(_, &on)| on)
                .map(|(v, _)| v.clone())
                .collect()
        };
        Releases {
            missing_in: named(missing),
            present_in: named(present),
            missing_ranges: apicompat_index::ranges(versions, missing),
            present_ranges: apicompat_index::ranges(versions, present),
        }
    }

    /// The releases that break, for a message: up to three by name, else as ranges.
    pub(crate) fn listed(&self) -> String {
        if self.missing_in.len() <= 3 {
            self.missing_in.join(", ")
        } else {
            self.missing_ranges.join(", ")
        }
    }

    /// `f` naming these releases.
    pub(crate) fn named_in(self, f: Finding) -> Finding {
        Finding {
            missing_in: self.missing_in,
            present_in: self.present_in,
            missing_ranges: self.missing_ranges,
            present_ranges: self.present_ranges,
            ..f
        }
    }
}

/// A fix that requires a release range (`torch>=2.1.0`).
pub(crate) fn pin(requirement: String) -> Fix {
    Fix {
        kind: FixKind::Pin,
        message: format!("require `{requirement}`"),
        replacement: None,
        releases: Vec::new(),
        requirement: Some(requirement),
    }
}

/// Every rule, in code order.
pub const ALL: &[Rule] = &[
    MissingImport::RULE,
    MissingAttribute::RULE,
    UnsupportedKeyword::RULE,
    UnindexedPackage::RULE,
    SyntaxError::RULE,
    IoError::RULE,
    UncheckedCode::RULE,
    RequirementAdmitsBroken::RULE,
    DriftingAttribute::RULE,
    CopiedProcessGroup::RULE,
    PrivateApi::RULE,
    DeprecatedApi::RULE,
    CallDoesNotBind::RULE,
];

/// The rule with a code.
pub fn by_code(code: &str) -> Option<Rule> {
    ALL.iter().copied().find(|r| r.code == code)
}

/// Which rules are on: Ruff-style `select` and `ignore` lists of codes or code prefixes
/// (`AC`, `AC00`, `AC001`, `ALL`). An empty `select` selects every rule.
#[derive(Debug, Clone, Default)]
pub struct RuleSelection {
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

impl RuleSelection {
    /// Codes or prefixes that match no rule.
    pub fn unknown_codes(&self) -> Vec<String> {
        self.select
            .iter()
            .chain(&self.ignore)
            .filter(|c| !ALL.iter().any(|r| matches(c, r.code)))
            .cloned()
            .collect()
    }

    /// Whether `code` is selected by its full code (`--select AC004`), not by a prefix or `ALL`.
    pub fn names(&self, code: &str) -> bool {
        self.select
            .iter()
            .any(|s| s.trim().eq_ignore_ascii_case(code))
            && !self.ignore.iter().any(|s| matches(s, code))
    }

    pub fn enabled(&self, code: &str) -> bool {
        let selected = self.select.is_empty() || self.select.iter().any(|s| matches(s, code));
        selected && !self.ignore.iter().any(|s| matches(s, code))
    }
}

fn matches(selector: &str, code: &str) -> bool {
    let s = selector.trim();
    s.eq_ignore_ascii_case("ALL") || (!s.is_empty() && code.starts_with(&s.to_ascii_uppercase()))
}
