"""Chapter 08's typical mistakes, written as a student writes them: walking a module tree,
freezing layers, SGD with momentum and Adam."""

import numpy as np

from micrograd_edu import no_grad, optim
from mistakes import Example


def named_parameters(module, prefix="", seen=None):
    seen = set() if seen is None else seen
    if id(module) in seen:
        return []
    seen.add(id(module))
    pairs = []
    for name, p in module._parameters.items():
        if id(p) not in seen:
            seen.add(id(p))
            pairs.append((prefix + name, p))
    for name, child in module.named_children():
        pairs += named_parameters(child, f"{prefix}{name}.", seen)
    return pairs


def freeze(model, names):
    modules = dict(model.named_modules())
    for name in names:
        modules[name].requires_grad_(False)


# --- the optimisers --------------------------------------------------------------------


class MySGD(optim.Optimizer):
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if "velocity" not in state:
                    state["velocity"] = p.grad.data.copy()
                else:
                    state["velocity"] = group["momentum"] * state["velocity"] + p.grad.data
                p.data -= group["lr"] * state["velocity"]


class MyAdam(optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                g, state = p.grad.data, self.state[p]
                if not state:
                    state.update(t=0, m=np.zeros_like(p.data), v=np.zeros_like(p.data))
                state["t"] += 1
                state["m"] = beta1 * state["m"] + (1 - beta1) * g
                state["v"] = beta2 * state["v"] + (1 - beta2) * g * g
                self.move(p, state, group)

    @staticmethod
    def move(p, state, group):
        (beta1, beta2), t = group["betas"], state["t"]
        m_hat = state["m"] / (1 - beta1**t)
        v_hat = state["v"] / (1 - beta2**t)
        p.data -= group["lr"] * m_hat / (np.sqrt(v_hat) + group["eps"])


class TensorSGD(optim.Optimizer):
    """Another correct way: tensor arithmetic in place under no_grad, a zero-started
    velocity kept in a dict of the optimiser's own."""

    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))
        self.velocities = {}

    def step(self):
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        v = self.velocities.get(id(p), 0.0)
                        v = group["momentum"] * v + p.grad
                        self.velocities[id(p)] = v
                        p -= group["lr"] * v


CORRECT = {"named_parameters": named_parameters, "freeze": freeze, "MySGD": MySGD, "MyAdam": MyAdam}


# --- the walk ---------------------------------------------------------------------------


def no_prefix(module):
    # the review's: each parameter under its own name, the path down to it left off
    out, seen = [], set()

    def walk(m):
        for name, p in m._parameters.items():
            if id(p) in seen:
                continue
            seen.add(id(p))
            out.append((name, p))
        for _, c in m.named_children():
            walk(c)

    walk(module)
    return out


def no_recursion(module):
    return list(module._parameters.items())


def no_dot(module, prefix=""):
    pairs = [(prefix + n, p) for n, p in module._parameters.items()]
    for name, child in module.named_children():
        pairs += no_dot(child, prefix + name)
    return pairs


def duplicates(module, prefix=""):
    pairs = [(prefix + n, p) for n, p in module._parameters.items()]
    for name, child in module._modules.items():
        pairs += duplicates(child, f"{prefix}{name}.")
    return pairs


def only_trainable(module):
    return [(n, p) for n, p in named_parameters(module) if p.requires_grad]


def children_first(module, prefix="", seen=None):
    seen = set() if seen is None else seen
    pairs = []
    for name, child in module.named_children():
        if id(child) not in seen:
            seen.add(id(child))
            pairs += children_first(child, f"{prefix}{name}.", seen)
    for name, p in module._parameters.items():
        if id(p) not in seen:
            seen.add(id(p))
            pairs.append((prefix + name, p))
    return pairs


def leading_dot(module, prefix=""):
    pairs = [(f"{prefix}.{n}", p) for n, p in module._parameters.items()]
    for name, child in module.named_children():
        pairs += leading_dot(child, f"{prefix}.{name}" if prefix else name)
    return pairs


# --- freezing ---------------------------------------------------------------------------


def attribute_only(model, names):
    modules = dict(model.named_modules())
    for name in names:
        modules[name].requires_grad = False  # a new attribute: nothing changes


def by_prefix(model, names):
    for full, p in model.named_parameters():
        if any(full.startswith(n) for n in names):
            p.requires_grad_(False)


def zeroed(model, names):
    modules = dict(model.named_modules())
    for name in names:
        for p in modules[name].parameters():
            p.data[...] = 0.0  # "frozen" at zero: what flows through it changes
            p.requires_grad_(False)


def own_only(model, names):  # the named module's own parameters, not its children's
    modules = dict(model.named_modules())
    for name in names:
        for p in modules[name]._parameters.values():
            p.requires_grad_(False)


def grads_cleared(model, names):  # .grad = None: backward fills it again
    modules = dict(model.named_modules())
    for name in names:
        for p in modules[name].parameters():
            p.grad = None


def detached(model, names):  # the input cut off, nothing switched off
    modules = dict(model.named_modules())
    for name in names:
        forward = modules[name].forward
        modules[name].forward = lambda x, f=forward: f(x.detach())


def frozen_and_cut(model, names):  # switched off, and the input cut off too
    freeze(model, names)
    detached(model, names)


WALK, FREEZE = "08.named_parameters", "08.freeze"


def one(name, mistake, function, **options):
    return Example(name, mistake, {name.split(".")[1]: function}, **options)


EXAMPLES = [
    one(WALK, "top module only", no_recursion),
    one(WALK, "no dot", no_dot),
    one(WALK, "listed twice", duplicates),
    one(WALK, "frozen left out", only_trainable),
    one(WALK, "order", children_first),
    one(WALK, "leading dot", leading_dot),
    one(WALK, "no prefix", no_prefix),
    one(WALK, None, lambda module: [n for n, _ in named_parameters(module)], label="names only"),
    one(FREEZE, "module attribute", attribute_only),
    one(FREEZE, "name prefix", by_prefix),
    one(FREEZE, "values changed", zeroed),
    one(FREEZE, "own parameters only", own_only),
    one(FREEZE, "nothing switched off", grads_cleared),
    one(FREEZE, "nothing switched off", detached, label="input detached"),
    one(FREEZE, "graph cut", frozen_and_cut),
]


# --- the optimisers' mistakes ----------------------------------------------------------


def sgd_variant(change):
    class Variant(optim.Optimizer):
        def __init__(self, params, lr=0.01, momentum=0.9):
            self.fixed_lr, self.shared = lr, {}
            super().__init__(params, dict(lr=lr, momentum=momentum))

        @no_grad()
        def step(self):
            for group in self.param_groups:
                hyper = self.defaults if change == "groups ignored" else group
                lr, mu = hyper["lr"], hyper["momentum"]
                lr = self.fixed_lr if change == "lr fixed" else lr
                for p in group["params"]:
                    g = p.grad.data if p.grad is not None else None
                    if g is None:
                        if change != "no gradient as zero":
                            continue
                        g = np.zeros_like(p.data)
                    state = self.shared if change.startswith("one velocity") else self.state[p]
                    if change == "one velocity, restarted" and np.shape(state.get("v")) != g.shape:
                        state.clear()  # a new shape: the shared velocity started again
                    v = state.get("v", np.zeros_like(p.data))
                    if change == "no momentum":
                        p.data -= lr * g
                        continue
                    if change == "stale":
                        p.data -= lr * v
                    new = {
                        "dampened": mu * v + (1 - mu) * g,
                        "dampened from g": mu * v + (1 - mu) * g if "v" in state else g.copy(),
                        "lr inside": mu * v + lr * g,
                    }.get(change, mu * v + g)
                    state["v"] = new
                    if change == "lr inside":
                        p.data -= new
                    elif change != "stale":
                        p.data -= lr * new

    return Variant


def adam_variant(change):
    class Variant(optim.Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
            self.fixed_lr, self.calls, self.updates = lr, 0, 0
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

        @no_grad()
        def step(self):
            self.calls += 1
            for group in self.param_groups:
                hyper = self.defaults if change == "groups ignored" else group
                (b1, b2), eps = hyper["betas"], hyper["eps"]
                lr = self.fixed_lr if change == "lr fixed" else hyper["lr"]
                for p in group["params"]:
                    g = None if p.grad is None else p.grad.data
                    if g is None:
                        if change != "no gradient as zero":
                            continue
                        g = np.zeros_like(p.data)
                    self.updates += 1
                    s = self.state[p]
                    if not s:
                        s.update(t=0, m=np.zeros_like(p.data), v=np.zeros_like(p.data))
                    s["t"] += 1
                    t = {
                        "t off by one": s["t"] + 1,
                        "t never grows": 1,
                        "t counts step calls": self.calls,
                        "t counts every update": self.updates,
                    }.get(change, s["t"])
                    s["m"] = b1 * s["m"] + (1 - b1) * g
                    s["v"] = b2 * s["v"] + (1 - b2) * (g if change == "not squared" else g**2)
                    m_hat, v_hat = s["m"] / (1 - b1**t), s["v"] / (1 - b2**t)
                    if change in ("no bias correction", "m not corrected"):
                        m_hat = s["m"]
                    if change in ("no bias correction", "v not corrected"):
                        v_hat = s["v"]
                    if change == "keeps corrected moments":
                        s["m"], s["v"] = m_hat, v_hat
                    if change == "eps inside":
                        root = np.sqrt(v_hat + eps)
                    else:
                        root = np.sqrt(np.abs(v_hat)) + eps
                    p.data -= lr * m_hat / root

    return Variant


class PaperAdam(MyAdam):
    """Kingma & Ba's algorithm 1 written in the order of their section 2: the step size
    corrected once, ε added to √v before the correction (where ε matters, optim.Adam's
    order differs from this one; both are Adam)."""

    @staticmethod
    def move(p, state, group):
        (beta1, beta2), t = group["betas"], state["t"]
        alpha = group["lr"] * np.sqrt(1 - beta2**t) / (1 - beta1**t)
        p.data -= alpha * state["m"] / (np.sqrt(state["v"]) + group["eps"])


class PaperAdamEpsInside(PaperAdam):
    @no_grad()
    def step(self):
        for group in self.param_groups:
            group["eps_kept"], group["eps"] = group["eps"], 0.0
        super().step()  # then ε where it does not belong: inside the square root
        for group in self.param_groups:
            group["eps"] = group.pop("eps_kept")


SGD, ADAM = "08.sgd_momentum", "08.adam"


class GradientSubtracted(optim.Optimizer):
    # the review's: the velocity starts at g, then takes each new gradient away
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                g = p.grad.data
                st["b"] = g.copy() if "b" not in st else group["momentum"] * st["b"] - g
                p.data -= group["lr"] * st["b"]


class Aliased(optim.Optimizer):
    # the review's (full marks before): the velocity is p.grad's own array, not a copy
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                g = p.grad.data
                if "b" not in st:
                    st["b"] = g
                else:
                    st["b"] *= group["momentum"]
                    st["b"] += g
                p.data -= group["lr"] * st["b"]


class PerShape(optim.Optimizer):
    # the review's: one velocity for all the parameters of a shape
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))
        self.buf = {}

    @no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                key = p.data.shape
                g = p.grad.data
                self.buf[key] = (
                    g.copy() if key not in self.buf else group["momentum"] * self.buf[key] + g
                )
                p.data -= group["lr"] * self.buf[key]


class LrCached(optim.Optimizer):
    # the review's: each group's lr read once, in __init__
    def __init__(self, params, lr=0.01, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))
        self.lr0 = [g["lr"] for g in self.param_groups]

    @no_grad()
    def step(self):
        for group, lr in zip(self.param_groups, self.lr0, strict=True):
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                g = p.grad.data
                st["b"] = g.copy() if "b" not in st else group["momentum"] * st["b"] + g
                p.data -= lr * st["b"]


def review_adam(swap=False, size=False):
    """The review's Adam: betas unpacked the wrong way round, or v from |g| with no root."""

    class Adam(optim.Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

        @no_grad()
        def step(self):
            for group in self.param_groups:
                lr, (b1, b2), eps = group["lr"], group["betas"], group["eps"]
                b1, b2 = (b2, b1) if swap else (b1, b2)
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    g = p.grad.data
                    st = self.state[p]
                    st["t"] = st.get("t", 0) + 1
                    st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
                    st["v"] = b2 * st.get("v", 0) + (1 - b2) * (np.abs(g) if size else g * g)
                    mh = st["m"] / (1 - b1 ** st["t"])
                    vh = st["v"] / (1 - b2 ** st["t"])
                    p.data -= lr * mh / ((vh if size else np.sqrt(vh)) + eps)

    return Adam


EXAMPLES += [
    Example(SGD, "gradient subtracted", {"MySGD": GradientSubtracted}),
    Example(SGD, "aliased", {"MySGD": Aliased}),
    Example(SGD, "one velocity", {"MySGD": PerShape}, label="one per shape"),
    Example(SGD, "lr fixed", {"MySGD": LrCached}, label="each group's, cached"),
    Example(ADAM, "betas swapped", {"MyAdam": review_adam(swap=True)}),
    Example(ADAM, "size, no root", {"MyAdam": review_adam(size=True)}),
    *(
        Example(SGD, name, {"MySGD": sgd_variant(change)}, label=change)
        for change, name in [
            ("no momentum", "no momentum"),
            ("one velocity", "one velocity"),
            ("one velocity, restarted", "one velocity"),
            ("dampened", "dampened"),
            ("dampened from g", "dampened from g"),
            ("stale", "stale"),
            ("lr inside", "lr inside"),
            ("no gradient as zero", "no gradient as zero"),
            ("groups ignored", "groups ignored"),
            ("lr fixed", "lr fixed"),
        ]
    ),
    *(
        Example(ADAM, name, {"MyAdam": adam_variant(change)}, label=change)
        for change, name in [
            ("no bias correction", "no correction"),
            ("m not corrected", "m not corrected"),
            ("v not corrected", "v not corrected"),
            ("keeps corrected moments", "corrected kept"),
            ("t off by one", "step number"),
            ("t never grows", "step number"),
            ("t counts step calls", "own step count"),
            ("t counts every update", "own step count"),
            ("eps inside", "eps inside"),
            ("not squared", "g not squared"),
            ("no gradient as zero", "no gradient as zero"),
            ("groups ignored", "groups ignored"),
            ("lr fixed", "lr fixed"),
        ]
    ),
    Example(ADAM, None, {"MyAdam": PaperAdamEpsInside}, label="the paper's, ε inside"),
]

RIGHT = [
    Example(SGD, None, {"MySGD": TensorSGD}, label="tensor arithmetic"),
    Example(ADAM, None, {"MyAdam": PaperAdam}, label="the paper's order"),
]
