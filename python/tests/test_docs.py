"""Every public name has a docstring, and the type stubs declare exactly
the public names (and methods) the module has."""

import ast
import enum
import inspect
import pathlib

import pytest

import xla_shape as xs

PKG = pathlib.Path(xs.__file__).parent
SUBMODULES = ["shape_util", "layout_util", "index_util", "strides"]


def public(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def stub_names(path):
    """Top-level names and, per class, method names declared in a stub."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names, methods = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
            methods[node.name] = {
                n.name if not isinstance(n, ast.AnnAssign) else n.target.id
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AnnAssign))
            } | {  # enum members
                t.id
                for n in node.body
                if isinstance(n, ast.Assign)
                for t in n.targets
                if isinstance(t, ast.Name)
            }
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom) and node.level == 1 and node.module is None:
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            # A class of a private module (``_primitive_type.py``, typed in
            # place): its declaration is that module's.
            source = path.parent / f"{node.module}.py"
            _, inner = stub_names(source)
            for a in node.names:
                names.add(a.asname or a.name)
                if a.name in inner:
                    public_names = {n for n in inner[a.name] if not n.startswith("_")}
                    methods[a.asname or a.name] = public_names
    return names, methods


def test_every_public_name_has_a_docstring():
    missing = []
    for name in xs.__all__:
        obj = getattr(xs, name)
        if isinstance(obj, int):
            continue
        if not inspect.getdoc(obj):
            missing.append(name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for m in public(obj):
                attr = getattr(obj, m)
                if isinstance(attr, xs.PrimitiveType):
                    continue  # the enum members
                if not inspect.getdoc(attr):
                    missing.append(f"{name}.{m}")
    for mod in SUBMODULES:
        module = getattr(xs, mod)
        assert module.__doc__, mod
        for f in module.__all__:
            if not inspect.getdoc(getattr(module, f)):
                missing.append(f"{mod}.{f}")
    assert not missing, missing


def test_all_lists_every_public_name():
    assert sorted(xs.__all__) == sorted(
        n for n in public(xs) if n not in ("annotations",)
    )


def test_stub_declares_the_package():
    names, methods = stub_names(PKG / "__init__.pyi")
    for name in xs.__all__:
        assert name in names, name
        obj = getattr(xs, name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            declared = methods[name]
            actual = set(public(obj))
            if issubclass(obj, enum.Enum):
                # An IntEnum: its members and its own methods, not int's.
                actual = set(obj.__members__) | {
                    n for n in vars(obj) if not n.startswith("_") and n not in obj.__members__
                }
            assert actual <= declared, (name, actual - declared)
            assert declared - {"__new__", "__int__", "__eq__", "__hash__"} <= actual, (
                name,
                declared - actual,
            )


@pytest.mark.parametrize("mod", SUBMODULES)
def test_stub_declares_each_submodule(mod):
    names, _ = stub_names(PKG / f"{mod}.pyi")
    imported = {"_ElementType", "Layout", "PrimitiveType", "ProgramShape", "Shape"}
    assert set(getattr(xs, mod).__all__) == names - imported - {"__all__"}


def test_py_typed_marker():
    assert (PKG / "py.typed").exists()


@pytest.mark.parametrize("mod", ["shape_util", "layout_util", "index_util"])
def test_utility_docstrings_say_what_and_name_xla(mod):
    # The first sentence says what the function does (a verb, not a bare
    # name) and names the XLA function it binds; `indices` has no XLA
    # counterpart and says so.
    module = getattr(xs, mod)
    for name in module.__all__:
        first = inspect.getdoc(getattr(module, name)).split("\n\n")[0].replace("\n", " ")
        assert not first.startswith("`"), (mod, name, first)
        xla = ("ShapeUtil::", "LayoutUtil::", "IndexUtil::")
        assert any(k in first for k in xla) or "XLA counterpart" in first, (mod, name, first)
