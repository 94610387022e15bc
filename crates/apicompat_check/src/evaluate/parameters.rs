//! Tests of a callable's parameters (`"dynamo" in inspect.signature(torch.onnx.export).parameters`,
//! `collect/conditions.rs` `keyword_test`): the walk records them as a test of the path
//! `f(k=)` ([`crate::collect::PathTest`]), so a branch under one runs only on the releases
//! whose `f` lists `k` (study 42, F-AC: torch-rechub's `torch.export.Dim` under a test of
//! `dynamo`).

use apicompat_index::{PackageView, Status};
use apicompat_surface::{ParamKind, Signature};

use crate::collect::Found;

/// What release `r` of `view` says of a tested path `f(k=)`: present where `f` lists a
/// parameter `k`, absent where `f` is missing or lists none (and takes no `*args` or
/// `**kwargs`, behind which a wrapper may show another signature); `None` for any other path.
pub(crate) fn found(view: &PackageView, path: &str, r: usize) -> Option<Found> {
    let (f, k) = path.strip_suffix("=)")?.split_once('(')?;
    Some(match view.status(f, r) {
        Ok(Status::Present {
            path: found,
            symbol,
        }) => match lists(&view.keyword_signatures(&found, &symbol, r), k) {
            Some(true) => Found::Present(symbol.kind()),
            Some(false) => Found::Absent,
            None => Found::Unknown,
        },
        Ok(Status::Absent { .. }) => Found::Absent,
        Ok(Status::Unknown { .. }) | Err(_) => Found::Unknown,
    })
}

/// Whether every signature lists a parameter `k` (`Some(true)`), none does and none takes
/// variadic arguments (`Some(false)`); unknown otherwise (no signature, overloads that
/// disagree).
fn lists(signatures: &[Signature], k: &str) -> Option<bool> {
    let has = |s: &Signature| s.params.iter().any(|p| p.name == k);
    let variadic = |s: &Signature| {
        s.params
            .iter()
            .any(|p| matches!(p.kind, ParamKind::VarKeyword | ParamKind::VarPositional))
    };
    if signatures.is_empty() {
        None
    } else if signatures.iter().all(has) {
        Some(true)
    } else if signatures.iter().all(|s| !has(s) && !variadic(s)) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apicompat_surface::Param;

    fn sig(params: &[(&str, ParamKind)]) -> Signature {
        Signature {
            params: params
                .iter()
                .map(|(n, kind)| Param {
                    name: n.to_string(),
                    kind: *kind,
                    default: false,
                    annotation: None,
                })
                .collect(),
            returns: None,
        }
    }

    #[test]
    fn a_parameter_is_listed_by_name_and_variadics_leave_it_unknown() {
        use ParamKind::*;
        let with = sig(&[("model", PositionalOrKeyword), ("dynamo", KeywordOnly)]);
        let without = sig(&[("model", PositionalOrKeyword)]);
        let kwargs = sig(&[("model", PositionalOrKeyword), ("kwargs", VarKeyword)]);
        assert_eq!(lists(std::slice::from_ref(&with), "dynamo"), Some(true));
        assert_eq!(lists(std::slice::from_ref(&without), "dynamo"), Some(false));
        assert_eq!(lists(&[kwargs], "dynamo"), None);
        assert_eq!(lists(&[with, without], "dynamo"), None);
        assert_eq!(lists(&[], "dynamo"), None);
        // A positional-only parameter is listed too (`inspect.signature` shows it).
        assert_eq!(lists(&[sig(&[("x", PositionalOnly)])], "x"), Some(true));
    }
}
