use ruff_text_size::TextSize;

use super::{Rule, RuleInfo};
use crate::collect;
use crate::files::Analyzed;
use crate::model::{Finding, Severity};

/// ## What it does
/// Reports code that was read but only partly checked: a file that is not valid UTF-8 (read
/// with replacement characters), or statements nested deeper than the checker follows.
///
/// ## Why is this bad?
/// A break in the unchecked part would go unnoticed.
///
/// ## Example
/// A source file saved as Latin-1 with `é` in a string.
///
/// ## How to fix
/// Save the file as UTF-8; flatten the nesting.
pub struct UncheckedCode;

impl RuleInfo for UncheckedCode {
    const RULE: Rule = Rule {
        code: "AC007",
        name: "unchecked-code",
        severity: Severity::Warning,
        summary: "part of a file could not be checked",
    };
}

/// The parts of a file that are not checked, each with its line.
pub(crate) fn findings(file: &Analyzed) -> Vec<Finding> {
    let at = |span: (u32, u32, u32, u32), message: String| {
        Finding::of_file(UncheckedCode::RULE, &file.path, span, message)
    };
    let mut out = Vec::new();
    if let Some(bad) = file.bad_utf8_at {
        let offset = bad.min(file.text.len());
        let (line, col) = file.position(TextSize::try_from(offset).unwrap_or_default());
        out.push(at(
            (line, col, line, col),
            format!("not valid UTF-8 (first bad byte at offset {bad}); read with replacement characters"),
        ));
    }
    if let Some(reason) = &file.not_parsed {
        out.push(at(
            (1, 1, 1, 1),
            format!("{reason}: the file is not checked"),
        ));
    }
    if let Some(range) = file.uses.too_deep {
        out.push(at(
            file.span(range),
            format!(
                "nesting deeper than {} levels; the code inside is not checked",
                collect::MAX_DEPTH
            ),
        ));
    }
    out
}
