"""Chapter 03's typical mistakes, written as a student writes them."""

import math
from types import SimpleNamespace

from micrograd_edu.scalar.dual import Dual
from mistakes import Example


class MyDual:
    # Each operation makes type(self): a mistake's variant (dual_variant) stays one class.
    def __init__(self, primal, tangent=0.0):
        self.primal, self.tangent = float(primal), float(tangent)

    def _dual(self, other):
        return other if isinstance(other, type(self)) else type(self)(other)

    def __add__(self, other):
        other = self._dual(other)
        return type(self)(self.primal + other.primal, self.tangent + other.tangent)

    __radd__ = __add__

    def __mul__(self, other):
        other = self._dual(other)
        return type(self)(
            self.primal * other.primal, self.primal * other.tangent + self.tangent * other.primal
        )

    __rmul__ = __mul__

    def exp(self):
        return type(self)(math.exp(self.primal), math.exp(self.primal) * self.tangent)

    def log(self):
        return type(self)(math.log(self.primal), self.tangent / self.primal)

    # written differently from the solution notebook: the inverse, then a product
    def inverse(self):
        return type(self)(1 / self.primal, -self.tangent / self.primal**2)

    def __truediv__(self, other):
        return self * self._dual(other).inverse()

    def __rtruediv__(self, other):
        return self._dual(other) * self.inverse()

    def __pow__(self, other):
        if isinstance(other, type(self)):
            value = self.primal**other.primal
            tangent = value * (
                other.tangent * math.log(self.primal) + other.primal * self.tangent / self.primal
            )
            return type(self)(value, tangent)
        return type(self)(self.primal**other, other * self.primal ** (other - 1) * self.tangent)

    def __rpow__(self, other):
        value = other**self.primal
        return type(self)(value, value * math.log(other) * self.tangent)


def jacobian_forward(f, xs):
    columns = []
    for j in range(len(xs)):
        ys = f(*[Dual(x, float(k == j)) for k, x in enumerate(xs)])
        columns.append([y.tangent for y in ys])
    return [list(row) for row in zip(*columns, strict=True)]


def dual_variant(**methods):
    """MyDual with some methods replaced (a typical mistake): a class of its own, as a
    student's is (a subclass's reflected methods would be called first by Python)."""
    own = {k: v for k, v in vars(MyDual).items() if k not in ("__dict__", "__weakref__")}
    return type("Variant", (), {**own, **methods})


def _quotient(tangent):
    def truediv(self, other):
        other = self._dual(other)
        a, da, b, db = self.primal, self.tangent, other.primal, other.tangent
        return type(self)(a / b, tangent(a, da, b, db))

    return truediv


def _simple_quotient(self, other):  # right numbers, but it cannot be divided again
    out = MyDual.__truediv__(self, other)
    return SimpleNamespace(primal=out.primal, tangent=out.tangent)


def _tuple(dual):
    return (dual.primal, dual.tangent)


def _in_place_quotient(self, other):
    out = MyDual.__truediv__(self, other)
    self.primal, self.tangent = out.primal, out.tangent
    return self


def _power(tangent):
    def power(self, other):
        if isinstance(other, type(self)):
            return MyDual.__pow__(self, other)
        a, da = self.primal, self.tangent
        return type(self)(a**other, tangent(a, da, other))

    return power


def _dual_power(tangent):
    def power(self, other):
        if not isinstance(other, type(self)):
            return MyDual.__pow__(self, other)
        a, da, b, db = self.primal, self.tangent, other.primal, other.tangent
        return type(self)(a**b, tangent(a, da, b, db))

    return power


CORRECT = {"MyDual": MyDual, "jacobian_forward": jacobian_forward}


def never_reset(f, xs):  # the review's: one list of tangents, set to 1 and never reset
    tangents, columns = [0.0] * len(xs), []
    for j in range(len(xs)):
        tangents[j] = 1.0
        ys = f(*[Dual(x, t) for x, t in zip(xs, tangents, strict=True)])
        columns.append([y.tangent for y in ys])
    return [list(row) for row in zip(*columns, strict=True)]


def off_by_one(f, xs):  # the review's: pass j seeds input j + 1
    n, columns = len(xs), []
    for j in range(n):
        ys = f(*[Dual(x, float(k == (j + 1) % n)) for k, x in enumerate(xs)])
        columns.append([y.tangent for y in ys])
    return [list(row) for row in zip(*columns, strict=True)]


def primals(f, xs):  # the review's: the outputs' primals where their tangents belong
    columns = []
    for j in range(len(xs)):
        ys = f(*[Dual(x, float(k == j)) for k, x in enumerate(xs)])
        columns.append([y.primal for y in ys])
    return [list(row) for row in zip(*columns, strict=True)]


def per_entry(f, xs):
    n = len(xs)
    m = len(f(*xs))
    return [
        [f(*[Dual(x, float(k == j)) for k, x in enumerate(xs)])[i].tangent for j in range(n)]
        for i in range(m)
    ]


def transposed(f, xs):
    return [list(col) for col in zip(*jacobian_forward(f, xs), strict=True)]


def all_ones(f, xs):
    ys = f(*[Dual(x, 1.0) for x in xs])
    return [[y.tangent] * len(xs) for y in ys]


def extra_call(f, xs):
    f(*xs)  # to find m
    return jacobian_forward(f, xs)


def by_differences(f, xs, h=1e-6):
    columns = []
    for j in range(len(xs)):
        up = [Dual(x + h * (k == j)) for k, x in enumerate(xs)]
        down = [Dual(x - h * (k == j)) for k, x in enumerate(xs)]
        columns.append(
            [(a.primal - b.primal) / (2 * h) for a, b in zip(f(*up), f(*down), strict=True)]
        )
    return [list(row) for row in zip(*columns, strict=True)]


def dual(mistake, cls, exercise, **options):
    return Example(exercise, mistake, {"MyDual": cls}, **options)


DIVIDE, POWER, JACOBIAN = "03.dual_divide", "03.dual_power", "03.jacobian_forward"


def quotient(tangent):
    return dual_variant(__truediv__=_quotient(tangent))


EXAMPLES = [
    dual("sign", quotient(lambda a, da, b, db: (a * db - da * b) / b**2), DIVIDE),
    dual("plus", quotient(lambda a, da, b, db: (da * b + a * db) / b**2), DIVIDE),
    dual("b times", quotient(lambda a, da, b, db: (da * b - a * db) / b), DIVIDE),
    dual("quotient of tangents", quotient(lambda a, da, b, db: da / db), DIVIDE),
    dual("denominator ignored", quotient(lambda a, da, b, db: da / b), DIVIDE),
    dual("swapped", dual_variant(__rtruediv__=MyDual.__truediv__), DIVIDE),
    dual(
        "number tangent 1",
        dual_variant(
            _dual=lambda self, other: (
                other if isinstance(other, type(self)) else type(self)(other, 1.0)
            ),
        ),
        DIVIDE,
    ),
    dual("not a dual", dual_variant(__truediv__=_simple_quotient), DIVIDE),
    dual("in place", dual_variant(__truediv__=_in_place_quotient), DIVIDE),
    dual(  # the review's: the right numbers as a tuple (the grader raised AttributeError)
        "not a dual",
        dual_variant(__truediv__=lambda self, other: _tuple(MyDual.__truediv__(self, other))),
        DIVIDE,
        label="a tuple",
    ),
    dual("no chain rule", dual_variant(__pow__=_power(lambda a, da, c: c * a ** (c - 1))), POWER),
    dual(
        "exponent not lowered",
        dual_variant(__pow__=_power(lambda a, da, c: c * a**c * da)),
        POWER,
    ),
    dual(
        "through log",
        dual_variant(__pow__=lambda self, other: (self._dual(other) * self.log()).exp()),
        POWER,
    ),
    dual("swapped", dual_variant(__rpow__=MyDual.__pow__), POWER),
    dual(
        "power rule on an exponential",
        dual_variant(
            __rpow__=lambda self, other: type(self)(
                other**self.primal, self.primal * other ** (self.primal - 1) * self.tangent
            )
        ),
        POWER,
    ),
    dual(  # the review's: c ** x differentiated as e ** x
        "no log c",
        dual_variant(
            __rpow__=lambda self, other: type(self)(
                other**self.primal, other**self.primal * self.tangent
            )
        ),
        POWER,
    ),
    dual(  # the second review's: central differences, h = 1e-6, for both number cases
        "approximation",
        dual_variant(
            __pow__=_power(lambda a, da, c: ((a + 1e-6) ** c - (a - 1e-6) ** c) / 2e-6 * da),
            __rpow__=lambda self, other: type(self)(
                other**self.primal,
                (other ** (self.primal + 1e-6) - other ** (self.primal - 1e-6))
                / 2e-6
                * self.tangent,
            ),
        ),
        POWER,
    ),
    dual(
        "exponent ignored",
        dual_variant(__pow__=_dual_power(lambda a, da, b, db: b * a ** (b - 1) * da)),
        POWER,
    ),
    dual(
        "base ignored",
        dual_variant(__pow__=_dual_power(lambda a, da, b, db: a**b * math.log(a) * db)),
        POWER,
    ),
    dual(
        "not a dual",
        dual_variant(
            __pow__=lambda self, other: SimpleNamespace(
                primal=MyDual.__pow__(self, other).primal,
                tangent=MyDual.__pow__(self, other).tangent,
            )
        ),
        POWER,
    ),
    Example(JACOBIAN, "per entry", {"jacobian_forward": per_entry}),
    Example(JACOBIAN, "all ones", {"jacobian_forward": all_ones}),
    Example(JACOBIAN, "extra call", {"jacobian_forward": extra_call}),
    Example(JACOBIAN, "approximation", {"jacobian_forward": by_differences}, also=("differences",)),
    Example(JACOBIAN, None, {"jacobian_forward": transposed}, label="transposed"),
    Example(JACOBIAN, "never reset", {"jacobian_forward": never_reset}),
    Example(JACOBIAN, "shifted", {"jacobian_forward": off_by_one}),
    Example(JACOBIAN, "primals", {"jacobian_forward": primals}),
]
