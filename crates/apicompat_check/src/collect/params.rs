//! Which parameter of a function a version comparison in its body compares with: through
//! `parse(...)` and the like, or as a key of a module-level dict of versions.

use ruff_python_ast::{self as ast, Expr};

use super::*;

/// The names of the parameters that can be passed by position, in order.
pub(super) fn positional_names(params: &ast::Parameters) -> Vec<&str> {
    params
        .posonlyargs
        .iter()
        .chain(&params.args)
        .map(|p| p.name().as_str())
        .collect()
}

/// The parameter a version argument is, through `parse(v)`, `version.Version(v)`, `str(v)`.
pub(super) fn version_param_of(params: &ast::Parameters, e: &Expr) -> Option<String> {
    let mut e = e;
    let mut depth = 0;
    while let Expr::Call(call) = e {
        depth += 1;
        let name = dotted(&call.func)?;
        if depth > 8 || !VERSION_PARSERS.contains(&last_segment(&name)) {
            return None;
        }
        let [arg] = &*call.arguments.args else {
            return None;
        };
        e = arg;
    }
    match e {
        Expr::Name(n) if params.iter().any(|p| p.name().as_str() == n.id.as_str()) => {
            Some(n.id.to_string())
        }
        _ => None,
    }
}

/// The parameter a version argument looks up in a module-level dict of versions, through
/// `parse(...)` and the like: `MINIMUM.get(name, DEFAULT)`, `MINIMUM[name]` (xDiT's
/// `has_valid_diffusers_version`): (the parameter, the dict's name).
pub(super) fn keyed_param_of(params: &ast::Parameters, e: &Expr) -> Option<(String, String)> {
    let mut e = e;
    let mut depth = 0;
    while let Expr::Call(call) = e {
        depth += 1;
        let name = dotted(&call.func)?;
        if depth > 8 {
            return None;
        }
        if VERSION_PARSERS.contains(&last_segment(&name)) {
            let [arg] = &*call.arguments.args else {
                return None;
            };
            e = arg;
            continue;
        }
        // `TABLE.get(param, default)`.
        let (table, "get") = name.rsplit_once('.')? else {
            return None;
        };
        let [Expr::Name(key), ..] = &*call.arguments.args else {
            return None;
        };
        let is_param = params.iter().any(|p| p.name().as_str() == key.id.as_str());
        let plain = !table.contains('.') && call.arguments.args.len() <= 2;
        return (is_param && plain).then(|| (key.id.to_string(), table.to_string()));
    }
    match e {
        Expr::Subscript(s) => match (&*s.value, &*s.slice) {
            (Expr::Name(table), Expr::Name(key))
                if params.iter().any(|p| p.name().as_str() == key.id.as_str()) =>
            {
                Some((key.id.to_string(), table.id.to_string()))
            }
            _ => None,
        },
        _ => None,
    }
}
