"""Chapter 05's typical mistakes, written as a student writes them."""

import math

import micrograd_edu as mg
from mistakes import Example


def work(n, m):
    ops, below = 2 * n - 1 + 2 * m, 2 * n + 1
    return n * ops, ops + m * below


def choose_mode(n, m):
    forward, reverse = work(n, m)
    return "forward" if forward < reverse else "reverse"


def segment_length(T, s):  # noqa: N803  (the statement's names)
    guess = max(1, int(math.sqrt(T / s)))
    return min(range(max(1, guess - 2), min(T, guess + 3) + 1), key=lambda k: -(-T // k) + s * k)


def segment_from_two(T, s):  # noqa: N803  (the review's: no length to try when T = 1)
    best = min(range(1, T), key=lambda k: -(-T // k) + s * k)
    return min((best, T), key=lambda k: -(-T // k) + s * min(k, T))


def vjp(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    total = sum((vi * y for vi, y in zip(v, f(*inputs), strict=True)), mg.Value(0.0))
    total.backward()
    return [x.grad for x in inputs]


CORRECT = {"work": work, "choose_mode": choose_mode, "segment_length": segment_length, "vjp": vjp}


def ops(n, m):
    return 2 * n - 1 + 2 * m


def vjp_by_rows(f, xs, v):  # one call, then m sweeps, one per output: not one backward pass
    inputs = [mg.Value(x) for x in xs]
    outputs = f(*inputs)
    rows = []
    for y in outputs:
        for x in inputs:
            x.grad = 0.0
        y.backward()
        rows.append([x.grad for x in inputs])
    return [sum(vi * row[j] for vi, row in zip(v, rows, strict=True)) for j in range(len(xs))]


def vjp_cut(f, xs, v):  # the inputs read are not the ones f saw
    inputs = [mg.Value(x) for x in xs]
    total = sum((vi * y for vi, y in zip(v, f(*[mg.Value(x) for x in xs]), strict=True)), 0.0)
    total.backward()
    return [x.grad for x in inputs]


def vjp_per_input(f, xs, v):  # n calls, as forward mode would make
    for _ in xs[1:]:
        f(*[mg.Value(x) for x in xs])
    return vjp(f, xs, v)


def vjp_per_output(f, xs, v):
    inputs = [mg.Value(x) for x in xs]
    total = mg.Value(0.0)
    for i, vi in enumerate(v):
        total = total + vi * f(*inputs)[i]
    total.backward()
    return [x.grad for x in inputs]


def vjp_by_differences(f, xs, v, h=1e-6):  # the review's: central differences of f
    out = []
    for j in range(len(xs)):
        up = [mg.Value(x + h * (k == j)) for k, x in enumerate(xs)]
        down = [mg.Value(x - h * (k == j)) for k, x in enumerate(xs)]
        rows = zip(f(*up), f(*down), strict=True)
        out.append(
            sum(vi * (a.data - b.data) / (2 * h) for vi, (a, b) in zip(v, rows, strict=True))
        )
    return out


def one(name, mistake, function, **options):
    return Example(name, mistake, {name.split(".")[1]: function}, **options)


WORK, CHOOSE, SEGMENT, VJP = "05.work", "05.choose_mode", "05.segment_length", "05.vjp"

EXAMPLES = [
    one(WORK, "whole graph", lambda n, m: (n * ops(n, m), (1 + m) * ops(n, m))),
    one(WORK, "no recording", lambda n, m: (n * ops(n, m), m * (2 * n + 1))),
    one(WORK, "one sweep", lambda n, m: (n * ops(n, m), ops(n, m) + 2 * n + 1)),
    one(WORK, "per output", lambda n, m: (m * ops(n, m), work(n, m)[1])),
    one(WORK, "extra pass", lambda n, m: ((1 + n) * ops(n, m), work(n, m)[1])),
    one(WORK, "swapped", lambda n, m: (work(n, m)[1], work(n, m)[0])),
    one(WORK, None, lambda n, m: 2 * n * ops(n, m), label="a number"),
    one(CHOOSE, "diagonal", lambda n, m: "forward" if n < m else "reverse"),
    one(CHOOSE, "diagonal", lambda n, m: "forward" if n < 1 + m else "reverse", label="1 + m"),
    one(CHOOSE, None, lambda n, m: "reverse", label="always reverse"),
    one(CHOOSE, None, lambda n, m: n < m, label="a bool"),
    one(CHOOSE, None, lambda n, m: choose_mode(n, m).capitalize(), label="capitalised"),
    one(SEGMENT, "square root of T", lambda T, s: round(math.sqrt(T))),
    one(SEGMENT, "inverted", lambda T, s: round(math.sqrt(T * s))),
    one(SEGMENT, "every step", lambda T, s: 1),
    one(SEGMENT, "one segment", lambda T, s: T),
    one(SEGMENT, "rounding", lambda T, s: max(1, math.floor(math.sqrt(T / s)))),
    one(SEGMENT, "rounding", lambda T, s: math.ceil(math.sqrt(T / s)), label="ceil"),
    one(SEGMENT, None, lambda T, s: math.sqrt(T / s), label="not whole"),
    # the second review's, right for large T only (the statement says any T ≥ 1)
    one(SEGMENT, None, lambda T, s: segment_length(T, s) if T > 1 else 0, label="T = 1 gives 0"),
    one(SEGMENT, None, lambda T, s: segment_length(T, s) if T > 2 else -5, label="small T -5"),
    one(
        SEGMENT,
        "every step",
        lambda T, s: 1 if T < 10 else round(math.sqrt(T / s)),
        label="1 below 10",
    ),
    one(SEGMENT, None, segment_from_two, label="range(1, T)"),
    one(VJP, "unweighted", lambda f, xs, v: vjp(f, xs, [1.0] * len(v))),
    one(VJP, "one output", lambda f, xs, v: vjp(f, xs, [v[0]] + [0.0] * (len(v) - 1))),
    one(VJP, "cut graph", vjp_cut),
    one(VJP, "call per input", vjp_per_input),
    one(VJP, "call per output", vjp_per_output),
    one(VJP, None, lambda f, xs, v: vjp(f, xs, v)[:-1], label="one short"),
    one(VJP, "backward per output", vjp_by_rows),
    one(VJP, "approximation", vjp_by_differences),
]

RIGHT = [
    one(WORK, None, lambda n, m: [float(x) for x in work(n, m)], label="floats"),
    one(SEGMENT, None, lambda T, s: float(segment_length(T, s)), label="a float"),
]
