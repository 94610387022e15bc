import sys, importlib
try:
    import torch
    from torch.utils.checkpoint import checkpoint
except ImportError:
    torch = None
if hasattr(torch, "compile"):
    torch.compile(lambda x: x, mode="max-autotune")
if sys.version_info >= (3, 10) and torch is not None:
    match torch.float16:
        case torch.bfloat16 | None:
            pass
        case _:
            print(f"{torch.cuda.is_available()!r:>{10}}")
getattr(torch, "vmap", None)
x = getattr(torch.nn.functional, "scaled_dot_product_attention")
mod = importlib.import_module("torch.fx")
async def run():
    async with torch.no_grad():
        await torch.cuda.synchronize(device=0)
    yield [y async for y in torch.foo(*args, **{"a": 1})]
del torch.x
global torch
lambda *, k=torch.ones: k
@torch.jit.script
@torch.no_grad()
def f(a: torch.Tensor = torch.zeros(1), /, *b, c: "torch.Size", **d) -> torch.Tensor:
    nonlocal_ = torch.Tensor.add_
    return a.probe  # noqa: AC001
class C(torch.nn.Module, metaclass=torch.nn.Module):
    x: torch.Tensor = torch.empty(0)
    def __getattr__(self, n): return super().__getattr__(n)
type Alias[T: torch.Tensor] = list[T]
