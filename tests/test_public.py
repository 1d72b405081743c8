"""The package's public face: every name it lists exists, in sorted order."""

import importlib
import types

import micrograd_edu


def test_all_is_sorted_and_every_name_resolves():
    names = micrograd_edu.__all__
    assert names == sorted(names) and len(set(names)) == len(names)
    for name in names:
        assert getattr(micrograd_edu, name) is not None, name


def test_every_public_function_and_class_is_listed():
    # Anything imported into the package namespace (not a submodule brought in as
    # a side effect of importing from it) belongs in __all__.
    public = {
        name
        for name, value in vars(micrograd_edu).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public <= set(micrograd_edu.__all__), public - set(micrograd_edu.__all__)


def test_a_module_named_like_its_function_is_reached_by_importing_from_it():
    # mg.tensor(...) is public, so the package attribute is the function, not the
    # subpackage behind it: the docstrings say how to reach the module instead.
    for name in ("tensor", "freeze", "doctor"):
        module = importlib.import_module(f"micrograd_edu.{name}")
        assert isinstance(module, types.ModuleType) and module.__name__ == f"micrograd_edu.{name}"
        assert getattr(micrograd_edu, name) is getattr(module, name)
        assert f"micrograd_edu.{name}``" in micrograd_edu.__doc__
    from micrograd_edu.tensor import Tensor, core

    assert core.Tensor is Tensor
    tensor_package = importlib.import_module("micrograd_edu.tensor")
    assert "import micrograd_edu.tensor as T`` gives the *function*" in tensor_package.__doc__
