"""The operations of the fuzzer's tensor programs, one float tensor in, one out: elementwise,
binary with broadcasting, reductions, (values, indices) forms, views and shapes, matmul,
softmax, losses, indexing, masks; and the first and second derivatives that end a
program. Each writes its statement in one of PyTorch's call forms
(:mod:`torchlike_forms`) and returns the new variable with the shape PyTorch gives it.
"""

from __future__ import annotations

import math

import numpy as np
from torchlike_builder import Builder, Var, broadcast, dims_text, partner_shape, reduced, valid_dim
from torchlike_forms import BINARY, DOMAIN_FIX, MASK_USES, REDUCTIONS, SOFTMAX, UNARY

# ---------------------------------------------------------------------------------------------
# Operations on one float tensor. Each returns the new Var, or None when it does not apply.


def op_unary(b: Builder, x: Var) -> Var | None:
    name = b.pick(list(UNARY))
    domain, forms = UNARY[name]
    form = b.pick(forms)
    arg = x.name
    if domain in DOMAIN_FIX and not b.chance(0.12):  # now and then, straight onto the edge
        arg = DOMAIN_FIX[domain].format(x=x.name)
    if form in ("{x}.clamp()",) and not b.chance(0.3):
        form = forms[0]
    grad = x.grad and name != "detach"
    return b.assign(form.format(x=arg), x.shape, f"unary.{name}:{form}", x.dtype, grad)


def op_clamp_tensor(b: Builder, x: Var) -> Var | None:
    """clamp with tensor bounds, which take part in the gradient."""
    lo = b.leaf(partner_shape(b, x.shape) if x.shape else (), grad=b.chance(0.7), low=-1, high=0)
    hi = b.leaf(partner_shape(b, x.shape) if x.shape else (), grad=b.chance(0.7), low=0, high=1)
    form = b.pick(
        [
            "torch.clamp({x}, {lo}, {hi})",
            "{x}.clamp(min={lo}, max={hi})",
            "{x}.clamp(min={lo})",
            "torch.clamp({x}, max={hi})",
            "torch.max(torch.min({x}, {hi}), {lo})",
        ]
    )
    shape = broadcast(broadcast(x.shape, lo.shape), hi.shape)
    expr = form.format(x=x.name, lo=lo.name, hi=hi.name)
    return b.assign(expr, shape, f"clamp.tensor:{form}", "float64", x.grad or lo.grad or hi.grad)


def op_binary(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    shape = partner_shape(b, x.shape)
    form = b.pick(BINARY)
    if "**" in form or "pow" in form:  # a positive base keeps the powers real
        y = b.leaf(shape, grad=b.chance(0.7), low=-1.5, high=1.5)
        xs = x.name if b.chance(0.1) else f"({x.name}.abs() + 0.5)"
    elif "/" in form or "div" in form:
        y = b.leaf(shape, grad=b.chance(0.7), low=0.5, high=2.0)
        xs = x.name
    else:
        y = b.leaf(shape, grad=b.chance(0.7))
        xs = x.name
    if b.chance(0.5):
        xs, y_name = y.name, xs  # the new tensor on the left
    else:
        y_name = y.name
    out = broadcast(x.shape, shape)
    return b.assign(form.format(x=xs, y=y_name), out, f"binary:{form}", "float64", x.grad or y.grad)


def op_reduce(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    name = b.pick(list(REDUCTIONS))
    form, kind = b.pick(REDUCTIONS[name])
    form = form.replace("nansum", "sum")
    n = len(x.shape)
    d = b.dim(n)
    if kind.startswith("dims"):
        if n < 2:
            return None
        ds = tuple(sorted(set(b.rng.choice(n, size=2, replace=False).tolist())))
        ds = tuple(a - n if b.chance(0.3) else a for a in ds)
        dims = ds if b.chance(0.5) else list(ds)
        expr, shape = (
            form.format(x=x.name, ds=dims_text(dims)),
            reduced(x.shape, ds, "keep" in kind),
        )
    elif kind == "none":
        expr, shape = form.format(x=x.name), reduced(x.shape, None, False)
    elif kind == "all":
        expr, shape = form.format(x=x.name), ()
    else:
        expr = form.format(x=x.name, d=d)
        shape = reduced(x.shape, (d,), "keep" in kind) if valid_dim(d, n) else None
    arg = x.name
    if name in ("var", "std") and n and x.shape[0] == 1 and b.chance(0.5):
        pass  # too few elements: nan in PyTorch
    if name == "logsumexp" and b.chance(0.5):
        arg = f"({x.name} * 10)"
    expr = expr.replace(x.name, arg, 1)
    return b.assign(expr, shape, f"reduce.{name}:{form}", x.dtype, x.grad)


def op_maxmin(b: Builder, x: Var) -> Var | None:
    """max/min/argmax/argmin/cumsum/sort-like reductions with their (values, indices) forms."""
    if x.shape is None:
        return None
    n, d = len(x.shape), b.dim(len(x.shape))
    shape = reduced(x.shape, (d,), False) if valid_dim(d, n) else None
    keep = reduced(x.shape, (d,), True) if valid_dim(d, n) else None
    name = b.pick(["max", "min"])
    kind = b.integer(0, 9)
    tag = f"reduce.{name}"
    src = x.name if b.chance(0.6) else f"{x.name}.round()"  # ties: first index, split gradient
    if kind == 0:
        return b.assign(f"{src}.{name}()", (), f"{tag}:x.{name}()", x.dtype, x.grad)
    if kind == 1:
        return b.assign(f"torch.{name}({src})", (), f"{tag}:torch.{name}(x)", x.dtype, x.grad)
    if kind in (2, 3, 4, 5):
        form = [
            "{s}.{n}({d})",
            "torch.{n}({s}, {d})",
            "{s}.{n}(dim={d})",
            "torch.{n}({s}, dim={d}, keepdim=True)",
        ][kind - 2]
        out = b.assign(form.format(s=src, n=name, d=d), None, f"{tag}:{form}", record=True)
        pick = b.pick([".values", ".indices", "[0]", "[1]"])
        values = pick in (".values", "[0]")
        sh = keep if "keepdim" in form else shape
        return b.assign(
            f"{out.name}{pick}",
            sh,
            f"{tag}:{form}{pick}",
            x.dtype if values else "int64",
            x.grad and values,
        )
    if kind == 6:
        v, i = b.fresh(), b.fresh()
        form = b.pick(["{s}.{n}({d}, True)", "{s}.{n}({d}, keepdim=True)", "torch.{n}({s}, {d})"])
        b.emit(f"{v}, {i} = " + form.format(s=src, n=name, d=d), f"{tag}:unpack {form}")
        b.emit(f"rec({v}, {i})", f"{tag}:unpack {form}")
        return Var(v, keep if "True" in form else shape, x.dtype, x.grad)
    if kind == 7:
        arg = b.pick(["argmax", "argmin"])
        form = b.pick(
            [
                "{s}.{a}()",
                "torch.{a}({s})",
                "{s}.{a}({d})",
                "{s}.{a}(dim={d})",
                "{s}.{a}({d}, True)",
                "torch.{a}({s}, dim={d}, keepdim=True)",
            ]
        )
        sh = () if "{d}" not in form else (keep if "True" in form else shape)
        b.assign(form.format(s=src, a=arg, d=d), sh, f"reduce.{arg}:{form}", "int64")
        return None
    if kind == 8:
        form = b.pick(["{s}.cumsum({d})", "{s}.cumsum(dim={d})", "torch.cumsum({s}, {d})"])
        sh = x.shape if valid_dim(d, n) else None
        return b.assign(form.format(s=src, d=d), sh, f"reduce.cumsum:{form}", x.dtype, x.grad)
    form = b.pick(["{s}.{n}({d}).values", "{s}.{n}(dim={d})[0]"])
    return b.assign(form.format(s=src, n=name, d=d), shape, f"{tag}:{form}", x.dtype, x.grad)


def _factor(b: Builder, shape: tuple) -> tuple:
    n = math.prod(shape)
    options = [(n,), (1, n), (n, 1)]
    for k in (2, 3, 4, 6):
        if n % k == 0 and n > k:
            options += [(k, n // k), (n // k, k)]
    if n % 6 == 0 and n >= 12:
        options.append((2, 3, n // 6))
    return b.pick(options) if n else b.pick([(0,), (0, 3)])


def op_shape(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    s, n, name = x.shape, len(x.shape), b.pick(list(SHAPE_OPS))
    made = SHAPE_OPS[name](b, x, s, n)
    if made is None:
        return None
    expr, shape, form = made
    return b.assign(expr, shape, f"shape.{name}:{form}", x.dtype, x.grad)


def _reshape(b, x, s, n):
    t = _factor(b, s)
    if b.chance(0.05):
        t = t + (2,)  # the wrong number of elements
    size = ", ".join(map(str, t))
    minus = list(t)
    if minus:
        minus[b.integer(0, len(t) - 1)] = -1
    form = b.pick(
        [
            "{x}.reshape({a})",
            "{x}.reshape(({a},))",
            "torch.reshape({x}, ({a},))",
            "{x}.view({a})",
            "{x}.view(({a},))",
            "{x}.reshape({m})",
            "{x}.view({m})",
            "{x}.view(-1)",
            "{x}.reshape(-1)",
            "{x}.view_as(torch.zeros({a}))",
            "{x}.reshape(shape=({a},))",
        ]
    )
    if "-1)" in form and form.endswith("(-1)"):
        t = (math.prod(s),)
    ok = math.prod(t) == math.prod(s)
    m = ", ".join(map(str, minus))
    return form.format(x=x.name, a=size, m=m), t if ok else None, form


def _flatten(b, x, s, n):
    form = b.pick(
        [
            "{x}.flatten()",
            "torch.flatten({x})",
            "{x}.flatten(1)",
            "{x}.flatten(start_dim=0, end_dim=1)",
            "torch.flatten({x}, 1)",
            "nn.Flatten()({x})",
            "nn.Flatten(0)({x})",
            "{x}.flatten(-2)",
        ]
    )
    start, end = 0, -1
    if "(1)" in form or ", 1)" in form or form.startswith("nn.Flatten()"):
        start = 1
    elif "end_dim=1" in form:
        end = 1
    elif "-2" in form:
        start = -2
    if n == 0:
        shape = (1,) if start in (0, -1) and end in (0, -1) else None
    elif not (valid_dim(start, n) and valid_dim(end, n)) or start % n > end % n:
        shape = None
    else:
        a, e = start % n, end % n
        shape = s[:a] + (math.prod(s[a : e + 1]),) + s[e + 1 :]
    return form.format(x=x.name), shape, form


def _squeeze(b, x, s, n):
    d = b.dim(n)
    form = b.pick(
        [
            "{x}.squeeze()",
            "{x}.squeeze({d})",
            "{x}.squeeze(dim={d})",
            "torch.squeeze({x}, {d})",
            "{x}.squeeze((0, -1))",
        ]
    )
    if form == "{x}.squeeze()":
        shape = tuple(v for v in s if v != 1)
    elif "(0, -1)" in form:
        shape = tuple(v for i, v in enumerate(s) if not (v == 1 and i in (0, n - 1))) if n else ()
    else:
        shape = (
            None
            if not valid_dim(d, n)
            else tuple(v for i, v in enumerate(s) if not (v == 1 and i == d % max(n, 1)))
        )
    return form.format(x=x.name, d=d), shape, form


def _unsqueeze(b, x, s, n):
    d = b.integer(-n - 1, n) if not b.chance(0.05) else n + 1
    form = b.pick(
        ["{x}.unsqueeze({d})", "{x}.unsqueeze(dim={d})", "torch.unsqueeze({x}, {d})", "{x}[None]"]
    )
    if form == "{x}[None]":
        return form.format(x=x.name), (1,) + s, form
    if not -n - 1 <= d <= n:
        return form.format(x=x.name, d=d), None, form
    k = d % (n + 1)
    return form.format(x=x.name, d=d), s[:k] + (1,) + s[k:], form


def _transpose(b, x, s, n):
    if n == 0:
        form = b.pick(["{x}.t()", "{x}.T", "torch.t({x})"])
        return form.format(x=x.name), (), form
    a, c = b.dim(n), b.dim(n)
    form = b.pick(
        [
            "{x}.transpose({a}, {c})",
            "torch.transpose({x}, {a}, {c})",
            "{x}.transpose(dim0={a}, dim1={c})",
            "{x}.swapaxes({a}, {c})",
            "{x}.t()",
            "torch.t({x})",
            "{x}.T",
            "{x}.mT",
        ]
    )
    if form in ("{x}.t()", "torch.t({x})"):
        shape = s[::-1] if n <= 2 else None
    elif form == "{x}.T":
        shape = s[::-1]
    elif form == "{x}.mT":
        shape = s[:-2] + (s[-1], s[-2]) if n >= 2 else None
    elif valid_dim(a, n) and valid_dim(c, n):
        t = list(s)
        t[a % n], t[c % n] = t[c % n], t[a % n]
        shape = tuple(t)
    else:
        shape = None
    return form.format(x=x.name, a=a, c=c), shape, form


def _permute(b, x, s, n):
    order = b.rng.permutation(n).tolist()
    dims = [d - n if b.chance(0.3) else d for d in order]
    if b.chance(0.04) and n:
        dims[0] = dims[-1] if n > 1 else n  # repeated or out of range
    form = b.pick(
        [
            "{x}.permute({p})",
            "{x}.permute(({p},))",
            "torch.permute({x}, ({p},))",
            "{x}.permute(dims=[{p}])",
        ]
    )
    if n == 0:
        form = "{x}.permute(())"
    ok = sorted(d % max(n, 1) for d in dims) == list(range(n)) and all(-n <= d < n for d in dims)
    shape = tuple(s[d] for d in order) if ok else None
    return form.format(x=x.name, p=", ".join(map(str, dims))), shape, form


def _expand(b, x, s, n):
    t = tuple(b.pick([2, 3]) if v == 1 and b.chance(0.7) else v for v in s)
    if b.chance(0.4):
        t = (2,) + t
    if b.chance(0.04) and t and s and s[-1] > 1:
        t = t[:-1] + (s[-1] + 1,)
    keep = list(t)
    for i in range(1, n + 1):
        if s[-i] == t[-i] and b.chance(0.3):
            keep[-i] = -1
    form = b.pick(
        [
            "{x}.expand({a})",
            "{x}.expand(({a},))",
            "{x}.expand({m})",
            "{x}.expand_as(torch.zeros({a}))",
            "{x}.broadcast_to(({a},))",
            "torch.broadcast_to({x}, ({a},))",
        ]
    )
    shape = broadcast(s, t)
    shape = t if shape == t else None
    a, m = ", ".join(map(str, t)), ", ".join(map(str, keep))
    if not t:
        form, a = "{x}.expand(())", ""
    return form.format(x=x.name, a=a, m=m), shape, form


def _repeat(b, x, s, n):
    reps = tuple(b.integer(1, 2) for _ in range(n + b.integer(0, 1)))
    if not reps:
        reps = (2,)
    form = b.pick(["{x}.repeat({r})", "{x}.repeat(({r},))"])
    padded = (1,) * (len(reps) - n) + s
    shape = tuple(r * v for r, v in zip(reps, padded, strict=True))
    return form.format(x=x.name, r=", ".join(map(str, reps))), shape, form


def _flip(b, x, s, n):
    d, e = b.dim(n), b.dim(n, bad=0)
    form = b.pick(
        [
            "{x}.flip({d})",
            "{x}.flip(dims=({d},))",
            "torch.flip({x}, [{d}])",
            "torch.flip({x}, dims=({d}, {e}))",
            "{x}.flip({d}, {e})",
            "{x}.flip([{d}, {e}])",
        ]
    )
    two = "{e}" in form
    ok = valid_dim(d, n) and (not two or d % max(n, 1) != e % max(n, 1))
    return form.format(x=x.name, d=d, e=e), s if ok else None, form


def _split(b, x, s, n):
    if n == 0:
        return None
    d = b.dim(n)
    size = s[d % n] if valid_dim(d, n) else 1
    k = b.integer(1, max(1, size))
    form = b.pick(
        [
            "{x}.split({k})",
            "{x}.split({k}, dim={d})",
            "torch.split({x}, {k}, {d})",
            "{x}.split([{k}, {r}], {d})",
            "{x}.chunk({k})",
            "{x}.chunk({k}, dim={d})",
            "torch.chunk({x}, {k}, {d})",
            "{x}.unbind({d})",
        ]
    )
    parts = b.fresh()
    expr = form.format(x=x.name, k=k, d=d, r=max(size - k, 0))
    b.emit(f"{parts} = {expr}", f"shape.split:{form}")
    b.emit(f"rec({parts})", f"shape.split:{form}")
    axis = d % n if "dim" in form or "{d}" in form else 0
    if not valid_dim(d, n):
        return None
    first = k
    if "chunk" in form:
        first = -(-s[axis] // k)
    elif "unbind" in form:
        return f"{parts}[0]", s[:axis] + s[axis + 1 :], form
    if s[axis] == 0:
        return None
    return f"{parts}[0]", s[:axis] + (min(first, s[axis]),) + s[axis + 1 :], form


def _join(b, x, s, n):
    d = b.dim(n + 1) if b.chance(0.5) else b.dim(n)
    form = b.pick(
        [
            "torch.cat([{x}, {y}])",
            "torch.cat(({x}, {y}), dim={d})",
            "torch.cat([{x}, {y}], {d})",
            "torch.concat([{x}, {y}], dim={d})",
            "torch.stack([{x}, {y}])",
            "torch.stack(({x}, {y}), dim={d})",
            "torch.stack([{x}, {y}], {d})",
            "torch.hstack([{x}, {y}])",
            "torch.vstack([{x}, {y}])",
        ]
    )
    y = f"{x.name}.tanh()"
    expr = form.format(x=x.name, y=y, d=d)
    if "stack([" in form and "{d}" not in form and form.startswith("torch.stack"):
        d = 0
    if form.startswith("torch.stack"):
        ok = -n - 1 <= d <= n
        k = d % (n + 1) if ok else 0
        shape = s[:k] + (2,) + s[k:] if ok else None
    elif "hstack" in form:
        shape = (2 * s[0],) + s[1:] if n == 1 else (s[0], 2 * s[1]) + s[2:] if n >= 2 else (2,)
    elif "vstack" in form:
        shape = (2, s[0]) if n == 1 else (2 * s[0],) + s[1:] if n >= 2 else (2, 1)
    else:
        if "{d}" not in form:
            d = 0
        if n == 0 or not valid_dim(d, n):
            shape = None
        else:
            t = list(s)
            t[d % n] *= 2
            shape = tuple(t)
    return expr, shape, form


SHAPE_OPS = {
    "reshape": _reshape,
    "flatten": _flatten,
    "squeeze": _squeeze,
    "unsqueeze": _unsqueeze,
    "transpose": _transpose,
    "permute": _permute,
    "expand": _expand,
    "repeat": _repeat,
    "flip": _flip,
    "split": _split,
    "join": _join,
}


def op_matmul(b: Builder, x: Var) -> Var | None:
    s = x.shape
    if s is None or len(s) == 0:
        return None
    k = s[-1]
    if b.chance(0.05):
        k += 1  # the inner sizes differ
    form = b.pick(
        [
            "{x} @ {y}",
            "torch.matmul({x}, {y})",
            "{x}.matmul({y})",
            "torch.mm({x}, {y})",
            "torch.bmm({x}, {y})",
            "{x}.mm({y})",
            "torch.dot({x}, {y})",
            "{x} @ {y}.T",
        ]
    )
    if form.startswith("torch.dot"):
        y = b.leaf((k,), grad=b.chance(0.7))
        shape = () if len(s) == 1 and k == s[0] else None
    elif "bmm" in form:
        y = b.leaf((s[0], k, 2) if len(s) == 3 else (k, 2), grad=b.chance(0.7))
        shape = (s[0], s[1], 2) if len(s) == 3 and k == s[-1] else None
    elif form.endswith(".T"):
        y = b.leaf((2, k), grad=b.chance(0.7))
        shape = s[:-1] + (2,) if len(s) >= 1 and k == s[-1] and len(s) <= 2 else None
        if len(s) == 1:
            shape = (2,) if k == s[-1] else None
    else:
        vector = b.chance(0.25)
        y = b.leaf((k,) if vector else (k, 3), grad=b.chance(0.7))
        if k != s[-1]:
            shape = None
        elif "mm" in form:
            shape = (s[0], 3) if len(s) == 2 and not vector else None
        else:
            shape = s[:-1] + (() if vector else (3,))
    expr = form.format(x=x.name, y=y.name)
    return b.assign(expr, shape, f"matmul:{form}", "float64", x.grad or y.grad)


def op_softmax(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    d, form = b.dim(len(x.shape)), b.pick(SOFTMAX)
    ok = valid_dim(d, len(x.shape)) or "{d}" not in form
    return b.assign(
        form.format(x=x.name, d=d), x.shape if ok else None, f"softmax:{form}", x.dtype, x.grad
    )


def op_loss(b: Builder, x: Var) -> Var | None:
    """A loss of x against targets: mse, cross-entropy (classes or probabilities), nll, BCE."""
    s = x.shape
    if s is None:
        return None
    reduction = b.pick(["mean", "sum", "none", None])
    red = "" if reduction is None else f", reduction={reduction!r}"
    kind = b.integer(0, 5)
    if kind == 0:
        t = b.leaf(s if b.chance(0.9) else partner_shape(b, s), grad=b.chance(0.3))
        form = b.pick(
            ["F.mse_loss({x}, {t}{r})", "nn.MSELoss({R})({x}, {t})", "F.l1_loss({x}, {t}{r})"]
        )
        shape = () if reduction != "none" else broadcast(s, t.shape)
        tag = "loss.mse"
    elif kind in (1, 2, 3):
        if len(s) not in (1, 2) or not s[-1]:
            return None
        classes, batch = s[-1], (s[0],) if len(s) == 2 else ()
        ignore = ""
        if kind == 2 and b.chance(0.5):
            t = b.leaf(s, grad=False, low=0, high=1)  # probabilities as targets
            target = f"{t.name}.softmax(-1)"
        else:
            labels = b.rng.integers(0, classes, size=batch)
            if b.chance(0.05):
                labels = labels + classes  # a class out of range
            target = f"torch.tensor({labels.tolist()})"
            if b.chance(0.3):
                ignore = f", ignore_index={int(labels.reshape(-1)[0]) if labels.size else 0}"
        extras = red + ignore
        if b.chance(0.3):
            extras += f", weight=torch.tensor({self_weights(b, classes)})"
        if b.chance(0.25) and kind != 3:
            extras += ", label_smoothing=0.1"
        if kind == 3:
            form = b.pick(
                [
                    "F.nll_loss({x}.log_softmax(-1), {t}{e})",
                    "nn.NLLLoss({E})({x}.log_softmax(-1), {t})",
                ]
            )
        else:
            form = b.pick(["F.cross_entropy({x}, {t}{e})", "nn.CrossEntropyLoss({E})({x}, {t})"])
        expr = form.format(x=x.name, t=target, e=extras, E=extras.lstrip(", "))
        shape = () if reduction != "none" else batch
        return b.assign(
            expr, shape, f"loss.{'nll' if kind == 3 else 'cross_entropy'}:{form}", "float64", x.grad
        )
    else:
        t = b.leaf(s, grad=False, low=0, high=1)
        form = b.pick(
            [
                "F.binary_cross_entropy_with_logits({x}, {t}{r})",
                "nn.BCEWithLogitsLoss({R})({x}, {t})",
                "F.binary_cross_entropy({x}.sigmoid(), {t}{r})",
                "nn.BCEWithLogitsLoss(pos_weight=torch.tensor(2.0){r})({x}, {t})",
            ]
        )
        shape = () if reduction != "none" else s
        tag = "loss.bce"
    expr = form.format(x=x.name, t=t.name, r=red, R=red.lstrip(", "))
    return b.assign(expr, shape, f"{tag}:{form}", "float64", x.grad or t.grad)


def self_weights(b: Builder, classes: int) -> list:
    return np.round(b.rng.uniform(0.5, 2.0, size=classes), 2).tolist()


def op_index(b: Builder, x: Var) -> Var | None:
    """x[index] with ints, slices, None, Ellipsis, lists and index tensors, PyTorch's rules."""
    if x.shape is None:
        return None
    expr, shape, form = index_expression(b, x.shape)
    return b.assign(f"{x.name}[{expr}]", shape, f"index.get:{form}", x.dtype, x.grad)


def index_expression(b: Builder, s: tuple) -> tuple[str, tuple | None, str]:
    """An index for a tensor of shape ``s``: its source, the result's shape, its form. Now and
    then an entry is out of range on purpose (then every slice is whole: PyTorch skips the
    range check when a slice leaves nothing to index)."""
    parts, out_of_range = [], False
    for axis in range(b.integer(1, len(s)) if s else 0):
        size = s[axis]
        kind = b.pick(["int", "slice", "slice", "list", "tensor", "neg"]) if size else "slice"
        if kind in ("int", "neg"):
            i = b.integer(0, size - 1)
            if b.chance(0.04):
                i, out_of_range = size, True
            parts.append(str(i - size if kind == "neg" else i))
        elif kind == "slice":
            start, stop = b.integer(0, size), b.integer(0, size)
            text = f"{start if start else ''}:{stop if b.chance(0.7) else ''}"
            text += f":{b.pick([2])}" if b.chance(0.3) else ""
            parts.append(":" if b.chance(0.3) else text)
        else:
            idx = b.rng.integers(-size, size, size=b.integer(1, 3)).tolist()
            if b.chance(0.04):
                idx[0], out_of_range = size, True
            parts.append(repr(idx) if kind == "list" else f"torch.tensor({idx})")
    if out_of_range:
        parts = [":" if _kind_of(p) == "slice" else p for p in parts]
    if b.chance(0.15):
        parts.insert(b.integer(0, len(parts)), "None")
    if b.chance(0.1):
        parts.append("...")
    parts = parts or [":"]
    form = ",".join(p if p in (":", "None", "...") else _kind_of(p) for p in parts)
    return ", ".join(parts), _torch_index_shape(s, parts), form


def mixed_index_expression(b: Builder, s: tuple) -> tuple[str, tuple | None, str]:
    """An int, a slice and a list (or index tensor) on the three axes of ``s``, in a random
    order: where PyTorch's axis order differs from numpy's (ints are not advanced indices)."""
    order = b.rng.permutation(3).tolist()
    parts = [""] * 3
    for kind, axis in zip(("int", "slice", "list"), order, strict=True):
        size = s[axis]
        if kind == "int":
            parts[axis] = str(b.integer(-size, size - 1))
        elif kind == "slice":
            parts[axis] = b.pick([":", f"{b.integer(0, size - 1)}:", f"::{2}"])
        else:
            idx = b.rng.integers(-size, size, size=b.integer(1, 3)).tolist()
            parts[axis] = repr(idx) if b.chance(0.5) else f"torch.tensor({idx})"
    form = ",".join(p if p == ":" else _kind_of(p) for p in parts)
    return ", ".join(parts), _torch_index_shape(s, parts), form


def _kind_of(part: str) -> str:
    if part.startswith("["):
        return "list"
    if part.startswith("torch"):
        return "tensor"
    if ":" in part:
        return "slice"
    return "int"


def _slice(text: str) -> slice:
    bits = [int(v) if v else None for v in text.split(":")]
    return slice(*bits)


def _torch_index_shape(s: tuple, parts: list[str]) -> tuple | None:
    """PyTorch's result shape: ints select first (they are not advanced indices, unlike
    numpy's), then the advanced indices broadcast together and go where they stand if
    adjacent, first otherwise."""
    dims = list(s)
    items = []
    if "..." in parts:
        k = parts.index("...")
        consumed = sum(p not in ("None", "...") for p in parts)
        fill = len(dims) - consumed
        parts = parts[:k] + [":"] * max(fill, 0) + parts[k + 1 :]
    axis = 0
    for p in parts:
        if p == "None":
            items.append(("new", 1))
            continue
        if axis >= len(dims):
            return None
        size = dims[axis]
        axis += 1
        kind = _kind_of(p)
        if kind == "int":
            i = int(p)
            if not -size <= i < size:
                return None
        elif kind == "slice":
            items.append(("basic", len(range(size)[_slice(p)])))
        else:
            idx = eval(p.replace("torch.tensor", ""))  # noqa: S307 (our own literal)
            if any(not -size <= i < size for i in idx):
                return None
            items.append(("adv", len(idx)))
    items += [("basic", v) for v in dims[axis:]]
    adv = [i for i, (kind, _) in enumerate(items) if kind == "adv"]
    if not adv:
        return tuple(v for _, v in items)
    lengths = {items[i][1] for i in adv}
    lengths.discard(1)
    if len(lengths) > 1:
        return None
    length = lengths.pop() if lengths else 1
    adjacent = adv == list(range(adv[0], adv[-1] + 1))
    rest = [v for kind, v in items if kind != "adv"]
    if adjacent:
        before = [v for kind, v in items[: adv[0]]]
        after = [v for kind, v in items[adv[-1] + 1 :]]
        return tuple(before + [length] + after)
    return tuple([length] + rest)


def op_gather(b: Builder, x: Var) -> Var | None:
    s = x.shape
    if not s or 0 in s:
        return None
    n, d = len(s), b.dim(len(s))
    dd = d % n if valid_dim(d, n) else 0
    shape = tuple(b.integer(1, v) if i != dd else b.integer(1, 3) for i, v in enumerate(s))
    index = b.rng.integers(0, s[dd], size=shape)
    if b.chance(0.04):
        index.reshape(-1)[0] = s[dd]
    form = b.pick(
        [
            "{x}.gather({d}, torch.tensor({i}))",
            "torch.gather({x}, {d}, torch.tensor({i}))",
            "torch.gather({x}, dim={d}, index=torch.tensor({i}))",
        ]
    )
    ok = valid_dim(d, n) and index.max() < s[dd]
    expr = form.format(x=x.name, d=d, i=index.tolist())
    return b.assign(expr, shape if ok else None, f"index.gather:{form}", x.dtype, x.grad)


def op_masked_fill(b: Builder, x: Var) -> Var | None:
    if x.shape is None:
        return None
    form = b.pick(
        [
            "{x}.masked_fill({x} > 0.5, 0.0)",
            "{x}.masked_fill({x} < 0, float('-inf')).softmax(-1)",
            "torch.masked_fill({x}, {x} > 0, -1.0)",
            "{x}.masked_fill(mask={x} == 1, value=2.0)",
        ]
    )
    return b.assign(form.format(x=x.name), x.shape, f"index.masked_fill:{form}", x.dtype, x.grad)


def op_logical(b: Builder, x: Var) -> Var | None:
    """Comparisons and bool logic, used as masks and counts."""
    if x.shape is None:
        return None
    form = b.pick(
        [
            "({x} > 0) & ({x} < 1)",
            "({x} > 0.5) | ({x} < -0.5)",
            "~({x} > 0)",
            "({x} == 1) ^ ({x} > 0)",
            "{x}.eq(1.0) | {x}.gt(1)",
            "torch.logical_and({x} > 0, {x} < 1)",
            "{x} >= {x}.mean()",
            "{x}.ne(0)",
            "torch.eq({x}, {x}.round())",
        ]
    )
    mask = b.assign(form.format(x=x.name), x.shape, f"logical:{form}", "bool")
    use = b.pick(list(MASK_USES))
    dtype, keeps_grad, shape = MASK_USES[use]
    expr, tag = use.format(m=mask.name, x=x.name), f"logical.use:{use}"
    out = b.assign(
        expr, x.shape if shape == "x" else shape, tag, dtype or x.dtype, x.grad and keeps_grad
    )
    return out if out.float and out.dtype == x.dtype else None


def op_compare_none(b: Builder, x: Var) -> Var | None:
    form = b.pick(["{x} == None", "{x} != None", "{x} is None", "{x}.eq(None)"])
    b.assign(form.format(x=x.name), (), f"compare.none:{form}", "bool")
    return None


TENSOR_OPS = [
    (op_unary, 5),
    (op_binary, 4),
    (op_reduce, 3),
    (op_maxmin, 2),
    (op_shape, 4),
    (op_matmul, 1.5),
    (op_softmax, 1),
    (op_loss, 1),
    (op_index, 1.5),
    (op_gather, 0.5),
    (op_masked_fill, 0.5),
    (op_logical, 1),
    (op_compare_none, 0.2),
    (op_clamp_tensor, 0.6),
]


def gradients(b: Builder, z: Var, second: bool = True) -> None:
    """Record d(out)/d(leaves) of a weighted sum of ``z``, and a Hessian-vector product."""
    leaves = ", ".join(v.name for v in b.leaves)
    b.emit(
        f"w = torch.cos(torch.arange(float({z.name}.numel())) * 0.7 + 0.2).reshape({z.name}.shape)",
        "grad.weights",
    )
    b.emit(f"out = ({z.name} * w).sum()", "grad.out")
    b.emit("rec(out)", "grad.out")
    create = second and b.chance(0.8)
    form = b.pick(["grad([{l}], create_graph={c}, allow_unused=True)", "backward"])
    if form == "backward" or not create and b.chance(0.3):
        b.emit(f"out.backward(create_graph={create})", "grad.backward")
        b.emit(f"recv([v.grad for v in [{leaves}]])", "grad.backward")
        b.emit(f"g = [v.grad for v in [{leaves}]]", "grad.backward")
    else:
        b.emit(
            f"g = torch.autograd.grad(out, [{leaves}], create_graph={create}, allow_unused=True)",
            "grad.first",
        )
        b.emit("recv(g)", "grad.first")
    if not create:
        return
    b.emit(
        "s = sum((gi * torch.sin(torch.arange(float(gi.numel())) + 1.0).reshape(gi.shape)).sum()"
        " for gi in g if gi is not None)",
        "grad.second",
    )
    b.emit("recv(s)", "grad.second")
    b.emit(
        f"h = torch.autograd.grad(s, [{leaves}], allow_unused=True)"
        f" if torch.is_tensor(s) and s.requires_grad else [None] * len([{leaves}])",
        "grad.second",
    )
    # Where no second derivative flows, PyTorch gives None or a tensor that needs no grad
    # depending on how a derivative is written inside it: both mean zeros.
    b.emit(
        f"recv([torch.zeros_like(v) if hv is None else hv for v, hv in zip([{leaves}], h)])",
        "grad.second",
    )
