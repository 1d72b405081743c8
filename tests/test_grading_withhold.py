"""Withholding the package's answers while grading: every public import path of an
answer raises for a submission, the grading package's included, while the grader's
own code (which builds on those answers) keeps working."""

import csv
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import micrograd_edu
from micrograd_edu.scalar.graph import topological_order

ROOT = Path(__file__).resolve().parents[1]


def public_paths_of(original) -> list[str]:
    """Every ``module.name`` (no leading underscore) in the package bound to ``original``."""
    for info in pkgutil.walk_packages(micrograd_edu.__path__, "micrograd_edu."):
        if ".__main__" not in info.name and not info.name.endswith(".child"):
            importlib.import_module(info.name)
    return sorted(
        f"{name}.{attribute}"
        for name, module in list(sys.modules.items())
        if name.split(".")[0] == "micrograd_edu" and module is not None
        for attribute, value in vars(module).items()
        if value is original and not attribute.startswith("_")
    )


# Run in a child process, as the batch grader's child does: withholding for its whole life.
WITHHOLD_IN_A_CHILD = """
import micrograd_edu.scalar.graph as graph
from micrograd_edu import Value
from micrograd_edu.grading import chapter04
from micrograd_edu.grading.withhold import withholding

chapter04.exported = graph.topological_order  # as if a grading module made it public
chapter04._own = graph.topological_order  # a private name: the grader's own, kept
held = withholding({"micrograd_edu.scalar.graph.topological_order"})
held.__enter__()
for module in (graph, chapter04):
    name = "topological_order" if module is graph else "exported"
    try:
        getattr(module, name)(Value(1.0))
    except PermissionError as error:
        print("withheld:", error)
print("grader's own:", len(chapter04._own(Value(0.5) * 2)))
"""


def test_withholding_reaches_grading_modules_but_not_the_graders_own_references():
    pytest.importorskip("resource")
    result = subprocess.run(
        [sys.executable, "-c", WITHHOLD_IN_A_CHILD],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=True,
    )
    lines = result.stdout.splitlines()
    message = (
        "micrograd_edu.scalar.graph.topological_order is withheld while grading: write your own"
    )
    assert lines[:2] == [f"withheld: {message}"] * 2
    assert lines[2] == "grader's own: 3"  # 0.5, the constant 2 and their product


def test_a_submission_importing_topological_order_from_any_public_path_gets_0(tmp_path):
    pytest.importorskip("resource")  # the batch grader is POSIX only
    from micrograd_edu.course.cli import main
    from micrograd_edu.grading.notebook import dumps, read_notebook

    paths = public_paths_of(topological_order)
    assert "micrograd_edu.scalar.graph.topological_order" in paths
    assert "micrograd_edu.topological_order" in paths
    # A private name in a grading module is the grader's own, not a public path.
    importlib.import_module("micrograd_edu.grading.chapter04")
    assert "micrograd_edu.grading.chapter04._reference_order" not in paths
    notebooks = []
    for k, path in enumerate(paths):
        nb = read_notebook(ROOT / "solutions" / "04_reverse.ipynb")
        cell = next(c for c in nb["cells"] if c.get("id") == "order-code")
        module, _, name = path.rpartition(".")
        cell["source"] = f"from {module} import {name} as topological_order\n"
        notebooks.append(tmp_path / f"imports_{k}.ipynb")
        notebooks[-1].write_text(dumps(nb), encoding="utf-8")
    out = tmp_path / "gradebook.csv"
    assert main(["grade", *map(str, notebooks), "--csv", str(out), "--workers", "2"]) == 0
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(paths)
    for row in rows:
        assert float(row["04.topological_order"]) == 0
        # mul and tanh are graded through the grader's own backward, which needs
        # topological_order: withholding must not break it.
        assert all(
            float(row[f"04.{name}"]) == 2 for name in ("pow", "exp", "relu", "div", "backward")
        )


def test_the_sandbox_stubs_the_files_of_named_internals_and_reads_whole_modules():
    # A module withheld whole is disabled in the graded process; the sandbox's files stub
    # the internals named beside it, so a module reloaded there holds none of them either
    from micrograd_edu.grading import exercise
    from micrograd_edu.grading.stubbed import stubbed_files

    root = Path(micrograd_edu.__file__).parent
    withheld = frozenset(exercise("06.matmul_backward").withheld)
    assert "micrograd_edu.tensor" in withheld and "micrograd_edu.scalar" in withheld
    made = {
        orig.relative_to(root).as_posix(): copy for copy, orig in stubbed_files(withheld, (root,))
    }
    assert {"tensor/products.py", "tensor/reduce.py", "nn/functional.py"} <= set(made)
    stub = made["tensor/products.py"].read_text()
    assert "micrograd_edu.tensor.products._matmul_vjp is withheld" in stub
