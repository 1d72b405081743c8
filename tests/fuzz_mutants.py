"""Plant a wrong VJP in each operation of the tensor engine that is not a rule of ``RULES``
(matmul, sum, indexing, softmax, ...) and report whether the random programs catch it.

A script, not a test (it costs about 30 s): the operations are reached through the engine's
internals (any object with a ``vjp`` function in ``micrograd_edu.tensor``'s modules and in
``micrograd_edu.nn.functional``); the rules' partials are planted through the public table by
``test_tensor_fuzz.py``. Only programs the engine gets right are used, so a catch is the
planted defect's. An operation whose VJP refuses (as PyTorch's does: floor division has no
derivative) has nothing to plant; it is listed with its message.

    python tests/fuzz_mutants.py [--programs 400] [--oracle torch|numeric]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import pkgutil
import sys
import types
from typing import Any

import fuzz_oracle as oracle
import numpy as np
from fuzz_programs import generate


def operations() -> dict[types.FunctionType, list[str]]:
    """Every VJP function of the tensor package's operations, with the names of the
    operations that use it."""
    package = importlib.import_module("micrograd_edu.tensor")
    modules = [f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)]
    found: dict = {}
    for name in [*modules, "micrograd_edu.nn.functional"]:
        for value in vars(importlib.import_module(name)).values():
            vjp = getattr(value, "vjp", None)
            vjp = getattr(vjp, "__func__", vjp)
            if isinstance(vjp, types.FunctionType) and isinstance(getattr(value, "name", 0), str):
                found.setdefault(vjp, [])
                if value.name not in found[vjp]:
                    found[vjp].append(value.name)
    return found


def _skew(grads: Any) -> Any:
    """The first gradient times 1.5 plus 0.25: a wrong VJP of the right shape."""
    grads = list(grads)
    for i, g in enumerate(grads):
        if g is not None:
            grads[i] = g * 1.5 + 0.25
            break
    return tuple(grads)


@contextlib.contextmanager
def wrong(vjp: types.FunctionType):
    """``vjp`` made wrong in place (every holder of the function sees it). Its code is swapped
    for a wrapper with as many free variables, so that a closure fits too."""
    right = types.FunctionType(
        vjp.__code__, vjp.__globals__, vjp.__name__, vjp.__defaults__, vjp.__closure__
    )
    free = vjp.__code__.co_freevars
    source = (
        f"def outer({', '.join(free)}):\n"
        "    def skewed(*args, _right=None, _skew=None, **kwargs):\n"
        f"        {'(' + ', '.join(free) + ',)' if free else 'pass'}\n"
        "        return _skew(_right(*args, **kwargs))\n"
        "    return skewed\n"
    )
    scope: dict = {}
    exec(source, scope)
    skewed = scope["outer"](*free)
    saved = vjp.__code__, vjp.__defaults__, vjp.__kwdefaults__
    vjp.__code__, vjp.__defaults__ = skewed.__code__, None
    vjp.__kwdefaults__ = {"_right": right, "_skew": _skew}
    try:
        yield
    finally:
        vjp.__code__, vjp.__defaults__, vjp.__kwdefaults__ = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=400)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--oracle", choices=sorted(oracle.ORACLES), default=oracle.default_oracle())
    args = parser.parse_args(argv)
    programs = [generate(args.seed, k) for k in range(args.programs)]
    right = [p for p in programs if oracle.check(p, args.oracle).status == "ok"]
    print(f"{len(right)} of {len(programs)} programs agree with {args.oracle} before planting")
    missed = 0
    for vjp, names in operations().items():
        with wrong(vjp):
            hit = next((p for p in right if oracle.check(p, args.oracle).status == "fail"), None)
        refusal = None if hit else refuses(vjp)
        missed += hit is None and refusal is None
        shown = hit.label if hit else f"refuses: {refusal}" if refusal else "NOT CAUGHT"
        print(f"{'/'.join(names):28} {shown}")
    return 1 if missed else 0


def refuses(vjp: types.FunctionType) -> str | None:
    """The message of the RuntimeError ``vjp`` raises on any gradient (the engine's refusal
    of a derivative PyTorch does not define either), or None."""
    x = np.ones(2)
    try:
        vjp(x, x, (x, x), (True, True))
    except RuntimeError as error:
        return str(error)[:90]
    except Exception:
        return None
    return None


if __name__ == "__main__":
    sys.exit(main())
