"""The type stubs say what the compiled module is: every public name of ``txanon._txanon``
has a stub and every stub a name, with the same parameters, kinds and defaults; every public
function and method has a docstring that ``help()`` shows."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import txanon
from txanon import _txanon

STUB = Path(txanon.__file__).with_name("_txanon.pyi")


def stub_signatures() -> tuple[dict[str, ast.FunctionDef], dict[str, dict[str, ast.FunctionDef]]]:
    tree = ast.parse(STUB.read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {
        c.name: {n.name: n for n in c.body if isinstance(n, ast.FunctionDef)}
        for c in tree.body
        if isinstance(c, ast.ClassDef)
    }
    return functions, classes


def parameters(node: ast.FunctionDef) -> list[tuple[str, str, object]]:
    """(name, kind, default) of each parameter, ``self`` aside."""
    args = node.args
    out = []
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for a, d in zip(positional, defaults):
        if a.arg != "self":
            out.append((a.arg, "positional", ast.literal_eval(d) if d else inspect.Parameter.empty))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        out.append((a.arg, "keyword", ast.literal_eval(d) if d else inspect.Parameter.empty))
    return out


def compiled(function) -> list[tuple[str, str, object]]:
    out = []
    for p in inspect.signature(function).parameters.values():
        if p.name == "self":
            continue
        kind = "keyword" if p.kind is p.KEYWORD_ONLY else "positional"
        out.append((p.name, kind, p.default))
    return out


def test_every_native_function_matches_its_stub():
    functions, classes = stub_signatures()
    native = {n for n in dir(_txanon) if not n.startswith("_") and callable(getattr(_txanon, n))}
    assert native == set(functions) | set(classes)
    for name, node in functions.items():
        assert compiled(getattr(_txanon, name)) == parameters(node), name


def test_every_native_class_matches_its_stub():
    _, classes = stub_signatures()
    assert set(classes) == {"Evaluation", "Publication"}
    for cls, methods in classes.items():
        native = getattr(_txanon, cls)
        assert native.__doc__, cls
        public = {n for n in dir(native) if not n.startswith("_")}
        assert public == set(methods), cls
        for name, node in methods.items():
            member = getattr(native, name)
            if callable(member):
                assert compiled(member) == parameters(node), f"{cls}.{name}"
            assert member.__doc__, f"{cls}.{name} has no docstring"


def test_help_shows_a_docstring_for_everything_public():
    for module in (txanon, txanon.anonymize, txanon.audit):
        assert module.__doc__
        for name in getattr(module, "__all__", []):
            value = getattr(module, name)
            if inspect.isfunction(value) or inspect.isclass(value):
                assert inspect.getdoc(value), f"{module.__name__}.{name}"


def test_the_wrappers_pass_every_option_through():
    """Each Python function names the native function's options (the leading data argument and
    the renamed seed and sensitive lists aside)."""
    rename = {"seed_": "seed", "sensitive_": "sensitive", "original_": "original", "data_": "data"}
    for family in ("anatomy", "cahd", "coherence", "km", "slicing", "swap"):
        for layer, prefix in ((txanon.anonymize, "anonymize_"), (txanon.audit, "audit_")):
            native = [rename.get(n, n) for n, _, _ in compiled(getattr(_txanon, prefix + family))]
            wrapper = list(inspect.signature(getattr(layer, family)).parameters)
            if layer is txanon.audit:
                native[0] = "publication"
            assert wrapper == native, f"{layer.__name__}.{family}"
    native = [rename.get(n, n) for n, _, _ in compiled(_txanon.evaluate)]
    assert list(inspect.signature(txanon.evaluate).parameters) == native
    native = [rename.get(n, n) for n, _, _ in compiled(_txanon.attack)]
    assert list(inspect.signature(txanon.attack).parameters) == native
