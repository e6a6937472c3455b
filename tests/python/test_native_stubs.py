"""`_native.pyi` describes the compiled module: same functions, same parameters."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import lfnlab
from lfnlab import _native

STUB = Path(lfnlab.__file__).with_name("_native.pyi")


def stub_functions() -> dict[str, list[str]]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {
        node.name: [a.arg for a in node.args.args]
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }


def test_stub_and_binary_define_the_same_functions() -> None:
    native = {name for name, obj in vars(_native).items() if callable(obj) and not name.startswith("_")}
    assert set(stub_functions()) == native


def test_parameters_match() -> None:
    for name, params in stub_functions().items():
        sig = inspect.signature(getattr(_native, name))
        assert list(sig.parameters) == params, name


def test_package_is_typed() -> None:
    assert Path(lfnlab.__file__).with_name("py.typed").is_file()
    assert isinstance(_native.__version__, str)
