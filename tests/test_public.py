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


def test_the_tensor_function_stands_over_its_subpackage_and_the_subpackage_is_reachable():
    # mg.tensor(...) is public, so the package attribute is the function, not the
    # subpackage behind it: the docstrings say how to reach the module instead.
    module = importlib.import_module("micrograd_edu.tensor")
    assert isinstance(module, types.ModuleType) and module.__name__ == "micrograd_edu.tensor"
    assert micrograd_edu.tensor is module.tensor
    assert "micrograd_edu.tensor``, the attribute, is the constructor" in micrograd_edu.__doc__
    from micrograd_edu.tensor import Tensor

    assert importlib.import_module("micrograd_edu.tensor.tensor").Tensor is Tensor
    assert "import micrograd_edu.tensor as T`` gives the *function*" in module.__doc__


def test_freeze_and_doctor_are_functions_of_the_package():
    from micrograd_edu.course import doctor
    from micrograd_edu.tensor import freeze

    assert micrograd_edu.freeze is freeze.freeze
    assert micrograd_edu.doctor()[0].name == doctor.doctor()[0].name == "python"
