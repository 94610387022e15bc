import torch
import torch.distributed as dist
from lib import Opt, make, either
from lib.sub import Thing as T
from . import mod1
from .mod1 import helper

if torch.__version__ >= "2.1":
    from torch.nn import Linear
else:
    Linear = None


class Net(torch.nn.Module):
    def __init__(self, opt: Opt, **kw):
        super().__init__()
        self.opt = opt
        self.lin = torch.nn.Linear(4, 4, bias=False)
        self.group = dist.new_group(ranks=[0, 1])

    def forward(self, x):
        y = self.lin(x).probe
        self.opt.to("cuda").step(closure=None)
        return self.opt.peer().probe


def build(cfg=None):
    o = Opt(lr=1e-3)
    o.clone().many()[0].probe
    options = {"lr": 1, "momentum": 0.9}
    options["nesterov"] = True
    o.step(**options)
    (x := make()).probe
    for item in o.many():
        item.prop.probe
    with either() as e:
        e.probe
    return [p.probe for p in o.many() if p]
#---
from lib import Opt

def helper(o: "Opt") -> Opt:
    return o

def is_new():
    import torch
    return torch.__version__ >= "2.0"

if is_new():
    helper(Opt()).step(foo=1)
#---
from .mod1 import helper, is_new
import copy, pickle
from pkg import Net

n = Net(helper(None))
m = copy.deepcopy(n)
pickle.dumps(n.group)
if is_new():
    n.lin.weight.probe
