use super::{Rule, RuleInfo};
use crate::model::{Finding, Fix, FixKind, Reach, Severity};
use crate::pgcopy::CopyKind;

/// ## What it does
/// Finds copies and pickles of objects that hold a `torch.distributed` process group:
/// `copy.deepcopy`, `copy.copy` (of a group itself), `pickle.dump(s)`, `torch.save`, and the
/// object collectives `torch.distributed.broadcast_object_list`, `all_gather_object` and
/// `gather_object`.
///
/// A value is a process group when it comes from an indexed function or property whose return
/// annotation names a process-group type in some release (`torch.distributed.new_group`,
/// `new_subgroups`, `DeviceMesh.get_group`, `dist.group.WORLD`, ColossalAI's
/// `ProcessGroupMesh.get_group_along_axis`: found in the index, not listed), or from a
/// parameter annotated with such a type. The types are `ProcessGroup` and the indexed classes
/// that derive from it. A name like `tp_group`, `pg` or `process_group` is a weaker signal: it
/// counts only when two different group-like names agree along the way (`plugin.tp_group`
/// passed as `process_group=`).
///
/// An object holds a group when its class (or a base class, through `super().__init__`)
/// stores one on `self`, directly or in a sub-object whose class does; the arguments the
/// object was built with are followed into `__init__`, through `**kwargs` dicts too. An
/// object of an indexed class built with a group among its arguments
/// (`FullyShardedDataParallel(model, process_group=pg)`) holds it too. Classes that define
/// `__deepcopy__` (for deep copies), `__getstate__`, `__reduce__` or `__reduce_ex__` decide
/// themselves and are left alone (for an indexed class, only its own hooks count:
/// `DistributedDataParallel.__getstate__` leaves the group out, `nn.Module.__getstate__` does
/// not); `copy.copy` of an object shares what it holds and is reported only for a group
/// itself. Nothing is reported when the object's class or arguments are not known.
///
/// ## Why is this bad?
/// A `ProcessGroup` is a C++ object that cannot be copied or pickled: the call raises
/// `TypeError: cannot pickle 'torch._C._distributed_c10d.ProcessGroup' object` on every torch
/// release (no release made it picklable), so no version change helps. `torch.save` of the
/// weights (`model.state_dict()`) works on every release.
///
/// ## Example
/// ```python
/// # model.py
/// class Model(nn.Module):
///     def __init__(self, cfg, process_group=None):
///         super().__init__()
///         self.process_group = process_group
///
/// # train.py
/// kwargs = {"process_group": plugin.tp_group}
/// model = Model(cfg, **kwargs)
/// ema = deepcopy(model)  # TypeError: cannot pickle 'ProcessGroup' object
/// ```
///
/// ## How to fix
/// Build the copy fresh and load the weights, keep groups out of module attributes, or give
/// the class a `__deepcopy__` that shares the group:
/// ```python
/// ema = Model(cfg, **kwargs)
/// ema.load_state_dict(model.state_dict())
/// ```
pub struct CopiedProcessGroup;

impl RuleInfo for CopiedProcessGroup {
    const RULE: Rule = Rule {
        code: "AC010",
        name: "copied-process-group",
        severity: Severity::Error,
        summary: "an object holding a torch.distributed process group is copied or pickled",
    };
}

/// A copy or pickle of a value that holds a process group, as [`crate::pgcopy`] found it.
pub(crate) struct Copy<'a> {
    /// The call as written (`deepcopy(model)`).
    pub written: &'a str,
    /// The copying function (`copy.deepcopy`).
    pub func: &'a str,
    pub kind: CopyKind,
    pub in_function: bool,
    /// The name the copy is assigned to (`ema` in `ema = deepcopy(model)`).
    pub copy_target: Option<&'a str>,
    /// The argument as written.
    pub inner: &'a str,
    /// The argument, described (`` `model` ``, `an object in the list`).
    pub what: &'a str,
    /// When the argument is not a group itself: the object that holds one.
    pub holder: Option<Holder>,
    /// Where the group comes from, then each hand-over (`` `plugin.tp_group` (train.py:3) ``...).
    pub chain: &'a str,
}

/// An object that holds a process group.
pub(crate) struct Holder {
    /// The object, described (`` `model` (a `Model` built at train.py:9) ``).
    pub how: String,
    /// The attribute holding it, written as a place, and where it is stored.
    pub place: Option<(String, String)>,
    /// The object's project class.
    pub class: Option<String>,
}

/// The finding at a copy site.
pub(crate) fn finding(c: &Copy) -> Finding {
    let verb = match c.kind {
        CopyKind::Deep | CopyKind::Shallow => "copies",
        CopyKind::Pickle => "pickles",
    };
    let chain = c.chain;
    let holder_text = match &c.holder {
        Some(Holder {
            how,
            place: Some((place, at)),
            ..
        }) => format!("{how} holds one in {place} ({at}): it is {chain}"),
        Some(Holder { how, .. }) => format!("{how} holds one: it is {chain}"),
        None if chain.starts_with(&format!("`{}", c.inner)) => chain.to_string(),
        None => format!("{} is {chain}", c.what),
    };
    let message = format!(
        "`{}` {verb} a process group, which fails on every torch release (`TypeError: cannot pickle 'torch._C._distributed_c10d.ProcessGroup' object`): {holder_text}",
        c.written
    );
    let class = c.holder.as_ref().and_then(|h| h.class.as_deref());
    let reach = if c.in_function {
        Reach::CallTime
    } else {
        Reach::ImportTime
    };
    Finding {
        symbol: format!("{}({})", c.func, c.what.trim_matches('`')),
        package: "torch".to_string(),
        message,
        fixes: fixes(c.kind, c.what, class, c.copy_target),
        ..Finding::of_use(&CopiedProcessGroup::RULE, false, reach)
    }
}

fn rewrite(message: String) -> Fix {
    Fix {
        kind: FixKind::Rewrite,
        message,
        replacement: None,
        releases: Vec::new(),
        requirement: None,
    }
}

fn fixes(kind: CopyKind, what: &str, class: Option<&str>, target: Option<&str>) -> Vec<Fix> {
    let obj = what.trim_matches('`');
    let copy = target.unwrap_or("copy");
    let mut out = Vec::new();
    match kind {
        CopyKind::Deep | CopyKind::Shallow => {
            let build = class.map_or_else(
                || "build the copy".to_string(),
                |c| format!("`{copy} = {c}(...)`"),
            );
            out.push(rewrite(format!(
                "build the copy fresh and load the weights: {build}, then `{copy}.load_state_dict({obj}.state_dict())`"
            )));
        }
        CopyKind::Pickle => out.push(rewrite(format!(
            "save or send the weights, not the object: `torch.save({obj}.state_dict(), f)`, and load them into a model built fresh"
        ))),
    }
    out.push(rewrite(
        "keep process groups out of module attributes: look them up when needed (a module-level registry of groups, or a `DeviceMesh` passed at call time)".to_string(),
    ));
    let hook = match kind {
        CopyKind::Pickle => {
            "`__getstate__` that leaves the group out (and `__setstate__` that looks it up again)"
        }
        _ => "`__deepcopy__` that shares the group instead of copying it",
    };
    out.push(rewrite(match class {
        Some(c) => format!("or give `{c}` a {hook}"),
        None => format!("or give the class a {hook}"),
    }));
    out
}
