"""Chapter 02's typical mistakes, written as a student writes them."""

from micrograd_edu.scalar.symbolic import Apply, Constant, Symbol
from mistakes import Example


def quotient_rule(u, du, v, dv):
    # written differently from the solution notebook: u times the derivative of 1 / v
    return du / v + u * (-dv / (v * v))


def power_rule(u, du, v, dv):
    return u**v * (dv * u.log() + v * du / u)


def my_diff(expr, var, change=""):
    """The derivative of expr; with ``change``, a typical mistake."""
    if isinstance(expr, Constant):
        return Constant(0)
    if isinstance(expr, Symbol):
        if change == "is var":  # the review's: identity, where the statement says names
            return Constant(1 if expr is var else 0)
        return Constant(1 if expr.name == var.name or change == "every symbol" else 0)
    a = expr.args
    d = [my_diff(arg, var, change) for arg in a]
    if expr.op == "add":
        return d[0] + d[1]
    if expr.op == "sub":
        return d[0] - d[1]
    if expr.op == "neg":
        return -d[0]
    if expr.op == "mul":
        return d[0] * d[1] if change == "product of derivatives" else a[0] * d[1] + a[1] * d[0]
    if expr.op == "div":
        return quotient_rule(a[0], d[0], a[1], d[1])
    unchained = change in ("no chain rule", f"no chain rule in {expr.op}")
    inner = Constant(1) if unchained else d[0]
    if expr.op == "pow":
        exponent = a[1] if change == "exponent kept" else a[1] - 1
        return a[1] * a[0] ** exponent * inner
    sign = 1 if change == "cos sign" else -1
    local = {"sin": a[0].cos(), "cos": sign * a[0].sin(), "exp": expr, "log": 1 / a[0]}[expr.op]
    return local * inner


def my_size(expr):
    return 1 + sum(my_size(arg) for arg in expr.args)


def count(expr, change, seen=None):
    """Typical wrong sizes: each distinct node once, the leaves only, the operations only."""
    seen = set() if seen is None else seen
    if change == "distinct" and id(expr) in seen:
        return 0
    seen.add(id(expr))
    own = {"leaves": int(not expr.args), "operations": int(bool(expr.args))}.get(change, 1)
    return own + sum(count(arg, change, seen) for arg in expr.args)


def fold_constants(expr):
    if not isinstance(expr, Apply):
        return expr
    args = tuple(fold_constants(a) for a in expr.args)
    folded = Apply(expr.op, args)
    return Constant(folded.evaluate()) if all(isinstance(a, Constant) for a in args) else folded


CORRECT = {
    "quotient_rule": quotient_rule,
    "power_rule": power_rule,
    "my_diff": my_diff,
    "my_size": my_size,
    "fold_constants": fold_constants,
}


def substitute(expr, var, value):
    if isinstance(expr, Symbol):
        return value if expr.name == var.name else expr
    if isinstance(expr, Constant):
        return expr
    return Apply(expr.op, tuple(substitute(a, var, value) for a in expr.args))


def difference_quotient(expr, var, h=1e-5):
    """f'(x) as a central difference, written as an expression: right to 10 digits."""
    return (substitute(expr, var, var + h) - substitute(expr, var, var - h)) / (2 * h)


def quotient_by_differences(u, du, v, dv):
    return difference_quotient(u / v, Symbol("x"))


def power_by_differences(u, du, v, dv, h=1e-6):
    x = Symbol("x")
    return (substitute(u**v, x, x + h) - substitute(u**v, x, x)) / h


def fold_one_level(expr):
    """Folds a node whose arguments are constants as given, never its folded arguments."""
    if not isinstance(expr, Apply):
        return expr
    if all(isinstance(a, Constant) for a in expr.args):
        return Constant(expr.evaluate())
    return Apply(expr.op, tuple(fold_one_level(a) for a in expr.args))


def fold_in_place(expr):
    if isinstance(expr, Apply):
        expr.args = tuple(fold_in_place(a) for a in expr.args)
        if all(isinstance(a, Constant) for a in expr.args):
            return Constant(expr.evaluate())
    return expr


def fold_to_a_number(expr):
    if not isinstance(expr, Apply):
        return expr
    args = tuple(fold_to_a_number(a) for a in expr.args)
    args = tuple(Constant(a) if isinstance(a, float) else a for a in args)
    if all(isinstance(a, Constant) for a in args):
        return Apply(expr.op, args).evaluate()  # the number, not a Constant
    return Apply(expr.op, args)


def one(name, mistake, function, **options):
    return Example(name, mistake, {name.split(".")[1]: function}, **options)


QUOTIENT, POWER, DIFF = "02.quotient_rule", "02.power_rule", "02.my_diff"
SIZE, FOLD = "02.my_size", "02.fold_constants"

EXAMPLES = [
    # on c / v, du = 0 and only v's term is left: "plus" fits there too, but not on u / v
    one(QUOTIENT, "sign", lambda u, du, v, dv: (u * dv - du * v) / v**2),
    one(QUOTIENT, "plus", lambda u, du, v, dv: (du * v + u * dv) / v**2),
    one(QUOTIENT, "v times", lambda u, du, v, dv: (du * v - u * dv) / v),
    one(QUOTIENT, "quotient of derivatives", lambda u, du, v, dv: du / dv),
    one(QUOTIENT, "approximation", quotient_by_differences),
    one(QUOTIENT, None, lambda u, du, v, dv: 1.0, label="a number"),
    one(QUOTIENT, None, lambda u, du, v, dv: "(du v - u dv) / v²", label="a string"),
    one(POWER, "power only", lambda u, du, v, dv: v * u ** (v - 1) * du),
    one(POWER, "exponential only", lambda u, du, v, dv: u**v * u.log() * dv),
    one(POWER, "log only", lambda u, du, v, dv: dv * u.log() + v * du / u),
    one(POWER, "u times", lambda u, du, v, dv: u**v * (dv * u.log() + v * du)),
    one(  # the review's: the power rule without lowering the power
        POWER,
        "u times",
        lambda u, du, v, dv: v * u**v * du + u**v * u.log() * dv,
        label="power not lowered",
    ),
    one(POWER, "no du", lambda u, du, v, dv: u**v * (dv * u.log() + v / u)),
    one(POWER, "approximation", power_by_differences),
    one(DIFF, "no chain rule", lambda e, var: my_diff(e, var, "no chain rule")),
    *[  # the review's: the chain rule forgotten in log (or exp) alone
        one(
            DIFF,
            "no chain rule",
            lambda e, var, op=op: my_diff(e, var, f"no chain rule in {op}"),
            label=f"in {op}",
        )
        for op in ("log", "exp")
    ],
    one(DIFF, "cos sign", lambda e, var: my_diff(e, var, "cos sign")),
    one(DIFF, "product of derivatives", lambda e, var: my_diff(e, var, "product of derivatives")),
    one(DIFF, "exponent kept", lambda e, var: my_diff(e, var, "exponent kept")),
    one(DIFF, "every symbol", lambda e, var: my_diff(e, var, "every symbol")),
    one(DIFF, "var never found", lambda e, var: my_diff(e, var, "is var")),
    one(DIFF, "approximation", difference_quotient),
    one(DIFF, None, lambda e, var: 0.0, label="a number"),
    one(SIZE, "distinct", lambda e: count(e, "distinct")),
    one(SIZE, "leaves", lambda e: count(e, "leaves")),
    one(SIZE, "operations", lambda e: count(e, "operations")),
    one(SIZE, "one level", lambda e: 1 + len(e.args)),
    one(FOLD, "one level", fold_one_level),
    one(FOLD, "in place", fold_in_place),
    one(FOLD, None, fold_to_a_number, label="a number"),
    one(FOLD, None, lambda e: e, label="unfolded"),
]

RIGHT = [
    one(SIZE, None, lambda e: float(my_size(e)), label="a float count"),
    one(DIFF, None, lambda e, var: my_diff(e, var) * 1.0, label="times 1.0"),
]
