"""Run a generated program under a library, and compare two runs.

``run(program, library)`` executes the program's statements one by one with ``torch``,
``nn`` and ``F`` bound to the library, and returns an :class:`Outcome`: what each
``rec(...)`` saw (tensors as shape, dtype, requires_grad and values; Python values as
themselves) and the statement that raised, if one did. ``compare`` says where two outcomes
part: a value, a shape, a dtype, a type, or an error on one side only.

A run of PyTorch can be kept as a fingerprint (:func:`fingerprint`: per record its shape,
dtype, flags and two weighted sums of its values), so the fuzzer also runs where PyTorch is
not installed: ``python tests/torchlike_outcomes.py --record`` writes them for the seeds the
test uses.

>>> import micrograd_edu.torchlike as ours
>>> outcome = run(["x = torch.tensor([1.0, 2.0])", "rec(x * 2, x.sum().item())"], ours)
>>> outcome.records[0][1]
('T', (2,), 'float64', False, [2.0, 4.0])
>>> outcome.records[0][2]
('float', 3.0)
"""

from __future__ import annotations

import builtins
import contextlib
import gzip
import io
import json
import math
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from torchlike_programs import generate

RTOL = {"float64": 1e-9, "float32": 1e-5}
ATOL = {"float64": 1e-10, "float32": 1e-5}
# After optimiser steps: Adam and RMSprop divide by the root of a running mean of squares, so
# a gradient that rounding alone makes 1e-17 instead of 0 moves a weight by up to lr, in either
# library; what ``recl`` records is compared with this looser tolerance.
LOOSE = 1e-6


@dataclass
class Outcome:
    records: list = field(default_factory=list)  # (statement index, snapshot, ...)
    raised: tuple | None = None  # (statement index, exception type, message)


def _is_tensor(obj: Any, library: Any) -> bool:
    return isinstance(obj, library.Tensor) or isinstance(obj, np.ndarray)


def dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def snapshot(obj: Any, library: Any, depth: int = 0) -> Any:
    """A plain, comparable picture of ``obj``."""
    if depth > 4:
        return ("deep",)
    if _is_tensor(obj, library):
        if isinstance(obj, np.ndarray):
            array, grad = obj, False
        elif getattr(obj, "_is_zerotensor", lambda: False)():  # PyTorch's lazy zeros
            array, grad = np.zeros(tuple(obj.shape)), bool(obj.requires_grad)
        else:
            array, grad = obj.detach().numpy(), bool(obj.requires_grad)
        values = np.asarray(array, dtype=np.float64).reshape(-1).tolist()
        return ("T", tuple(array.shape), dtype_name(array.dtype), grad, values)
    if isinstance(obj, bool | np.bool_):
        return ("bool" if isinstance(obj, bool) else "numpy.bool", bool(obj))
    if isinstance(obj, int | np.integer):
        return ("int" if isinstance(obj, int) else f"numpy.{type(obj).__name__}", int(obj))
    if isinstance(obj, float | np.floating):
        kind = "float" if type(obj) is float else f"numpy.{type(obj).__name__}"
        return (kind, float(obj))
    if obj is None:
        return ("None",)
    if isinstance(obj, str):
        return ("str", obj)
    if isinstance(obj, np.dtype | library.dtype):
        return ("dtype", dtype_name(obj))
    if isinstance(obj, dict):
        return ("dict", tuple((repr(k), snapshot(v, library, depth + 1)) for k, v in obj.items()))
    if isinstance(obj, tuple | list):
        return ("seq", tuple(snapshot(v, library, depth + 1) for v in obj))
    return ("object", type(obj).__name__)


def _loose(snap: Any) -> Any:
    if snap[0] == "T":
        return ("T~",) + snap[1:]
    if snap[0] == "float":
        return ("float~", snap[1])
    if snap[0] == "seq":
        return ("seq", tuple(_loose(v) for v in snap[1]))
    return snap


def _values_only(snap: Any) -> Any:
    if snap[0] == "T":
        return snap[:3] + (False,) + snap[4:]
    if snap[0] == "seq":
        return ("seq", tuple(_values_only(v) for v in snap[1]))
    return snap


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


def run(statements: list[str], library: Any, label: str = "program") -> Outcome:
    """Execute ``statements`` with ``torch`` bound to ``library``."""
    outcome = Outcome()
    where = [0]

    def rec(*values: Any) -> None:
        outcome.records.append((where[0], *(snapshot(v, library) for v in values)))

    def recv(*values: Any) -> None:  # values only: requires_grad is not compared
        outcome.records.append((where[0], *(_values_only(snapshot(v, library)) for v in values)))

    def recl(*values: Any) -> None:  # compared loosely (see LOOSE)
        outcome.records.append((where[0], *(_loose(snapshot(v, library)) for v in values)))

    namespace = {
        "torch": library,
        "nn": library.nn,
        "F": library.nn.functional,
        "rec": rec,
        "recv": recv,
        "recl": recl,
        "__builtins__": builtins,
    }
    default = library.get_default_dtype()
    try:
        with _quiet():
            for i, statement in enumerate(statements):
                where[0] = i
                try:
                    exec(compile(statement, f"<{label} line {i}>", "exec"), namespace)
                except Exception as error:  # noqa: BLE001 (what raised is the observation)
                    outcome.raised = (i, type(error).__name__, str(error)[:300])
                    break
    finally:
        library.set_default_dtype(default)
    return outcome


# ---------------------------------------------------------------------------------------------
# Comparison


@dataclass
class Difference:
    kind: str  # "value", "shape", "dtype", "requires_grad", "type", "count",
    #            "raises where torch works", "works where torch raises", "raises elsewhere"
    statement: int
    detail: str

    @property
    def silent(self) -> bool:
        return self.kind not in ("raises where torch works",)


def _close(a: list, b: list, dtype: str, loose: bool = False) -> bool:
    x, y = np.asarray(a, float), np.asarray(b, float)
    if x.shape != y.shape:
        return False
    if not np.array_equal(np.isnan(x), np.isnan(y)):
        return False
    inf = np.isinf(x) | np.isinf(y)
    if not np.array_equal(x[inf], y[inf]):
        return False
    ok = ~np.isnan(x) & ~inf
    rtol, atol = RTOL.get(dtype, 0.0), ATOL.get(dtype, 0.0)
    if loose:
        rtol, atol = max(rtol, LOOSE), max(atol, LOOSE)
    return bool(np.all(np.abs(x[ok] - y[ok]) <= atol + rtol * np.abs(y[ok])))


def compare_snapshots(ours: Any, theirs: Any) -> tuple[str, str] | None:
    """The first way ``ours`` differs from ``theirs`` (kind, detail), or None."""
    if ours[0] != theirs[0]:
        return "type", f"{ours[0]} where torch gives {theirs[0]}"
    kind = ours[0]
    if kind in ("T", "T~"):
        _, shape, dtype, grad, values = ours
        _, tshape, tdtype, tgrad, tvalues = theirs
        if shape != tshape:
            return "shape", f"shape {shape} where torch gives {tshape}"
        if dtype != tdtype:
            return "dtype", f"dtype {dtype} where torch gives {tdtype}"
        if not _close(values, tvalues, dtype, kind == "T~"):
            return "value", f"values {_short(values)} where torch gives {_short(tvalues)}"
        if grad != tgrad:
            return "requires_grad", f"requires_grad={grad} where torch gives {tgrad}"
        return None
    if kind in ("seq", "dict"):
        if len(ours[1]) != len(theirs[1]):
            return "count", f"{len(ours[1])} items where torch gives {len(theirs[1])}"
        for a, b in zip(ours[1], theirs[1], strict=True):
            if kind == "dict":
                if a[0] != b[0]:
                    return "value", f"key {a[0]} where torch gives {b[0]}"
                a, b = a[1], b[1]
            found = compare_snapshots(a, b)
            if found:
                return found
        return None
    if kind in ("float", "float~"):
        if not _close([ours[1]], [theirs[1]], "float64", kind == "float~"):
            return "value", f"{ours[1]!r} where torch gives {theirs[1]!r}"
        return None
    if ours != theirs:
        return "value", f"{ours[1:]} where torch gives {theirs[1:]}"
    return None


def _short(values: list) -> str:
    text = np.array2string(np.asarray(values[:8]), precision=6, separator=", ")
    return text + (" ..." if len(values) > 8 else "")


def compare(ours: Outcome, theirs: Outcome) -> Difference | None:
    """The first difference between two outcomes of one program, or None. When both raise
    in one statement, what that statement recorded before raising is not compared (hooks
    that ran before the error, in an order of PyTorch's)."""
    mine = ours.raised[0] if ours.raised else None
    their = theirs.raised[0] if theirs.raised else None
    if mine is not None and mine == their:
        ours = Outcome([r for r in ours.records if r[0] < mine], ours.raised)
        theirs = Outcome([r for r in theirs.records if r[0] < mine], theirs.raised)
    for a, b in zip(ours.records, theirs.records, strict=False):
        if a[0] != b[0]:
            break  # one side recorded more in a statement: told below
        if len(a) != len(b):
            return Difference("count", a[0], f"rec of {len(a) - 1} values vs {len(b) - 1}")
        for x, y in zip(a[1:], b[1:], strict=True):
            found = compare_snapshots(x, y)
            if found:
                return Difference(found[0], a[0], found[1])
    if mine != their:
        if mine is not None and (their is None or mine < their):
            return Difference(
                "raises where torch works", mine, f"{ours.raised[1]}: {ours.raised[2]}"
            )
        return Difference(
            "works where torch raises", their, f"torch: {theirs.raised[1]}: {theirs.raised[2]}"
        )
    if len(ours.records) != len(theirs.records):
        where = min(len(ours.records), len(theirs.records))
        rows = ours.records if len(ours.records) > where else theirs.records
        return Difference(
            "count", rows[where][0], f"{len(ours.records)} records vs {len(theirs.records)}"
        )
    return None


# ---------------------------------------------------------------------------------------------
# Fingerprints: a PyTorch run, kept for machines without PyTorch


def _weights(n: int) -> np.ndarray:
    return np.cos(0.618 * np.arange(n) + 0.3)


def fingerprint_snapshot(snap: Any) -> Any:
    """``snap`` with each tensor's values replaced by counts of nan/±inf and two sums."""
    if snap[0] in ("T", "T~"):
        kind, shape, dtype, grad, values = snap
        v = np.asarray(values, float)
        finite = np.isfinite(v)
        vals = np.where(finite, v, 0.0)
        sums = [float(vals @ _weights(v.size)), float(np.abs(vals).sum())]
        counts = [int(np.isnan(v).sum()), int((v == np.inf).sum()), int((v == -np.inf).sum())]
        return ["F" if kind == "T" else "F~", list(shape), dtype, grad, counts, sums]
    if snap[0] in ("seq", "dict"):
        items = snap[1] if snap[0] == "seq" else [[k, fingerprint_snapshot(v)] for k, v in snap[1]]
        if snap[0] == "seq":
            items = [fingerprint_snapshot(v) for v in items]
        return [snap[0], items]
    return list(snap)


def fingerprint(outcome: Outcome) -> dict:
    return {
        "records": [[r[0], *(fingerprint_snapshot(s) for s in r[1:])] for r in outcome.records],
        "raised": None if outcome.raised is None else outcome.raised[0],
        "error": None if outcome.raised is None else f"{outcome.raised[1]}: {outcome.raised[2]}",
    }


def compare_fingerprints(ours: dict, theirs: dict) -> Difference | None:
    """As :func:`compare`, for two fingerprints (the recorded PyTorch run and ours)."""
    if ours["raised"] is not None and ours["raised"] == theirs["raised"]:
        cut = ours["raised"]
        ours = {**ours, "records": [r for r in ours["records"] if r[0] < cut]}
        theirs = {**theirs, "records": [r for r in theirs["records"] if r[0] < cut]}
    for a, b in zip(ours["records"], theirs["records"], strict=False):
        if a[0] != b[0] or len(a) != len(b):
            break
        for x, y in zip(a[1:], b[1:], strict=True):
            if not _same_print(x, y):
                return Difference(
                    _print_kind(x, y), a[0], f"{_brief(x)} where torch gives {_brief(y)}"
                )
    if ours["raised"] != theirs["raised"]:
        mine, their = ours["raised"], theirs["raised"]
        if mine is not None and (their is None or mine < their):
            return Difference("raises where torch works", mine, ours["error"])
        return Difference("works where torch raises", their, f"torch: {theirs['error']}")
    if len(ours["records"]) != len(theirs["records"]):
        return Difference("count", -1, f"{len(ours['records'])} vs {len(theirs['records'])}")
    return None


def _print_kind(x: Any, y: Any) -> str:
    """The kind of difference between two fingerprints that differ (as :func:`compare`'s)."""
    if not (isinstance(x, list) and isinstance(y, list)) or x[:1] != y[:1]:
        return "type"
    if x[0] in ("F", "F~"):
        for i, kind in ((1, "shape"), (2, "dtype"), (3, "requires_grad")):
            if x[i] != y[i]:
                return kind
        return "value"
    if x[0] in ("seq", "dict") and len(x[1]) == len(y[1]):
        for a, b in zip(x[1], y[1], strict=True):
            if not _same_print(a, b):
                return _print_kind(a, b)
    return "count" if x[0] in ("seq", "dict") else "value"


def _same_print(x: Any, y: Any) -> bool:
    lists = isinstance(x, list) and isinstance(y, list) and x and y and x[0] == y[0]
    if lists and x[0] in ("F", "F~"):
        if x[1:5] != y[1:5]:
            return False
        rtol = LOOSE if x[0] == "F~" else RTOL.get(x[2], 0.0) * 10
        return all(
            math.isclose(a, c, rel_tol=rtol, abs_tol=1e-8) for a, c in zip(x[5], y[5], strict=True)
        )
    if lists and x[0] == "float~":
        return math.isclose(x[1], y[1], rel_tol=LOOSE, abs_tol=LOOSE) or (
            x[1] != x[1] == y[1] != y[1]
        )
    if isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            return False
        return all(_same_print(a, c) for a, c in zip(x, y, strict=True))
    if isinstance(x, float) and isinstance(y, float):
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-10) or (x != x and y != y)
    return x == y


def _brief(x: Any) -> str:
    return repr(x)[:120]


# ---------------------------------------------------------------------------------------------
# The record of PyTorch's runs, for machines without PyTorch

SEEDS = range(200)  # the programs tests/test_torchlike_fuzz.py runs
RECORD = Path(__file__).parent / "fixtures" / "torchlike_fuzz_pytorch.json.gz"


def pytorch():
    """PyTorch, single-threaded (its threads fight the other tests for two cores), or None."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def record_pytorch(torch: Any) -> dict[str, dict]:
    """PyTorch's fingerprint of each program of :data:`SEEDS`."""
    return {str(seed): fingerprint(run(generate(seed).statements, torch)) for seed in SEEDS}


def load_record() -> dict[str, dict]:
    with gzip.open(RECORD, "rt") as f:
        return json.load(f)


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/torchlike_outcomes.py --record   (needs PyTorch)")
    torch = pytorch()
    if torch is None:
        sys.exit("PyTorch is not installed: pip install -e '.[dev]'")
    with gzip.open(RECORD, "wt") as f:
        json.dump(record_pytorch(torch), f, separators=(",", ":"))
    print(f"wrote {RECORD} ({RECORD.stat().st_size} bytes, {len(SEEDS)} programs)")
