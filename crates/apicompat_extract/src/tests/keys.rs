//! Keywords a decorator factory or wrapper accepts for the function it decorates.

use super::tree;
use crate::extract;

#[test]
fn keys_a_decorator_factory_names_are_accepted() {
    // The shape of transformers' `@deprecate_kwarg("tokenizer", new_name="processing_class",
    // version="5.0.0")` (4.46 - 4.57).
    let s = extract(
        &tree(&[
            (
                "pkg/deprecation.py",
                r#"
from functools import wraps
def deprecate_kwarg(old_name, version, new_name=None, raise_if_both_names=False):
    def wrapper(func):
        @wraps(func)
        def wrapped_func(*args, **kwargs):
            if old_name in kwargs and new_name in kwargs:
                kwargs.pop(old_name)
            elif old_name in kwargs and new_name is not None:
                kwargs[new_name] = kwargs.pop(old_name)
            return func(*args, **kwargs)
        return wrapped_func
    return wrapper
def keep(name):
    def wrapper(func):
        def inner(*args, **kwargs):
            return func(*args, **kwargs)
        return inner
    return wrapper
"#,
            ),
            (
                "pkg/trainer.py",
                r#"
from .deprecation import deprecate_kwarg, keep
class Trainer:
    @deprecate_kwarg("tokenizer", new_name="processing_class", version="5.0.0")
    def __init__(self, model=None, processing_class=None): ...
    @deprecate_kwarg(old_name="past_key_value", version="4.58", new_name="past_key_values")
    def forward(self, x, past_key_values=None): ...
    @deprecate_kwarg("input_embeds", version="5.6.0", new_name="inputs_embeds")
    def mask(self, config, inputs_embeds, attention_mask): ...
    @keep("x")
    def other(self, y): ...
name = "tok"
@deprecate_kwarg(name, "1.0")
def computed(a): ...
"#,
            ),
        ]),
        "pkg",
        "1",
    );
    let render = |p: &str| s.symbols[p].signatures[0].render();
    assert_eq!(
        render("pkg.trainer.Trainer.__init__"),
        "(model=..., processing_class=..., *, tokenizer=...)"
    );
    // Calls of the class bind against its decorated `__init__`.
    assert_eq!(
        render("pkg.trainer.Trainer"),
        "(model=..., processing_class=..., *, tokenizer=...)"
    );
    assert_eq!(
        render("pkg.trainer.Trainer.forward"),
        "(x, past_key_values=..., *, past_key_value=...)"
    );
    // The renamed parameter may be filled through the old name: no longer required.
    assert_eq!(
        render("pkg.trainer.Trainer.mask"),
        "(config, inputs_embeds=..., attention_mask, *, input_embeds=...)"
    );
    // A factory that takes nothing out, and a key that is not a literal: as written.
    assert_eq!(render("pkg.trainer.Trainer.other"), "(y)");
    assert_eq!(render("pkg.trainer.computed"), "(a)");
}

#[test]
fn keys_a_decorator_wrapper_takes_out_of_kwargs_are_accepted() {
    // The shape of huggingface_hub 1.x's `@validate_hf_hub_args`.
    let s = extract(
        &tree(&[
            (
                "pkg/utils/__init__.py",
                "from ._validators import validate, passthrough\n",
            ),
            (
                "pkg/utils/_validators.py",
                r#"
import warnings
from functools import wraps
def validate(fn):
    @wraps(fn)
    def _inner_fn(*args, **kwargs):
        if "old_flag" in kwargs:
            pass
        del kwargs["gone"]
        kwargs = legacy(fn_name=fn.__name__, kwargs=kwargs)
        return fn(*args, **kwargs)
    return _inner_fn
def legacy(fn_name, kwargs):
    new_kwargs = kwargs.copy()
    proxies = new_kwargs.pop("proxies", None)
    if proxies is not None:
        warnings.warn(f"`proxies` is ignored in {fn_name}")
    other.pop("not_kwargs", None)
    return new_kwargs
def passthrough(fn):
    def inner(*args, **kwargs):
        kwargs.get("looked_at")
        return fn(*args, **kwargs)
    return inner
"#,
            ),
            (
                "pkg/download.py",
                r#"
from typing import overload
from .utils import validate, passthrough
@overload
def download(repo_id, *, dry_run: bool): ...
@validate
def download(repo_id, *, token=None): ...
@passthrough
def plain(repo_id): ...
class Api:
    @validate
    def download(self, repo_id, **kwargs): ...
"#,
            ),
        ]),
        "pkg",
        "1",
    );
    let render = |p: &str| s.symbols[p].signatures[0].render();
    // The `@overload` takes the implementation's decorators.
    let sigs: Vec<String> = s.symbols["pkg.download.download"]
        .signatures
        .iter()
        .map(|s| s.render())
        .collect();
    assert_eq!(
        sigs,
        [
            "(repo_id, *, dry_run: bool, gone=..., old_flag=..., proxies=...)",
            "(repo_id, *, token=..., gone=..., old_flag=..., proxies=...)"
        ]
    );
    assert_eq!(render("pkg.download.plain"), "(repo_id)");
    assert_eq!(
        render("pkg.download.Api.download"),
        "(repo_id, *, gone=..., old_flag=..., proxies=..., **kwargs)"
    );
}
