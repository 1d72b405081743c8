"""The child knows no answer (issue 10): a submission that reaches for the grader's
references, oracles or the package's withheld code, by import, by reading the files, by
reloading a module, through ``__mro__``, or by asking for a reference before its own
version was reported, earns nothing; the honest solution next to it keeps full marks."""

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from micrograd_edu.course.cli import main
from micrograd_edu.grading import batch, chapter, view
from micrograd_edu.grading.notebook import dumps, read_notebook
from micrograd_edu.grading.stubbed import stub_source

ROOT = Path(__file__).resolve().parents[1]

# Every way a 04 submission might find a topological order it did not write: the
# grader's references and judges (imported, or read from disk and run, or from a
# compiled copy), the package's own (reloaded, or its file run afresh).
STEALS_THE_ORDER = r"""
import importlib, marshal, pathlib, sys
import micrograd_edu, micrograd_edu.scalar.graph
from micrograd_edu.grading import chapter04

root = pathlib.Path(micrograd_edu.__file__).parent
found = []

def works(candidate):
    from micrograd_edu import Value
    a = Value(1.0); b = a * 2
    try:
        return callable(candidate) and len(candidate(b)) == 3
    except Exception:
        return False

def attempt(make):
    try:
        candidate = make()
    except Exception:
        return
    if works(candidate):
        found.append(candidate)

attempt(lambda: __import__("micrograd_edu.grading.references", fromlist=["x"]).topological_order)
attempt(lambda: chapter04.topological_order)
attempt(lambda: chapter04.exercise("04.backward").requires["topological_order"])
attempt(lambda: importlib.reload(micrograd_edu.scalar.graph).topological_order)

def run_file(path, name):
    scope = {"__name__": "stolen"}
    exec(compile(pathlib.Path(path).read_text(), str(path), "exec"), scope)
    return scope[name]

attempt(lambda: run_file(root / "grading" / "references" / "__init__.py", "topological_order"))
attempt(lambda: run_file(root / "scalar" / "graph.py", "topological_order"))
for cached in root.rglob("*.pyc"):
    def from_pyc(cached=cached):
        scope = {"__name__": "stolen"}
        exec(marshal.loads(cached.read_bytes()[16:]), scope)
        return scope.get("topological_order") or scope.get("_reference_order")
    attempt(from_pyc)

if found:
    topological_order = found[0]
"""

# A forged request for 04.backward's reference, sent (with the real nonce, from the
# child's own frames) before the student's topological_order was reported.
ASKS_EARLY = r"""
import json, sys
frame = sys._getframe()
while frame is not None and "task_pipe" not in frame.f_locals:
    frame = frame.f_back
if frame is not None:
    frame.f_locals["send"](event="requires", id="04.backward")
    answer = json.loads(frame.f_locals["task_pipe"].readline())
    scope = {}
    for name, (function, source) in answer.get("sources", {}).items():
        exec("from __future__ import annotations\n" + source, scope)
    if "topological_order" in scope:
        topological_order = scope["topological_order"]
"""

# 06: the Tensor engine's backward, reached through nn.Parameter.__mro__ after reloading
# the modules that were withheld, computes unbroadcast for the student.
TENSOR_THROUGH_MRO = r"""
import importlib
import numpy as np
from micrograd_edu import nn

for name in ("micrograd_edu.tensor.shape", "micrograd_edu.tensor.backward"):
    try:
        importlib.reload(importlib.import_module(name))
    except Exception:
        pass

def unbroadcast(grad, shape):
    Tensor = nn.Parameter.__mro__[1]
    x = Tensor(np.zeros(shape), requires_grad=True)
    y = x + np.zeros(np.shape(grad))
    y.backward(np.asarray(grad, dtype=float))
    return np.asarray(x.grad.data)
"""


# 08: the package's walk of a module tree, borrowed for the grader's modules: called
# unbound, after a __class__ swap, through state_dict's names, from the module reloaded or
# its file run afresh. The first that answers is the submission's named_parameters.
BORROWS_THE_WALK = r"""
import importlib, pathlib
import micrograd_edu
from micrograd_edu import nn


def _fresh_module_class():
    path = pathlib.Path(micrograd_edu.__file__).parent / "nn" / "module.py"
    scope = {"__name__": "micrograd_edu.nn.stolen", "__package__": "micrograd_edu.nn"}
    exec(compile(path.read_text(), str(path), "exec"), scope)
    return scope["Module"]


def _walk_with(module_class, module):
    pairs, seen = [], set()
    for prefix, node in module_class.named_modules(module):
        for name, p in node._parameters.items():
            if id(p) not in seen:
                seen.add(id(p))
                pairs.append((f"{prefix}.{name}" if prefix else name, p))
    return pairs


def _reloaded():
    return importlib.reload(importlib.import_module("micrograd_edu.nn.module")).Module


def _by_state_dict(module):
    pairs, seen = [], set()
    for name in nn.Module.state_dict(module):
        obj = module
        for part in name.split("."):
            obj = getattr(obj, part)
        if id(obj) not in seen:
            seen.add(id(obj))
            pairs.append((name, obj))
    return pairs


def _swapped(module):
    object.__setattr__(module, "__class__", nn.Module)
    return list(module.named_parameters())


ATTEMPTS = [
    lambda m: list(nn.Module.named_parameters(m)),
    _by_state_dict,
    lambda m: list(nn.Module._all_parameters(m)),
    _swapped,
    lambda m: _walk_with(_fresh_module_class(), m),
    lambda m: _walk_with(_reloaded(), m),
]


def named_parameters(module):
    for attempt in ATTEMPTS:
        try:
            return attempt(module)
        except Exception:
            continue
    return []
"""


# 08: the package's SGD and Adam steps, borrowed: inherited, from the module reloaded, or
# from its file run afresh. The first that moves a parameter is the submission's step.
BORROWS_THE_OPTIMISERS = r"""
import importlib, pathlib
import numpy as np
import micrograd_edu
from micrograd_edu import Tensor, optim


def _fresh(module, name):
    path = pathlib.Path(micrograd_edu.__file__).parent / "optim" / f"{module}.py"
    scope = {"__name__": f"micrograd_edu.optim.{module}", "__package__": "micrograd_edu.optim"}
    exec(compile(path.read_text(), str(path), "exec"), scope)
    return scope[name]


def _reloaded(module, name):
    return getattr(importlib.reload(importlib.import_module(f"micrograd_edu.optim.{module}")), name)


def _borrowing(module, name):
    package = getattr(optim, name)

    class Borrowed(package):
        def step(self):
            if not hasattr(self, "shadow"):  # the first source whose step works
                sources = [lambda: package, lambda: _reloaded(module, name)]
                for source in sources + [lambda: _fresh(module, name)]:
                    try:
                        cls = source()
                        probe = Tensor(np.ones(1), requires_grad=True)
                        probe.grad = Tensor(np.ones(1))
                        cls([probe]).step()
                        self.shadow = cls(self.param_groups)
                        break
                    except Exception:
                        continue
            for mine, theirs in zip(self.param_groups, self.shadow.param_groups):
                theirs.update({k: v for k, v in mine.items() if k != "params"})
            self.shadow.step()

    return Borrowed


MySGD = _borrowing("sgd", "SGD")
MyAdam = _borrowing("adam", "Adam")
"""


def _with_cell(solution: str, cell_id: str, source: str, path: Path) -> Path:
    nb = read_notebook(ROOT / "solutions" / solution)
    cell = next(c for c in nb["cells"] if c.get("id") == cell_id)
    cell["source"] = source
    path.write_text(dumps(nb), encoding="utf-8")
    return path


def _grade(paths: list[Path], tmp_path: Path, chapter: str) -> dict[str, dict]:
    out = tmp_path / "gradebook.csv"
    argv = ["grade", *map(str, paths), "--csv", str(out), "--workers", "2", "--chapter", chapter]
    assert main(argv) == 0
    with open(out, newline="") as f:
        return {row["submission"]: row for row in csv.DictReader(f)}


def test_a_submission_finds_no_topological_order_it_did_not_write(sandboxed, tmp_path):
    steals = _with_cell("04_reverse.ipynb", "order-code", STEALS_THE_ORDER, tmp_path / "s.ipynb")
    early = _with_cell("04_reverse.ipynb", "order-code", ASKS_EARLY, tmp_path / "e.ipynb")
    honest = tmp_path / "honest.ipynb"
    honest.write_bytes((ROOT / "solutions" / "04_reverse.ipynb").read_bytes())
    rows = _grade([steals, early, honest], tmp_path, "04")
    for name in ("s.ipynb", "e.ipynb"):
        assert float(rows[name]["04.topological_order"]) == 0, rows[name]
        assert float(rows[name]["04.backward"]) == 2, rows[name]  # its own backward is right
    assert float(rows["honest.ipynb"]["score"]) == float(rows["honest.ipynb"]["max_score"])


def test_the_tensor_engine_stays_withheld_through_reload_and_mro(sandboxed, tmp_path):
    attack = _with_cell(
        "06_tensors.ipynb", "unbroadcast-code", TENSOR_THROUGH_MRO, tmp_path / "mro.ipynb"
    )
    rows = _grade([attack], tmp_path, "06")
    assert float(rows["mro.ipynb"]["06.unbroadcast"]) == 0, rows["mro.ipynb"]


def test_the_module_walk_stays_withheld_and_the_rest_of_the_chapter_keeps_it(sandboxed, tmp_path):
    borrows = _with_cell("08_modules.ipynb", "walk-code", BORROWS_THE_WALK, tmp_path / "b.ipynb")
    honest = tmp_path / "honest.ipynb"
    honest.write_bytes((ROOT / "solutions" / "08_modules.ipynb").read_bytes())
    rows = _grade([borrows, honest], tmp_path, "08")
    assert float(rows["b.ipynb"]["08.named_parameters"]) == 0, rows["b.ipynb"]
    # its freeze and optimisers, graded in the other process, walk the package's modules
    assert float(rows["b.ipynb"]["score"]) == float(rows["b.ipynb"]["max_score"]) - 2
    assert float(rows["honest.ipynb"]["score"]) == float(rows["honest.ipynb"]["max_score"])
    assert rows["honest.ipynb"]["reason"] == ""  # no cell of it failed in either process


def _borrowing_optimisers(path: Path) -> Path:
    _with_cell("08_modules.ipynb", "sgd-code", BORROWS_THE_OPTIMISERS, path)
    nb = read_notebook(path)
    next(c for c in nb["cells"] if c.get("id") == "adam-code")["source"] = "# (borrowed above)"
    path.write_text(dumps(nb), encoding="utf-8")
    return path


def test_the_package_optimisers_stay_withheld_through_reload_and_files(sandboxed, tmp_path):
    rows = _grade([_borrowing_optimisers(tmp_path / "o.ipynb")], tmp_path, "08")
    row = rows["o.ipynb"]
    assert float(row["08.sgd_momentum"]) == float(row["08.adam"]) == 0, row
    assert float(row["score"]) == 3, row  # its walk and its freeze are the solution's


def test_even_without_the_sandbox_the_optimisers_stay_withheld(tmp_path):
    """Unsandboxed too: the optimisers' modules are withheld whole, every function of
    theirs disabled in place, so the package's classes the attack reaches first raise
    (a reloaded module brought the steps back when only names were withheld)."""
    path = _borrowing_optimisers(tmp_path / "o.ipynb")
    row = batch.grade_submission(path, chapter("08"), "seed", batch.Limits(isolation="none"))
    scores = {r.id: r.score for r in row.results}
    assert scores["08.sgd_momentum"] == scores["08.adam"] == 0, row
    reasons = [
        c.reason for r in row.results for c in r.checks if r.id in ("08.sgd_momentum", "08.adam")
    ]
    assert any("is withheld while grading" in reason for reason in reasons), reasons


def test_without_the_sandbox_the_same_notebook_does_borrow_the_walk(tmp_path):
    """The control: unsandboxed, the package's module.py is there to run afresh."""
    borrows = _with_cell("08_modules.ipynb", "walk-code", BORROWS_THE_WALK, tmp_path / "b.ipynb")
    out = tmp_path / "gradebook.csv"
    argv = ["grade", str(borrows), "--csv", str(out), "--no-sandbox", "--chapter", "08"]
    assert main(argv) == 0
    with open(out, newline="") as f:
        row = next(csv.DictReader(f))
    assert float(row["08.named_parameters"]) == 2, row


def test_without_the_sandbox_the_same_attack_does_get_the_engine(tmp_path):
    """The control for the test above: outside the sandbox the engine's backward answers
    (so that test fails for the reason it names, not because the attack is broken)."""
    code = TENSOR_THROUGH_MRO + "\nprint(unbroadcast(np.ones((2, 3)), (1, 3)).tolist())\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "[[2.0, 2.0, 2.0]]", done.stderr


def test_the_runners_import_nothing_the_sandbox_hides():
    hidden = [
        f"micrograd_edu.grading.{path.stem}"
        for path in (ROOT / "micrograd_edu" / "grading").glob("*.py")
        if path.name not in view.CHILD_MODULES
    ]
    runners = sorted(p.stem for p in (ROOT / "micrograd_edu/grading/runners").glob("chapter*.py"))
    code = f"""
import importlib.abc, importlib.util, sys
class Hidden(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    # as in the sandbox: a hidden module is an empty file
    def find_spec(self, name, path, target=None):
        if name in {hidden!r}:
            return importlib.util.spec_from_loader(name, self)
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        pass
sys.meta_path.insert(0, Hidden())
import micrograd_edu.grading.child
for name in {runners!r}:
    importlib.import_module("micrograd_edu.grading.runners." + name)
print("ok")
"""
    hide_init = code.replace("import micrograd_edu.grading.child", "import micrograd_edu")
    for program in (code, hide_init):
        done = subprocess.run(
            [sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT
        )
        assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_a_stubbed_definition_raises_and_the_rest_of_the_file_is_kept():
    source = (
        "import math\n\n"
        "def answer(x):\n    '''The answer.'''\n    return math.sqrt(x)\n\n"
        "def kept(x):\n    return x + 1\n\n"
        "class Engine:\n    def __init__(self, x):\n        self.x = x\n"
        "    def backward(self):\n        return 'grads'\n"
        "    def value(self):\n        return self.x\n"
    )
    scope: dict = {}
    names = {"answer": "pkg.answer", "Engine": "pkg.Engine"}
    exec(stub_source(source, names), scope)
    assert scope["kept"](1) == 2
    for call in (lambda: scope["answer"](4.0), lambda: scope["Engine"](1)):
        with pytest.raises(PermissionError, match="withheld while grading"):
            call()
    engine = object.__new__(scope["Engine"])
    engine.x = 3
    assert engine.value() == 3
    with pytest.raises(PermissionError, match="pkg.Engine is withheld"):
        engine.backward()
    # one method of a class: that method alone
    scope = {}
    exec(stub_source(source, {"Engine.value": "pkg.Engine.value"}), scope)
    engine = scope["Engine"](5)
    assert engine.backward() == "grads" and scope["answer"](4.0) == 2.0
    with pytest.raises(PermissionError, match="pkg.Engine.value is withheld"):
        engine.value()


def test_without_the_sandbox_the_same_notebook_does_find_an_order(tmp_path):
    """The control: unsandboxed (--no-sandbox), the grader's files are there to steal,
    so the sandboxed test above fails for the reason it names."""
    steals = _with_cell("04_reverse.ipynb", "order-code", STEALS_THE_ORDER, tmp_path / "s.ipynb")
    out = tmp_path / "gradebook.csv"
    argv = ["grade", str(steals), "--csv", str(out), "--no-sandbox", "--chapter", "04"]
    assert main(argv) == 0
    with open(out, newline="") as f:
        row = next(csv.DictReader(f))
    assert float(row["04.topological_order"]) == 2, row
