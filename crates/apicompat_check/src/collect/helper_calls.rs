//! The project's version helpers, recognised by their bodies (`is_torch_version(">=", "2.4")`,
//! comparators given the version, pip-style specifier checks), and calls of them and of a
//! package's requirement checker (`RequirementCache("torch>=2.8.0")`) in tests.

use ruff_python_ast::{self as ast, Expr, Stmt};

use super::conditions::*;
use super::spec::{spec_comparator, spec_literal};
use super::*;

impl<'a> Walker<'a> {
    /// A function whose body (after a docstring) is `return V op P`: `V` derived from an indexed
    /// package's `__version__`, `P` a parameter (or `parse(P)`, `Version(P)`...), in either
    /// order.
    ///
    /// Or whose last statement returns a comparison through an operator the caller names:
    /// `return OPS[operation](V, parse(P))`, or `operation = OPS[operation]` before `return
    /// operation(V, parse(P))` (`OPS` a table from `">="` and the like to `operator.ge`...; a
    /// comparator when `V` is a parameter too), or a call of such a comparator of this file
    /// with a package's version (`return compare_versions(torch_version, operation, v)`).
    pub(super) fn version_helper(
        &self,
        params: &ast::Parameters,
        body: &[Stmt],
    ) -> Option<VersionHelper> {
        let body = match body {
            [Stmt::Expr(e), rest @ ..] if e.value.is_string_literal_expr() => rest,
            b => b,
        };
        if let Some(h) = self.after_false_exits(params, body) {
            return Some(h);
        }
        if let Some(h) = self
            .range_helper(params, body)
            .or_else(|| self.chained_range_helper(params, body))
            .or_else(|| self.asserting(body))
        {
            return Some(h);
        }
        if let Some(h) = spec_comparator(params, body) {
            return Some(h);
        }
        if let Some(h) = super::getters::exit_comparator(params, body) {
            return Some(h);
        }
        // `v = importlib.metadata.version("transformers")` then `return v > version` (VILA's
        // `is_transformers_greater_than`): the comparison of what the names are assigned.
        if let [assigns @ .., Stmt::Return(ret)] = body {
            let only_assigns = !assigns.is_empty()
                && assigns.len() <= 4
                && assigns.iter().all(|s| matches!(s, Stmt::Assign(_)));
            if let (true, Some(Expr::Compare(c))) = (only_assigns, ret.value.as_deref()) {
                let resolve = |e: &Expr| substituted(e, assigns, &mut 16);
                let mut resolved = c.clone();
                resolved.left = Box::new(resolve(&c.left));
                resolved.comparators = c.comparators.iter().map(resolve).collect();
                if let Some(h) = self.helper_expr(params, &Expr::Compare(resolved)) {
                    return Some(h);
                }
            }
        }
        if let [Stmt::Return(ret)] = body {
            if let Some(h) = self.helper_expr(params, ret.value.as_deref()?) {
                return Some(h);
            }
            // `return is_torch_version(">=", "2.4.0")`: the result is that condition.
            let info = self.cond_info(ret.value.as_deref()?);
            if info.restriction.complete {
                if let Some(mut h) = implying(info.restriction.parts) {
                    h.exact = true;
                    return Some(h);
                }
            }
        }
        let Some(Stmt::Return(ret)) = body.last() else {
            return self.implied_when_true(body);
        };
        let Some(Expr::Call(call)) = ret.value.as_deref() else {
            return self.implied_when_true(body);
        };
        let positional = positional_names(params);
        let pos = |name: &str| positional.iter().position(|p| *p == name);
        let args = &call.arguments.args;
        // `return getattr(parse(V), f"__{op}__")(parse(P))`: the comparison method named by
        // the operator parameter (`"ge"`), `V` the version (also a name the body imports:
        // `from torch import __version__`).
        if let Some((left, op_name)) = dunder_lookup(&call.func, &positional) {
            let [right] = &**args else {
                return None;
            };
            let param = version_param_of(params, right)?;
            let root = self.version_root(left, 0).or_else(|| {
                local_version(left, body).filter(|r| self.roots.contains(r.as_str()))
            })?;
            return Some(VersionHelper {
                op_param: Some(pos(op_name)?),
                op_keyword: op_name.to_string(),
                ..VersionHelper::comparison(root, Op::Eq, param.clone(), pos(&param)?)
            });
        }
        if let Some(op_name) = op_lookup(&call.func, body, &positional) {
            let [left, right] = &**args else {
                return None;
            };
            let param = version_param_of(params, right)?;
            let position = pos(&param)?;
            let op_param = Some(pos(op_name)?);
            let op_keyword = op_name.to_string();
            if let Some(root) = self.version_root(left, 0) {
                return Some(VersionHelper {
                    op_param,
                    op_keyword,
                    ..VersionHelper::comparison(root, Op::Eq, param, position)
                });
            }
            let Expr::Name(v) = left else {
                return None;
            };
            let version_param = pos(v.id.as_str())
                .or_else(|| named_package(v.id.as_str(), body, 0).and_then(&pos))?;
            return Some(VersionHelper {
                op_param,
                op_keyword,
                version_param: Some(version_param),
                ..VersionHelper::comparison(String::new(), Op::Eq, param, position)
            });
        }
        // A comparator of this file given a package's version.
        let Expr::Name(f) = &*call.func else {
            return self.implied_when_true(body);
        };
        let Some(Bound::Helper(c)) = self.lookup(f.id.as_str()) else {
            return self
                .comparator_call(params, body, call, f.id.as_str())
                .or_else(|| self.implied_when_true(body));
        };
        let (Some(vp), Some(op_i)) = (c.version_param, c.op_param) else {
            return self.implied_when_true(body);
        };
        let root = self.compared_root(args.get(vp)?)?;
        let Expr::Name(op_arg) = args.get(op_i)? else {
            return None;
        };
        let param = version_param_of(params, args.get(c.position)?)?;
        let position = pos(&param)?;
        Some(VersionHelper {
            op_param: Some(pos(op_arg.id.as_str())?),
            op_keyword: op_arg.id.to_string(),
            ..VersionHelper::comparison(root, Op::Eq, param, position)
        })
    }

    /// A comparison after early exits that return `False` (transformers'
    /// `is_torch_greater_or_equal(library_version, accept_dev=False)`: `if not
    /// is_torch_available(): return False`, then `if accept_dev: return
    /// parse(parse(V).base_version) >= parse(library_version)` `else: return parse(V) >=
    /// parse(library_version)`): the helper of what follows the exits, when both branches of a
    /// last `if`/`else` return the same one, [`VersionHelper::one_way`] (the exits' tests are
    /// not read).
    fn after_false_exits(&self, params: &ast::Parameters, body: &[Stmt]) -> Option<VersionHelper> {
        let exits = body.iter().take_while(|s| is_false_exit(s)).count();
        if exits == 0 {
            return None;
        }
        let h = match &body[exits..] {
            [Stmt::If(i)] => {
                let [Stmt::Return(a)] = &*i.body else {
                    return None;
                };
                let [ast::ElifElseClause {
                    test: None, body, ..
                }] = &*i.elif_else_clauses
                else {
                    return None;
                };
                let [Stmt::Return(b)] = &**body else {
                    return None;
                };
                let a = self.helper_expr(params, a.value.as_deref()?)?;
                let b = self.helper_expr(params, b.value.as_deref()?)?;
                (a == b).then_some(a)?
            }
            [Stmt::Return(r)] => self.helper_expr(params, r.value.as_deref()?)?,
            _ => return None,
        };
        (h.implies.is_none() && !h.asserts).then_some(VersionHelper { one_way: true, ..h })
    }

    /// `return compare(V, ">=", P)` with `compare` a function of another module, `V` a
    /// package's version (or a name the body assigns one to just before) and `P` a
    /// parameter: a helper if `compare` turns out to be a comparator of the project
    /// (accelerate's `is_numpy_available(min_version)`).
    fn comparator_call(
        &self,
        params: &ast::Parameters,
        body: &[Stmt],
        call: &ast::ExprCall,
        callee: &str,
    ) -> Option<VersionHelper> {
        let [v, o, p] = &*call.arguments.args else {
            return None;
        };
        if !call.arguments.keywords.is_empty() {
            return None;
        }
        let op = op_string(o)?;
        let root = match self.compared_root(v) {
            Some(r) => r,
            None => {
                // `numpy_version = parse(importlib.metadata.version("numpy"))` before.
                let Expr::Name(n) = v else {
                    return None;
                };
                let value = body.iter().rev().skip(1).find_map(|s| match s {
                    Stmt::Assign(a) => match &*a.targets {
                        [Expr::Name(t)] if t.id == n.id => Some(&*a.value),
                        _ => None,
                    },
                    _ => None,
                })?;
                self.version_root(value, 0)?
            }
        };
        let param = version_param_of(params, p)?;
        let position = positional_names(params).iter().position(|x| *x == param)?;
        Some(VersionHelper {
            via: Some(callee.to_string()),
            ..VersionHelper::comparison(root, op, param, position)
        })
    }

    /// A function that returns nothing and begins with `assert C` or `if not C: raise ...`,
    /// `C` a version condition on one package (nequip's `check_pt2_compile_compatibility()`:
    /// `assert _TORCH_GE_2_6, ...`): it returns only where `C` holds
    /// ([`VersionHelper::asserts`]).
    fn asserting(&self, body: &[Stmt]) -> Option<VersionHelper> {
        let test = match leading_check(body.first()?)? {
            (t, true) => t,
            (Expr::UnaryOp(u), false) if u.op == ast::UnaryOp::Not => &*u.operand,
            _ => return None,
        };
        if body.iter().any(super::returns::returns_value) {
            return None;
        }
        let info = self.cond_info(test);
        let mut h = implying(info.restriction.parts)?;
        h.asserts = true;
        Some(h)
    }

    /// For a call that is a statement of its own (`check_compatibility()`, no arguments):
    /// what the rest of the block runs under when the function it calls
    /// [`VersionHelper::asserts`] (a function of this file), or may (one of another file,
    /// resolved once every file is read).
    pub(super) fn asserting_call(&self, e: &Expr) -> Option<Restriction> {
        let Expr::Call(call) = e else {
            return None;
        };
        let Expr::Name(n) = &*call.func else {
            return None;
        };
        if !call.arguments.is_empty() {
            return None;
        }
        let part = match self.lookup(n.id.as_str()) {
            Some(Bound::Helper(h)) if h.asserts => h.implies.clone()?,
            Some(_) => return None,
            None => {
                let call = HelperCall {
                    statement: true,
                    ..HelperCall::default()
                };
                let name = n.id.to_string();
                (HELPER_ROOT.to_string(), Pred::Helper { name, call })
            }
        };
        Some(Restriction {
            parts: vec![part],
            complete: false,
        })
    }

    /// `V op P` for a parameter `P` of `params` (see [`Walker::version_helper`]).
    pub(super) fn helper_expr(
        &self,
        params: &ast::Parameters,
        value: &Expr,
    ) -> Option<VersionHelper> {
        let Expr::Compare(c) = value else {
            return None;
        };
        let ([op], [right]) = (&*c.ops, &*c.comparators) else {
            return None;
        };
        let op = op_of(*op)?;
        // `parse(V).release >= parse(P).release`: the releases' components compared.
        let (left, right, release) = match (&*c.left, right) {
            (Expr::Attribute(l), Expr::Attribute(r))
                if l.attr.as_str() == "release" && r.attr.as_str() == "release" =>
            {
                (&*l.value, &*r.value, true)
            }
            (left, right) => (left, right, false),
        };
        let helper = self.compared_param(params, left, op, right)?;
        Some(VersionHelper { release, ..helper })
    }

    /// `V op P` for a parameter `P`, the operands without `.release` ([`Walker::helper_expr`]).
    fn compared_param(
        &self,
        params: &ast::Parameters,
        left: &Expr,
        op: Op,
        right: &Expr,
    ) -> Option<VersionHelper> {
        let positional = positional_names(params);
        // `V op parse(TABLE.get(P, DEFAULT))`: the bound is the table's entry for the key.
        if let (Some(root), Some((param, table))) =
            (self.version_root(left, 0), keyed_param_of(params, right))
        {
            let position = positional.iter().position(|p| *p == param)?;
            return Some(VersionHelper {
                table: Some(table),
                ..VersionHelper::comparison(root, op, param, position)
            });
        }
        let param_of = |e: &Expr| version_param_of(params, e);
        let (root, op, param) = if let (Some(root), Some(param)) =
            (self.version_root(left, 0), param_of(right))
        {
            (root, op, param)
        } else if let (Some(param), Some(root)) = (param_of(left), self.version_root(right, 0)) {
            (root, op.flipped(), param)
        } else if let (Some(version), Some(param)) = (param_of(left), param_of(right)) {
            // `parse(current) >= parse(minimum)`: a comparator given the version compared.
            let position = positional.iter().position(|p| *p == param)?;
            let at = positional.iter().position(|p| *p == version)?;
            return (at == 0 && position == 1).then(|| VersionHelper {
                version_param: Some(0),
                ..VersionHelper::comparison(String::new(), op, param, position)
            });
        } else {
            return None;
        };
        let position = positional.iter().position(|p| *p == param)?;
        Some(VersionHelper::comparison(root, op, param, position))
    }

    /// A function whose every `return` of a true value comes after early exits `if C: return
    /// False` (or `None`, or a bare `return`) on version conditions `C`, at the top of its body:
    /// a true result implies that no `C` held (`is_xpu_available()` beginning with `if
    /// is_torch_version("<=", "2.6"): return False`). The conditions must be about one package.
    pub(super) fn implied_when_true(&self, body: &[Stmt]) -> Option<VersionHelper> {
        let mut parts: Vec<(String, Pred)> = Vec::new();
        for stmt in body {
            let Stmt::If(i) = stmt else {
                if has_return(stmt) {
                    break;
                }
                continue;
            };
            if !i.elif_else_clauses.is_empty() || !returns_false(&i.body) {
                if has_return(stmt) {
                    break;
                }
                continue;
            }
            let info = self.cond_info(&i.test);
            if !info.restriction.complete {
                continue;
            }
            if let Some(neg) = info.restriction.negate() {
                parts.extend(neg.parts);
            }
        }
        implying(parts)
    }

    /// A call of a function that is not the project's, given only a requirement string on an
    /// indexed package (`RequirementCache("torch>=2.8.0")`): true where it holds.
    pub(super) fn requirement_call(&self, call: &ast::ExprCall) -> Option<Restriction> {
        let ([arg], true) = (&*call.arguments.args, call.arguments.keywords.is_empty()) else {
            return None;
        };
        if let Expr::Name(n) = &*call.func {
            if matches!(
                self.lookup(n.id.as_str()),
                Some(
                    Bound::Function
                        | Bound::Helper(_)
                        | Bound::VersionGetter(_)
                        | Bound::TupleVersionGetter(..)
                        | Bound::VersionReturner(_)
                )
            ) {
                return None;
            }
        }
        let (root, pred) = super::spec::requirement_literal(arg, self.roots)?;
        Some(Restriction {
            parts: vec![(root, pred)],
            complete: true,
        })
    }

    /// The condition a call of a version helper stands for: known here when the helper is
    /// defined in this file, else a [`Pred::Helper`] resolved once every file is read.
    pub(super) fn helper_call(&self, call: &ast::ExprCall) -> Option<Restriction> {
        let args = &call.arguments;
        // A function of an indexed package given arguments (`is_torch_version(">=", "2.1")`
        // from diffusers): its helper, if the index has one (`crate::indexed_helpers`).
        let mut indexed: Option<String> = None;
        let helper = match &*call.func {
            Expr::Name(n) => match self.lookup(n.id.as_str()) {
                Some(Bound::Helper(h)) => Some((**h).clone()),
                Some(Bound::Path { path, .. }) if !args.is_empty() => {
                    indexed = Some(path.clone());
                    None
                }
                Some(_) => return None,
                None => None,
            },
            func => {
                // `utils.is_torch_greater_or_equal(...)` on a module of the project (a name
                // bound here is an indexed module or a value: `V.startswith(...)`).
                let name = dotted(func)?;
                let first = name.split('.').next().unwrap_or(&name);
                if self.lookup(first).is_some() {
                    match self.resolve(func) {
                        Some((path, _)) if !args.is_empty() => indexed = Some(path),
                        _ => return None,
                    }
                }
                None
            }
        };
        let arg_at = |position: usize, param: &str| -> Option<&Expr> {
            args.args.get(position).or_else(|| {
                args.keywords
                    .iter()
                    .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == param))
                    .map(|k| &k.value)
            })
        };
        let one_way = helper.as_ref().is_some_and(|h| h.one_way);
        let part = match helper {
            // Only implied when true: the condition cannot be negated.
            Some(h) if h.implies.is_some() => {
                return Some(Restriction {
                    parts: vec![h.implies.clone()?],
                    complete: h.exact,
                })
            }
            // `in_range(min_version="4.52.0")`: every bound given.
            Some(h) if !h.bounds.is_empty() => {
                let pred = h.bounded(|position, name| version_arg(arg_at(position, name)?))?;
                (h.root.clone(), pred)
            }
            Some(h) if h.spec && spec_literal(arg_at(h.position, &h.param)?).is_some() => {
                let spec = spec_literal(arg_at(h.position, &h.param)?)?;
                let root = self.compared_root(args.args.get(h.version_param?)?);
                h.spec_condition(&spec, root.as_deref())?
            }
            Some(h) => {
                let value = arg_at(h.position, &h.param)?;
                let op = match h.op_param {
                    Some(i) => Some(op_string(arg_at(i, &h.op_keyword)?)?),
                    None => None,
                };
                let root = match h.version_param {
                    Some(i) => Some(self.compared_root(args.args.get(i)?)?),
                    None => None,
                };
                let bound = match &h.table {
                    // Resolved with the project's constants, the dict's entries among them.
                    Some(table) => {
                        VBound::Named(crate::versions::table_entry(table, &string_lit(value)?))
                    }
                    None => version_arg(value)?,
                };
                h.condition(bound, op, root.as_deref())?
            }
            None => {
                let name = match &indexed {
                    Some(path) => format!("{INDEXED_CALL}{path}"),
                    None => last_segment(&dotted(&call.func)?).to_string(),
                };
                // `h()`, `h(flag=...)`: a helper that implies a condition when true.
                // `h(V)`, `h(OP, V)`, `h(VERSION, OP, V)`, V a version constant.
                let call = match (&*args.args, args.keywords.is_empty()) {
                    // `check_version(torch.__version__, ">=2.0")`: a comparator of another
                    // file that reads a specifier.
                    ([r, v], true) if spec_literal(v).is_some() => HelperCall {
                        root: Some(self.compared_or_imported(r)?),
                        args: 2,
                        spec: spec_literal(v)?,
                        ..HelperCall::default()
                    },
                    ([], _) => HelperCall {
                        // `h(min_version="4.52")` for a helper with bounds.
                        keywords: args
                            .keywords
                            .iter()
                            .filter_map(|k| {
                                Some((k.arg.as_ref()?.to_string(), version_arg(&k.value)?))
                            })
                            .collect(),
                        ..HelperCall::default()
                    },
                    // `in_range("4.45.0", "4.47.1")`: versions only, for a helper with
                    // bounds.
                    ([a, b], true)
                        if op_string(a).is_none()
                            && matches!(version_arg(a), Some(VBound::Version(_))) =>
                    {
                        HelperCall {
                            args: 2,
                            positional: vec![version_arg(a)?, version_arg(b)?],
                            ..HelperCall::default()
                        }
                    }
                    // `h("krea2")`: a key, for a helper looking its bound up in a dict (a
                    // requirement, `RequirementCache("torch>=2.4")`, is read elsewhere).
                    ([k], true) if version_arg(k).is_none() && dict_key(k).is_some() => {
                        HelperCall {
                            key: dict_key(k),
                            args: 1,
                            ..HelperCall::default()
                        }
                    }
                    (positional, true) => {
                        let (root, op, value) = match positional {
                            [v] => (None, None, v),
                            // `h(">=", V)`, or a comparator `h(torch.__version__, V)`.
                            [o, v] => match op_string(o) {
                                Some(op) => (None, Some(op), v),
                                None => (Some(self.compared_or_imported(o)?), None, v),
                            },
                            [r, o, v] => (Some(self.compared_root(r)?), Some(op_string(o)?), v),
                            _ => return None,
                        };
                        HelperCall {
                            arg: Some(version_arg(value)?),
                            op,
                            root,
                            args: positional.len(),
                            ..HelperCall::default()
                        }
                    }
                    // `h("v2.0.0", op="ge")`: a version, and operators by keyword; a keyword
                    // given a boolean or `None` (`accept_dev=True`) is an option.
                    ([v], false) => {
                        let mut op_keywords = Vec::new();
                        for k in &args.keywords {
                            if matches!(k.value, Expr::BooleanLiteral(_) | Expr::NoneLiteral(_)) {
                                continue;
                            }
                            op_keywords.push((k.arg.as_ref()?.to_string(), op_string(&k.value)?));
                        }
                        HelperCall {
                            op_keywords,
                            arg: Some(version_arg(v)?),
                            args: 1,
                            ..HelperCall::default()
                        }
                    }
                    _ => return None,
                };
                // A package's function given a name, not a version
                // (`torch._dynamo.assume_constant_result(is_torch_greater_or_equal)`): no
                // helper call.
                if indexed.is_some() && call.names_a_value() {
                    return None;
                }
                (HELPER_ROOT.to_string(), Pred::Helper { name, call })
            }
        };
        Some(Restriction {
            parts: vec![part],
            complete: !one_way,
        })
    }

    /// [`Walker::compared_root`], or a name imported from another module of the project,
    /// resolved once every file is read (`TORCH_VERSION`, bound there to
    /// `str(torch.__version__)`: [`crate::versions::VERSION_OF`]).
    fn compared_or_imported(&self, e: &Expr) -> Option<String> {
        self.compared_root(e).or_else(|| match e {
            Expr::Name(n) if self.imported.contains(n.id.as_str()) => {
                Some(format!("{}{}", crate::versions::VERSION_OF, n.id))
            }
            _ => None,
        })
    }
}

/// `getattr(V, f"__{op}__")` with `op` a positional parameter: `V` and the parameter's name.
fn dunder_lookup<'e, 'p>(func: &'e Expr, positional: &[&'p str]) -> Option<(&'e Expr, &'p str)> {
    let Expr::Call(get) = func else {
        return None;
    };
    let (Expr::Name(f), [value, name]) = (&*get.func, &*get.arguments.args) else {
        return None;
    };
    if f.id.as_str() != "getattr" {
        return None;
    }
    let Expr::FString(fs) = name else {
        return None;
    };
    // Exactly `__`, `{op}`, `__`.
    let mut parts = Vec::new();
    for part in fs.value.iter() {
        let ast::FStringPart::FString(f) = part else {
            return None;
        };
        for el in f.elements.iter() {
            parts.push(el);
        }
    }
    let [ast::InterpolatedStringElement::Literal(a), ast::InterpolatedStringElement::Interpolation(i), ast::InterpolatedStringElement::Literal(b)] =
        parts.as_slice()
    else {
        return None;
    };
    if a.value.as_ref() != "__"
        || b.value.as_ref() != "__"
        || i.conversion != ast::ConversionFlag::None
        || i.format_spec.is_some()
    {
        return None;
    }
    let Expr::Name(op) = &*i.expression else {
        return None;
    };
    let p = positional.iter().copied().find(|p| *p == op.id.as_str())?;
    Some((value, p))
}

/// The package whose version `V` (or `parse(V)`) is when the body imports the name `V` from
/// it (`from torch import __version__`).
fn local_version(e: &Expr, body: &[Stmt]) -> Option<String> {
    let name = match e {
        Expr::Name(n) => n,
        Expr::Call(c) => match &*c.arguments.args {
            [Expr::Name(n)]
                if c.arguments.keywords.is_empty()
                    && dotted(&c.func)
                        .is_some_and(|d| VERSION_PARSERS.contains(&last_segment(&d))) =>
            {
                n
            }
            _ => return None,
        },
        _ => return None,
    };
    body.iter().find_map(|s| match s {
        Stmt::ImportFrom(i) if i.level == 0 => {
            let module = i.module.as_ref()?.as_str();
            i.names
                .iter()
                .any(|a| {
                    a.name.as_str() == "__version__"
                        && a.asname.as_ref().map_or("__version__", |x| x.as_str())
                            == name.id.as_str()
                })
                .then(|| module.split('.').next().unwrap_or(module).to_string())
        }
        _ => None,
    })
}

/// The parameter whose package a local name holds the version of: `pkg_version =
/// Version(pkg.__version__)` after `pkg = importlib.import_module(package)`, or `v =
/// importlib.metadata.version(package)` (assignments anywhere in the body, `try` included).
fn named_package<'b>(name: &str, body: &'b [Stmt], depth: usize) -> Option<&'b str> {
    if depth > 4 {
        return None;
    }
    let value = assigned_in(name, body)?;
    package_of_value(value, body, depth + 1)
}

fn package_of_value<'b>(value: &'b Expr, body: &'b [Stmt], depth: usize) -> Option<&'b str> {
    if depth > 8 {
        return None;
    }
    match value {
        Expr::Name(n) => named_package(n.id.as_str(), body, depth + 1),
        Expr::Attribute(a) if a.attr.as_str() == "__version__" => {
            let Expr::Name(m) = &*a.value else {
                return None;
            };
            let Expr::Call(c) = assigned_in(m.id.as_str(), body)? else {
                return None;
            };
            let callee = dotted(&c.func)?;
            match (last_segment(&callee), &*c.arguments.args) {
                ("import_module" | "__import__", [Expr::Name(p)]) => Some(p.id.as_str()),
                _ => None,
            }
        }
        Expr::Call(c) => {
            let callee = dotted(&c.func)?;
            match (last_segment(&callee), &*c.arguments.args) {
                ("version", [Expr::Name(p)]) if callee.contains("metadata") => Some(p.id.as_str()),
                (_, [arg]) if VERSION_PARSERS.contains(&last_segment(&callee)) => {
                    package_of_value(arg, body, depth + 1)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A string that may be a key of a dict of versions (`"krea2"`, `"flux_kontext"`): a word,
/// not a requirement or a specifier.
fn dict_key(e: &Expr) -> Option<String> {
    let key = string_lit(e)?;
    let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    (!key.is_empty() && key.len() <= 64 && key.chars().all(word)).then_some(key)
}

/// `e` with the names `assigns` assign replaced by their values, inside the calls and
/// attributes a version comparison is made of (`parse(installed).release` after `installed =
/// torch.__version__`). At most `budget` names are replaced (values may refer to one
/// another).
fn substituted(e: &Expr, assigns: &[Stmt], budget: &mut u32) -> Expr {
    match e {
        Expr::Name(n) => match assigned_in(n.id.as_str(), assigns) {
            Some(value) if *budget > 0 => {
                *budget -= 1;
                substituted(value, assigns, budget)
            }
            _ => e.clone(),
        },
        Expr::Call(c) => {
            let mut c = c.clone();
            for arg in c.arguments.args.iter_mut() {
                *arg = substituted(arg, assigns, budget);
            }
            Expr::Call(c)
        }
        Expr::Attribute(a) => {
            let mut a = a.clone();
            a.value = Box::new(substituted(&a.value, assigns, budget));
            Expr::Attribute(a)
        }
        e => e.clone(),
    }
}

/// The value last assigned to a plain name in `body` (in `try` bodies too).
fn assigned_in<'b>(name: &str, body: &'b [Stmt]) -> Option<&'b Expr> {
    let mut found = None;
    for s in body {
        match s {
            Stmt::Assign(a) => {
                if matches!(&*a.targets, [Expr::Name(t)] if t.id.as_str() == name) {
                    found = Some(&*a.value);
                }
            }
            Stmt::Try(t) => {
                if let Some(v) = assigned_in(name, &t.body) {
                    found = Some(v);
                }
            }
            _ => {}
        }
    }
    found
}

/// `if T: return False` (no `elif`, no `else`).
fn is_false_exit(s: &Stmt) -> bool {
    matches!(s, Stmt::If(i) if i.elif_else_clauses.is_empty()
        && matches!(&*i.body, [Stmt::Return(r)]
            if matches!(r.value.as_deref(), Some(Expr::BooleanLiteral(b)) if !b.value)))
}

/// Whether a restriction is only a call of an indexed package's function, waiting for the
/// index to say whether it is a helper (`crate::indexed_helpers`).
pub(super) fn calls_indexed(r: &Restriction) -> bool {
    matches!(&*r.parts, [(_, Pred::Helper { name, .. })] if name.starts_with(INDEXED_CALL))
}
