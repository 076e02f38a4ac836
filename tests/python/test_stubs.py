"""python/ogai/_ogai.pyi names exactly what the extension exports: every public class, function
and constant, and each class's public methods and properties (a binding added without its stub,
or a stub left for a name that is gone, fails here). The stub also parses as Python."""
import ast
import inspect
import os

import ogai._ogai as ext

STUB = os.path.join(os.path.dirname(ext.__file__), "_ogai.pyi")
DUNDERS = {"__init__", "__iter__", "__next__", "__enter__", "__exit__"}


def stub_tree():
    with open(STUB, encoding="utf-8") as f:
        return ast.parse(f.read(), STUB)


def public(name):
    return not name.startswith("_") or name in DUNDERS or name == "__version__"


def test_every_module_name_has_a_stub():
    tree = stub_tree()
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    stubbed |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    exported = {n for n in dir(ext) if public(n) and not n.startswith("__") or n == "__version__"}
    assert exported <= stubbed, f"without a stub: {sorted(exported - stubbed)}"
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    assert classes <= exported, f"stubs of names the module lacks: {sorted(classes - exported)}"


def test_every_class_member_has_a_stub_and_no_more():
    for node in stub_tree().body:
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(ext, node.name)
        real = {k for k, v in cls.__dict__.items() if public(k) and (callable(v) or isinstance(v, property))}
        real -= {"__init__"} if cls.__dict__.get("__init__") is object.__init__ else set()
        real = {k for k in real if k != "__init__" or "Initialize self" not in (cls.__dict__[k].__doc__ or "")}
        stubbed = {m.name for m in node.body if isinstance(m, ast.FunctionDef)}
        assert real <= stubbed, f"{node.name}: without a stub: {sorted(real - stubbed)}"
        assert stubbed <= real, f"{node.name}: stubs of members it lacks: {sorted(stubbed - real)}"
        for m in node.body:
            if isinstance(m, ast.FunctionDef) and any(isinstance(d, ast.Name) and d.id == "property"
                                                      for d in m.decorator_list):
                assert isinstance(inspect.getattr_static(cls, m.name), property), f"{node.name}.{m.name}"
