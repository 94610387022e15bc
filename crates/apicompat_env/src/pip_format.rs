//! A requirement written the way pip prints it: `str(packaging.requirements.Requirement)`
//! (packaging 22 and later, vendored by current pip).
//!
//! pip check quotes requirements through `packaging`, which keeps the name, the extras and
//! each version clause as written but rewrites the rest: extras sorted, clauses sorted as
//! strings and joined by `,` without spaces, parentheses around clauses dropped, markers
//! re-emitted with double quotes and single spaces (`python_version < "3.8"`), legacy variable
//! names replaced (`os.name` -> `os_name`) and extra names normalized. The parsed form of
//! `pep508_rs` cannot give that text back (its markers are a decision diagram), so the
//! requirement is re-read from its text here. Text that does not fit returns `None`.

use apicompat_requirements::normalize_name;

/// `zipp (>= 3.20)` -> `zipp>=3.20`; `a[y,x] ; python_version<'3.8'` ->
/// `a[x,y]; python_version < "3.8"`.
pub fn packaging_str(raw: &str) -> Option<String> {
    let text = raw.trim();
    let (req_part, marker_part) = split_marker(text);
    let req_part = req_part.trim();

    let name_end = req_part
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
        .map_or(req_part.len(), |(i, _)| i);
    let name = &req_part[..name_end];
    if name.is_empty() {
        return None;
    }
    let mut rest = req_part[name_end..].trim_start();

    let mut out = String::from(name);
    if let Some(after) = rest.strip_prefix('[') {
        let close = after.find(']')?;
        let mut extras: Vec<&str> = after[..close]
            .split(',')
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .collect();
        extras.sort_unstable();
        extras.dedup();
        if !extras.is_empty() {
            out.push('[');
            out.push_str(&extras.join(","));
            out.push(']');
        }
        rest = after[close + 1..].trim_start();
    }

    let mut url = None;
    if let Some(after) = rest.strip_prefix('@') {
        url = Some(after.trim().to_string());
    } else {
        let spec = match rest.strip_prefix('(') {
            Some(inner) => inner.strip_suffix(')')?.trim(),
            None => rest,
        };
        let mut clauses: Vec<String> = Vec::new();
        for clause in spec.split(',') {
            let clause = clause.trim();
            if clause.is_empty() {
                continue;
            }
            let op_end = clause
                .char_indices()
                .find(|(_, c)| !matches!(c, '<' | '>' | '=' | '!' | '~'))
                .map_or(clause.len(), |(i, _)| i);
            let (op, version) = clause.split_at(op_end);
            if op.is_empty() {
                return None;
            }
            let version: String = version.chars().filter(|c| !c.is_whitespace()).collect();
            clauses.push(format!("{op}{version}"));
        }
        clauses.sort_unstable();
        clauses.dedup();
        out.push_str(&clauses.join(","));
    }
    if let Some(url) = &url {
        out.push_str(" @ ");
        out.push_str(url);
        if marker_part.is_some() {
            out.push(' ');
        }
    }
    if let Some(marker) = marker_part {
        let marker = marker.trim();
        if !marker.is_empty() {
            let formatted = format_marker(marker)?;
            out.push_str("; ");
            out.push_str(&formatted);
        }
    }
    Some(out)
}

/// Splits `req ; marker`. For a URL requirement the `;` must follow whitespace (PEP 508).
fn split_marker(text: &str) -> (&str, Option<&str>) {
    let url_req = text
        .split(';')
        .next()
        .is_some_and(|head| head.contains('@'));
    if url_req {
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b';' && i > 0 && bytes[i - 1].is_ascii_whitespace() {
                return (&text[..i], Some(&text[i + 1..]));
            }
        }
        return (text, None);
    }
    match text.split_once(';') {
        Some((req, marker)) => (req, Some(marker)),
        None => (text, None),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Var(String),
    Str(String),
    Op(String),
    And,
    Or,
    Open,
    Close,
}

fn tokenize(marker: &str) -> Option<Vec<Token>> {
    let chars: Vec<char> = marker.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' {
            out.push(Token::Open);
            i += 1;
        } else if c == ')' {
            out.push(Token::Close);
            i += 1;
        } else if c == '"' || c == '\'' {
            let end = chars[i + 1..].iter().position(|&d| d == c)? + i + 1;
            out.push(Token::Str(chars[i + 1..end].iter().collect()));
            i = end + 1;
        } else if matches!(c, '<' | '>' | '=' | '!' | '~') {
            let start = i;
            while i < chars.len() && matches!(chars[i], '<' | '>' | '=' | '!' | '~') {
                i += 1;
            }
            out.push(Token::Op(chars[start..i].iter().collect()));
        } else if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '.'))
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            match word.as_str() {
                "and" => out.push(Token::And),
                "or" => out.push(Token::Or),
                "in" => out.push(Token::Op("in".to_string())),
                "not" => {
                    // `not in`
                    let mut j = i;
                    while j < chars.len() && chars[j].is_whitespace() {
                        j += 1;
                    }
                    if chars.get(j) == Some(&'i') && chars.get(j + 1) == Some(&'n') {
                        out.push(Token::Op("not in".to_string()));
                        i = j + 2;
                    } else {
                        return None;
                    }
                }
                _ => out.push(Token::Var(canonical_variable(&word).to_string())),
            }
        } else {
            return None;
        }
    }
    Some(out)
}

/// packaging's aliases for legacy marker variable names.
fn canonical_variable(name: &str) -> &str {
    match name {
        "os.name" => "os_name",
        "sys.platform" => "sys_platform",
        "platform.version" => "platform_version",
        "platform.machine" => "platform_machine",
        "platform.python_implementation" | "python_implementation" => {
            "platform_python_implementation"
        }
        other => other,
    }
}

/// packaging's parsed marker: a list of atoms and `and`/`or`; an atom is a nested list
/// (parenthesized) or an item.
#[derive(Debug)]
enum Node {
    List(Vec<Node>),
    Item(String),
    BoolOp(&'static str),
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn expr(&mut self) -> Option<Vec<Node>> {
        let mut out = vec![self.atom()?];
        loop {
            match self.tokens.get(self.pos) {
                Some(Token::And) => out.push(Node::BoolOp("and")),
                Some(Token::Or) => out.push(Node::BoolOp("or")),
                _ => return Some(out),
            }
            self.pos += 1;
            out.push(self.atom()?);
        }
    }

    fn atom(&mut self) -> Option<Node> {
        if self.tokens.get(self.pos) == Some(&Token::Open) {
            self.pos += 1;
            let inner = self.expr()?;
            if self.tokens.get(self.pos) != Some(&Token::Close) {
                return None;
            }
            self.pos += 1;
            return Some(Node::List(inner));
        }
        let lhs = self.value()?;
        let op = match self.tokens.get(self.pos)? {
            Token::Op(op) => op.clone(),
            _ => return None,
        };
        self.pos += 1;
        let rhs = self.value()?;
        // packaging normalizes the extra name compared with `extra`.
        let (lhs, rhs) = match (&lhs, &rhs) {
            (Token::Var(v), Token::Str(s)) if v == "extra" => {
                (lhs.clone(), Token::Str(normalize_name(s)))
            }
            (Token::Str(s), Token::Var(v)) if v == "extra" => {
                (Token::Str(normalize_name(s)), rhs.clone())
            }
            _ => (lhs, rhs),
        };
        Some(Node::Item(format!(
            "{} {op} {}",
            serialize(&lhs),
            serialize(&rhs)
        )))
    }

    fn value(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos)?.clone();
        match t {
            Token::Var(_) | Token::Str(_) => {
                self.pos += 1;
                Some(t)
            }
            _ => None,
        }
    }
}

fn serialize(t: &Token) -> String {
    match t {
        Token::Var(v) => v.clone(),
        Token::Str(s) => format!("\"{s}\""),
        _ => String::new(),
    }
}

fn format_marker(marker: &str) -> Option<String> {
    let tokens = tokenize(marker)?;
    let mut parser = Parser { tokens, pos: 0 };
    let list = parser.expr()?;
    if parser.pos != parser.tokens.len() {
        return None;
    }
    Some(format_node(&Node::List(list), true))
}

/// packaging's `_format_marker`: a redundant `((...))` wrapper is unwrapped, a nested group
/// keeps its parentheses.
fn format_node(node: &Node, first: bool) -> String {
    match node {
        Node::List(items) => {
            if let [only @ (Node::List(_) | Node::Item(_))] = items.as_slice() {
                return format_node(only, first);
            }
            let inner: Vec<String> = items.iter().map(|n| format_node(n, false)).collect();
            if first {
                inner.join(" ")
            } else {
                format!("({})", inner.join(" "))
            }
        }
        Node::Item(s) => s.clone(),
        Node::BoolOp(op) => (*op).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::packaging_str;

    #[test]
    fn as_packaging_prints_them() {
        let cases = [
            ("zipp >=3.20", "zipp>=3.20"),
            ("zipp (>=3.20)", "zipp>=3.20"),
            ("six", "six"),
            ("urllib3 >=1.21.1, <3", "urllib3<3,>=1.21.1"),
            (
                "pytest !=8.1.*,>=6 ; extra == 'test'",
                "pytest!=8.1.*,>=6; extra == \"test\"",
            ),
            (
                "typing-extensions >=3.6.4 ; python_version < \"3.8\"",
                "typing-extensions>=3.6.4; python_version < \"3.8\"",
            ),
            (
                "pytest-ruff >=0.2.1 ; (sys_platform != \"cygwin\") and extra == 'check'",
                "pytest-ruff>=0.2.1; sys_platform != \"cygwin\" and extra == \"check\"",
            ),
            (
                "a; python_version < '3.8' and (os.name == 'nt' or sys_platform=='win32')",
                "a; python_version < \"3.8\" and (os_name == \"nt\" or sys_platform == \"win32\")",
            ),
            ("Foo_Bar[z, y]==1.0", "Foo_Bar[y,z]==1.0"),
            ("torch ==2.1.2", "torch==2.1.2"),
            ("x; extra == 'Foo_Bar'", "x; extra == \"foo-bar\""),
            (
                "x; 'linux' not  in sys_platform",
                "x; \"linux\" not in sys_platform",
            ),
            (
                "pkg @ https://example.com/pkg.whl ; python_version >= '3'",
                "pkg @ https://example.com/pkg.whl ; python_version >= \"3\"",
            ),
            ("a; ((python_version<'3'))", "a; python_version < \"3\""),
            (
                "a; python_version>'2' and ((os_name=='nt' or os_name=='x'))",
                "a; python_version > \"2\" and (os_name == \"nt\" or os_name == \"x\")",
            ),
        ];
        for (raw, want) in cases {
            assert_eq!(packaging_str(raw).as_deref(), Some(want), "{raw}");
        }
        assert_eq!(packaging_str("x; python_version <"), None);
        assert_eq!(packaging_str(""), None);
    }
}
