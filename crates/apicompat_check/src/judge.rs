//! What one release says about one use: the single judgement `check` ([`crate::evaluate`])
//! and `range` ([`crate::survey`]) both make, from what the index says about the use's path.

use apicompat_surface::{Kind, Signature};

use crate::collect::{Use, UseKind};
use crate::rules::{
    binds, CallDoesNotBind, MissingAttribute, MissingImport, Rule, RuleInfo, UnsupportedKeyword,
};

/// What the index says about a use's path in one release.
pub enum Said<'a> {
    Present {
        kind: Kind,
        signatures: &'a [Signature],
        /// A function defined in a class, called through a path (`Class.method(obj, ...)`):
        /// the object is passed explicitly, so the signature (without `self`) cannot judge
        /// the call.
        method_via_class: bool,
    },
    Absent,
    Unknown,
}

impl<'a> Said<'a> {
    /// What a release that has `u`'s path says: `canonical` is where it is defined, and
    /// `parent_is_class` asks the release whether a path is a class there.
    pub fn present(
        u: &Use,
        kind: Kind,
        signatures: &'a [Signature],
        canonical: &str,
        parent_is_class: impl FnOnce(&str) -> bool,
    ) -> Said<'a> {
        // `Class.method(obj, ...)` passes the object itself.
        let method_via_class = matches!(u.kind, UseKind::Call(_))
            && u.receiver.is_none()
            && kind == Kind::Function
            && canonical
                .rsplit_once('.')
                .is_some_and(|(parent, _)| parent_is_class(parent));
        Said::Present {
            kind,
            signatures,
            method_via_class,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The release has it (accepts the keyword; the call binds).
    Present,
    /// The use breaks on the release.
    Absent,
    Unknown,
}

/// The verdict on `kind` in a release that says `said`.
pub fn judge(kind: &UseKind, said: Said) -> Verdict {
    let verdict = |ok: bool| {
        if ok {
            Verdict::Present
        } else {
            Verdict::Absent
        }
    };
    match (kind, said) {
        (UseKind::Keyword(k), Said::Present { signatures, .. }) if !signatures.is_empty() => {
            verdict(signatures.iter().any(|s| s.accepts_keyword(k)))
        }
        (UseKind::Keyword(_), _) => Verdict::Unknown,
        (
            UseKind::Call(shape),
            Said::Present {
                kind: Kind::Function | Kind::Class,
                signatures,
                method_via_class: false,
            },
        ) if !signatures.is_empty() => verdict(signatures.iter().any(|s| binds(s, shape))),
        (UseKind::Call(_), _) => Verdict::Unknown,
        (_, Said::Present { .. }) => Verdict::Present,
        (_, Said::Absent) => Verdict::Absent,
        (_, Said::Unknown) => Verdict::Unknown,
    }
}

/// For an assignment to a path (`UseKind::Store`): the path whose presence in a release makes
/// the assignment fail there when the name is missing, the parent's `__setattr__`
/// (`apicompat_extract`'s installed-names rule binds it on config modules). Where the release
/// lacks it, the verdict is unknown: assigning a new name to a module creates it.
pub fn store_guard(u: &Use) -> Option<String> {
    match u.kind {
        UseKind::Store => u
            .path
            .rsplit_once('.')
            .map(|(parent, _)| format!("{parent}.__setattr__")),
        _ => None,
    }
}

/// The verdict on an object that may be of several classes, from each class's verdict: present
/// where one has it, absent only where every one lacks it.
pub fn any_of(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let mut all_absent = true;
    for v in verdicts {
        match v {
            Verdict::Present => return Verdict::Present,
            Verdict::Unknown => all_absent = false,
            Verdict::Absent => {}
        }
    }
    if all_absent {
        Verdict::Absent
    } else {
        Verdict::Unknown
    }
}

/// Whether a use breaks only where its path drifted, i.e. only when some indexed release has
/// it: calls (a signature that binds nowhere is more likely misread than broken) and members
/// of objects whose class is a declared bound (a subclass may have what the class lacks).
pub fn drift_only(u: &Use) -> bool {
    matches!(u.kind, UseKind::Call(_)) || u.receiver.as_ref().is_some_and(|r| !r.exact)
}

/// The rule a use breaks.
pub fn rule_of(kind: &UseKind) -> Rule {
    match kind {
        UseKind::Import => MissingImport::RULE,
        UseKind::Attribute | UseKind::Getattr | UseKind::Store => MissingAttribute::RULE,
        UseKind::Keyword(_) => UnsupportedKeyword::RULE,
        UseKind::Call(_) => CallDoesNotBind::RULE,
    }
}

/// The symbol a finding on a use names: `path`, `path(k=)` for a keyword, `path()` for a call.
pub fn symbol_of(u: &Use) -> String {
    match &u.kind {
        UseKind::Keyword(k) => format!("{}({k}=)", u.path),
        UseKind::Call(_) => format!("{}()", u.path),
        _ => u.path.clone(),
    }
}
