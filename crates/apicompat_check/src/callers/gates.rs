//! pytest's collection gates as module covers: the files a `conftest.py` keeps pytest from
//! importing under version tests are imported only where those tests are false.

use apicompat_hash::HashMap;
use std::sync::Arc;

use crate::collect::GuardAt;
use crate::files::Analyzed;
use crate::versions::Pred;

/// Gates of `conftest.py` files followed ([`gates`]); the others limit nothing.
const MAX_GATES: usize = 64;

/// The files `conftest.py` files keep pytest from importing under version tests
/// ([`crate::collect::CollectGate`]), with where pytest does import them: where every gate
/// that matches the file is false (a gate whose tests are on several packages says nothing).
pub(super) fn gates(files: &[Arc<Analyzed>]) -> HashMap<usize, (Vec<(String, Pred)>, GuardAt)> {
    let mut out: HashMap<usize, (Vec<(String, Pred)>, GuardAt)> = HashMap::default();
    // Each gate is matched against every file: at most this many gates, so the work stays
    // linear in the number of files.
    let mut budget = MAX_GATES;
    for (ci, conftest) in files.iter().enumerate() {
        let gates = &conftest.uses.collect_gates;
        if gates.is_empty() || conftest.path.file_name().is_none_or(|n| n != "conftest.py") {
            continue;
        }
        let Some(dir) = conftest.path.parent() else {
            continue;
        };
        for gate in gates {
            let Some(left) = budget.checked_sub(1) else {
                return out;
            };
            budget = left;
            let held = crate::versions::Restriction {
                parts: gate.versions.to_vec(),
                complete: true,
            };
            let Some(collected) = held.negate().and_then(|r| r.parts.into_iter().next()) else {
                continue;
            };
            let at = GuardAt {
                range: gate.at,
                file: u32::try_from(ci).ok(),
            };
            for (fi, f) in files.iter().enumerate() {
                let Ok(rel) = f.path.strip_prefix(dir) else {
                    continue;
                };
                let rel: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if fi == ci || !crate::collect::gate_matches(gate, &rel.join("/")) {
                    continue;
                }
                let entry = out.entry(fi).or_insert_with(|| (Vec::new(), at));
                entry.0.push(collected.clone());
            }
        }
    }
    out
}
