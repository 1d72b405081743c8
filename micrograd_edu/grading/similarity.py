"""A similarity report: each exercise's code, every pair of submissions compared.

For each exercise, a submission's code is the definitions of the exercise's names in
the notebook (the last one, as Python runs it) and of the helpers they call that the
student wrote. It is normalised before it is compared: every name the student chose
(parameters, variables, their own helpers) becomes one placeholder, docstrings and
comments go, layout never counts, and what is written several ways gets one spelling
(``a, b = x, y``, ``a += b``, ``if not c: ... else: ...``). Each statement becomes a
unit (a compound one, its header), and a unit's features are its token 4-grams and
itself as a whole, taken in no order: renaming, reordering independent statements and
rewording comments leave the features as they were. What the released notebook
already holds (the stub, code it gives) is left out, so two students who only kept the
stub share nothing.

A pair's similarity is the weighted share of their features that both have (weighted
Jaccard), a feature weighing less the more submissions have it (the idiom everyone
writes counts little). A pair is listed when its similarity reaches :data:`LISTED` and
what they share is enough code to say anything (:data:`MIN_SHARED` features): a
one-line exercise, which honest students solve alike, lists nobody. The page shows each
listed pair's code side by side with the shared statements marked, and gives no verdict.

>>> one = '''def f(xs):
...     t = 0
...     n = len(xs)
...     for x in xs:
...         t += x * x
...     return t'''
>>> two = '''def f(vs):
...     n = len(vs)  # its size
...     acc = 0
...     for v in vs:
...         acc += v * v
...     return acc'''
>>> a, b = fingerprint([one], ["f"], []), fingerprint([two], ["f"], [])
>>> set(a["features"]) == set(b["features"])
True
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .roster import Roster

__all__ = ["build", "fingerprint", "Code", "Pair", "compare", "report_html", "LISTED", "MIN_SHARED"]

LISTED = 0.75  # weighted share of features a pair must have in common to be listed
MIN_SHARED = 20  # features in common (after the stub) below which there is too little to compare
_GRAM = 4
_BUILTINS = set(dir(builtins))
_OPERATORS = (ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _parse(cells: Sequence[str]) -> list[tuple[int, ast.Module]]:
    trees = []
    for i, code in enumerate(cells):
        try:
            trees.append((i, ast.parse(code)))
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            continue
    return trees


def _bound(node: ast.AST) -> set[str]:
    """Every name ``node`` binds: parameters, targets, nested definitions, imports."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store | ast.Del):
            names.add(n.id)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(n.name)
        elif isinstance(n, ast.alias):
            names.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


def _aliases(trees: list[tuple[int, ast.Module]]) -> dict[str, str]:
    """Import aliases at the top level, by what they import (``np`` -> ``numpy``)."""
    found = {}
    for _, tree in trees:
        for node in tree.body:
            if isinstance(node, ast.Import):
                found.update({a.asname or a.name: a.name for a in node.names})
            elif isinstance(node, ast.ImportFrom):
                found.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    return found


class _Tokens:
    def __init__(self, local: set[str], aliases: dict[str, str]) -> None:
        self.local, self.aliases = local, aliases

    def __call__(self, node: ast.AST) -> list[str]:
        out: list[str] = []
        self._visit(node, out)
        return out

    def _visit(self, node: ast.AST, out: list[str]) -> None:
        if isinstance(node, ast.Name):
            name = node.id
            out.append("V" if name in self.local else self.aliases.get(name, name))
        elif isinstance(node, ast.arg):
            out.append("V")
        elif isinstance(node, ast.Constant):
            value = node.value
            out.append("S" if isinstance(value, str | bytes) else repr(value))
        elif isinstance(node, ast.Attribute):
            self._visit(node.value, out)
            out.append("." + node.attr)
        elif isinstance(node, ast.keyword):
            out.append(f"{node.arg}=")
            self._visit(node.value, out)
        else:
            out.append(type(node).__name__)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, _OPERATORS):
                    out.append(type(child).__name__)
                elif not isinstance(child, ast.stmt | ast.expr_context | ast.excepthandler):
                    self._visit(child, out)


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _canonical(stmt: ast.stmt) -> list[ast.AST]:
    """What ``stmt`` says, in one spelling: ``a, b = x, y`` as two assignments, ``a += b``
    as ``a = a + b``, ``if not c: A else: B`` as ``if c: B else: A`` (its header only)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            if len(target.elts) == len(value.elts):
                return [ast.Assign([t], v) for t, v in zip(target.elts, value.elts, strict=True)]
    if isinstance(stmt, ast.AugAssign):
        value = ast.BinOp(stmt.target, stmt.op, stmt.value)
        return [ast.Assign([stmt.target], value)]
    if isinstance(stmt, ast.If) and stmt.orelse and isinstance(stmt.test, ast.UnaryOp):
        if isinstance(stmt.test.op, ast.Not):
            return [ast.If(stmt.test.operand, [], [])]
    return [stmt]


def _units(body: list[ast.stmt], tokens: _Tokens, context: str, out: list) -> None:
    """(first line, last line, tokens) for each statement under ``body``; a compound
    statement's unit is its header, and its bodies are units of their own."""
    for stmt in body:
        if _is_docstring(stmt):
            continue
        inner = [getattr(stmt, f, None) for f in ("body", "orelse", "finalbody", "handlers")]
        inner = [part for part in inner if isinstance(part, list) and part]
        last = stmt.end_lineno if not inner else stmt.lineno
        for said in _canonical(stmt):
            out.append((stmt.lineno, last or stmt.lineno, [context, *tokens(said)]))
        for part in inner:
            if isinstance(part[0], ast.ExceptHandler):
                for handler in part:
                    caught = tokens(handler.type) if handler.type else []
                    out.append((handler.lineno, handler.lineno, [context, "except", *caught]))
                    _units(handler.body, tokens, "except", out)
            else:
                _units(part, tokens, type(stmt).__name__, out)


def _digest(parts: Sequence[str]) -> str:
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).hexdigest()


def _features(unit: list[str]) -> list[str]:
    grams = [unit[i : i + _GRAM] for i in range(max(1, len(unit) - _GRAM + 1))]
    return [_digest(unit), *(_digest(["g", *g]) for g in grams)]


def fingerprint(cells: Sequence[str], names: Sequence[str], given: Sequence[str]) -> dict[str, Any]:
    """An exercise's code in a notebook, normalised: ``source`` (the definitions, as
    written), and ``units`` (line span and features of each statement in ``source``);
    ``given``: the names the released notebook defines, which are nobody's own work.
    Run it in the reader process: it parses a student's code."""
    trees = _parse(cells)
    defs: dict[str, tuple[int, ast.stmt]] = {}
    for i, tree in trees:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defs[node.name] = (i, node)
    own = {name for name in defs if name not in given} | set(names)
    chosen, queue = [], [n for n in names if n in defs]
    while queue:  # the exercise's definitions, then the helpers of the student's they call
        name = queue.pop(0)
        if name in chosen:
            continue
        chosen.append(name)
        used = {n.id for n in ast.walk(defs[name][1]) if isinstance(n, ast.Name)}
        queue += sorted(n for n in used & own if n in defs and n not in chosen)
    local = set(own)
    for name in chosen:
        local |= _bound(defs[name][1])
    tokens = _Tokens(local - _BUILTINS, _aliases(trees))
    lines: list[str] = []
    units: list[tuple[int, int, list[str]]] = []
    for name in chosen:
        i, node = defs[name]
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = cells[i].splitlines()[first - 1 : node.end_lineno]
        offset = len(lines) - first + 1
        lines += text
        found: list = []
        _units([node], tokens, "top", found)
        units += [(a + offset, b + offset, unit) for a, b, unit in found]
    return {
        "source": "\n".join(lines),
        "units": [[a, b, _features(unit)] for a, b, unit in units],
        "features": sorted({f for _, _, unit in units for f in _features(unit)}),
    }


@dataclass
class Code:
    """One submission's code for one exercise (``units``: each statement's first and
    last line in ``source``, and its features)."""

    who: str
    source: str
    units: list[tuple[int, int, list[str]]]
    features: set[str] = field(default_factory=set)


@dataclass
class Pair:
    a: Code
    b: Code
    similarity: float
    shared: set[str]


def compare(codes: Sequence[Code], stub: set[str]) -> list[Pair]:
    """The pairs of ``codes`` to list, closest first: weighted Jaccard on features, the
    stub's features left out, a feature weighing log(1 + n / (submissions having it))."""
    for code in codes:
        code.features = {f for _, _, unit in code.units for f in unit} - stub
    have: dict[str, int] = {}
    for code in codes:
        for f in code.features:
            have[f] = have.get(f, 0) + 1
    n = len(codes)
    weight = {f: math.log(1 + n / k) for f, k in have.items()}
    pairs = []
    for a, b in combinations(codes, 2):
        shared = a.features & b.features
        if len(shared) < MIN_SHARED:
            continue
        union = sum(weight[f] for f in a.features | b.features)
        similarity = sum(weight[f] for f in shared) / union if union else 0.0
        if similarity >= LISTED:
            pairs.append(Pair(a, b, similarity, shared))
    return sorted(pairs, key=lambda p: (-p.similarity, p.a.who, p.b.who))


def _code_html(code: Code, shared: set[str]) -> str:
    marked = set()
    for first, last, unit in code.units:
        if 2 * len(shared.intersection(unit)) >= len(unit):  # most of the statement is shared
            marked.update(range(first, last + 1))
    rows = []
    for number, line in enumerate(code.source.splitlines(), start=1):
        shade = "background:#fff3b0;" if number in marked else ""
        rows.append(f'<span style="{shade}display:block">{html.escape(line) or " "}</span>')
    return "<pre>" + "".join(rows) + "</pre>"


def report_html(title: str, sections: Sequence[tuple[str, int, list[Pair]]]) -> str:
    """The page: for each exercise (its id, the submissions compared, the pairs listed),
    the listed pairs' code side by side, shared statements marked."""
    parts = [
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif} td{vertical-align:top;width:50%} "
        "pre{font-size:12px;background:#f6f6f6;padding:6px;overflow-x:auto}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        "<p>Each exercise's code, every pair of submissions compared after renaming every "
        "name the student chose, dropping comments, docstrings and layout, and leaving out "
        f"the released notebook's code. A pair is listed when at least {LISTED:.0%} of their "
        f"weighted statement features are shared and that is at least {MIN_SHARED} features "
        "of code; a feature most submissions have weighs little. Shared statements are "
        "marked. This page gives no verdict: read the code.</p>",
    ]
    for exercise, compared, pairs in sections:
        parts.append(
            f"<h2>{html.escape(exercise)}</h2><p>{compared} submissions with code for it; "
            f"{len(pairs)} pair(s) listed.</p>"
        )
        for pair in pairs:
            parts.append(
                f"<details open><summary><b>{html.escape(pair.a.who)}</b> and "
                f"<b>{html.escape(pair.b.who)}</b>: {pair.similarity:.0%} similar, "
                f"{len(pair.shared)} features shared</summary><table><tr>"
                f"<td>{_code_html(pair.a, pair.shared)}</td>"
                f"<td>{_code_html(pair.b, pair.shared)}</td></tr></table></details>"
            )
    parts.append("</body></html>\n")
    return "".join(parts)


def _released(folder: Path, number: str) -> Path | None:
    """The released notebook of chapter ``number`` in ``folder`` (``exercises/``)."""
    found = sorted(folder.glob(f"{number}_*.ipynb")) if folder.is_dir() else []
    return found[0] if found else (folder if folder.is_file() else None)


def build(
    paths: Sequence[str | Path],
    number: str,
    released: str | Path = "exercises",
    roster: Roster | None = None,
) -> tuple[str, list[tuple[str, int, list[Pair]]], list[str]]:
    """The report on chapter ``number``'s exercises in ``paths``: the page, its sections
    (exercise, submissions compared, pairs listed) and notes (files left out, and why).
    With a roster, each student's newest file stands for them."""
    from .intake import Reader, Unreadable, documents
    from .registry import chapter

    exercises, notes, call = chapter(number), [], "micrograd_edu.grading.similarity:fingerprint"
    with Reader() as reader:
        found = documents(paths, reader)
        notes += [d.error for d in found if d.error]
        people: dict[str, tuple[float, Any]] = {}
        for d in (d for d in found if not d.error):
            who = d.name
            if roster is not None:
                students, _ = roster.match(d.name)
                who = f"{students[0].name} ({students[0].key})" if students else d.name
            when = d.stamp.timestamp() if d.stamp else d.mtime
            if who not in people or people[who][0] < when:
                people[who] = (when, d)
        stub_path = _released(Path(released), number)
        if stub_path is None:
            notes.append(f"no released notebook of chapter {number} at {released}: the stub's "
                         "code is compared too")  # fmt: skip
            stub_doc = None
        else:
            (stub_doc,) = documents([stub_path], reader)
        names = {n for e in exercises for n in e.names}
        given = sorted(stub_doc.defined - names) if stub_doc and not stub_doc.error else []
        sections = []
        for ex in exercises:
            stub = set()
            if stub_doc is not None and not stub_doc.error:
                stub = set(reader(call, stub_doc.cells, list(ex.names), given)["features"])
            codes = []
            for who, (_, document) in sorted(people.items()):
                try:
                    printed = reader(call, document.cells, list(ex.names), given)
                except Unreadable as error:
                    notes.append(f"{document.name}: {ex.id}: {error}")
                    continue
                if printed["units"]:
                    codes.append(Code(who, printed["source"], [tuple(u) for u in printed["units"]]))
            sections.append((ex.id, len(codes), compare(codes, stub)))
    page = report_html(f"Similarity of chapter {number}'s submissions", sections)
    return page, sections, notes
