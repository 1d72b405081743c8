"""Chapter 06's ``gradcheck``, ``MyFunction.apply`` and ``LogSumExp``: the pieces that let
a student add an operation to their ``MyTensor`` engine and verify it.

The oracles: a gradcheck's verdict is judged against the grader's knowledge of which
backward rule it broke (kept with the judge, never sent to the submission's process);
apply's gradients and LogSumExp's are central differences. The cases are drawn so that
the typical mistakes show: a flaw in one entry, one input or one direction only, values
large enough for rounding to matter, inputs holding earlier gradients, a number among a
Function's arguments, a gradient of the wrong shape, entries near ±1000.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .arrays import compare, random_matrix, same
from .chapter06_engine import (
    _ENGINE_WITHHELD,
    _UNBROADCAST,
    _case,
    _checks,
    _either,
    _expression_right,
    _judge_expression,
    _raised,
    _wants,
)
from .explain import Kind
from .registry import HELD, Case, Exercise, Mistake, register
from .runners.chapter06_engine import _VALUES, _run_function, _run_gradcheck, _run_logsumexp

# --- gradcheck ------------------------------------------------------------------------------------

# The functions the grader checks with (runners/chapter06_engine.py), as written for feedback.
_WRITTEN = {
    "sin_times": "sin(x) * y",
    "row_sums": "(x * x * y).sum(axis=1)",
    "total": "(sin(x) * y).sum()",
    "half_square": "x * x / 2",
}


# Each function's backward rule, (v, *data) -> the inputs' gradients of sum(v * f(data)).
_RULES: dict[str, Callable[..., list[np.ndarray]]] = {
    "sin_times": lambda v, x, y: [v * np.cos(x) * y, v * np.sin(x)],
    "row_sums": lambda v, x, y: [2 * v[:, None] * x * y, v[:, None] * x * x],
    "total": lambda v, x, y: [v * np.cos(x) * y, v * np.sin(x)],
    "half_square": lambda v, x: [v * x],
}


def _serve_backward(case: Case, request: Any) -> list:
    """The gradients the case's backward rule gives for the cotangent and data of
    ``request``, with the flaw the case holds (known here only, never in the child)."""
    data = [np.array(x, dtype=float) for x in request["data"]]
    v = np.array(request["v"], dtype=float)
    shapes = [np.shape(x) for x in case["inputs"]]
    result = np.shape(_VALUES[case["function"]](*(np.array(x) for x in case["inputs"])))
    if [x.shape for x in data] != shapes or v.shape != result:
        raise ValueError("backward: the shapes of the inputs or of the cotangent are not f's")
    what, amount = case[HELD]["flaw"] or ("", 0.0)
    if what == "unweighted":  # the cotangent ignored: right only for v = ones
        v = np.ones_like(v)
    grads = [np.array(g, dtype=float) for g in _RULES[case["function"]](v, *data)]
    if what == "scaled":
        grads[0] = grads[0] * amount
    elif what == "second":
        grads[1] = grads[1] * amount
    elif what == "last_entry":
        grads[0].reshape(-1)[-1] += amount
    elif what == "transposed":
        grads[0] = grads[0].T
    return [g.tolist() for g in grads]


def _gradcheck_cases(kinds: list[str]):
    """The kinds' cases, in an order drawn from the seed: a checker cannot count its way
    to the verdicts. Every case of f(x, y) = sin(x) * y has square inputs, so the shapes
    do not tell which backward is broken either."""

    def cases(rng: random.Random) -> list[Case]:
        def made(function: str, flaw: Any = None, **extra: Any) -> Case:
            n = rng.randint(2, 4)
            shapes = {
                "sin_times": [(n, n), (n, n)],
                "row_sums": [(n, n + 1), (n, n + 1)],
                "total": [(n, n + 1), (n, n + 1)],
                "half_square": [(2, 2)],
            }[function]
            inputs = [random_matrix(rng, *s) for s in shapes]
            if function == "half_square":  # entries near 2000: f's rounding errors show
                inputs = [(1e3 * (2 + np.array(inputs[0]) / 2)).tolist()]
            case = {"function": function, "inputs": inputs, **extra}
            text = f"f(x{', y' if len(shapes) == 2 else ''}) = {_WRITTEN[function]}"
            case[HELD] = {"expect": flaw is None, "text": text, "flaw": flaw}
            return case

        cases_of = {
            "right": lambda: made("sin_times"),
            "transposed": lambda: made("sin_times", ["transposed", 0.0]),
            "scaled": lambda: made("sin_times", ["scaled", 1.05]),
            "last_entry": lambda: made("sin_times", ["last_entry", 0.5]),
            "second": lambda: made("sin_times", ["second", 1.5]),
            "unweighted": lambda: made("sin_times", ["unweighted", 0.0]),
            "rows": lambda: made("row_sums"),
            "total": lambda: made("total"),
            "large": lambda: made("half_square"),
            "stale": lambda: made("sin_times", stale=5.0),
        }
        drawn = [cases_of[kind]() for kind in kinds]
        rng.shuffle(drawn)
        return drawn

    return cases


def _judge_verdict(case: Case, seen: dict) -> str | None:
    verdict, held = seen.get("verdict"), case[HELD]
    if not isinstance(verdict, bool):
        return f"gradcheck returned {verdict}, not True or False"
    if verdict == held["expect"]:
        return None
    if held["expect"]:
        return f"gradcheck said False for {held['text']}, whose backward is right"
    return f"gradcheck said True for {held['text']}, whose backward is wrong"


def _judge_restored(case: Case, seen: dict) -> str | None:
    if seen.get("restored"):
        return None
    return f"after gradcheck on {case[HELD]['text']}, an input's data is not what it was"


def _missed(flaw: str):
    return lambda case, seen: (
        (case[HELD]["flaw"] or [""])[0] == flaw and seen.get("verdict") is True
    )


def _rejected(when: Callable[[Case], bool]):
    return lambda case, seen: case[HELD]["expect"] and seen.get("verdict") is False and when(case)


# Each check's cases show some of these; a check lists those (_gradcheck_mistakes).
_GRADCHECK_MISTAKES = (
    Mistake(
        _missed("unweighted"),
        "a backward that ignores the cotangent it is given went unnoticed: with v all ones, "
        "every entry of the result weighs the same. Which v tells the two apart?",
        name="unweighted",
    ),
    Mistake(
        _missed("last_entry"),
        "a gradient wrong in a single entry went unnoticed: is every entry of every input "
        "compared, and each on its own?",
        name="one entry",
    ),
    Mistake(
        _missed("second"),
        "a wrong gradient of the second input went unnoticed: are all the inputs checked?",
        name="second input",
    ),
    Mistake(
        _missed("transposed"),
        "a transposed gradient went unnoticed: its diagonal is right and every other entry "
        "is wrong. Is every entry compared, before the verdict?",
        name="transposed",
    ),
    Mistake(
        _missed("scaled"),
        "a gradient a few percent off went unnoticed: compare with the tolerances the "
        "statement gives, entry by entry",
        name="few percent",
    ),
    Mistake(
        _rejected(lambda case: "stale" in case),
        "a right backward was rejected when the inputs arrived holding gradients from an "
        "earlier pass: backward adds to .grad",
        name="stale",
    ),
    Mistake(
        _rejected(lambda case: case["function"] == "half_square"),
        "a right backward was rejected where the values are large: a central difference of a "
        "large f carries a rounding error of its own, and the comparison allows for it in "
        "proportion to the numerical value",
        name="rounding",
    ),
    Mistake(
        _raised("shape", "cotangent", when=lambda case: case["function"] in ("row_sums", "total")),
        "the result's shape is not always the inputs': the cotangent you send back has the "
        "result's shape, a single number included",
        name="cotangent shape",
    ),
)


def _gradcheck_mistakes(*names: str) -> tuple[Mistake, ...]:
    return tuple(m for m in _GRADCHECK_MISTAKES if m.name in names)


def _moved(low: float, high: float) -> Callable[[Case, dict], bool]:
    """The inputs' data came back moved, by ``low`` to ``high`` of its size."""
    return lambda case, seen: type(m := seen.get("moved")) is float and low < m <= high


_RESTORED_MISTAKES = (
    Mistake(
        _moved(0.0, 1e-12),
        "an input came back changed in its last digits: adding h and then subtracting it "
        "does not always give back the same float. Keep the entry you change and put that "
        "value back",
        name="rounded back",
    ),
    Mistake(
        _moved(1e-12, float("inf")),
        "an input came back moved: each entry you change must be put back as it was before "
        "the next one is moved, and before gradcheck returns",
        name="not restored",
    ),
)

# What a right verdict is: True or False (any other type is told its type, and no hint).
_VERDICT = Kind("True or False", lambda value: type(value) is bool)


GRADCHECK = register(
    Exercise(
        "06.gradcheck",
        "Your own gradcheck",
        3,
        "gradcheck(f, *inputs) returns True when, for every entry of every input, the "
        "gradient of sum(v * f(*inputs)) that backward computes for a random cotangent v "
        "agrees with a central difference (|analytic - numeric| <= 1e-5 + 1e-3 |numeric|, "
        "as PyTorch's gradcheck), and False otherwise; it leaves the inputs' data as it found "
        "them.",
        ("gradcheck",),
        _checks(
            _gradcheck_cases,
            _run_gradcheck,
            _judge_verdict,
            _GRADCHECK_MISTAKES,
            (
                "tells a right gradient from a wrong one",
                ["right", "transposed", "scaled"],
                2,
                _gradcheck_mistakes("transposed", "few percent"),
            ),
            (
                "a flaw in one entry, one input, or one direction",
                ["last_entry", "second", "unweighted"],
                2,
                _gradcheck_mistakes("one entry", "second input", "unweighted"),
            ),
            ("results of any shape", ["rows", "total"], 1, _gradcheck_mistakes("cotangent shape")),
            ("large values", ["large"], 1, _gradcheck_mistakes("rounding")),
            ("inputs that already hold gradients", ["stale"], 1, _gradcheck_mistakes("stale")),
            serve=_serve_backward,
            right=lambda case: {"verdict": _VERDICT},
        )
        + _checks(
            _gradcheck_cases,
            _run_gradcheck,
            _judge_restored,
            _RESTORED_MISTAKES,
            ("the inputs are left as they were", ["right", "total"]),
            serve=_serve_backward,
            right=None,
        ),
        withheld=_ENGINE_WITHHELD,
    )
)


# --- MyFunction.apply ----------------------------------------------------------------------------

_FUNCTION_TEXT = {
    "mul": "Mul.apply(x, y)",
    "mul_self": "Mul.apply(x, x)",
    "square_square": "Square.apply(Square.apply(x))",
    "scale": "Scale.apply(x, 3.0)",
    "scale_first": "ScaleBy.apply(3.0, x), whose backward returns (None, grad * 3.0)",
    "rows": "RowSums.apply(x)",
    "gate": "Gate.apply(x, y), whose backward returns (None, grad * x): x gets no gradient",
}


def _function_cases(kinds: list[str]):
    def cases(rng: random.Random) -> list[Case]:
        m, n = rng.sample(range(2, 6), 2)
        made = {
            "mul": lambda: _case(rng, "mul", _FUNCTION_TEXT["mul"], [(m, n), (m, n)]),
            "mul_self": lambda: _case(rng, "mul_self", _FUNCTION_TEXT["mul_self"], [(m, n)]),
            "square_square": lambda: _case(
                rng, "square_square", _FUNCTION_TEXT["square_square"], [(m, n)]
            ),
            "scale": lambda: _case(rng, "scale", _FUNCTION_TEXT["scale"], [(m, n)], k=3.0),
            "scale_first": lambda: _case(
                rng, "scale_first", _FUNCTION_TEXT["scale_first"], [(m, n)], k=3.0
            ),
            "gate": lambda: {
                **_case(rng, "gate", _FUNCTION_TEXT["gate"], [(m, n), (m, n)]),
                "no_gradient": [0],
            },
            "rows": lambda: {
                "expr": "rows",
                "inputs": [random_matrix(rng, m, n)],
                "params": {},
                "up": random_matrix(rng, m, n),
                "text": f"{_FUNCTION_TEXT['rows']}, x of shape {(m, n)}",
            },
        }
        return [made[kind]() for kind in kinds]

    return cases


def _judge_refusal(case: Case, seen: dict) -> str | None:
    refusal = seen.get("refused")
    x_shape = np.shape(case["inputs"][0])
    wanted = ["RowSums", str(x_shape), str(x_shape[1:])]
    if not refusal:
        return (
            f"RowSums.backward returned a gradient of shape {x_shape[1:]} for its input of "
            f"shape {x_shape}, and it was taken without an error"
        )
    missing = [w for w in wanted if w not in str(refusal)]
    if len(missing) == len(wanted):
        return (
            f"raised {str(refusal)[:160]}: not a refusal of RowSums's gradient of shape "
            f"{x_shape[1:]} for its input of shape {x_shape}"
        )
    if missing:
        return f"the error raised ({str(refusal)[:160]}) should name {', '.join(missing)}"
    return None


def _judge_function(case: Case, seen: dict) -> str | None:
    if case["expr"] == "rows":
        return _judge_refusal(case, seen)
    text = case["text"]
    tensors = len(case["inputs"]) if case["expr"] != "mul_self" else 2  # gate: 2 inputs
    handed = ["ndarray"] * tensors + (["float"] if case["expr"] == "scale" else [])
    if case["expr"] == "scale_first":
        handed = ["float", "ndarray"]
    if case["expr"] == "square_square":
        handed = ["ndarray"]
    if seen.get("handed") != handed:
        return f"in {text}, forward was handed {seen.get('handed')}, not {handed}"
    if not seen.get("made"):
        return f"{text} returned a {seen.get('kind')}, not a MyTensor"
    parents = seen.get("parents")
    inputs = sorted(set(range(len(case["inputs"]))))
    if case["expr"] != "square_square" and sorted(set(parents or [])) != inputs:
        return f"the parents of {text} are not the tensors it was computed from"
    return _judge_expression(case, seen)


def _function_right(case: Case) -> dict:
    """What a right apply observes: forward handed arrays, the result, the gradients (the
    refusal's case has no right gradient: the grader states none there)."""
    if case["expr"] == "rows":
        raise ValueError("the refusal has no right gradient")
    return _expression_right(case)


def _handed(kind: str):
    return lambda case, seen: kind in (seen.get("handed") or [])


def _raise_said(seen: dict) -> str:
    """What the submission's code raised (a refusal, or any other error), or ""."""
    return str(seen.get("refused") or seen.get("error") or "")


def _bare_iterated(case: Case, seen: dict) -> bool:
    # apply looped over a bare gradient as if it were a tuple: each "gradient" it handed on
    # was a row of the array, and the student's own shape check said so, naming the row's
    # shape (a row of a Square's gradient, or one number of RowSums's)
    if case["expr"] not in ("square_square", "rows"):
        return False
    row = str(np.shape(case["inputs"][0])[1:]) if case["expr"] == "square_square" else "()"
    name = "Square" if case["expr"] == "square_square" else "RowSums"
    return row in _raise_said(seen) and name in _raise_said(seen)


def _bare_rows(case: Case, seen: dict) -> bool:
    """Square(Square(x)) where apply took each Square's bare gradient for a tuple: its
    input received the gradient's first row, broadcast over its rows (numpy's +=)."""
    if case["expr"] != "square_square" or _raise_said(seen):
        return False
    x, up = np.array(case["inputs"][0], dtype=float), np.array(case["up"], dtype=float)
    inner = np.broadcast_to((2 * (x * x) * up)[0], x.shape)
    return same((seen.get("grads") or [None])[0], np.broadcast_to((2 * x * inner)[0], x.shape))


def _none_dropped(case: Case, seen: dict) -> bool:
    """Gate(x, y) where apply dropped backward's None and paired what was left with the
    tensors: x received y's gradient (grad * x), and y nothing."""
    if case["expr"] != "gate" or len(seen.get("grads") or []) != 2:
        return False
    x, up = np.array(case["inputs"][0], dtype=float), np.array(case["up"], dtype=float)
    got_x, got_y = seen["grads"]
    return same(got_x, up * x) and not same(got_y, up * x)


def _paired_with_tensors(case: Case, seen: dict) -> bool:
    """ScaleBy(3.0, x) where apply paired backward's gradients with the tensors alone: x
    was paired with the number's None, and received nothing."""
    if case["expr"] != "scale_first" or _raise_said(seen) or not seen.get("made"):
        return False
    got = (seen.get("grads") or [None])[0]
    return got is None or same(got, np.zeros(np.shape(case["inputs"][0])))


# Where the number stands among the arguments of a case that has one.
_NUMBERED = {"scale": -1, "scale_first": 0}

_FUNCTION_MISTAKES = (
    Mistake(
        _bare_iterated,
        "each input received one row of a gradient: a bare array returned by backward was "
        "taken for a tuple of gradients, one per row. With one argument, backward may "
        "return its gradient alone",
        name="bare iterated",
    ),
    Mistake(
        _handed("MyTensor"),
        "forward was handed MyTensors: it computes on arrays, so hand it each tensor's data "
        "(and anything that is not a tensor as it is)",
        name="tensors to forward",
    ),
    Mistake(
        lambda case, seen: (
            case["expr"] in _NUMBERED
            and (seen.get("handed") or [None])[_NUMBERED[case["expr"]]] != "float"
        ),
        "only tensors are unwrapped: a number passes to forward as it is",
        name="number wrapped",
    ),
    Mistake(
        lambda case, seen: (
            case["expr"] in _NUMBERED
            and any(w in _raise_said(seen) for w in ("NoneType", "attribute 'grad'"))
        ),
        "backward returns None for an argument that is not a tensor: such an argument has no "
        "gradient, and no grad to receive one",
        name="None gradient",
    ),
    Mistake(
        lambda case, seen: (
            case["expr"] == "mul_self"
            and same((seen.get("grads") or [None])[0], np.array(_wants(case)[0]) / 2)
        ),
        "x was both inputs, and only one share of the gradient reached it: add each share to "
        "grad, never replace what is there",
        name="replaced",
    ),
    Mistake(
        _bare_rows,
        "a backward with one input may return its gradient alone, not in a tuple (as PyTorch "
        "allows): a bare array is one gradient, not one per row",
        name="bare rows",
    ),
    Mistake(
        _paired_with_tensors,
        "x received no gradient: backward's gradients pair with apply's arguments one for "
        "one, numbers included (a number's is None), not with the tensors alone",
        name="paired with the tensors",
    ),
    Mistake(
        _none_dropped,
        "x received the gradient that belongs to y: backward's gradients pair with apply's "
        "arguments one for one, a None included, so a None must keep its place",
        name="None dropped",
    ),
    Mistake(
        # an assert without a message: the error is its type alone
        lambda case, seen: str(seen.get("refused", "")).strip() == "AssertionError:",
        "the wrong shape was refused by an assert, whose error says nothing: raise an error "
        "whose message names the Function and both shapes, so that whoever meets it knows "
        "which operation sent what",
        name="bare assert",
    ),
    Mistake(
        lambda case, seen: case["expr"] == "rows" and not seen.get("refused"),
        "a gradient of the wrong shape was added without complaint: numpy broadcast it into "
        "x.grad. Compare each gradient's shape with its input's, and raise an error naming the "
        "Function and both shapes",
        name="no refusal",
    ),
)


def _function_mistakes(*names: str) -> tuple[Mistake, ...]:
    """The mistakes a check of apply lists: those its one kind of case can show."""
    return tuple(m for m in _FUNCTION_MISTAKES if m.name in names)


FUNCTION = register(
    Exercise(
        "06.function",
        "MyFunction.apply",
        3,
        "MyFunction.apply(*args) runs cls.forward(ctx, ...) on the arrays of the MyTensor "
        "arguments (other arguments as they are) and returns a MyTensor recorded in the graph; "
        "its backward passes cls.backward(ctx, grad)'s gradients, one per argument (None for "
        "an argument that is not a tensor or gets no gradient; a bare array when there is "
        "one), to the tensors, "
        "and refuses one whose shape is not its input's with an error naming the Function "
        "and both shapes.",
        ("MyTensor", "MyFunction"),
        _checks(
            _function_cases,
            _run_function,
            _judge_function,
            _FUNCTION_MISTAKES,
            (
                "apply records forward's result, and backward's gradients",
                ["mul"],
                2,
                _function_mistakes("tensors to forward"),
            ),
            (
                "one input, its gradient returned alone",
                ["square_square"],
                1,
                _function_mistakes("tensors to forward", "bare iterated", "bare rows"),
            ),
            (
                "the same tensor twice",
                ["mul_self"],
                1,
                _function_mistakes("tensors to forward", "replaced"),
            ),
            (
                "an argument that is not a tensor, after the tensor and before it",
                ["scale", "scale_first"],
                1,
                _function_mistakes(
                    "tensors to forward",
                    "number wrapped",
                    "None gradient",
                    "paired with the tensors",
                ),
            ),
            (
                "a tensor that gets no gradient (None), before one that does",
                ["gate"],
                1,
                _function_mistakes("tensors to forward", "None dropped"),
            ),
            (
                "a gradient of the wrong shape is refused",
                ["rows"],
                1,
                _function_mistakes(
                    "tensors to forward", "bare iterated", "no refusal", "bare assert"
                ),
            ),
            right=_function_right,
        ),
        requires=_UNBROADCAST,
        withheld=_ENGINE_WITHHELD,
    )
)


# --- LogSumExp ------------------------------------------------------------------------------------


def _engine_lse(x: np.ndarray, up: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The engine's logsumexp of x along its last axis, and x's gradient of sum(up * it):
    the oracle (the grader's process, never the submission's, runs the engine)."""
    t = Tensor(np.asarray(x, dtype=float), requires_grad=True)
    y = t.logsumexp(-1)
    (y * Tensor(np.asarray(up, dtype=float))).sum().backward()
    return np.array(y.data, dtype=float), np.array(t.grad.data, dtype=float)


def _logsumexp(x: np.ndarray) -> np.ndarray:
    """The engine's logsumexp of x along its last axis."""
    return _engine_lse(x, np.zeros(np.shape(x)[:-1]))[0]


def _lse_cases(kinds: list[str]):
    def cases(rng: random.Random) -> list[Case]:
        p, m, n = rng.sample(range(2, 6), 3)

        def made(shape: tuple, shift: float = 0.0) -> Case:
            x = np.array(random_matrix(rng, *shape)) + shift
            if shift:  # one entry far from the rest too
                x.reshape(-1)[0] = -shift
            return {"x": x.tolist(), "up": random_matrix(rng, *shape[:-1]), "shift": shift}

        made_of = {
            "vector": lambda: made((n,)),
            "rows": lambda: made((m, n)),
            "stack": lambda: made((p, m, n)),
            "large": lambda: made((m, n), 1000.0),
            "small": lambda: made((m, n), -1000.0),
            "single": lambda: made((m, 1)),
        }
        return [made_of[kind]() for kind in kinds]

    return cases


def _judge_lse(case: Case, seen: dict) -> str | None:
    x = np.array(case["x"])
    where = f" for x of shape {x.shape}" + (
        f", entries near {case['shift']:g}" if case["shift"] else ""
    )
    value, grad = _engine_lse(x, np.array(case["up"]))
    problem = compare(seen.get("value"), value, "forward's result" + where)
    return problem or compare(seen.get("grad"), grad, "backward's gradient" + where)


def _lse_right(case: Case) -> dict:
    value, grad = _engine_lse(np.array(case["x"]), np.array(case["up"]))
    return {"value": value.tolist(), "grad": grad.tolist()}


def _lse_value_is(model: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    """A mistake in forward: its result is ``model(x, the right result)``."""
    return lambda case, seen: same(
        seen.get("value"), model(np.array(case["x"]), _logsumexp(np.array(case["x"])))
    )


def _lse_grad_is(model: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]):
    """A mistake in backward: its gradient is ``model(x, up, g1)``, g1 the right gradient
    for a cotangent of ones (for each row, the share of each entry)."""

    def matches(case: Case, seen: dict) -> bool:
        x, up = np.array(case["x"]), np.array(case["up"])
        with np.errstate(all="ignore"):
            wrong = model(x, up, _engine_lse(x, np.ones(up.shape))[1])
        return same(seen.get("grad"), wrong)

    return matches


def _exp_grad(x: np.ndarray, up: np.ndarray) -> np.ndarray:
    """The gradient of sum(up * sum(exp(x))), by the engine (the log left out: at entries
    near 1000 it overflows, as the mistake does)."""
    t = Tensor(x, requires_grad=True)
    with np.errstate(all="ignore"):
        (t.exp().sum(-1) * Tensor(up)).sum().backward()
    return np.array(t.grad.data, dtype=float)


def _not_finite(case: Case, seen: dict) -> bool:
    if "error" in seen or seen.get("value") is None or seen.get("grad") is None:
        return False
    try:
        values = [np.array(seen.get(k), dtype=float) for k in ("value", "grad")]
    except (TypeError, ValueError):
        return False
    return any(not np.all(np.isfinite(v)) for v in values)


_LSE_MISTAKES = (
    Mistake(
        _not_finite,
        "e to the power 1000 is beyond what a float holds, and became inf or nan: which number "
        "can you take out of every exponent of a row without changing the result?",
        name="overflow",
    ),
    Mistake(
        _lse_value_is(lambda x, right: right - x.max(axis=-1)),
        "shifting the exponents changed the result: what must be added back after the logarithm?",
        name="shift not added back",
    ),
    Mistake(
        _either(
            _raised("broadcast", "shape"),  # numpy refused the row's gradient against the row
            _lse_grad_is(lambda x, up, g1: g1 * up),  # or lined up the wrong axes
        ),
        "the gradient arriving has one entry per row (the last axis was summed away): give it "
        "that axis back, with length 1, before it meets the row",
        name="arriving gradient's axis",
    ),
    Mistake(
        lambda case, seen: same(
            seen.get("grad"), _exp_grad(np.array(case["x"]), np.array(case["up"]))
        ),
        "each row's gradient should add up to the gradient arriving for that row: the "
        "derivative of log s is 1/s times the derivative of s",
        name="log left out",
    ),
    Mistake(
        _lse_grad_is(lambda x, up, g1: g1),
        "the gradient arriving is not used: the chain rule multiplies by it",
        name="arriving gradient unused",
    ),
)

# (a result that keeps the summed axis, or sums along the first, is told its shape: that is
# what was seen)


LOGSUMEXP = register(
    Exercise(
        "06.logsumexp",
        "LogSumExp, a MyFunction",
        2,
        "LogSumExp.forward(ctx, x) returns log(sum(exp(x))) along the last axis of x (any "
        "number of axes), without overflow for entries near ±1000; LogSumExp.backward(ctx, "
        "grad) returns the gradient with respect to x, using what forward saved with "
        "ctx.save_for_backward.",
        ("LogSumExp",),
        _checks(
            _lse_cases,
            _run_logsumexp,
            _judge_lse,
            _LSE_MISTAKES,
            ("a vector, rows and a stack", ["vector", "rows", "stack"], 2),
            ("entries near ±1000", ["large", "small"]),
            ("rows of one entry", ["single"]),
            right=_lse_right,
        ),
        withheld=_ENGINE_WITHHELD,
    )
)
