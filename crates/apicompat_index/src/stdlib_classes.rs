//! Members of the standard-library classes that package classes derive from (`type`,
//! `enum.Enum`, `Exception`, `typing.NamedTuple`, `abc.ABC`...), read from typeshed's stubs by
//! `scripts/gen_stdlib_classes.py` (typeshed as shipped in the mypy 2.4.1 wheel). Each class
//! lists every non-dunder member along its bases and its metaclass.

use std::collections::HashMap;
use std::sync::OnceLock;

use apicompat_surface::Kind;

const DATA: &str = include_str!("../data/stdlib_classes.txt");

/// The modules whose classes the table holds; a base written with another prefix is not one
/// of them.
const MODULES: &[&str] = &["builtins", "abc", "enum", "typing", "typing_extensions"];

/// What the table says about one class.
pub enum StdClass {
    /// Every member (sorted by name).
    Members(&'static [(&'static str, Kind)]),
    /// A base of the class could not be read from the stubs.
    Incomplete,
}

type Table = HashMap<&'static str, Option<Vec<(&'static str, Kind)>>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        DATA.lines()
            .filter_map(|line| {
                let mut parts = line.split(' ').filter(|p| !p.is_empty());
                let name = parts.next()?;
                let mut members = Vec::new();
                for part in parts {
                    let (kind, member) = part.split_once(':').unwrap_or(("?", part));
                    let kind = match kind {
                        "f" => Kind::Function,
                        "p" => Kind::Property,
                        "c" => Kind::Class,
                        "a" => Kind::Attribute,
                        _ => return Some((name, None)),
                    };
                    members.push((member, kind));
                }
                members.sort_by(|a, b| a.0.cmp(b.0));
                Some((name, Some(members)))
            })
            .collect()
    })
}

/// The standard-library class a base written as `base` names (`type`, `builtins.type`,
/// `enum.Enum`, `typing.NamedTuple`), if the table has it. A bare name is a builtin.
pub fn lookup(base: &str) -> Option<StdClass> {
    let key = match base.rsplit_once('.') {
        Some((module, _)) if MODULES.contains(&module) => base.to_string(),
        Some(_) => return None,
        None => format!("builtins.{base}"),
    };
    let (_, entry) = table().get_key_value(key.as_str())?;
    Some(match entry {
        Some(members) => StdClass::Members(members),
        None => StdClass::Incomplete,
    })
}

/// The kind of member `name` of a standard-library class, if it has one.
pub fn member(members: &[(&'static str, Kind)], name: &str) -> Option<Kind> {
    members
        .binary_search_by(|(m, _)| (*m).cmp(name))
        .ok()
        .map(|i| members[i].1)
}

/// The qualified name the table knows `base` by (for messages and present paths).
pub fn qualified(base: &str) -> String {
    if base.contains('.') {
        base.to_string()
    } else {
        format!("builtins.{base}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members(base: &str) -> &'static [(&'static str, Kind)] {
        match lookup(base) {
            Some(StdClass::Members(m)) => m,
            _ => panic!("{base} is not in the table"),
        }
    }

    #[test]
    fn builtin_and_stdlib_bases_have_their_typeshed_members() {
        assert_eq!(member(members("type"), "mro"), Some(Kind::Function));
        assert_eq!(
            member(members("builtins.type"), "mro"),
            Some(Kind::Function)
        );
        assert_eq!(member(members("enum.Enum"), "value"), Some(Kind::Property));
        assert_eq!(
            member(members("enum.IntEnum"), "bit_length"),
            Some(Kind::Function)
        );
        assert!(member(members("enum.Enum"), "XPU").is_none());
        assert!(member(members("typing.NamedTuple"), "_asdict").is_some());
        assert!(member(members("Exception"), "with_traceback").is_some());
        assert!(member(members("abc.ABC"), "register").is_some());
        assert!(member(members("dict"), "keys").is_some());
        assert!(members("object").is_empty());
        assert!(members("typing.Generic").is_empty());
        assert!(members("typing_extensions.Protocol").is_empty());
        // Dunders are left out: the index never judges them.
        assert!(member(members("object"), "__init__").is_none());
    }

    #[test]
    fn other_prefixes_are_not_stdlib_classes() {
        assert!(lookup("numpy.ndarray").is_none());
        assert!(lookup("torch.Enum").is_none());
        assert!(lookup("NoSuchBuiltin").is_none());
    }
}
