//! The standard library's stubs: deprecations by Python version and overload.

use apicompat_surface::Surface;

use super::tree;
use crate::extract;

/// Typeshed's stdlib stubs as `scripts/gen_python_trees.py` lays them out (the patterns of
/// `shutil`, `sysconfig`, `ctypes`, `genericpath`, `asyncio.events`, `ssl`, `os`, `datetime`
/// and `ast` in the mypy 2.4.1 wheel).
const STDLIB_STUBS: &[(&str, &str)] = &[
    (
        "shutil.pyi",
        r#"
import sys
from typing import overload
from typing_extensions import deprecated
if sys.platform == "win32" and sys.version_info < (3, 12):
    @overload
    @deprecated("On Windows before Python 3.12, using a PathLike as `cmd` would always fail or return `None`.")
    def which(cmd: os.PathLike[str], mode: int = 1) -> Never: ...

@overload
def which(cmd: StrPath, mode: int = 1) -> str | None: ...
@overload
def which(cmd: bytes, mode: int = 1) -> bytes | None: ...
if sys.platform == "win32":
    @deprecated("Windows only, and deprecated there.")
    def win_only() -> None: ...
"#,
    ),
    (
        "sysconfig.pyi",
        r#"
from typing import Any, Literal, overload
from typing_extensions import deprecated
@overload
@deprecated("SO is deprecated, use EXT_SUFFIX. Support is removed in Python 3.11")
def get_config_var(name: Literal["SO"]) -> Any: ...
@overload
def get_config_var(name: str) -> Any: ...
"#,
    ),
    (
        "ctypes/__init__.pyi",
        r#"
import sys
from typing import overload
from typing_extensions import deprecated
if sys.version_info >= (3, 14):
    @overload
    @deprecated("ctypes.POINTER with string")
    def POINTER(cls: str) -> type[Any]: ...
    @overload
    def POINTER(cls: None) -> type[c_void_p]: ...
    @overload
    def POINTER(cls: type[_CT]) -> type[_Pointer[_CT]]: ...
else:
    from _ctypes import POINTER as POINTER
"#,
    ),
    (
        "_ctypes.pyi",
        "def POINTER(type: type[_CT], /) -> type[_Pointer[_CT]]: ...\n",
    ),
    (
        "genericpath.pyi",
        r#"
import sys
from typing import overload
from typing_extensions import deprecated
if sys.version_info >= (3, 15):
    @overload
    @deprecated("Deprecated since Python 3.15; use os.path.commonpath() for path prefixes.")
    def commonprefix(m: Sequence[LiteralString], /) -> LiteralString: ...
    @overload
    @deprecated("Deprecated since Python 3.15; use os.path.commonpath() for path prefixes.")
    def commonprefix(m: Sequence[StrPath], /) -> str: ...
else:
    @overload
    def commonprefix(m: Sequence[LiteralString]) -> LiteralString: ...
    @overload
    def commonprefix(m: Sequence[StrPath]) -> str: ...
"#,
    ),
    (
        "asyncio/events.pyi",
        r#"
import sys
from typing_extensions import deprecated
@deprecated("Deprecated; will be removed in Python 3.16.")
def get_event_loop_policy() -> _AbstractEventLoopPolicy: ...
if sys.version_info < (3, 14):
    @deprecated("Deprecated; removed in Python 3.14.")
    def get_child_watcher() -> AbstractChildWatcher: ...
"#,
    ),
    (
        "ssl.pyi",
        r#"
import sys
from typing import overload
from typing_extensions import deprecated
class SSLContext:
    @overload
    def __new__(cls, protocol: int, *args: Any, **kwargs: Any) -> Self: ...
    @overload
    @deprecated("Deprecated since Python 3.10. Use a specific version of the SSL protocol.")
    def __new__(cls, protocol: None = None, *args: Any, **kwargs: Any) -> Self: ...
    @deprecated("Deprecated since Python 3.10. Use ALPN instead.")
    def set_npn_protocols(self, npn_protocols: Iterable[str]) -> None: ...
if sys.version_info < (3, 12):
    @deprecated("Deprecated since Python 3.7; removed in Python 3.12. Use `SSLContext.wrap_socket()` instead.")
    def wrap_socket(sock: socket) -> SSLSocket: ...
"#,
    ),
    (
        "os/__init__.pyi",
        r#"
from typing_extensions import deprecated
@deprecated("Soft deprecated. Use the subprocess module instead.")
def popen(cmd: str, mode: str = "r", buffering: int = -1) -> _wrap_close: ...
"#,
    ),
    (
        "datetime.pyi",
        r#"
from typing_extensions import deprecated
class datetime:
    @classmethod
    @deprecated("Use timezone-aware objects to represent datetimes in UTC; e.g. by calling .now(datetime.timezone.utc)")
    def utcnow(cls) -> Self: ...
"#,
    ),
    (
        "ast.pyi",
        r#"
import sys
from typing_extensions import deprecated
class Constant:
    if sys.version_info < (3, 14):
        @deprecated("Removed in Python 3.14. Use `value` instead.")
        @property
        def n(self) -> int: ...
        @deprecated("Removed in Python 3.14. Use `value` instead.")
        @n.setter
        def n(self, value: int) -> None: ...
if sys.version_info >= (3, 14):
    class _Later:
        def method(self) -> None: ...
else:
    class _Later:
        @deprecated("Deprecated since Python 3.9.")
        def method(self) -> None: ...
"#,
    ),
];

#[test]
fn stdlib_deprecations_follow_overloads_branches_and_versions() {
    let surfaces: Vec<(u32, Surface)> = (8..=15)
        .map(|minor| {
            let version = format!("3.{minor}");
            (minor, extract(&tree(STDLIB_STUBS), "python", &version))
        })
        .collect();
    // The versions (3.x) whose surface deprecates `path`.
    let deprecated_in = |path: &str| -> Vec<u32> {
        surfaces
            .iter()
            .filter(|(_, s)| s.symbols.get(path).is_some_and(|d| d.deprecated.is_some()))
            .map(|(minor, _)| *minor)
            .collect()
    };
    // A deprecated overload (Windows only, or one `Literal` argument, or a string argument)
    // deprecates that way of calling, not the function.
    assert_eq!(deprecated_in("shutil.which"), Vec::<u32>::new());
    assert_eq!(deprecated_in("sysconfig.get_config_var"), Vec::<u32>::new());
    assert_eq!(deprecated_in("ctypes.POINTER"), Vec::<u32>::new());
    // Only defined on Windows, deprecated there: deprecated.
    assert_eq!(
        deprecated_in("shutil.win_only"),
        (8..=15).collect::<Vec<_>>()
    );
    // A `sys.version_info >= (3, 15)` branch is not 3.14's.
    assert_eq!(deprecated_in("genericpath.commonprefix"), vec![15]);
    // Versions the message names: "since 3.10"; "will be removed in 3.16" (from 3.14).
    assert_eq!(
        deprecated_in("ssl.SSLContext.set_npn_protocols"),
        (10..=15).collect::<Vec<_>>()
    );
    assert_eq!(
        deprecated_in("asyncio.events.get_event_loop_policy"),
        vec![14, 15]
    );
    // "removed in Python 3.14", in a `< (3, 14)` branch: 3.12 and 3.13.
    assert_eq!(
        deprecated_in("asyncio.events.get_child_watcher"),
        vec![12, 13]
    );
    assert_eq!(deprecated_in("ssl.wrap_socket"), vec![8, 9, 10, 11]);
    // One deprecated overload of `__new__` leaves creating one current.
    assert_eq!(deprecated_in("ssl.SSLContext"), Vec::<u32>::new());
    // Soft deprecated: no warning, no removal.
    assert_eq!(deprecated_in("os.popen"), Vec::<u32>::new());
    // Typeshed deprecates it on every version and names none: kept.
    assert_eq!(
        deprecated_in("datetime.datetime.utcnow"),
        (8..=15).collect::<Vec<_>>()
    );
    // Branches inside a class body, and a class defined in two branches.
    assert_eq!(deprecated_in("ast.Constant.n"), vec![12, 13]);
    assert_eq!(
        deprecated_in("ast._Later.method"),
        (9..=13).collect::<Vec<_>>()
    );
    // A branch the version does not take defines nothing there: 3.14 has no
    // `ast.Constant.n` and no `ssl.wrap_socket`, 3.8 has `_ctypes.POINTER`'s one signature
    // rather than 3.14's three overloads.
    let (_, s314) = &surfaces[6];
    assert!(!s314.symbols.contains_key("ast.Constant.n"));
    assert!(!s314.symbols.contains_key("ssl.wrap_socket"));
    let (_, s38) = &surfaces[0];
    assert!(s38.symbols.contains_key("ast.Constant.n"));
    assert_eq!(s38.symbols["ctypes.POINTER"].signatures.len(), 1);
    assert_eq!(s314.symbols["ctypes.POINTER"].signatures.len(), 3);
    // The stub modules are marked: a name another version declares is absent here.
    assert!(s314.symbols["ssl"].open && s314.symbols["ssl"].stub_only);
}

/// Another package's stubs stay open: its older stubs may only be incomplete.
#[test]
fn only_the_standard_library_stubs_are_versioned() {
    let s = extract(&tree(STDLIB_STUBS), "pkg", "1.0");
    assert!(s.symbols["ssl"].open && !s.symbols["ssl"].stub_only);
    // And both branches of a version test define names.
    assert!(s.symbols.contains_key("ssl.wrap_socket"));
}

#[test]
fn overloads_and_accessors_deprecate_only_together() {
    let s = extract(
        &tree(&[(
            "pkg/__init__.py",
            r#"
import sys
import warnings
from typing import overload
from typing_extensions import deprecated
@overload
@deprecated("strings are deprecated")
def one_way(x: str) -> str: ...
@overload
def one_way(x: int) -> int: ...
def one_way(x): ...
@overload
def every_way(x: str) -> str: ...
@overload
def every_way(x: int) -> int: ...
def every_way(x):
    warnings.warn("every_way is deprecated", DeprecationWarning)
if sys.version_info >= (3, 12):
    @deprecated("only on new interpreters")
    def by_interpreter(): ...
else:
    def by_interpreter(): ...
class Model:
    @property
    def old(self):
        warnings.warn("old is deprecated", FutureWarning)
    @old.setter
    def old(self, value): ...
    @overload
    def call(self, x: str) -> str: ...
    @overload
    @deprecated("ints are deprecated")
    def call(self, x: int) -> int: ...
"#,
        )]),
        "pkg",
        "1",
    );
    assert_eq!(s.symbols["pkg.one_way"].deprecated, None);
    assert_eq!(
        s.symbols["pkg.every_way"].deprecated.as_deref(),
        Some("every_way is deprecated")
    );
    // Another package's `sys.version_info` tests are about the interpreter: both branches
    // count, and one is current.
    assert_eq!(s.symbols["pkg.by_interpreter"].deprecated, None);
    // Reading a property is what its getter says.
    assert_eq!(
        s.symbols["pkg.Model.old"].deprecated.as_deref(),
        Some("old is deprecated")
    );
    assert_eq!(s.symbols["pkg.Model.call"].deprecated, None);
}
