//! `# noqa: AC001` and `# apicompat: ignore[AC001]` comments.

use apicompat_hash::HashMap;

/// What comments on one line silence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Silence {
    All,
    Codes(Vec<String>),
}

impl Silence {
    pub fn covers(&self, code: &str) -> bool {
        match self {
            Silence::All => true,
            Silence::Codes(codes) => codes.iter().any(|c| code.starts_with(c.as_str())),
        }
    }
}

/// The suppression comments of one file, by 1-based line.
#[derive(Debug, Clone, Default)]
pub struct Suppressions {
    pub lines: HashMap<u32, Vec<Silence>>,
    /// `# apicompat: ignore-file`.
    pub whole_file: bool,
}

impl Suppressions {
    pub fn add_comment(&mut self, line: u32, comment: &str) {
        // A comment may hold several directives: `# type: ignore  # noqa: AC001`.
        for part in comment.split('#').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(s) = parse_directive(part) {
                if s == Directive::File {
                    self.whole_file = true;
                } else if let Directive::Line(silence) = s {
                    self.lines.entry(line).or_default().push(silence);
                }
            }
        }
    }

    pub fn silences(&self, lines: &[u32], code: &str) -> bool {
        self.whole_file
            || lines.iter().any(|l| {
                self.lines
                    .get(l)
                    .is_some_and(|v| v.iter().any(|s| s.covers(code)))
            })
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Directive {
    Line(Silence),
    File,
}

fn codes(list: &str) -> Vec<String> {
    list.split([',', ' '])
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty())
        .collect()
}

fn parse_directive(text: &str) -> Option<Directive> {
    let lower = text.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("noqa") {
        let rest = rest.trim_start();
        return Some(Directive::Line(match rest.strip_prefix(':') {
            Some(list) if !codes(list).is_empty() => {
                Silence::Codes(codes(&text[text.len() - list.len()..]))
            }
            _ => Silence::All,
        }));
    }
    let rest = lower.strip_prefix("apicompat:")?.trim_start();
    if rest.starts_with("ignore-file") {
        return Some(Directive::File);
    }
    let rest = rest.strip_prefix("ignore")?.trim_start();
    Some(Directive::Line(match rest.strip_prefix('[') {
        Some(list) => Silence::Codes(codes(list.split(']').next().unwrap_or(""))),
        None => Silence::All,
    }))
}

/// An AC012 warning that a name is deprecated says nothing more where the same line already
/// has an error that the name is missing (AC001, AC002): `datasets.load_metric`, deprecated in
/// 2.x and gone in 3.0. `findings` is sorted.
pub(crate) fn drop_deprecations_of_missing(findings: &mut Vec<crate::model::Finding>) {
    let missing: apicompat_hash::HashSet<(&std::path::Path, u32, &str)> = findings
        .iter()
        .filter(|f| {
            f.severity == crate::model::Severity::Error && matches!(f.code, "AC001" | "AC002")
        })
        .map(|f| (f.path.as_path(), f.line, f.symbol.as_str()))
        .collect();
    if missing.is_empty() {
        return;
    }
    let dropped: Vec<bool> = findings
        .iter()
        .map(|f| {
            f.code == "AC012" && missing.contains(&(f.path.as_path(), f.line, f.symbol.as_str()))
        })
        .collect();
    let mut i = 0;
    findings.retain(|_| {
        i += 1;
        !dropped[i - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives() {
        let mut s = Suppressions::default();
        s.add_comment(1, "# noqa");
        s.add_comment(2, "# noqa: AC001, AC003");
        s.add_comment(3, "# apicompat: ignore[AC002]");
        s.add_comment(4, "# type: ignore # apicompat: ignore");
        s.add_comment(5, "# a note about noqa");
        assert!(s.silences(&[1], "AC002"));
        assert!(s.silences(&[2], "AC003"));
        assert!(!s.silences(&[2], "AC002"));
        assert!(s.silences(&[3], "AC002"));
        assert!(!s.silences(&[3], "AC001"));
        assert!(s.silences(&[4], "AC001"));
        assert!(!s.silences(&[5], "AC001"));
        assert!(!s.whole_file);
        s.add_comment(9, "# apicompat: ignore-file");
        assert!(s.whole_file);
    }

    #[test]
    fn a_deprecation_of_a_missing_name_on_the_same_line_is_dropped() {
        use crate::model::{Finding, Reach, Severity};
        let rule = |code: &'static str, severity| crate::rules::Rule {
            code,
            name: "r",
            severity,
            summary: "",
        };
        let at = |code, severity, line: u32, symbol: &str| Finding {
            path: "m.py".into(),
            line,
            symbol: symbol.to_string(),
            ..Finding::of_use(&rule(code, severity), false, Reach::ImportTime)
        };
        let mut findings = vec![
            at("AC001", Severity::Error, 4, "datasets.load_metric"),
            at("AC012", Severity::Warning, 4, "datasets.load_metric"),
            at("AC012", Severity::Warning, 5, "datasets.load_metric"),
            at("AC012", Severity::Warning, 4, "datasets.other"),
        ];
        super::drop_deprecations_of_missing(&mut findings);
        let left: Vec<(&str, u32, &str)> = findings
            .iter()
            .map(|f| (f.code, f.line, f.symbol.as_str()))
            .collect();
        assert_eq!(
            left,
            [
                ("AC001", 4, "datasets.load_metric"),
                ("AC012", 5, "datasets.load_metric"),
                ("AC012", 4, "datasets.other"),
            ]
        );
    }
}
