use super::{Rule, RuleInfo};
use crate::model::Severity;

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
