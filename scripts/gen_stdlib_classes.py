#!/usr/bin/env python3
"""Writes the members of the standard-library classes that package classes derive from.

The index answers `torch.Tensor.x` through the class's bases; a base from the standard library
(`type`, `enum.Enum`, `Exception`, `typing.NamedTuple`, `abc.ABC`...) is not in any package
index, so its members come from this table, read from typeshed's stubs (the copy that ships in
the `mypy` wheel). Nothing is imported: the stubs are parsed with `ast`.

    pip download --no-deps mypy -d /tmp/mypy && unzip -q -o /tmp/mypy/mypy-*.whl -d /tmp/mypy
    python3 scripts/gen_stdlib_classes.py /tmp/mypy/mypy/typeshed/stdlib \
        > crates/apicompat_index/data/stdlib_classes.txt

Every class bound at the top level of MODULES is written, one line each:

    <module>.<name> <kind>:<member> ...

with every member along the class's bases and its metaclass's (a metaclass's members are
attributes of the class object), all `sys.version_info` branches united, dunder names left out
(the index never judges them). Kinds: f function, p property, a attribute, c class. A class
with a base that cannot be read from the stubs is written as `<module>.<name> ?` (its missing
members stay unknown). The output is sorted: two runs on the same typeshed give the same bytes.
"""
import ast
import os
import sys

MODULES = ["builtins", "abc", "enum", "typing", "typing_extensions"]

# Special forms that typeshed does not declare as classes, and the class a class deriving
# from them has at run time (`class X(TypedDict)` creates dicts).
SPECIAL_FORMS = {
    "typing.TypedDict": ("builtins", "dict"),
    "typing_extensions.TypedDict": ("builtins", "dict"),
}

# Decorators (by their last name, after aliases) that make a method a property.
PROPERTY_DECORATORS = {"property", "cached_property", "DynamicClassAttribute", "abstractproperty"}


def is_dunder(name):
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def dotted(e):
    if isinstance(e, ast.Subscript):
        e = e.value
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        base = dotted(e.value)
        return base and base + "." + e.attr
    return None


def branches(body):
    """Statements of a body with every `if`/`else`/`try` branch flattened in."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            yield from branches(stmt.body)
            yield from branches(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for part in (stmt.body, *[h.body for h in stmt.handlers], stmt.orelse, stmt.finalbody):
                yield from branches(part)
        else:
            yield stmt


class Module:
    def __init__(self, name, tree):
        self.name = name
        self.classes = {}  # name -> [ClassDef]
        self.aliases = {}  # name -> [dotted reference]
        self.imports = {}  # name -> (module, name or None for a module)
        self.stars = []
        self.reexports = set()  # `from m import n as n`
        for stmt in branches(tree.body):
            if isinstance(stmt, ast.ClassDef):
                self.classes.setdefault(stmt.name, []).append(stmt)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, ref = dotted(stmt.targets[0]), dotted(stmt.value)
                if isinstance(stmt.targets[0], ast.Name) and ref:
                    self.aliases.setdefault(target, []).append(ref)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                # `Protocol: type[_Protocol]`
                ann = stmt.annotation
                if isinstance(ann, ast.Subscript) and dotted(ann.value) == "type":
                    ref = dotted(ann.slice)
                    if ref:
                        self.aliases.setdefault(stmt.target.id, []).append(ref)
            elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0:
                for a in stmt.names:
                    if a.name == "*":
                        self.stars.append(stmt.module)
                    else:
                        self.imports[a.asname or a.name] = (stmt.module, a.name)
                        if a.asname == a.name:
                            self.reexports.add(a.name)
            elif isinstance(stmt, ast.Import):
                for a in stmt.names:
                    if a.asname:
                        self.imports[a.asname] = (a.name, None)
                    else:
                        top = a.name.split(".")[0]
                        self.imports[top] = (top, None)


class Typeshed:
    def __init__(self, root):
        self.root = root
        self.modules = {}
        self.classes = {}  # (module, qualname) -> Class facts
        self.busy = set()

    def module(self, name):
        if name not in self.modules:
            self.modules[name] = None
            rel = name.replace(".", "/")
            for path in (rel + ".pyi", rel + "/__init__.pyi"):
                full = os.path.join(self.root, path)
                if os.path.exists(full):
                    with open(full, encoding="utf-8") as f:
                        self.modules[name] = Module(name, ast.parse(f.read()))
                    break
        return self.modules[name]

    def resolve(self, module, ref, depth=0):
        """The classes a dotted reference written in `module` may be, as (module, name) keys;
        None when it cannot be read."""
        if depth > 32:
            return None
        head, _, rest = ref.partition(".")
        m = self.module(module)
        if m is None:
            return None
        if rest:
            target = m.imports.get(head)
            if target and target[1] is None:
                return self.resolve(target[0], rest, depth + 1)
            if head == module.split(".")[-1] or head in MODULES:
                return self.resolve(head, rest, depth + 1)
            return None
        special = SPECIAL_FORMS.get(f"{module}.{head}")
        if special:
            return [special]
        if head in m.classes:
            return [(module, head)]
        if head in m.aliases:
            out = []
            for alias in m.aliases[head]:
                if alias == head:
                    continue
                r = self.resolve(module, alias, depth + 1)
                if r is None:
                    return None
                out.extend(r)
            return out or None
        if head in m.imports:
            mod, name = m.imports[head]
            if name is None:
                return None
            return self.resolve(mod, name, depth + 1)
        for star in m.stars:
            r = self.resolve(star, head, depth + 1)
            if r:
                return r
        if module != "builtins":
            return self.resolve("builtins", head, depth + 1) if self.module("builtins").classes.get(head) else None
        return None

    def decorator_kind(self, module, dec):
        name = dotted(dec.func if isinstance(dec, ast.Call) else dec) or ""
        seen = set()
        while name and name not in seen:
            seen.add(name)
            last = name.split(".")[-1]
            if last in PROPERTY_DECORATORS:
                return "p"
            m = self.module(module)
            aliases = m.aliases.get(name, []) if m else []
            if not aliases:
                break
            if any(a.split(".")[-1] in PROPERTY_DECORATORS for a in aliases):
                return "p"
            name = aliases[0]
        return None

    def own_members(self, module, defs):
        members = {}
        for cls in defs:
            for stmt in branches(cls.body):
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    kind = "f"
                    for d in stmt.decorator_list:
                        kind = self.decorator_kind(module, d) or kind
                    if members.get(stmt.name) != "p":
                        members[stmt.name] = kind
                elif isinstance(stmt, ast.ClassDef):
                    members[stmt.name] = "c"
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    members.setdefault(stmt.target.id, "a")
                elif isinstance(stmt, ast.Assign):
                    for t in stmt.targets:
                        if isinstance(t, ast.Name):
                            members.setdefault(t.id, "a")
        return members

    def flat(self, key):
        """Every member of class `key` through its bases and metaclass; None when a base
        cannot be read."""
        if key in self.classes:
            return self.classes[key]
        if key in self.busy:
            return {}
        self.busy.add(key)
        module, name = key
        defs = self.module(module).classes[name]
        out = {}
        complete = True
        parents = []
        for cls in defs:
            refs = [dotted(b) for b in cls.bases]
            refs += [dotted(k.value) for k in cls.keywords if k.arg == "metaclass"]
            for ref in refs:
                if ref is None:
                    complete = False
                    continue
                r = self.resolve(module, ref)
                if r is None:
                    print(f"unreadable base {ref} of {module}.{name}", file=sys.stderr)
                    complete = False
                else:
                    parents.extend(r)
        if (module, name) != ("builtins", "object"):
            parents.append(("builtins", "object"))
        for p in parents:
            members = self.flat(p)
            if members is None:
                complete = False
                continue
            for n, k in members.items():
                out.setdefault(n, k)
        for n, k in self.own_members(module, defs).items():
            out[n] = k
        self.busy.discard(key)
        result = {n: k for n, k in out.items() if not is_dunder(n)} if complete else None
        self.classes[key] = result
        return result


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_stdlib_classes.py TYPESHED_STDLIB_DIR")
    ts = Typeshed(sys.argv[1])
    lines = []
    for module in MODULES:
        m = ts.module(module)
        if m is None:
            sys.exit(f"{module}.pyi not found under {sys.argv[1]}")
        names = set(m.classes) | set(m.aliases) | m.reexports
        names |= {n.split(".", 1)[1] for n in SPECIAL_FORMS if n.startswith(module + ".")}
        for name in sorted(names):
            if is_dunder(name):
                continue
            keys = ts.resolve(module, name)
            if not keys:
                continue
            members = {}
            complete = True
            for key in keys:
                flat = ts.flat(key)
                if flat is None:
                    complete = False
                    break
                members.update(flat)
            if not complete:
                lines.append(f"{module}.{name} ?")
                continue
            items = " ".join(f"{k}:{n}" for n, k in sorted(members.items()))
            lines.append(f"{module}.{name} {items}".rstrip())
    sys.stdout.write("\n".join(sorted(lines)) + "\n")


if __name__ == "__main__":
    main()
