"""The package's public face: every name it lists exists, in sorted order."""

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
