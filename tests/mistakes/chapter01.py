"""Chapter 01's typical mistakes, written as a student writes them."""

from collections import deque

from mistakes import Example

EPS = 2.0**-52


def central_difference(f, x, h):
    return (f(x + h) - f(x - h)) / (2 * h)


def one_sided(f, x, h):
    return (-3 * f(x) + 4 * f(x + h) - f(x + 2 * h)) / (2 * h)


def second(f, x, h):
    return (f(x + h) - 2 * f(x) + f(x - h)) / h**2


def numerical_gradient(f, xs, h=1e-5):
    grad = []
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        grad.append((f(up) - f(down)) / (2 * h))
    return grad


CORRECT = {
    "one_sided_difference": one_sided,
    "second_difference": second,
    "central_difference": central_difference,  # given in the notebook
    "extrapolated_difference": lambda f, x, h: (
        (4 * central_difference(f, x, h / 2) - central_difference(f, x, h)) / 3
    ),
    "numerical_gradient": numerical_gradient,
    "step_size": lambda x: EPS ** (1 / 4) * max(1.0, abs(x)),
}


def wide(f, x, h):
    return (central_difference(f, x + h, h) - central_difference(f, x - h, h)) / (2 * h)


def forward_mode(f, x, h):  # the second review's, without its fallback
    from micrograd_edu import Dual

    return f(Dual(x, 1.0)).tangent


def richardson(w1, w2, divide):
    return lambda f, x, h: (
        (w1 * central_difference(f, x, h) + w2 * central_difference(f, x, h / 2)) / divide
    )


def not_restored(f, xs, h=1e-5, back=False):
    grad = []
    for i in range(len(xs)):
        xs[i] += h
        up = f(xs)
        xs[i] -= 2 * h
        grad.append((up - f(xs)) / (2 * h))
        if back:
            xs[i] += h  # back by adding h: the float may differ in its last digits
    return grad


def moved_and_back(f, xs, h=1e-5):
    return not_restored(f, xs, h, back=True)


def one_sided_gradient(f, xs, h=1e-5):
    base = f(xs)
    return [(f(xs[:i] + [xs[i] + h] + xs[i + 1 :]) - base) / h for i in range(len(xs))]


def aliased_gradient(f, xs, h=1e-5):  # the review's: p = xs names xs, it copies nothing
    g = []
    for i in range(len(xs)):
        p = xs
        p[i] += h
        m = xs
        m[i] -= h
        g.append((f(p) - f(m)) / (2 * h))
    return g


def gradient_spread(f, xs, h=1e-5):
    grad = []
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        grad.append((f(*up) - f(*down)) / (2 * h))  # the entries, not the list
    return grad


def gradient_n_squared(f, xs, h=1e-5):
    # recomputes every partial for every coordinate and keeps one: O(n²) evaluations
    return [numerical_gradient(f, xs, h)[i] for i in range(len(xs))]


def gradient_with_base(f, xs, h=1e-5):
    grad = []
    for i in range(len(xs)):
        f(xs)  # "the value there", evaluated again for every coordinate
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        grad.append((f(up) - f(down)) / (2 * h))
    return grad


def one(name, mistake, function, **options):
    return Example(name, mistake, {name.split(".")[1]: function}, **options)


ONE_SIDED, SECOND, RICHARDSON = (
    "01.one_sided_difference",
    "01.second_difference",
    "01.extrapolated_difference",
)
GRADIENT, STEP = "01.numerical_gradient", "01.step_size"

# what the order check sees in the same answer: the error ratio when h halves
R1, R2, R4 = ("error ratio 1",), ("error ratio 2",), ("error ratio 4",)

EXAMPLES = [
    one(ONE_SIDED, "two points", lambda f, x, h: (f(x + h) - f(x)) / h, also=R2),
    one(
        ONE_SIDED,
        "two points",
        lambda f, x, h: (f(x + 2 * h) - f(x)) / (2 * h),
        also=R2,
        label="2h",
    ),
    one(ONE_SIDED, "central", central_difference, also=("left of x",)),
    one(
        ONE_SIDED,
        "left of x",
        lambda f, x, h: (3 * f(x) - 4 * f(x - h) + f(x - 2 * h)) / (2 * h),
    ),
    one(ONE_SIDED, "divisor", lambda f, x, h: 2 * one_sided(f, x, h), also=R1),
    one(
        ONE_SIDED,
        "divisor",
        lambda f, x, h: (-3 * f(x) + 4 * f(x + h) - f(x + 2 * h)) / 2 * h,
        also=R1,
        label="/ 2 * h",
    ),
    one(ONE_SIDED, "sign", lambda f, x, h: -one_sided(f, x, h), also=R1),
    one(  # the review's: the right weights, each point one h further right
        ONE_SIDED,
        "shifted",
        lambda f, x, h: (-3 * f(x + h) + 4 * f(x + 2 * h) - f(x + 3 * h)) / (2 * h),
    ),
    one(  # the review's: a third-order quotient, with f at x + 3h too
        ONE_SIDED,
        "other points",
        lambda f, x, h: (
            (-11 * f(x) + 18 * f(x + h) - 9 * f(x + 2 * h) + 2 * f(x + 3 * h)) / (6 * h)
        ),
    ),
    one(  # weights that miss a constant: the reason says what f = 1 gives, the ratio the rest
        ONE_SIDED,
        "error ratio 0.5",
        lambda f, x, h: (-2 * f(x) + 4 * f(x + h) - f(x + 2 * h)) / (2 * h),
    ),
    one(SECOND, "divisor", lambda f, x, h: f(x + h) - 2 * f(x) + f(x - h), also=R1),
    one(SECOND, "divisor", lambda f, x, h: second(f, x, h) / 4, also=R1, label="(2h)²"),
    one(
        SECOND,
        "error ratio 0.25",
        lambda f, x, h: (f(x + h) - f(x) + f(x - h)) / h**2,
        label="middle weight 1",
    ),
    one(
        SECOND,
        "off centre",
        lambda f, x, h: (f(x + 2 * h) - 2 * f(x + h) + f(x)) / h**2,
        also=R2,
    ),
    one(SECOND, "wide", wide),
    one(SECOND, "first derivative", central_difference, also=R1),
    one(SECOND, "sign", lambda f, x, h: -second(f, x, h), also=R1),
    one(RICHARDSON, "single central", central_difference, also=R4),
    one(RICHARDSON, "first-order weights", richardson(-1, 2, 1), also=R4),
    one(RICHARDSON, "swapped", richardson(4, -1, 3), also=R4),
    one(RICHARDSON, "weights add up", richardson(-1, 4, 4), also=R1),
    one(RICHARDSON, "weights add up", richardson(-1, 4, 1), also=R1, label="not divided"),
    one(RICHARDSON, "sign", richardson(1, -4, 3), also=R1),
    # the second review's: a step of its own (1e-5, h ignored), h / 4 for h / 2, and the
    # package's exact forward mode (f takes numbers only while graded)
    one(
        RICHARDSON,
        "other steps",
        lambda f, x, h: (f(x + 1e-5) - f(x - 1e-5)) / 2e-5,
        also=R1,
        label="h ignored",
    ),
    one(
        RICHARDSON,
        "other steps",
        lambda f, x, h: (16 * central_difference(f, x, h / 4) - central_difference(f, x, h)) / 15,
        label="h / 4",
    ),
    one(RICHARDSON, None, forward_mode, label="forward mode"),
    one(  # a typo: x + 2h where x - h belongs, so the combination no longer cancels f'
        SECOND,
        "error ratio 0.5",
        lambda f, x, h: (f(x + 2 * h) - 2 * f(x) + f(x - h)) / h**2,
        label="typo",
    ),
    one(GRADIENT, "not restored", not_restored, also=("moved",)),
    one(GRADIENT, "rounded back", moved_and_back, seeds=12),
    one(GRADIENT, "one-sided", one_sided_gradient),
    one(GRADIENT, "over h", lambda f, xs, h: [2 * g for g in numerical_gradient(f, xs, h)]),
    one(GRADIENT, "sign", lambda f, xs, h: [-g for g in numerical_gradient(f, xs, h)]),
    one(GRADIENT, "f(*xs)", gradient_spread),
    one(GRADIENT, "gradient per coordinate", gradient_n_squared),
    one(GRADIENT, "extra calls per coordinate", gradient_with_base),
    one(GRADIENT, "own step", lambda f, xs, h: numerical_gradient(f, xs, 1e-5)),  # ignores h
    one(GRADIENT, "same list", aliased_gradient),
    one(GRADIENT, None, lambda f, xs, h: numerical_gradient(f, xs, h)[:-1], label="one short"),
    one(GRADIENT, None, lambda f, xs, h: sum(numerical_gradient(f, xs, h)), label="a number"),
    one(GRADIENT, None, lambda f, xs, h: [3 * g for g in numerical_gradient(f, xs, h)], label="3x"),
    one(STEP, "too small", lambda x: EPS ** (1 / 3) * max(1.0, abs(x))),  # the central quotient's
    one(STEP, "too small", lambda x: 1e-10, also=("does not grow",), label="1e-10"),
    one(STEP, "too large", lambda x: 1e-2 * max(1.0, abs(x))),
    one(STEP, "does not grow", lambda x: EPS ** (1 / 4)),
    one(STEP, "no floor", lambda x: EPS ** (1 / 4) * abs(x)),
    one(STEP, "too small", lambda x: 2.0**-52, also=("does not grow",), label="epsilon"),
    one(STEP, None, lambda x: [EPS ** (1 / 4), EPS ** (1 / 3)], label="a list"),
    one(STEP, None, lambda x: None, label="None"),
]

# Honest answers in another type or way than the reference's: full marks.
RIGHT = [
    one(GRADIENT, None, lambda f, xs, h: deque(numerical_gradient(f, xs, h)), label="deque"),
    one(GRADIENT, None, lambda f, xs, h: tuple(numerical_gradient(f, xs, h)), label="tuple"),
    one(
        GRADIENT,
        None,
        lambda f, xs, h: __import__("numpy").array(numerical_gradient(f, xs, h)),
        label="array",
    ),
    one(STEP, None, lambda x: __import__("numpy").float64(1e-4) * (1 + abs(x)), label="float64"),
    one(STEP, None, lambda x: 1.5e-4 * max(1.0, abs(x)), label="another step"),
]
