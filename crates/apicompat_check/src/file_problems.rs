//! Findings about a file itself rather than a use in it: it cannot be read, is not valid
//! UTF-8, is nested too deep to walk, or has syntax errors (AC005, AC006, AC007; each rule's
//! file builds its findings).

use crate::files::Analyzed;
use crate::model::{Finding, Summary};
use crate::rules::{ac005_syntax_error, ac006_io_error, ac007_unchecked_code};

/// Adds file `fi`'s own problems to `per_file` (with the lines a `noqa` may be on); true when
/// it could not be read at all (nothing else is known of it).
pub(crate) fn of(
    fi: usize,
    file: &Analyzed,
    per_file: &mut Vec<(usize, Finding, Vec<u32>)>,
    summary: &mut Summary,
) -> bool {
    if let Some(f) = ac006_io_error::finding(file) {
        summary.io_failure = true;
        per_file.push((fi, f, vec![]));
        return true;
    }
    let (syntax, more) = ac005_syntax_error::findings(file);
    for f in ac007_unchecked_code::findings(file)
        .into_iter()
        .chain(syntax)
    {
        let line = f.line;
        per_file.push((fi, f, vec![line]));
    }
    summary.notes.extend(more);
    false
}
