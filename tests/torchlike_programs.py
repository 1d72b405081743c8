"""Random PyTorch programs over the public ``torchlike`` surface, for the differential fuzzer.

A program is Python source written for PyTorch: a list of statements that use the names
``torch``, ``nn`` and ``F`` (``torch.nn.functional``) and ``rec(...)``, which records a value
for the comparison. :mod:`torchlike_outcomes` runs it once with ``torch`` bound to
``micrograd_edu.torchlike`` and once with PyTorch, and compares what each ``rec`` saw.

The generator knows PyTorch's shape rules (reductions, views, indexing, broadcasting), so it
writes mostly valid calls; with a small probability it writes an invalid one on purpose (a dim
out of range, shapes that do not broadcast, a method's missing argument), where both libraries
must raise. Every call form is drawn from a table: methods and ``torch.*`` functions,
positional and keyword arguments, tuples and lists of dims. Each statement carries a tag (the
family, the operation and the call form), so a difference is reported with its class.

>>> program = generate(7)
>>> program.family in FAMILIES and len(program.statements) == len(program.tags)
True
>>> generate(7).statements == program.statements   # a seed gives one program
True
"""

from __future__ import annotations

import numpy as np
from torchlike_builder import FAMILIES, WEIGHTS, Builder, Program, weighted
from torchlike_forms import DTYPE_EXPRS, HOOKS, LOSSES, MODELS, OPTIMISERS, SCHEDULERS
from torchlike_tensor_ops import (
    TENSOR_OPS,
    gradients,
    index_expression,
    mixed_index_expression,
)


def family_tensor(b: Builder) -> None:
    """A chain of operations from one leaf (new leaves join where an operation needs them),
    then first and second derivatives of the result."""
    current = b.leaf(b.shape())
    for _ in range(b.integer(2, 6)):
        out = weighted(b, TENSOR_OPS)(b, current)
        if out is None or out.shape is None:
            break
        current = out
    if current.grad and current.dtype == "float64" and current.shape is not None:
        gradients(b, current)


def family_index(b: Builder) -> None:
    """Indexing on get and on set, in and out of a graph."""
    x = b.leaf(b.pick([(3, 4), (2, 3, 4), (4,), (2, 3), (3, 2, 2)]))
    for _ in range(b.integer(1, 3)):
        kind = b.integer(0, 3)
        if len(x.shape) == 3 and 0 not in x.shape and b.chance(0.4):  # int, slice, list
            expr, shape, form = mixed_index_expression(b, x.shape)
        else:
            expr, shape, form = index_expression(b, x.shape)
        if kind == 0:
            x = b.assign(f"{x.name}[{expr}]", shape, f"index.get:{form}", "float64", True)
            if shape is None:
                return
        else:
            z = b.assign(f"{x.name} * 1.0", x.shape, "index.copy", "float64", True, record=False)
            if shape is None or kind == 1:
                value = b.pick(["0.0", "-1.5", "float('nan')"])
            else:
                y = b.leaf(shape[b.integer(0, len(shape)) :] if shape else (), grad=b.chance(0.7))
                value = y.name
            b.emit(f"{z.name}[{expr}] = {value}", f"index.set:{form}")
            b.emit(f"rec({z.name})", f"index.set:{form}")
            if kind == 3:
                b.emit(
                    f"with torch.no_grad():\n    {x.name}[{expr}] = 0.25", f"index.set_leaf:{form}"
                )
                b.emit(f"rec({x.name})", f"index.set_leaf:{form}")
            x = z
    if x.shape is not None:
        b.emit(f"rec({x.name}.shape)", "index.shape")
        gradients(b, x, second=b.chance(0.3))


def family_autograd(b: Builder) -> None:
    """Hooks, fan-out, accumulation, retain_grad, backward's forms, modes and in-place changes."""
    shape = b.pick([(3,), (2, 3), (4,)])
    x = b.leaf(shape)
    y = b.leaf(shape[-1:], grad=b.chance(0.6), low=0.5, high=2.0)
    if b.chance(0.5):
        hook = b.pick(HOOKS)
        b.emit(f"hx = {x.name}.register_hook({hook})", f"hook.leaf:{hook}")
    a = b.assign(
        f"{x.name}.{b.pick(['tanh', 'exp', 'sin', 'sigmoid'])}()", shape, "fan.a", grad=True
    )
    c = b.assign(
        b.pick(
            [
                "{x} * {y}",
                "{x} / {y}",
                "({x} * {x}) / {y}",
                "{x} + {x}",
                "{x} ** 2 + {y}",
            ]
        ).format(x=x.name, y=y.name),
        shape,
        "fan.c",
        grad=True,
    )
    if b.chance(0.3):
        a_hook = b.pick(HOOKS)
        b.emit(f"{a.name}.register_hook({a_hook})", f"hook.nonleaf:{a_hook}")
    if b.chance(0.3):
        b.emit(f"{a.name}.retain_grad()", "retain_grad")
    inplace = b.integer(0, 9)
    if inplace == 0:
        alias = b.fresh()
        b.emit(f"{alias} = {a.name}\n{a.name} += 1", "inplace.graph_iadd")
        b.emit(f"rec({alias}, {a.name} is {alias})", "inplace.graph_iadd")
    elif inplace == 1:
        b.emit(f"{a.name}.mul_(2)", "inplace.graph_mul_")
    elif inplace == 2:
        b.emit(f"d = {a.name}.detach()\nd.zero_()", "inplace.detach")
        b.emit(f"rec({a.name})", "inplace.detach")
    elif inplace == 3:
        form = b.pick(["{a}.view(-1)", "{a}[0]", "{a}.t()" if len(shape) == 2 else "{a}[:2]"])
        b.emit(f"u = {form.format(a=a.name)}\nu.mul_(3)", f"inplace.view:{form}")
        b.emit(f"rec({a.name}, u)", f"inplace.view:{form}")
    elif inplace == 4:
        b.emit(f"{x.name}.add_(1)", "inplace.leaf_requires_grad")
    elif inplace == 5:
        b.emit(f"with torch.no_grad():\n    {x.name}.mul_(0.5)", "inplace.leaf_no_grad")
    loss = b.assign(f"({a.name} * {c.name}).sum()", (), "fan.loss", grad=True)
    leaves = f"[{x.name}, {y.name}]" if y.grad else f"[{x.name}]"
    how = b.integer(0, 7)
    if how == 0:
        b.emit(f"{loss.name}.backward()", "backward.plain")
    elif how == 1:
        b.emit(
            f"{loss.name}.backward(retain_graph=True)\n{loss.name}.backward()",
            "backward.accumulate",
        )
    elif how == 2:
        b.emit(f"{loss.name}.backward()\n{loss.name}.backward()", "backward.twice_freed")
    elif how == 3:
        b.emit(f"torch.autograd.backward({loss.name})", "backward.function")
    elif how == 4:
        b.emit(f"{c.name}.backward(torch.ones_like({c.name}))", "backward.gradient")
    elif how == 5:
        b.emit(f"{c.name}.backward()", "backward.nonscalar")
    elif how == 6:
        b.emit(
            f"(gx,) = torch.autograd.grad({loss.name}, {x.name}, create_graph=True)\n"
            f"(gx * gx).sum().backward()",
            "backward.double",
        )
    else:
        b.emit(
            f"if 'hx' in dir():\n    hx.remove()\n{loss.name}.backward()",
            "backward.hook_removed",
        )
    b.emit(f"rec([v.grad for v in {leaves}])", "backward.grads")
    if b.chance(0.3):
        b.emit(f"rec({a.name}.grad)", "backward.nonleaf_grad")
    mode = b.integer(0, 4)
    if mode == 0:
        b.emit(f"with torch.no_grad():\n    m = {x.name} * 2", "mode.no_grad")
        b.emit("rec(m.requires_grad)", "mode.no_grad")
    elif mode == 1:
        b.emit(
            f"with torch.no_grad():\n    with torch.enable_grad():\n        m = {x.name} * 2",
            "mode.enable_grad",
        )
        b.emit("rec(m.requires_grad, m.is_leaf)", "mode.enable_grad")
    elif mode == 2:
        b.emit(
            f"with torch.set_grad_enabled(False):\n    m = {x.name} * 2\n"
            f"torch.set_grad_enabled(True)",
            "mode.set_grad_enabled",
        )
        b.emit("rec(m.requires_grad, torch.is_grad_enabled())", "mode.set_grad_enabled")
    elif mode == 3:
        b.emit(f"m = {x.name}.detach().requires_grad_()", "mode.requires_grad_")
        b.emit("rec(m.requires_grad, m.is_leaf, m.grad_fn is None)", "mode.requires_grad_")


def family_dtype(b: Builder) -> None:
    """dtypes: promotion, conversions, constructors, Python values and dtype comparisons."""
    n = b.pick([3, 4])
    names = {}
    for key, dtype in (("i", "int64"), ("i32", "int32"), ("b", "bool"), ("b2", "bool")):
        names[key] = b.leaf((n,), grad=False, dtype=dtype).name
    names["f32"] = b.leaf((n,), grad=False, dtype="float32").name
    names["f"] = b.leaf((n,), grad=False).name
    for _ in range(b.integer(3, 8)):
        expr, kind = b.pick(DTYPE_EXPRS)
        b.emit(f"rec({expr.format(**names)})", f"dtype:{expr}")


def family_train(b: Builder) -> None:
    """A model, a loss, an optimiser (parameter groups too), schedulers, clipping, a few
    steps; losses, learning rates and weights recorded."""
    model = b.pick(MODELS)
    b.emit(f"model = {model}", "train.model")
    b.emit(
        "with torch.no_grad():\n    for k, p in enumerate(model.parameters()):\n"
        "        p.copy_(0.5 * torch.sin(torch.arange(float(p.numel())) * 0.37 + k)"
        ".reshape(p.shape))",
        "train.init",
    )
    X = b.values((6, 3))
    b.emit(f"X = torch.tensor({X.tolist()})", "train.data")
    loss, target = b.pick(LOSSES)
    if "LogSoftmax" not in model and target == "log-probabilities":
        loss, target = "nn.CrossEntropyLoss()", "labels"
    if target == "labels":
        b.emit(f"Y = torch.tensor({b.rng.integers(0, 2, size=6).tolist()})", "train.targets")
    elif target == "probabilities":
        b.emit(f"Y = torch.tensor({np.round(b.rng.random((6, 2)), 2).tolist()})", "train.targets")
    else:
        b.emit(f"Y = torch.tensor({b.values((6, 2)).tolist()})", "train.targets")
    b.emit(f"loss_fn = {loss}", f"train.loss:{loss}")
    params = b.pick(
        [
            "model.parameters()",
            "list(model.parameters())",
            "[{'params': model[0].parameters(), 'lr': 0.05}, {'params': model[-1].parameters()}]",
        ]
    )
    opt = b.pick(OPTIMISERS)
    if "{'params'" in params and ("0.1, 0.5" in opt or opt.endswith("0.01)") and "lr" not in opt):
        params = "model.parameters()"
    frozen = b.chance(0.3)
    if frozen:
        b.emit("model[0].bias.requires_grad_(False)", "train.frozen")
    b.emit(f"opt = {opt.format(p=params)}", f"train.optimiser:{opt}")
    schedulers = []
    if b.chance(0.6):
        schedulers.append(b.pick(SCHEDULERS))
        if b.chance(0.3):
            schedulers.append(b.pick(SCHEDULERS))
    for k, sched in enumerate(schedulers):
        b.emit(f"sched{k} = {sched}", f"train.scheduler:{sched}")
    clip = b.pick(
        [
            "",
            "nn.utils.clip_grad_norm_(model.parameters(), 0.5)",
            "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, norm_type=1)",
            "nn.utils.clip_grad_value_(model.parameters(), 0.05)",
            "nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)",
        ]
    )
    manual = b.integer(1, 4) if b.chance(0.25) else -1
    zero = b.pick(["opt.zero_grad()", "model.zero_grad()", "opt.zero_grad(set_to_none=False)"])
    body = [
        f"for step in range({b.integer(3, 6)}):",
        f"    {zero}",
        "    loss = loss_fn(model(X), Y)",
        "    loss.backward()",
    ]
    if clip:
        body.append(f"    recl({clip})")
    body.append("    opt.step()")
    body += [f"    sched{k}.step()" for k in range(len(schedulers))]
    if manual >= 0:
        body.append(
            f"    if step == {manual}:\n        for group in opt.param_groups:\n"
            "            group['lr'] = group['lr'] * 0.5"
        )
    body.append("    recl(loss, [g['lr'] for g in opt.param_groups])")
    if schedulers:
        body.append("    rec(sched0.get_last_lr())")
    b.emit("\n".join(body), f"train.loop:{opt}|{'+'.join(schedulers)}|{clip}|manual={manual >= 0}")
    b.emit("recl(list(model.parameters()))", "train.weights")
    b.emit("rec(len(opt.state), sorted(opt.state_dict()['state']))", "train.state")
    if "BatchNorm" in model:
        b.emit(
            "recl(model[1].running_mean, model[1].running_var, model[1].num_batches_tracked)",
            "train.batchnorm",
        )
        b.emit("model.eval()\nrecl(model(X))", "train.eval")
    if b.chance(0.3):
        b.emit("rec(sorted(model.state_dict()))", "train.state_dict_keys")


def family_data(b: Builder) -> None:
    """TensorDataset and DataLoader (batches, shuffling with a generator), save and load."""
    n = b.integer(4, 9)
    X = b.values((n, 2))
    b.emit(f"X = torch.tensor({X.tolist()})", "data.x")
    b.emit(f"Y = torch.arange({n})", "data.y")
    kind = b.integer(0, 3)
    if kind <= 1:
        b.emit("from torch.utils.data import TensorDataset, DataLoader", "data.import")
        b.emit("ds = TensorDataset(X, Y)", "data.dataset")
        b.emit("rec(len(ds), ds[1])", "data.dataset")
        batch = b.integer(1, 4)
        args = [f"batch_size={batch}"]
        if b.chance(0.6):
            args.append("shuffle=True")
            if b.chance(0.8):
                args.append(f"generator=torch.Generator().manual_seed({b.integer(0, 100)})")
            shuffled = "generator" not in args[-1]
        else:
            shuffled = False
        if b.chance(0.3):
            args.append("drop_last=True")
        loader = f"DataLoader(ds, {', '.join(args)})"
        b.emit(f"loader = {loader}", f"data.loader:{loader}")
        b.emit("rec(len(loader))", "data.len")
        record = "rec(xb.shape, yb.shape)" if shuffled else "rec(xb, yb)"
        b.emit(
            f"for epoch in range(2):\n    for xb, yb in loader:\n        {record}",
            f"data.iterate:{loader}",
        )
        if shuffled:  # the package's random order differs from PyTorch's: only what it holds
            seen = "len" if "drop_last" in loader else "sorted"
            b.emit(f"rec({seen}(torch.cat([yb for _, yb in loader]).tolist()))", "data.permutation")
    elif kind == 2:
        b.emit("import io", "data.import")
        b.emit(
            "model = nn.Linear(2, 3)\nbuf = io.BytesIO()\n"
            "torch.save(model.state_dict(), buf)\nbuf.seek(0)\n"
            "state = torch.load(buf)\nother = nn.Linear(2, 3)\nother.load_state_dict(state)",
            "data.save_state_dict",
        )
        b.emit("rec(sorted(state), torch.equal(other(X), model(X)))", "data.save_state_dict")
    else:
        b.emit("import io", "data.import")
        obj = b.pick(
            [
                "X",
                "{'x': X, 'epoch': 3, 'names': ['a', 'b']}",
                "[X, Y]",
                "(X * 2).requires_grad_()",
            ]
        )
        b.emit(
            f"buf = io.BytesIO()\ntorch.save({obj}, buf)\nbuf.seek(0)\nback = torch.load(buf)",
            f"data.save:{obj}",
        )
        b.emit("rec(back)", f"data.save:{obj}")


FAMILY_BUILDERS = {
    "tensor": family_tensor,
    "autograd": family_autograd,
    "dtype": family_dtype,
    "index": family_index,
    "train": family_train,
    "data": family_data,
}


def generate(seed: int, family: str | None = None) -> Program:
    """The program of ``seed`` (its family drawn from the seed unless given)."""
    if family is None:
        rng = np.random.default_rng(seed)
        family = FAMILIES[int(rng.choice(len(FAMILIES), p=np.array(WEIGHTS) / sum(WEIGHTS)))]
    b = Builder(seed, family)
    FAMILY_BUILDERS[family](b)
    return b.program
