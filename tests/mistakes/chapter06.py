"""Chapter 06's typical mistakes, written as a student writes them: unbroadcast, the backward
of @, the gradient of xᵀAx, and the MyTensor track (its operations, gradcheck, MyFunction,
LogSumExp)."""

import numpy as np

from mistakes import Example


def unbroadcast(grad, shape):
    # written out here rather than taken from the engine (mg.unbroadcast)
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad.sum(axis=i, keepdims=True)
    return grad


def matmul_backward(a, b, dc):
    # numpy's own matmul rules, through einsum: a vector is a one-row (left) or one-column
    # (right) matrix, and an input broadcast over the stack sums its shares
    a2, b2 = np.atleast_2d(a), b[:, None] if b.ndim == 1 else b
    dc2 = np.asarray(dc, dtype=float)
    dc2 = dc2[..., None] if b.ndim == 1 else dc2
    dc2 = dc2[..., None, :] if a.ndim == 1 else dc2
    da = unbroadcast(np.einsum("...ij,...kj->...ik", dc2, b2), a2.shape)
    db = unbroadcast(np.einsum("...ji,...jk->...ik", a2, dc2), b2.shape)
    return da.reshape(a.shape), db.reshape(b.shape)


def quadratic_form_grad(a, x):
    return a @ x + x @ a


def _lead(g, s):
    return g.sum(axis=tuple(range(g.ndim - len(s))))


def matmul_2d_only(a, b, dc):
    """Right for matrices and vectors; a stack's gradients keep the product's batch axes."""
    if max(a.ndim, b.ndim) < 3:
        return matmul_backward(a, b, dc)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    dc2 = np.expand_dims(dc, -1) if b.ndim == 1 else dc
    dc2 = np.expand_dims(dc2, -2) if a.ndim == 1 else dc2
    return dc2 @ np.swapaxes(b2, -1, -2), np.swapaxes(a2, -1, -2) @ dc2


def reshaped_matmul(a, b, dc):
    # the stack's products, reshaped to the inputs' shapes where a sum belongs
    return (
        (dc @ np.swapaxes(b, -1, -2)).reshape(a.shape),
        (np.swapaxes(a, -1, -2) @ dc).reshape(b.shape),
    )


def stack_averaged(A, B, dC):
    # the review's: a stack's shares averaged over the leading axes an input lacks
    A = np.asarray(A, float)
    B = np.asarray(B, float)
    dC = np.asarray(dC, float)
    a1, b1 = A.ndim == 1, B.ndim == 1
    A2 = A[None, :] if a1 else A
    B2 = B[:, None] if b1 else B
    dC2 = dC
    if b1:
        dC2 = np.expand_dims(dC2, -1)
    if a1:
        dC2 = np.expand_dims(dC2, -2)
    dA = dC2 @ np.swapaxes(B2, -1, -2)
    dB = np.swapaxes(A2, -1, -2) @ dC2
    while dA.ndim > A2.ndim:
        dA = dA.mean(0)
    while dB.ndim > B2.ndim:
        dB = dB.mean(0)
    dA = unbroadcast(dA, A2.shape)
    dB = unbroadcast(dB, B2.shape)
    return (dA.reshape(A.shape) if a1 else dA), (dB.reshape(B.shape) if b1 else dB)


def one(name, mistake, function, **options):
    return Example(name, mistake, {name.split(".")[1]: function}, **options)


UNBROADCAST, MATMUL, QUADRATIC = "06.unbroadcast", "06.matmul_backward", "06.quadratic_form_grad"

EXAMPLES = [
    one(UNBROADCAST, "reshape", lambda g, s: g.reshape(s)),
    one(
        UNBROADCAST,
        "averaged",
        lambda g, s: unbroadcast(g, s) * np.prod(s, dtype=int) / g.size,
    ),
    # wrong shapes: what was seen is the shape, and no hint claims a cause
    one(UNBROADCAST, None, lambda g, s: g, label="grad itself"),
    one(
        UNBROADCAST,
        None,
        lambda g, s: g.sum(axis=0) if g.shape != tuple(s) else g,
        label="first axis, dropped",
    ),
    one(
        UNBROADCAST,
        None,
        lambda g, s: np.squeeze(unbroadcast(g, s)) if g.shape != tuple(s) else g,
        label="axes of length 1 gone",
    ),
    one(UNBROADCAST, None, _lead, label="leading axes only"),
    one(UNBROADCAST, None, lambda g, s: 2 * unbroadcast(g, s), label="twice"),
    one(MATMUL, "as they stood", lambda a, b, dc: (dc @ b, a @ dc)),
    one(
        MATMUL,
        "transposed",
        lambda a, b, dc: tuple(np.transpose(g) for g in matmul_backward(a, b, dc)),
    ),
    one(MATMUL, "vector .T", lambda a, b, dc: (dc @ b.T, a.T @ dc), also=("stack .T",)),
    one(MATMUL, "reshape", reshaped_matmul),
    one(MATMUL, None, matmul_2d_only, label="batch axes kept"),
    one(MATMUL, None, lambda a, b, dc: a, label="one array"),
    one(QUADRATIC, "x twice", lambda a, x: a @ x),
    one(QUADRATIC, "x twice", lambda a, x: a.T @ x, label="Aᵀx"),
    one(MATMUL, "stack averaged", stack_averaged),
    one(QUADRATIC, "not symmetric", lambda a, x: 2 * a @ x),
    one(QUADRATIC, None, lambda a, x: (a + a.T) @ x / 2, label="halved"),
]

CORRECT = {
    "unbroadcast": unbroadcast,
    "matmul_backward": matmul_backward,
    "quadratic_form_grad": quadratic_form_grad,
}


# --- the MyTensor track ---------------------------------------------------------------------


class MyTensor:
    __array_ufunc__ = None

    def __init__(self, data, parents=(), op=""):
        self.data = np.array(data, dtype=float)
        self.grad = np.zeros_like(self.data)
        self.parents, self.op = tuple(parents), op
        self._backward = lambda: None

    @property
    def shape(self):
        return self.data.shape

    def _node(self, data, parents, rule):
        out = type(self)(data, parents)

        def _backward():
            for parent, grad in zip(parents, rule(out.grad), strict=True):
                parent.grad = parent.grad + grad

        out._backward = _backward
        return out

    def _wrap(self, other):
        return other if isinstance(other, type(self)) else type(self)(other)

    def __mul__(self, other):
        other = self._wrap(other)
        return self._node(
            self.data * other.data,
            (self, other),
            lambda g: (
                unbroadcast(g * other.data, self.shape),
                unbroadcast(g * self.data, other.shape),
            ),
        )

    __rmul__ = __mul__

    def __add__(self, other):
        other = self._wrap(other)
        return self._node(
            self.data + other.data,
            (self, other),
            lambda g: (unbroadcast(g, self.shape), unbroadcast(g, other.shape)),
        )

    def __radd__(self, other):
        return self.__add__(other)

    def broadcast_to(self, shape):
        return self._node(
            np.broadcast_to(self.data, shape), (self,), lambda g: (unbroadcast(g, self.shape),)
        )

    def sum(self, axis=None, keepdims=False):
        axes = range(self.data.ndim) if axis is None else np.atleast_1d(axis)
        kept = [
            1 if i in {a % self.data.ndim for a in axes} else n for i, n in enumerate(self.shape)
        ]
        return self._node(
            self.data.sum(axis=axis, keepdims=keepdims),
            (self,),
            lambda g: (np.broadcast_to(np.reshape(g, kept), self.shape),),
        )

    def reshape(self, *shape):
        return self._node(
            self.data.reshape(*shape), (self,), lambda g: (np.reshape(g, self.shape),)
        )

    def permute(self, *axes):
        order = [a % self.data.ndim for a in axes]
        back = [order.index(i) for i in range(len(order))]
        return self._node(
            np.transpose(self.data, order), (self,), lambda g: (np.transpose(g, back),)
        )

    def transpose(self, dim0, dim1):
        return self._node(
            np.swapaxes(self.data, dim0, dim1), (self,), lambda g: (np.swapaxes(g, dim0, dim1),)
        )

    def __matmul__(self, other):
        other = self._wrap(other)
        return self._node(
            self.data @ other.data,
            (self, other),
            lambda g: matmul_backward(self.data, other.data, g),
        )


def gradcheck(f, *inputs):
    v = np.random.default_rng(1).uniform(0.5, 1.5, np.shape(f(*inputs).data))  # no v near 0
    v *= np.where(np.random.default_rng(2).random(v.shape) < 0.5, -1, 1)
    for x in inputs:
        x.grad = None
    f(*inputs).backward(v)
    for x in inputs:
        flat = x.data.reshape(-1)  # a view: changing it changes x.data
        for i in range(flat.size):
            original = flat[i]
            values = []
            for step in (1e-6, -1e-6):
                flat[i] = original + step
                values.append(np.sum(v * f(*inputs).data))
            flat[i] = original
            numeric = (values[0] - values[1]) / 2e-6
            if not np.isclose(x.grad.reshape(-1)[i], numeric, rtol=1e-3, atol=1e-5):
                return False
    return True


class Context:
    def __init__(self):
        self.saved_tensors = ()

    def save_for_backward(self, *arrays):
        self.saved_tensors = arrays


class MyFunction:
    @classmethod
    def apply(cls, *args):
        ctx = Context()
        out = MyTensor(
            cls.forward(ctx, *(a.data if isinstance(a, MyTensor) else a for a in args)),
            [a for a in args if isinstance(a, MyTensor)],
        )

        def _backward():
            grads = cls.backward(ctx, out.grad)
            if not isinstance(grads, tuple):
                grads = (grads,)
            for a, g in zip(args, grads, strict=True):
                if isinstance(a, MyTensor) and g is not None:
                    if np.shape(g) != a.shape:
                        raise ValueError(
                            f"{cls.__name__}: gradient {np.shape(g)} for input {a.shape}"
                        )
                    a.grad = a.grad + g

        out._backward = _backward
        return out


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def logsumexp(x):
    top = np.max(x, axis=-1)
    return top + np.log(np.sum(np.exp(x - top[..., None]), axis=-1))


class LogSumExp(MyFunction):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return logsumexp(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad[..., None] * softmax(x)


CORRECT.update(
    {"MyTensor": MyTensor, "MyFunction": MyFunction, "LogSumExp": LogSumExp, "gradcheck": gradcheck}
)


def with_methods(**methods):
    """MyTensor with ``methods`` replaced (a subclass: each operation makes type(self))."""
    return type("MyTensor", (MyTensor,), methods)


def without(name):
    """A MyTensor that lacks the method ``name``."""
    kept = {k: v for k, v in vars(MyTensor).items() if k not in (name, "__dict__", "__weakref__")}
    return type("MyTensor", (), kept)


def rule(forward, backward, replace=False):
    """A MyTensor method: forward(self, *args) -> data, backward(self, g, *args) -> grad,
    added to the input's grad (or, with ``replace``, put in its place)."""

    def method(self, *args, **kwargs):
        out = type(self)(forward(self, *args, **kwargs), (self,))

        def _backward():
            grad = backward(self, out.grad, *args, **kwargs)
            self.grad = grad if replace else self.grad + grad

        out._backward = _backward
        return out

    return method


def _add(backward):
    """MyTensor.__add__ with another backward(self, other, out)."""

    def add(self, other):
        other = self._wrap(other)
        out = type(self)(self.data + other.data, (self, other))
        out._backward = lambda: backward(self, other, out)
        return out

    return add


def _replace_both(self, other, out):
    self.grad = unbroadcast(out.grad, self.shape)
    other.grad = unbroadcast(out.grad, other.shape)


def _unreduced(self, other, out):
    self.grad += out.grad
    other.grad += out.grad


def unwrapped_add(self, other):
    out = type(self)(self.data + other.data, (self, other))

    def _backward():
        self.grad += unbroadcast(out.grad, self.shape)
        other.grad += unbroadcast(out.grad, other.shape)

    out._backward = _backward
    return out


def _summed(axis=None, keepdims=False, **_):
    return lambda s, *a, **k: s.data.sum(axis=axis, keepdims=keepdims)


def _sum_rule(backward, forward=None, replace=False):
    return rule(
        forward or (lambda s, axis=None, keepdims=False: s.data.sum(axis=axis, keepdims=keepdims)),
        backward,
        replace,
    )


def _expanded(g, axis, keepdims):
    return np.expand_dims(g, axis) if axis is not None and not keepdims else g


def replacing_matmul(self, other):
    other = self._wrap(other)
    out = type(self)(self.data @ other.data, (self, other))

    def _backward():
        self.grad, other.grad = matmul_backward(self.data, other.data, out.grad)

    out._backward = _backward
    return out


def unwrapped_matmul(self, other):
    out = type(self)(self.data @ other.data, (self, other))

    def _backward():
        da, db = matmul_backward(self.data, other.data, out.grad)
        self.grad += da
        other.grad += db

    out._backward = _backward
    return out


def tensor(mistake, exercise, label="", **methods):
    return Example(exercise, mistake, {"MyTensor": with_methods(**methods)}, label=label)


BROADCAST, SUM, RESHAPE, PERMUTE, MY_MATMUL = (
    "06.broadcast",
    "06.sum",
    "06.reshape",
    "06.permute",
    "06.my_matmul",
)

EXAMPLES += [
    tensor("replaced", BROADCAST, __add__=_add(_replace_both)),
    tensor("unreduced", BROADCAST, __add__=_add(_unreduced)),
    tensor("not a tensor", BROADCAST, __add__=unwrapped_add),
    Example(BROADCAST, "radd", {"MyTensor": without("__radd__")}),
    tensor(
        "averaged",
        BROADCAST,
        broadcast_to=rule(
            lambda s, shape: np.broadcast_to(s.data, shape),
            lambda s, g, shape: unbroadcast(g, s.shape) * s.data.size / g.size,
        ),
    ),
    tensor(
        "axes gone",
        SUM,
        sum=_sum_rule(lambda s, g, axis=None, keepdims=False: g + np.zeros(s.shape)),
    ),
    tensor(
        "mean's rule",
        SUM,
        sum=_sum_rule(
            lambda s, g, axis=None, keepdims=False: (
                np.broadcast_to(_expanded(g, axis, keepdims), s.shape) * g.size / s.data.size
            )
        ),
    ),
    tensor(
        "keepdims",
        SUM,
        sum=_sum_rule(
            lambda s, g, axis=None, keepdims=False: np.broadcast_to(
                np.expand_dims(g, axis) if axis is not None else g, s.shape
            ),
        ),
    ),
    tensor(
        None,
        SUM,
        label="keepdims dropped",
        sum=_sum_rule(
            lambda s, g, axis=None, keepdims=False: np.broadcast_to(
                np.expand_dims(np.reshape(g, np.shape(s.data.sum(axis=axis))), axis)
                if axis is not None
                else g,
                s.shape,
            ),
            forward=lambda s, axis=None, keepdims=False: s.data.sum(axis=axis),
        ),
    ),
    tensor(
        "negative axis",
        SUM,
        sum=_sum_rule(
            lambda s, g, axis=None, keepdims=False: np.broadcast_to(
                g.reshape([1 if i in np.atleast_1d(axis) else n for i, n in enumerate(s.shape)])
                if axis is not None
                else g,
                s.shape,
            )
        ),
    ),
    tensor(
        "tuple axes",
        SUM,
        sum=_sum_rule(
            lambda s, g, axis=None, keepdims=False: np.broadcast_to(
                g.reshape(
                    [1] * s.data.ndim
                    if axis is None
                    else [1 if i == axis % s.data.ndim else n for i, n in enumerate(s.shape)]
                ),
                s.shape,
            )
        ),
    ),
    tensor(
        "replaced",
        SUM,
        sum=_sum_rule(
            lambda s, g, axis=None, keepdims=False: np.broadcast_to(
                _expanded(g, axis, keepdims), s.shape
            ),
            replace=True,
        ),
    ),
    tensor(
        "new shape",
        RESHAPE,
        reshape=rule(lambda s, *shape: s.data.reshape(*shape), lambda s, g, *shape: g),
    ),
    tensor(
        "tuple shape",
        RESHAPE,
        reshape=rule(
            lambda s, *shape: s.data.reshape(shape), lambda s, g, *shape: g.reshape(s.shape)
        ),
    ),
    tensor(
        "replaced",
        RESHAPE,
        reshape=rule(
            lambda s, *shape: s.data.reshape(*shape),
            lambda s, g, *shape: g.reshape(s.shape),
            replace=True,
        ),
    ),
    tensor(
        "same order",
        PERMUTE,
        permute=rule(
            lambda s, *axes: np.transpose(s.data, axes), lambda s, g, *axes: np.transpose(g, axes)
        ),
    ),
    tensor(
        "negative axis",
        PERMUTE,
        permute=rule(
            lambda s, *axes: np.transpose(s.data, axes),
            lambda s, g, *axes: np.transpose(g, np.argsort(axes)),
        ),
    ),
    Example(PERMUTE, "no transpose", {"MyTensor": without("transpose")}),
    # right for matrices only: a permute of two axes on a tensor of three
    tensor(
        "two-axis permute",
        PERMUTE,
        transpose=lambda self, dim0, dim1: self.permute(dim1, dim0),
    ),
    tensor(
        "replaced",
        PERMUTE,
        permute=rule(
            lambda s, *axes: np.transpose(s.data, axes),
            lambda s, g, *axes: np.transpose(g, np.argsort(np.array(axes) % s.data.ndim)),
            replace=True,
        ),
    ),
    # the review's: the gradient sent back through .T, every axis reversed
    tensor(
        "every axis reversed",
        PERMUTE,
        transpose=rule(
            lambda s, dim0, dim1: np.swapaxes(s.data, dim0, dim1), lambda s, g, dim0, dim1: g.T
        ),
    ),
    tensor("one side", MY_MATMUL, __matmul__=replacing_matmul),
    tensor("not a tensor", MY_MATMUL, __matmul__=unwrapped_matmul),
]


# --- gradcheck ------------------------------------------------------------------------------


def checker(ones=False, stale=False, first_only=False, entries=None, rtol=1e-3, back="restore",
            cotangent="result"):  # fmt: skip
    """gradcheck with one thing changed: the cotangent, the entries or inputs compared, the
    tolerance, whether grads are cleared, how a moved entry is put back."""

    def check(f, *inputs):
        shape = np.shape(f(*inputs).data) if cotangent == "result" else np.shape(inputs[0].data)
        v = np.ones(shape) if ones else np.random.default_rng(1).uniform(0.5, 1.5, shape)
        if not stale:
            for x in inputs:
                x.grad = None
        f(*inputs).backward(v)
        for x in inputs[:1] if first_only else inputs:
            for index in list(np.ndindex(x.data.shape))[:entries]:
                original = x.data[index]
                x.data[index] = original + 1e-6
                up = np.sum(v * f(*inputs).data)
                x.data[index] -= 2e-6
                down = np.sum(v * f(*inputs).data)
                if back == "restore":
                    x.data[index] = original
                elif back == "add":
                    x.data[index] += 1e-6  # back by adding h: rounding may leave a trace
                numeric = (up - down) / 2e-6
                if abs(x.grad[index] - numeric) > 1e-5 + rtol * abs(numeric):
                    return False
        return True

    return check


GRADCHECK = "06.gradcheck"


def checking(mistake, also=(), label="", **changes):
    return Example(GRADCHECK, mistake, {"gradcheck": checker(**changes)}, also=also, label=label)


EXAMPLES += [
    checking("unweighted", ones=True),
    checking("one entry", entries=1, also=("transposed",)),
    checking("second input", first_only=True),
    checking("few percent", rtol=0.1),
    checking("rounding", rtol=0),
    checking("stale", stale=True),
    checking("rounded back", back="add"),
    checking("not restored", back="none"),
    checking("cotangent shape", cotangent="input"),
    Example(GRADCHECK, None, {"gradcheck": lambda f, *xs: True}, label="always True"),
    Example(GRADCHECK, None, {"gradcheck": lambda f, *xs: "yes"}, label="a string"),
]


# --- MyFunction.apply ----------------------------------------------------------------------


def apply_with(tensors_to_forward=False, wrap_numbers=False, none=False, replace=False,
               bare=False, checked=True):  # fmt: skip
    class Broken(MyFunction):
        @classmethod
        def apply(cls, *args):
            ctx = Context()
            if tensors_to_forward:
                handed = args
            elif wrap_numbers:
                handed = [a.data if isinstance(a, MyTensor) else np.array(a) for a in args]
            else:
                handed = [a.data if isinstance(a, MyTensor) else a for a in args]
            out = MyTensor(cls.forward(ctx, *handed), [a for a in args if isinstance(a, MyTensor)])

            def _backward():
                grads = cls.backward(ctx, out.grad)
                if not bare and not isinstance(grads, tuple):
                    grads = (grads,)
                for a, g in zip(args, grads, strict=False):
                    if checked and isinstance(a, MyTensor) and np.shape(g) != a.shape:
                        raise ValueError(f"{cls.__name__}: gradient of shape {np.shape(g)}")
                    if none or isinstance(a, MyTensor) and g is not None:
                        if replace:
                            a.grad = g
                        else:
                            a.grad += g

            out._backward = _backward
            return out

    return Broken


class BareAssert(MyFunction):
    # the review's: the shape refused by an assert, which names nothing
    @classmethod
    def apply(cls, *args):
        ctx = Context()
        arrays = [a.data if isinstance(a, MyTensor) else a for a in args]
        out = MyTensor(cls.forward(ctx, *arrays), [a for a in args if isinstance(a, MyTensor)])

        def _backward():
            grads = cls.backward(ctx, out.grad)
            if not isinstance(grads, tuple):
                grads = (grads,)
            for a, g in zip(args, grads):  # noqa: B905 - the student's zip
                if g is None or not isinstance(a, MyTensor):
                    continue
                assert g.shape == a.shape
                a.grad += g

        out._backward = _backward
        return out


class NoneDropped(MyFunction):
    # the review's apply: the Nones are dropped, and what is left is paired with the tensors
    @classmethod
    def apply(cls, *args):
        ctx = Context()
        arrays = [a.data if isinstance(a, MyTensor) else a for a in args]
        ts = [a for a in args if isinstance(a, MyTensor)]
        out = MyTensor(cls.forward(ctx, *arrays), ts, cls.__name__)

        def _backward():
            grads = cls.backward(ctx, out.grad)
            if not isinstance(grads, tuple):
                grads = (grads,)
            grads = [g for g in grads if g is not None]
            for a, g in zip(ts, grads):  # noqa: B905 - the student's zip
                if np.shape(g) != a.shape:
                    raise ValueError(f"{cls.__name__} {np.shape(g)} {a.shape}")
                a.grad += g

        out._backward = _backward
        return out


class PairedWithTensors(MyFunction):
    # the review's apply (full marks before): the gradients zipped with the tensors alone, so
    # ScaleBy.apply(3.0, x)'s (None, grad * 3.0) gives x the number's None, and x nothing
    @classmethod
    def apply(cls, *args):
        ctx = Context()
        arrays = [a.data if isinstance(a, MyTensor) else a for a in args]
        tensors = [a for a in args if isinstance(a, MyTensor)]
        out = MyTensor(cls.forward(ctx, *arrays), tensors, cls.__name__)

        def _backward():
            grads = cls.backward(ctx, out.grad)
            if not isinstance(grads, tuple):
                grads = (grads,)
            for a, g in zip(tensors, grads):  # noqa: B905 - the student's zip
                if g is None:
                    continue
                if np.shape(g) != a.shape:
                    raise ValueError(f"{cls.__name__} {np.shape(g)} {a.shape}")
                a.grad += g

        out._backward = _backward
        return out


FUNCTION = "06.function"


def applying(mistake, also=(), **changes):
    return Example(FUNCTION, mistake, {"MyFunction": apply_with(**changes)}, also=also)


EXAMPLES += [
    applying("tensors to forward", tensors_to_forward=True),
    applying("number wrapped", wrap_numbers=True),
    applying("None gradient", none=True),
    applying("replaced", replace=True),
    applying("bare rows", bare=True, checked=False, also=("no refusal",)),
    applying("bare iterated", bare=True),
    applying("no refusal", checked=False),
    Example(FUNCTION, "None dropped", {"MyFunction": NoneDropped}),
    Example(FUNCTION, "paired with the tensors", {"MyFunction": PairedWithTensors}),
    Example(FUNCTION, "bare assert", {"MyFunction": BareAssert}),
]


# --- LogSumExp ------------------------------------------------------------------------------


def lse(forward, backward):
    def saving(ctx, x):
        ctx.save_for_backward(x)
        return forward(x)

    return type(
        "LogSumExp",
        (MyFunction,),
        {"forward": staticmethod(saving), "backward": staticmethod(backward)},
    )


def _right_backward(ctx, grad):
    return LogSumExp.backward(ctx, grad)


LSE = "06.logsumexp"


def lse_example(mistake, forward=logsumexp, backward=_right_backward, label="", also=()):
    return Example(LSE, mistake, {"LogSumExp": lse(forward, backward)}, label=label, also=also)


def _exp_unguarded(x):
    with np.errstate(all="ignore"):  # exp(1000) is inf: what the check shows the student
        return np.exp(x)


def _naive(x):
    with np.errstate(all="ignore"):
        return np.log(np.exp(x).sum(axis=-1))


EXAMPLES += [
    lse_example("overflow", forward=_naive),
    lse_example(
        "shift not added back",
        forward=lambda x: np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1)),
    ),
    lse_example(
        "log left out",
        backward=lambda ctx, grad: _exp_unguarded(ctx.saved_tensors[0]) * grad[..., None],
    ),
    lse_example(
        "arriving gradient unused", backward=lambda ctx, grad: softmax(ctx.saved_tensors[0])
    ),
    lse_example(
        "arriving gradient's axis",
        backward=lambda ctx, grad: softmax(ctx.saved_tensors[0]) * grad,
    ),
    lse_example(None, forward=lambda x: logsumexp(x)[..., None], label="keeps the axis"),
]

RIGHT = [
    one(
        MATMUL,
        None,
        lambda a, b, dc: [g.tolist() for g in matmul_backward(a, b, dc)],
        label="lists",
    ),
    one(
        QUADRATIC,
        None,
        lambda a, x: [np.float64(v) for v in (a + a.T) @ x],
        label="numpy scalars",
    ),
]
