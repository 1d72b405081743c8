"""Chapter 06's second half: the student's own tensor engine, ``MyTensor``, and its
operations (broadcasting ``+`` and ``broadcast_to``, ``sum``, ``reshape``,
``permute``/``transpose``, ``@``); ``chapter06_function`` grades its ``gradcheck``,
``MyFunction`` and ``LogSumExp``.

The oracle: every gradient is the central difference of ``sum(up * f(inputs))``, with
``f`` the same expression on numpy arrays. The cases are drawn so that the typical
mistakes show: an input used twice, negative axes, orders of axes that are not their own
inverse, a number or an array on the left.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from .arrays import compare, numerical_gradients, random_matrix, same, shape_name
from .chapter06 import WITHHELD
from .registry import Case, Check, Exercise, Mistake, register
from .runners.chapter06_engine import _EXPRESSIONS, _params, _run_expression
from .steps import reference_steps

_ENGINE_WITHHELD = (
    *WITHHELD,
    "micrograd_edu.scalar.numerical.gradcheck",
    "micrograd_edu.tensor.function.Function",
    "scipy",
    "torch",
)
_UNBROADCAST = reference_steps(unbroadcast="unbroadcast_reference")


class _Array:
    """numpy's own result of each operation a case names, under MyTensor's method names:
    the oracle evaluates the runner's expressions (``_EXPRESSIONS``) on these."""

    __array_ufunc__ = None  # `array + x` asks x.__radd__, as it does of a MyTensor

    def __init__(self, data: Any) -> None:
        self.data = np.asarray(data, dtype=float)

    @staticmethod
    def _of(other: Any) -> np.ndarray:
        return other.data if isinstance(other, _Array) else np.asarray(other, dtype=float)

    def __add__(self, other: Any) -> _Array:
        return _Array(self.data + self._of(other))

    def __mul__(self, other: Any) -> _Array:
        return _Array(self.data * self._of(other))

    def __matmul__(self, other: Any) -> _Array:
        return _Array(self.data @ self._of(other))

    __radd__, __rmul__ = __add__, __mul__

    def broadcast_to(self, shape: tuple) -> _Array:
        return _Array(np.broadcast_to(self.data, shape))

    def sum(self, axis: Any = None, keepdims: bool = False) -> _Array:
        return _Array(np.sum(self.data, axis=axis, keepdims=keepdims))

    def reshape(self, *shape: Any) -> _Array:
        return _Array(self.data.reshape(*shape))

    def permute(self, *axes: int) -> _Array:
        return _Array(np.transpose(self.data, axes))

    def transpose(self, dim0: int, dim1: int) -> _Array:
        return _Array(np.swapaxes(self.data, dim0, dim1))


# The values of MyFunction's cases (the grader's Mul, Square and Scale; chapter06_function).
_FUNCTION_VALUES: dict[str, Callable[[list, dict], Any]] = {
    "mul": lambda a, p: a[0] * a[1],
    "mul_self": lambda a, p: a[0] * a[0],
    "square_square": lambda a, p: (a[0] * a[0]) ** 2,
    "scale": lambda a, p: p["k"] * a[0],
    "scale_first": lambda a, p: p["k"] * a[0],
    "gate": lambda a, p: a[0] * a[1],
}


def _evaluate(expr: str, arrays: list[np.ndarray], params: dict) -> np.ndarray:
    """The expression ``expr`` of a case, on arrays, by numpy."""
    if expr in _FUNCTION_VALUES:
        return np.asarray(_FUNCTION_VALUES[expr](arrays, params), dtype=float)
    out = _EXPRESSIONS[expr]([_Array(a) for a in arrays], _params({"params": params}))
    return out.data


_TWICE = ("add_self", "broadcast_squared", "sum_squared", "reshape_squared", "permute_squared")


def _case(rng: random.Random, expr: str, text: str, shapes: list, **params: Any) -> Case:
    """A case: inputs of ``shapes``, the expression's parameters, and a cotangent ``up`` of
    the result's shape; ``text`` is the expression as the student would write it."""
    inputs = [random_matrix(rng, *s) for s in shapes]
    out = _evaluate(expr, [np.array(x, dtype=float) for x in inputs], params)
    names = ", ".join(
        f"{n} of shape {shape_name(tuple(s))}" for n, s in zip("xy", shapes, strict=False)
    )
    return {
        "expr": expr,
        "inputs": inputs,
        "params": params,
        "up": random_matrix(rng, *out.shape),
        "text": f"{text}, {names}",
    }


def _wants(case: Case) -> list[np.ndarray]:
    """Each input's gradient of sum(up * f(inputs)), by central differences (0 for the
    inputs ``case["no_gradient"]`` lists: their Function gives them none)."""
    arrays = [np.array(x, dtype=float) for x in case["inputs"]]
    up, expr, params = np.array(case["up"], dtype=float), case["expr"], case["params"]
    grads = numerical_gradients(
        lambda *xs: float(np.sum(up * _evaluate(expr, list(xs), params))), *arrays
    )
    return [0 * g if i in case.get("no_gradient", ()) else g for i, g in enumerate(grads)]


def _judge_expression(case: Case, seen: dict) -> str | None:
    text = case["text"]
    if not seen.get("made"):
        return f"{text}: the result is a {seen.get('kind')}, not a MyTensor"
    arrays = [np.array(x, dtype=float) for x in case["inputs"]]
    value = _evaluate(case["expr"], arrays, case["params"])
    problem = compare(seen.get("value"), value, f"the result's data ({text})")
    if problem:
        return problem
    grads = seen.get("grads") or []
    for i, want in enumerate(_wants(case)):
        got = grads[i] if i < len(grads) else None
        problem = compare(got, want, f"{'xy'[i]}.grad ({text})")
        if problem:
            return problem
    return None


def _grad_is(model: Callable[[Case, list[np.ndarray]], Any], which: int = 0):
    """A mistake whose input ``which`` gets ``model(case, right gradients)``."""

    def matches(case: Case, seen: dict) -> bool:
        grads = seen.get("grads") or []
        if len(grads) <= which:
            return False
        wrong = model(case, _wants(case))
        return wrong is not None and same(grads[which], wrong)

    return matches


def _raised(*fragments: str, when: Callable[[Case], bool] = lambda case: True):
    """A mistake seen as a raise whose message holds one of ``fragments``."""

    def matches(case: Case, seen: dict) -> bool:
        error = str(seen.get("error", ""))
        return when(case) and any(f in error for f in fragments)

    return matches


def _either(*models: Callable[[Case, dict], bool]):
    return lambda case, seen: any(model(case, seen) for model in models)


def _halved(case: Case, wants: list[np.ndarray]) -> np.ndarray | None:
    """x's gradient with one of its two uses' shares lost; not where averaging over the
    copies would halve it too (two copies): that plainer explanation fits as well."""
    if case["expr"] not in _TWICE or 0.5 in (_ratio(case), 1 / _ratio(case)):
        return None
    return wants[0] / 2


_REPLACED = Mistake(
    _grad_is(_halved),
    "x was used twice here, and only one use's share of the gradient reached it: a backward "
    "rule adds its share to an input's grad, it never replaces what is there",
    name="replaced",
)

_UNREDUCED = (
    "an input smaller than the result was used several times (broadcasting copied it), and "
    "its gradient came back with the result's shape: the copies' shares belong together, in "
    "the input's own shape (exercise 1)"
)


def _result(case: Case) -> np.ndarray:
    arrays = [np.array(x, dtype=float) for x in case["inputs"]]
    return _evaluate(case["expr"], arrays, case["params"])


def _ratio(case: Case, which: int = 0) -> float:
    """How many entries of the result each entry of input ``which`` stands for."""
    return _result(case).size / np.size(case["inputs"][which])


def _broadcast_input(case: Case) -> bool:
    """Some input is smaller than the result: broadcasting copied it."""
    return any(_ratio(case, i) != 1 for i in range(len(case["inputs"])))


def _smaller_operand(case: Case) -> bool:
    """Some operand is smaller than the result: an input broadcasting copied, or a number."""
    return _broadcast_input(case) or case["expr"] in ("add_number", "number_add")


def _averaged(case: Case, seen: dict) -> bool:
    # an input's gradient divided by how many times broadcasting used each of its entries
    grads, wants = seen.get("grads") or [], _wants(case)
    return any(
        _ratio(case, i) != 1 and same(got, wants[i] / _ratio(case, i))
        for i, got in enumerate(grads[: len(wants)])
    )


def _expression_right(case: Case) -> dict:
    """What a right answer observes: the result's data and each input's gradient."""
    return {"value": _result(case).tolist(), "grads": [want.tolist() for want in _wants(case)]}


def _checks(
    cases: Callable[[list[str]], Callable[[random.Random], list[Case]]],
    run: Callable,
    judge: Callable,
    mistakes: tuple[Mistake, ...],
    *specs: tuple,
    serve: Callable | None = None,
    right: Callable[[Case], dict] | None = _expression_right,
) -> tuple[Check, ...]:
    """One check per spec ``(name, kinds)``, ``(name, kinds, weight)`` or ``(name, kinds,
    weight, its own mistakes)``: the cases of those kinds, all run, judged and explained by
    the same functions, and by ``mistakes`` where the spec names none of its own."""
    return tuple(
        Check(
            name,
            "",
            cases(kinds),
            run,
            judge,
            weight=more[0] if more else 1.0,
            mistakes=more[1] if len(more) > 1 else mistakes,
            serve=serve,
            right=right,
        )  # fmt: skip
        for name, kinds, *more in specs
    )


# --- + and broadcast_to ---------------------------------------------------------------------


def _broadcast_cases(kinds: list[str]):
    def cases(rng: random.Random) -> list[Case]:
        m, n = rng.sample(range(2, 6), 2)
        k = rng.randint(2, 4)
        made = {
            "row": lambda: _case(rng, "add", "x + y", [(m, n), (n,)]),
            "outer": lambda: _case(rng, "add", "x + y", [(m, 1), (1, n)]),
            "stack": lambda: _case(rng, "add", "x + y", [(k, m, n), (m, 1)]),
            "to_rows": lambda: _case(
                rng, "broadcast_to", f"x.broadcast_to({(m, n)})", [(n,)], shape=[m, n]
            ),
            "to_stack": lambda: _case(
                rng, "broadcast_to", f"x.broadcast_to({(k, m, n)})", [(m, 1)], shape=[k, m, n]
            ),
            "number": lambda: _case(rng, "add_number", "x + 2.5", [(m, n)], k=2.5),
            "number_first": lambda: _case(rng, "number_add", "2.5 + x", [(m, n)], k=2.5),
            "array_first": lambda: _case(
                rng,
                "array_add",
                f"a numpy array of shape {(m, n)} + x",
                [(n,)],
                array=random_matrix(rng, m, n),
            ),
            "self": lambda: _case(rng, "add_self", "x + x", [(m, n)]),
            "squared": lambda: _case(  # three copies or more: averaging is not halving
                rng,
                "broadcast_squared",
                f"x.broadcast_to({(m + 1, n)}) * x.broadcast_to({(m + 1, n)})",
                [(1, n)],
                shape=[m + 1, n],
            ),
        }
        return [made[kind]() for kind in kinds]

    return cases


def _not_a_tensor(case: Case) -> bool:
    """The case has an operand that is a plain number or a numpy array."""
    return case["expr"] in ("add_number", "number_add", "array_add", "matmul_array")


_NOT_A_TENSOR = Mistake(
    # the operand used as a MyTensor: its .data or .shape is missing (an array's .data is a
    # buffer, so there the backward finds no .grad)
    _raised("attribute 'data'", "attribute 'shape'", "attribute 'grad'", when=_not_a_tensor),
    "the other operand may be a plain number or a numpy array: make it a MyTensor first, as "
    "__mul__ does",
    name="not a tensor",
)

_BROADCAST_MISTAKES = (
    _REPLACED,
    Mistake(
        # `x.grad += out.grad` where x is smaller than the result: numpy refuses the sum
        _raised("non-broadcastable output operand", when=_smaller_operand),
        _UNREDUCED,
        name="unreduced",
    ),
    Mistake(
        _averaged,
        "averaged instead of summed: each copy of an entry sends back its whole share",
        name="averaged",
    ),
    Mistake(
        # without __radd__, Python asks the number, then the array (whose + of a
        # non-array falls back to sequence concatenation), and both refuse
        _raised(
            "unsupported operand",
            "Concatenation operation is not implemented",
            when=lambda case: case["expr"] in ("number_add", "array_add"),
        ),
        "with the number or array first, Python asks x.__radd__ for the sum: give MyTensor one",
        name="radd",
    ),
    _NOT_A_TENSOR,
)

BROADCAST = register(
    Exercise(
        "06.broadcast",
        "MyTensor: + and broadcast_to",
        2,
        "MyTensor.__add__ (and __radd__) adds two tensors of shapes that broadcast, or a "
        "tensor and a number or array; MyTensor.broadcast_to(shape) returns the tensor "
        "stretched to shape. Each input's grad receives its gradient in its own shape.",
        ("MyTensor",),
        _checks(
            _broadcast_cases,
            _run_expression,
            _judge_expression,
            _BROADCAST_MISTAKES,
            ("x + y, shapes that broadcast", ["row", "outer", "stack"], 2),
            ("x.broadcast_to(shape)", ["to_rows", "to_stack"]),
            ("a number or an array on either side", ["number", "number_first", "array_first"]),
            ("the same tensor twice", ["self", "squared"]),
        ),
        requires=_UNBROADCAST,
        withheld=_ENGINE_WITHHELD,
    )
)


# --- sum ------------------------------------------------------------------------------------


def _sum_cases(kinds: list[str]):
    def cases(rng: random.Random) -> list[Case]:
        k, m, n = rng.sample(range(2, 6), 3)

        def summed(expr: str, shape: tuple, axis: Any, keepdims: bool = False) -> Case:
            written = "x.sum()" if axis is None else f"x.sum(axis={axis})"
            if keepdims:
                written = written[:-1] + ", keepdims=True)"
            if expr == "sum_squared":
                written = f"{written} * {written}"
            elif expr == "sum_then_sum":
                written += ".sum()"
            axis_param = list(axis) if isinstance(axis, tuple) else axis
            made = _case(rng, expr, written, [shape], axis=axis_param, keepdims=keepdims)
            negative = any(a < 0 for a in np.atleast_1d(axis if axis is not None else 0))
            return {**made, "negative": bool(negative)}

        made = {
            "rows": lambda: summed("sum", (m, n), 0),
            "columns": lambda: summed("sum", (m, n), 1),
            "middle": lambda: summed("sum", (k, m, n), 1),
            "all": lambda: summed("sum", (m, n), None),
            "several": lambda: summed("sum", (k, m, n), (0, 2)),
            "then": lambda: summed("sum_then_sum", (k, m, n), 2),
            "keep": lambda: summed("sum", (m, n), 1, keepdims=True),
            "keep_several": lambda: summed("sum", (k, m, n), (0, 2), keepdims=True),
            "last": lambda: summed("sum", (k, m, n), -1),
            "negatives": lambda: summed("sum", (k, m, n), (-1, -3)),
            "squared": lambda: summed("sum_squared", (m + 1, n), 0),  # 3+ rows: not halving
            "last_twin": lambda: summed("sum", (k, m, n), 2),
            "negatives_twin": lambda: summed("sum", (k, m, n), (2, 0)),
        }
        return [made[kind]() for kind in kinds]

    return cases


def _keeps(case: Case) -> bool:
    return bool(case["params"]["keepdims"])


def _negative(hint: str) -> Mistake:
    """Negative axes mishandled: the check's cases come in pairs, the same axes counted from
    the front first, so this is the mistake only where every failure is a negative one."""
    return Mistake(lambda case, seen: case.get("negative", False), hint, name="negative axis")


_NEGATIVE_SUM = _negative(
    "a negative axis counts from the end (-1 is the last axis), in the input's numbering"
)

_SUM_MISTAKES = (
    _REPLACED,
    Mistake(
        _raised("tuple", when=lambda case: isinstance(case["params"]["axis"], list)),
        "axis may be a tuple of several axes, as in np.sum: each of them is summed away (and "
        "kept with length 1 when keepdims=True)",
        name="tuple axes",
    ),
    _NEGATIVE_SUM,
    Mistake(
        _raised(
            "broadcast",
            "shape",
            when=lambda case: not case["params"]["keepdims"] and case["params"]["axis"] is not None,
        ),
        "the gradient arriving has the result's shape, in which the summed axes are gone: give "
        "them back, with length 1, before you spread it over the input's shape",
        name="axes gone",
    ),
    Mistake(
        _grad_is(lambda case, wants: wants[0] * _ratio(case)),
        "divided by the number of entries summed: each entry counts once in its sum, so it "
        "receives the gradient arriving whole (dividing is mean's rule)",
        name="mean's rule",
    ),
    Mistake(
        # (a result that drops the kept axes is told its shape: that is what was seen)
        _raised("dimension", "shape", when=_keeps),
        "keepdims=True keeps each summed axis, with length 1, as np.sum does",
        name="keepdims",
    ),
)


SUM = register(
    Exercise(
        "06.sum",
        "MyTensor.sum",
        2,
        "MyTensor.sum(axis=None, keepdims=False) sums over axis (None: every axis; an int, "
        "negative too, or a tuple), as np.sum does; its backward gives x.grad its share in "
        "x's shape.",
        ("MyTensor",),
        _checks(
            _sum_cases,
            _run_expression,
            _judge_expression,
            _SUM_MISTAKES,
            ("over one axis", ["rows", "columns", "middle"], 2),
            ("over every axis, or several", ["all", "several", "then"]),
            ("keepdims=True", ["keep", "keep_several"]),
            ("negative axes", ["last_twin", "last", "negatives_twin", "negatives"]),
            ("the same tensor twice", ["squared"]),
        ),
        requires=_UNBROADCAST,
        withheld=_ENGINE_WITHHELD,
    )
)


# --- reshape ----------------------------------------------------------------------------------


def _reshape_cases(kinds: list[str]):
    def cases(rng: random.Random) -> list[Case]:
        k, m, n = rng.sample(range(2, 6), 3)
        made = {
            "flat": lambda: _case(rng, "reshape", f"x.reshape({m * n})", [(m, n)], shape=[m * n]),
            "merge": lambda: _case(
                rng, "reshape", f"x.reshape({k}, {m * n})", [(k, m, n)], shape=[k, m * n]
            ),
            "split": lambda: _case(
                rng, "reshape", f"x.reshape({m}, -1, {k})", [(k * m, n)], shape=[m, -1, k]
            ),
            "tuple": lambda: _case(
                rng, "reshape_tuple", f"x.reshape({(n, m)})", [(m, n)], shape=[n, m]
            ),
            "squared": lambda: _case(
                rng,
                "reshape_squared",
                f"x.reshape({n}, {m}) * x.reshape({n}, {m})",
                [(m, n)],
                shape=[n, m],
            ),
        }
        return [made[kind]() for kind in kinds]

    return cases


_RESHAPE_MISTAKES = (
    _REPLACED,
    Mistake(
        # the gradient arriving, in the result's shape, added to x.grad: numpy refuses
        _raised("broadcast"),
        "x.grad must have x's shape: the gradient arriving has the new one. The entries are "
        "the same, in the same order",
        name="new shape",
    ),
    Mistake(
        _raised("interpreted as an integer", when=lambda case: case["expr"] == "reshape_tuple"),
        "x.reshape((2, 6)) and x.reshape(2, 6) mean the same in numpy and in PyTorch: accept both",
        name="tuple shape",
    ),
)

RESHAPE = register(
    Exercise(
        "06.reshape",
        "MyTensor.reshape",
        1,
        "MyTensor.reshape(*shape) returns the same entries in a new shape (given as numbers "
        "or as one tuple; one of them may be -1), as numpy and PyTorch do.",
        ("MyTensor",),
        _checks(
            _reshape_cases,
            _run_expression,
            _judge_expression,
            _RESHAPE_MISTAKES,
            ("to a new shape", ["flat", "merge", "split"], 2),
            ("a shape given as one tuple", ["tuple"]),
            ("the same tensor twice", ["squared"]),
        ),
        requires=_UNBROADCAST,
        withheld=_ENGINE_WITHHELD,
    )
)


# --- permute and transpose ----------------------------------------------------------------------


def _permute_cases(kinds: list[str]):
    def cases(rng: random.Random) -> list[Case]:
        k, m, n = rng.sample(range(2, 6), 3)

        def permuted(expr: str, axes: tuple[int, ...], written: str) -> Case:
            made = _case(rng, expr, written, [(k, m, n)], axes=list(axes))
            return {**made, "negative": any(a < 0 for a in axes)}

        made = {
            "cycle": lambda: permuted("permute", (1, 2, 0), "x.permute(1, 2, 0)"),
            "other_cycle": lambda: permuted("permute", (2, 0, 1), "x.permute(2, 0, 1)"),
            "twice": lambda: permuted(
                "permute_twice", (1, 2, 0), "x.permute(1, 2, 0).permute(1, 2, 0)"
            ),
            "negative_cycle": lambda: permuted("permute", (-1, 0, 1), "x.permute(-1, 0, 1)"),
            "negative_swap": lambda: permuted("permute", (0, -1, -2), "x.permute(0, -1, -2)"),
            "squared": lambda: permuted(
                "permute_squared", (2, 0, 1), "x.permute(2, 0, 1) * x.permute(2, 0, 1)"
            ),
            "matrix": lambda: _case(rng, "transpose", "x.transpose(0, 1)", [(m, n)], dims=[0, 1]),
            "last_two": lambda: _case(
                rng, "transpose", "x.transpose(-1, -2)", [(k, m, n)], dims=[-1, -2]
            ),
            "outer_two": lambda: _case(
                rng, "transpose", "x.transpose(0, 2)", [(k, m, n)], dims=[0, 2]
            ),
        }
        return [made[kind]() for kind in kinds]

    return cases


def _same_order_grad(case: Case) -> np.ndarray | None:
    """x's gradient where every permute's backward reorders the axes by the forward's own
    order, not by its inverse."""
    up, x = np.array(case["up"]), np.array(case["inputs"][0])
    axes = case["params"].get("axes")
    if axes is None:
        return None
    return {
        "permute": lambda: up.transpose(axes),
        "permute_twice": lambda: up.transpose(axes).transpose(axes),
        "permute_squared": lambda: 2 * (up * x.transpose(axes)).transpose(axes),
    }[case["expr"]]()


def _same_order_again(case: Case, seen: dict) -> bool:
    # the model's gradient, or (where it has not x's shape) the refusal of numpy to add it
    wrong = _same_order_grad(case)
    if wrong is None:
        return False
    if wrong.shape != np.shape(case["inputs"][0]):
        return any(f in str(seen.get("error", "")) for f in ("broadcast", "shape"))
    return same((seen.get("grads") or [None])[0], wrong)


def _all_reversed(case: Case, seen: dict) -> bool:
    """transpose's backward by .T, which reverses every axis: right on a matrix and for
    transpose(0, 2) of three axes, and on transpose(-1, -2) a gradient of another shape,
    which numpy refuses to add."""
    if case["expr"] != "transpose" or np.ndim(case["inputs"][0]) != 3:
        return False
    wrong = np.array(case["up"]).T
    if wrong.shape != np.shape(case["inputs"][0]):
        return "broadcast" in str(seen.get("error", ""))
    return same((seen.get("grads") or [None])[0], wrong)


_PERMUTE_MISTAKES = (
    _REPLACED,
    _negative(
        "a negative axis counts from the end (-1 is the last): turn it into its place before "
        "you work out the order that undoes the permutation"
    ),
    Mistake(
        _same_order_again,
        "the gradient went back through the same order of axes: that undoes a permutation only "
        "when it is its own inverse. After permute(1, 2, 0), where did axis 0 go, and which "
        "order brings it back?",
        name="same order",
    ),
    Mistake(
        _raised("attribute 'transpose'", when=lambda case: case["expr"] == "transpose"),
        "transpose(dim0, dim1) swaps two axes, as torch.transpose does: it is a permute",
        name="no transpose",
    ),
    Mistake(
        # a raise wherever the tensor has three axes, matrices passing
        lambda case, seen: (
            case["expr"] == "transpose"
            and np.ndim(case["inputs"][0]) == 3
            and "error" in seen
            and "attribute 'transpose'" not in str(seen["error"])
            and "broadcast" not in str(seen["error"])  # a gradient of the wrong shape, added
        ),
        "on a tensor of three axes a permute needs an order of all three: transpose(0, 2) "
        "keeps axis 1 where it is",
        name="two-axis permute",
    ),
    Mistake(
        _all_reversed,
        "the gradient went back through .T, which reverses every axis: on a tensor of three "
        "axes that is not the swap transpose(dim0, dim1) made. Undo that swap alone",
        name="every axis reversed",
    ),
)


PERMUTE = register(
    Exercise(
        "06.permute",
        "MyTensor.permute and transpose",
        2,
        "MyTensor.permute(*axes) reorders all the axes (x.permute(2, 0, 1) puts axis 2 "
        "first; negative axes count from the end), as torch.permute; "
        "MyTensor.transpose(dim0, dim1) swaps two axes, as torch.transpose.",
        ("MyTensor",),
        _checks(
            _permute_cases,
            _run_expression,
            _judge_expression,
            _PERMUTE_MISTAKES,
            ("orders of three axes", ["cycle", "other_cycle", "twice"], 2),
            ("negative axes", ["cycle", "negative_cycle", "negative_swap"]),
            ("transpose(dim0, dim1)", ["matrix", "last_two", "outer_two"]),
            ("the same tensor twice", ["squared"]),
        ),
        requires=_UNBROADCAST,
        withheld=_ENGINE_WITHHELD,
    )
)


# --- @ ------------------------------------------------------------------------------------------


def _matmul_cases(kinds: list[str]):
    def cases(rng: random.Random) -> list[Case]:
        m, k, n = rng.sample(range(2, 6), 3)
        p = rng.randint(2, 4)
        made = {
            "matrices": lambda: _case(rng, "matmul", "x @ y", [(m, k), (k, n)]),
            "stack": lambda: _case(rng, "matmul", "x @ y", [(p, m, k), (k, n)]),
            "vector": lambda: _case(rng, "matmul", "x @ y", [(k,), (k, n)]),
            "array": lambda: _case(
                rng,
                "matmul_array",
                f"x @ (a numpy array of shape {(k, n)})",
                [(m, k)],
                array=random_matrix(rng, k, n),
            ),
            "self": lambda: _case(rng, "matmul_self", "x @ x", [(k, k)]),
        }
        return [made[kind]() for kind in kinds]

    return cases


def _one_share(case: Case, seen: dict) -> bool:
    if case["expr"] != "matmul_self":
        return False
    x, up = np.array(case["inputs"][0]), np.array(case["up"])
    got = (seen.get("grads") or [None])[0]
    return same(got, up @ x.T) or same(got, x.T @ up)


_MATMUL_MISTAKES = (
    Mistake(
        _one_share,
        "x stands on both sides of x @ x, and only one side's share of the gradient reached "
        "it: a backward rule adds to an input's grad, it never replaces what is there",
        name="one side",
    ),
    _NOT_A_TENSOR,
)

MY_MATMUL = register(
    Exercise(
        "06.my_matmul",
        "MyTensor.__matmul__",
        1,
        "MyTensor.__matmul__(self, other) is numpy's @ (matrices, vectors, stacks), with "
        "other a MyTensor or a numpy array; its backward uses your matmul_backward.",
        ("MyTensor",),
        _checks(
            _matmul_cases,
            _run_expression,
            _judge_expression,
            _MATMUL_MISTAKES,
            ("matrices, a vector and a stack", ["matrices", "stack", "vector"], 2),
            ("a numpy array on the right", ["array"]),
            ("the same tensor on both sides", ["self"]),
        ),
        requires=reference_steps(
            matmul_backward="matmul_backward_reference", unbroadcast="unbroadcast_reference"
        ),
        withheld=_ENGINE_WITHHELD,
    )
)
