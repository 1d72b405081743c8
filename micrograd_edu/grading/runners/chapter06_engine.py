"""What the grader runs next to the submission for chapter 06's own engine (MyTensor's
operations, MyFunction, LogSumExp, gradcheck): it builds the inputs from a case and calls
the student's code. No answer, oracle or expected value lives here (see
runners/__init__.py); the operations below are the grader's test material, not answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..registry import Case, student_line
from .chapter04 import _backward_by_creation


def _axis(case: Case) -> Any:
    axis = case["params"].get("axis")
    return tuple(axis) if isinstance(axis, list) else axis


# The expressions a case names, on the student's MyTensors ``t`` (the judge evaluates the
# same names on arrays). ``p`` is the case's parameters.
_EXPRESSIONS: dict[str, Callable[[list, dict], Any]] = {
    "add": lambda t, p: t[0] + t[1],
    "add_number": lambda t, p: t[0] + p["k"],
    "number_add": lambda t, p: p["k"] + t[0],
    "array_add": lambda t, p: np.array(p["array"]) + t[0],
    "add_self": lambda t, p: t[0] + t[0],
    "broadcast_to": lambda t, p: t[0].broadcast_to(tuple(p["shape"])),
    "broadcast_squared": lambda t, p: (
        t[0].broadcast_to(tuple(p["shape"])) * t[0].broadcast_to(tuple(p["shape"]))
    ),
    "sum": lambda t, p: t[0].sum(axis=p["axis"], keepdims=p["keepdims"]),
    "sum_squared": lambda t, p: (
        t[0].sum(axis=p["axis"], keepdims=p["keepdims"])
        * t[0].sum(axis=p["axis"], keepdims=p["keepdims"])
    ),
    "sum_then_sum": lambda t, p: t[0].sum(axis=p["axis"], keepdims=p["keepdims"]).sum(),
    "reshape": lambda t, p: t[0].reshape(*p["shape"]),
    "reshape_tuple": lambda t, p: t[0].reshape(tuple(p["shape"])),
    "reshape_squared": lambda t, p: t[0].reshape(*p["shape"]) * t[0].reshape(*p["shape"]),
    "permute": lambda t, p: t[0].permute(*p["axes"]),
    "permute_twice": lambda t, p: t[0].permute(*p["axes"]).permute(*p["axes"]),
    "permute_squared": lambda t, p: t[0].permute(*p["axes"]) * t[0].permute(*p["axes"]),
    "transpose": lambda t, p: t[0].transpose(*p["dims"]),
    "matmul": lambda t, p: t[0] @ t[1],
    "matmul_self": lambda t, p: t[0] @ t[0],
    "matmul_array": lambda t, p: t[0] @ np.array(p["array"]),
}


def _params(case: Case) -> dict:
    params = dict(case["params"])
    if "axis" in params:
        params["axis"] = _axis(case)
    return params


def _run_expression(functions: dict, case: Case) -> dict:
    """The case's expression on MyTensors made from its inputs, backpropagated from the
    cotangent ``case["up"]``: the result's class and data, and each input's grad."""
    make = functions["MyTensor"]
    leaves = [make(np.array(x, dtype=float)) for x in case["inputs"]]
    params = _params(case)
    seed = np.array(case["up"], dtype=float)
    out = _backward_by_creation(leaves[0], lambda: _EXPRESSIONS[case["expr"]](leaves, params), seed)
    if not isinstance(out, type(leaves[0])):
        return {"made": False, "kind": type(out).__name__}
    return {"made": True, "value": out.data, "grads": [leaf.grad for leaf in leaves]}


# --- MyFunction: operations the grader writes on the student's base class ------------------


def _functions(base: type, seen: dict) -> dict[str, type]:
    """The grader's Functions, subclasses of the student's ``MyFunction``; their forward
    records the types of what it was handed in ``seen["handed"]``."""

    def handed(*args: Any) -> None:
        seen["handed"] = [type(a).__name__ for a in args]

    def mul_forward(ctx: Any, a: Any, b: Any) -> Any:
        handed(a, b)
        ctx.save_for_backward(a, b)
        return a * b

    def mul_backward(ctx: Any, grad: Any) -> Any:
        a, b = ctx.saved_tensors
        return grad * b, grad * a

    def square_forward(ctx: Any, x: Any) -> Any:
        handed(x)
        ctx.save_for_backward(x)
        return x * x

    def square_backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 2 * x * grad  # one input: its gradient alone, not in a tuple

    def scale_forward(ctx: Any, x: Any, k: Any) -> Any:
        handed(x, k)
        ctx.save_for_backward(k)
        return k * x

    def scale_backward(ctx: Any, grad: Any) -> Any:
        (k,) = ctx.saved_tensors
        return grad * k, None  # k is a number: no gradient

    def scale_by_forward(ctx: Any, k: Any, x: Any) -> Any:
        handed(k, x)
        ctx.save_for_backward(k)
        return k * x

    def scale_by_backward(ctx: Any, grad: Any) -> Any:
        (k,) = ctx.saved_tensors
        return None, grad * k  # the number comes first: its None, then x's gradient

    def gate_forward(ctx: Any, x: Any, y: Any) -> Any:
        handed(x, y)
        ctx.save_for_backward(x)
        return x * y

    def gate_backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return None, grad * x  # x is a tensor that gets no gradient, as PyTorch allows

    def rows_forward(ctx: Any, x: Any) -> Any:
        handed(x)
        return x * 1.0

    def rows_backward(ctx: Any, grad: Any) -> Any:
        return grad.sum(axis=0)  # a gradient of the wrong shape: one row

    made = {
        "Mul": (mul_forward, mul_backward),
        "Square": (square_forward, square_backward),
        "Scale": (scale_forward, scale_backward),
        "ScaleBy": (scale_by_forward, scale_by_backward),
        "RowSums": (rows_forward, rows_backward),
        "Gate": (gate_forward, gate_backward),
    }
    return {
        name: type(name, (base,), {"forward": staticmethod(f), "backward": staticmethod(b)})
        for name, (f, b) in made.items()
    }


_APPLIED: dict[str, Callable[[dict, list, dict], Any]] = {
    "mul": lambda fn, t, p: fn["Mul"].apply(t[0], t[1]),
    "mul_self": lambda fn, t, p: fn["Mul"].apply(t[0], t[0]),
    "square_square": lambda fn, t, p: fn["Square"].apply(fn["Square"].apply(t[0])),
    "scale": lambda fn, t, p: fn["Scale"].apply(t[0], p["k"]),
    "scale_first": lambda fn, t, p: fn["ScaleBy"].apply(p["k"], t[0]),
    "rows": lambda fn, t, p: fn["RowSums"].apply(t[0]),
    "gate": lambda fn, t, p: fn["Gate"].apply(t[0], t[1]),
}


def _run_function(functions: dict, case: Case) -> dict:
    """The case's Function applied to MyTensors, backpropagated from ``case["up"]``: what
    forward was handed, the result, its parents (as input numbers) and the inputs' grads;
    a raise while backpropagating is recorded as ``refused`` (a refusal may be wanted)."""
    make, seen = functions["MyTensor"], {}
    fns = _functions(functions["MyFunction"], seen)
    leaves = [make(np.array(x, dtype=float)) for x in case["inputs"]]
    seed = np.array(case["up"], dtype=float)
    try:
        out = _backward_by_creation(
            leaves[0], lambda: _APPLIED[case["expr"]](fns, leaves, case["params"]), seed
        )
    except NotImplementedError:
        raise  # not written yet: the grader says so
    except Exception as error:  # the refusal of a wrong shape is what one check wants
        said = f"{type(error).__name__}: {str(error)[:200]}"
        if case["expr"] == "rows":
            return {**seen, "refused": said}
        return {**seen, "error": said + student_line(error)}  # what forward was handed too
    if not isinstance(out, type(leaves[0])):
        return {**seen, "made": False, "kind": type(out).__name__}
    where = {id(leaf): i for i, leaf in enumerate(leaves)}
    parents = [where.get(id(p), -1) for p in getattr(out, "parents", ())]
    grads = [leaf.grad for leaf in leaves]
    return {**seen, "made": True, "value": out.data, "parents": parents, "grads": grads}


# --- LogSumExp: forward and backward called on the grader's own context ----------------------


class _Context:
    """What a Function's forward keeps for its backward (the grader's own, so LogSumExp is
    checked apart from the student's apply)."""

    def __init__(self) -> None:
        self.saved_tensors: tuple = ()

    def save_for_backward(self, *arrays: Any) -> None:
        self.saved_tensors = arrays


def _run_logsumexp(functions: dict, case: Case) -> dict:
    cls, ctx = functions["LogSumExp"], _Context()
    x = np.array(case["x"], dtype=float)
    value = cls.forward(ctx, x.copy())
    grad = cls.backward(ctx, np.array(case["up"], dtype=float))
    if isinstance(grad, tuple) and len(grad) == 1:
        (grad,) = grad
    return {"value": value, "grad": grad}


# --- gradcheck: tensors of a tiny engine whose backward the grader may have broken -----------


class _Input:
    """An input tensor: ``data`` (the checker may change it in place) and ``grad``, which
    backward passes add into."""

    def __init__(self, data: np.ndarray, grad: np.ndarray) -> None:
        self.data, self.grad = data, grad

    def __repr__(self) -> str:
        return f"tensor(shape={self.data.shape})"


class _Result:
    """A function's result: ``data``, and ``backward(v)`` that adds the inputs' gradients of
    sum(v * data) as the function's backward rule computes them. The rule runs in the
    grader's process (``ask``), which alone knows whether the case broke it."""

    def __init__(self, data: np.ndarray, inputs: list[_Input], ask: Callable) -> None:
        self.data, self._inputs, self._ask = data, inputs, ask

    def __repr__(self) -> str:
        return f"tensor(shape={self.data.shape})"

    def backward(self, grad: Any = None) -> None:
        if grad is None:
            if self.data.size != 1:
                raise ValueError(
                    f"backward() without a cotangent needs a result of one entry; this one "
                    f"has shape {self.data.shape}: pass one of that shape"
                )
            grad = np.ones_like(self.data)
        v = np.array(grad, dtype=float)
        if v.shape != self.data.shape:
            raise ValueError(
                f"backward: a cotangent of shape {v.shape} for a result of shape {self.data.shape}"
            )
        request = {"v": v.tolist(), "data": [x.data.tolist() for x in self._inputs]}
        for x, g in zip(self._inputs, self._ask(request), strict=True):
            g = np.array(g, dtype=float)
            x.grad = g if x.grad is None else x.grad + g


# Each function's value from its inputs' data (the grader's process holds the backward rules).
_VALUES: dict[str, Callable[..., np.ndarray]] = {
    "sin_times": lambda x, y: np.sin(x) * y,
    "row_sums": lambda x, y: (x * x * y).sum(axis=1),
    "total": lambda x, y: np.sum(np.sin(x) * y),
    "half_square": lambda x: x * x / 2,
}


def _run_gradcheck(functions: dict, case: Case) -> dict:
    """The student's ``gradcheck(f, *inputs)`` on the case's function, whose backward the
    grader may have broken: its verdict, and whether the inputs' data came back unchanged."""
    value = _VALUES[case["function"]]
    originals = [np.array(x, dtype=float) for x in case["inputs"]]
    stale = case.get("stale")
    inputs = [_Input(x.copy(), np.full_like(x, stale or 0.0)) for x in originals]

    def f(*xs: _Input) -> _Result:
        return _Result(np.asarray(value(*(x.data for x in xs)), dtype=float), list(xs), case["ask"])

    verdict = functions["gradcheck"](f, *inputs)
    restored = all(
        np.array_equal(x.data, o) and x.data.shape == o.shape
        for x, o in zip(inputs, originals, strict=True)
    )
    # how far the data moved, relative to its size (rounding moves it by 1e-16 or so)
    moved = max(
        float(np.max(np.abs(np.asarray(x.data, dtype=float) - o)) / max(np.max(np.abs(o)), 1e-300))
        if np.shape(x.data) == o.shape
        else float("inf")
        for x, o in zip(inputs, originals, strict=True)
    )
    if isinstance(verdict, (bool, np.bool_)):
        verdict = bool(verdict)
    else:
        verdict = repr(verdict)[:80]
    return {"verdict": verdict, "restored": restored, "moved": moved}
