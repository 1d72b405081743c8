"""Exercises and their checks, registered by id (``"01.second_difference"``).

A check is split in three so that the grade never depends on the student's
process telling the truth:

* ``cases(rng)`` draws the inputs as plain data (a seeded ``random.Random``:
  a fixed public seed in the notebook, a secret one in batch);
* ``run(functions, case)`` builds the real inputs from a case, calls the
  student's functions and returns what they computed (this part runs next to
  student code, so it only *observes*);
* ``judge(case, observed)`` compares the observation, as plain data, with an
  independent oracle and returns ``None`` or the reason it failed (this part
  runs in the grader's own process and never shows the expected answer).

An exercise that needs an earlier step lists it in ``requires``: while it is
checked, the reference version replaces the student's in the notebook's
namespace, so one wrong answer does not fail the exercises built on it.

A check that grades how often the student's code evaluates a function (``serve``)
hands it a function whose values, or whose secret parameters, the grader's process
computes on request (:class:`Served`): the count is made there, where the student
cannot reach it, and reaches the judge as the observation's ``calls``.
"""

from __future__ import annotations

import functools
import linecache
import random
import sys
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .plain import to_plain

__all__ = [
    "Check",
    "Mistake",
    "Exercise",
    "Served",
    "CheckResult",
    "ExerciseResult",
    "EXERCISES",
    "register",
    "exercise",
    "chapter",
    "draw_cases",
    "inputs",
    "observe",
    "run_checks",
    "runner_factory",
    "judge",
    "broken",
]

Case = dict[str, Any]
HELD = "held"  # a case's entry under this key stays with the judge: the child never sees it
NOT_ATTEMPTED = "not attempted yet (it raises NotImplementedError)"


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer, modelled: ``matches(case, seen)`` says whether the
    observation is what that mistake produces on the case (the grader computes the
    mistaken output from the case; it is never shown). ``hint`` points at the idea the
    mistake misses, never at the answer."""

    matches: Callable[[Case, dict[str, Any]], bool]
    hint: str


@dataclass(frozen=True)
class Check:
    """One property of a correct answer, aimed at the mistakes students make.

    With ``mistakes``, a failure gets the hint of the first mistake whose model
    matches what the student's function returned, and no hint when none does (the
    judge's reason then says what it saw against what a correct answer satisfies).
    Without, a failure gets ``hint``.
    """

    name: str
    hint: str
    cases: Callable[[random.Random], list[Case]]
    run: Callable[[dict[str, Callable[..., Any]], Case], dict[str, Any]]
    judge: Callable[[Case, dict[str, Any]], str | None]
    weight: float = 1.0  # its share of the exercise's points, relative to the others
    mistakes: tuple[Mistake, ...] = ()
    # Another check's name: this one is then drawn the same cases as that one (checks
    # that judge one expensive run, such as a training, in several ways).
    same_cases_as: str = ""
    # ``serve(case, request)``: the grader's answer when the student's code evaluates the
    # case's function (its value at a point, or its secret parameters), computed in the
    # grader's process from the case and counted there (see Served). The runner reaches
    # it as ``case["ask"](request)``; the judge reads the count as ``seen["calls"]``.
    serve: Callable[[Case, Any], Any] | None = None

    def hint_for(self, failures: list[tuple[Case, Any]]) -> str:
        """The hint for the check's failures, each a case and what the student's code
        returned on it: that of the first mistake whose model explains every one of them
        (on one small case two mistakes may give the same output; across all the cases
        that failed, only the one that was made fits). Where none explains them all (two
        mistakes, each showing on its own cases), that of the first mistake seen on the
        first failure; else none."""
        if not self.mistakes:
            return self.hint
        if not failures:
            return ""

        def fits(mistake: Mistake, case: Case, seen: Any) -> bool:
            try:
                return isinstance(seen, dict) and bool(mistake.matches(case, seen))
            except Exception:  # a malformed observation matches no model
                return False

        for mistake in self.mistakes:
            if all(fits(mistake, case, seen) for case, seen in failures):
                return mistake.hint
        for mistake in self.mistakes:
            if fits(mistake, *failures[0]):
                return mistake.hint
        return ""


@dataclass(frozen=True)
class Exercise:
    id: str
    title: str
    points: float
    statement: str
    names: tuple[str, ...]
    checks: tuple[Check, ...]
    requires: dict[str, Callable[..., Any]] = field(default_factory=dict)
    # Dotted names of library functions that would answer the exercise for the
    # student; the batch grader makes them raise while it runs the submission. A name
    # without a dot is a whole library, which then cannot be imported.
    withheld: tuple[str, ...] = ()
    # The reference solution's key expressions: no statement, hint or message may
    # contain one (tests/test_grading_spoilers.py).
    answers: tuple[str, ...] = ()
    # Graded by the batch grader in a process of its own: what it withholds, the
    # chapter's other exercises need (08's walk of a module tree, which freeze uses).
    alone: bool = False

    @property
    def chapter(self) -> str:
        return self.id.split(".", 1)[0]


@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    hint: str = ""
    reason: str = ""
    ran: bool = True  # False: the student's function raised before this check could run
    score: float = 0.0
    max_score: float = 0.0


@dataclass(frozen=True)
class ExerciseResult:
    """A graded exercise: its points shared among its checks by weight (partial
    credit; the others count once the first, the main property, holds), or, graded
    all or nothing, all of them only when every check passes."""

    id: str
    title: str
    score: float
    max_score: float
    status: str  # "passed", "failed", "not attempted", "missing", "broken"
    checks: tuple[CheckResult, ...] = ()
    reason: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"


EXERCISES: dict[str, Exercise] = {}


def register(ex: Exercise) -> Exercise:
    """Add ``ex`` to the registry; ids are unique and start with a chapter number."""
    if ex.id in EXERCISES:
        raise ValueError(f"register: exercise id {ex.id!r} is already registered")
    if not ex.id[:2].isdigit() or "." not in ex.id:
        raise ValueError(f"register: exercise id {ex.id!r} must look like '04.topological_order'")
    EXERCISES[ex.id] = ex
    return ex


def exercise(exercise_id: str) -> Exercise:
    """The registered exercise ``exercise_id``, or a ``KeyError`` listing the known ones.

    >>> exercise("01.second_difference").names
    ('second_difference',)
    """
    try:
        return EXERCISES[exercise_id]
    except KeyError:
        known = ", ".join(EXERCISES) or "none"
        raise KeyError(f"no exercise {exercise_id!r}; the registered ones are: {known}") from None


def chapter(number: str) -> list[Exercise]:
    """The exercises of chapter ``number`` ("01"), in the order they were registered.

    >>> [e.id for e in chapter("01")][:2]
    ['01.one_sided_difference', '01.second_difference']
    """
    found = [e for e in EXERCISES.values() if e.chapter == number]
    if not found:
        chapters = sorted({e.chapter for e in EXERCISES.values()})
        raise KeyError(f"no exercises for chapter {number!r}; chapters with exercises: {chapters}")
    return found


def inputs(cases: list[list[Case]]) -> list[list[Case]]:
    """``cases`` as the student's side may see them: without their held-back entries
    (held-out targets and the like, which only a judge reads)."""
    return [[{k: v for k, v in case.items() if k != HELD} for case in cc] for cc in cases]


def draw_cases(ex: Exercise, seed: str) -> list[list[Case]]:
    """The cases of each check of ``ex`` for ``seed`` (the same seed gives the same cases)."""
    return [
        check.cases(random.Random(f"{seed}:{ex.id}:{check.same_cases_as or check.name}"))
        for check in ex.checks
    ]


@contextmanager
def _injected(namespace: MutableMapping[str, Any], requires: dict[str, Any]) -> Iterator[None]:
    missing = object()
    saved = {name: namespace.get(name, missing) for name in requires}
    namespace.update(requires)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value


def _run_case(
    run: Callable[..., dict[str, Any]], functions: dict[str, Any], case: Case
) -> dict[str, Any]:
    try:
        raw = run(functions, case)
    except NotImplementedError:
        return {"not_attempted": True}
    except (Exception, SystemExit) as error:  # an interrupt still stops the whole check
        return {"error": f"{type(error).__name__}: {str(error)[:200]}{student_line(error)}"}
    return {key: to_plain(value) for key, value in raw.items()}


_GRADER = str(Path(__file__).resolve().parents[1])  # the package: not the student's code
_LIBRARIES = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix})


def student_line(error: BaseException) -> str:
    """Where ``error`` was raised in the student's own code: the innermost frame of its
    traceback that is neither the package's nor a library's, as " (line N of cell:
    `code`)", or "" when it rose elsewhere."""
    found = ""
    tb = error.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith(_GRADER) and not name.startswith(_LIBRARIES):
            line = linecache.getline(name, tb.tb_lineno).strip()
            where = "cell" if name.startswith("<") or "ipykernel" in name else Path(name).name
            where = "one of your cells" if where == "cell" else f"your {where}"
            found = f" (line {tb.tb_lineno} of {where}" + (f": `{line}`)" if line else ")")
        tb = tb.tb_next
    return found


def runner_factory(make: Callable[..., Callable]) -> Callable[..., Callable]:
    """Mark ``make`` (a runners-module function that returns a runner for its plain
    arguments) so that the batch grader can name the runner it made to the child:
    the module, ``make``'s name and the arguments, in :attr:`recipe`."""

    @functools.wraps(make)
    def made(*args: Any) -> Callable:
        run = make(*args)
        run.recipe = (make.__module__, make.__name__, list(args))
        return run

    return made


class Served:
    """The grader's side of the evaluations a submission asks for (``Check.serve``):
    each request answered from the full case (held entries included) and counted per
    case. The batch grader keeps one per exercise in its own process, :func:`observe`
    one next to the notebook; either way the judge gets the count from here, never from
    the student's process.

    >>> ex = exercise("01.numerical_gradient")
    >>> served = Served(ex, draw_cases(ex, "seed"))
    >>> served(3, 0, [0.0] * len(served.cases[3][0]["xs"]))
    0.0
    >>> served.counted({"checks": []})["calls"]
    [[3, 0, 1]]
    """

    LIMIT = 100_000  # evaluations of one exercise: far above any honest method

    def __init__(self, ex: Exercise, cases: list[list[Case]]) -> None:
        self.ex, self.cases = ex, cases
        self.counts: dict[tuple[int, int], int] = {}

    def __call__(self, check: Any, case: Any, request: Any) -> Any:
        where = f"{self.ex.id}: the grader's function"
        if type(check) is not int or not 0 <= check < len(self.ex.checks):
            raise ValueError(f"{where} was asked for by an unknown check {check!r}")
        serve = self.ex.checks[check].serve
        if serve is None or type(case) is not int or not 0 <= case < len(self.cases[check]):
            raise ValueError(f"{where} was asked for by an unknown case {case!r}")
        if sum(self.counts.values()) >= self.LIMIT:
            raise ValueError(f"{where} was evaluated more than {self.LIMIT} times")
        self.counts[check, case] = self.counts.get((check, case), 0) + 1
        return serve(self.cases[check][case], request)

    def counted(self, observed: Any) -> Any:
        """``observed`` with the counts made here as its ``calls`` (whatever the
        submission put under that key is replaced)."""
        if not isinstance(observed, dict):
            return observed
        return {**observed, "calls": [[i, j, n] for (i, j), n in sorted(self.counts.items())]}


def _calls(observed: dict[str, Any]) -> dict[tuple[int, int], int]:
    """The counts :meth:`Served.counted` put in ``observed``, by (check, case)."""
    found = {}
    for entry in observed.get("calls") or []:
        if isinstance(entry, list) and len(entry) == 3 and all(type(k) is int for k in entry):
            found[entry[0], entry[1]] = entry[2]
    return found


def observe(
    ex: Exercise, namespace: MutableMapping[str, Any], cases: list[list[Case]]
) -> dict[str, Any]:
    """Run the student's functions from ``namespace`` on ``cases``; plain observations.

    This is the only part of grading that runs next to student code.
    """
    runs = [check.run for check in ex.checks]
    served = Served(ex, cases)
    return served.counted(run_checks(ex.names, runs, namespace, inputs(cases), ex.requires, served))


def run_checks(
    names: tuple[str, ...] | list[str],
    runs: list[Callable[..., dict[str, Any]]],
    namespace: MutableMapping[str, Any],
    cases: list[list[Case]],
    requires: dict[str, Any],
    ask: Callable[[int, int, Any], Any],
) -> dict[str, Any]:
    """Each runner on its cases with the student's ``names`` from ``namespace`` (and
    ``requires`` standing in for the steps they build on): what :func:`observe` does,
    in a form the submission's process can call without the exercise's judges.
    ``ask(check, case, request)`` reaches the grader's :class:`Served`; a runner gets
    it for its own case as ``case["ask"]``."""
    missing = [name for name in names if not callable(namespace.get(name))]
    if missing:
        return {"missing": missing}
    functions = {name: namespace[name] for name in names}
    with _injected(namespace, requires):
        return {
            "checks": [
                [
                    _run_case(run, functions, {**case, "ask": functools.partial(ask, i, j)})
                    for j, case in enumerate(run_cases)
                ]
                for i, (run, run_cases) in enumerate(zip(runs, cases, strict=True))
            ]
        }


def _judge_case(check: Check, case: Case, seen: Any) -> str | None:
    if not isinstance(seen, dict):
        return "the submission reported no observation"
    if seen.get("not_attempted"):
        return NOT_ATTEMPTED
    if "error" in seen:
        return f"raised {seen['error']}"
    try:
        return check.judge(case, seen)
    except Exception as error:  # a malformed observation must not stop the grader
        return f"returned something the grader could not read ({type(error).__name__})"


def judge(
    ex: Exercise, cases: list[list[Case]], observed: Any, all_or_nothing: bool = False
) -> ExerciseResult:
    """Score ``observed`` (plain data from :func:`observe`) against the oracles.

    A raise is reported once, with the student's line, on the first check it stopped;
    the checks after it that met the same raise are listed as not run. It gets its
    check's hint only when other checks passed (then the raise is that case's mistake,
    not a typo that stops everything).
    """
    if isinstance(observed, dict) and "missing" in observed:
        names = ", ".join(map(str, observed["missing"]))
        return _zero(ex, "missing", f"no function named {names} in the notebook")
    per_check = observed.get("checks") if isinstance(observed, dict) else None
    if not isinstance(per_check, list) or len(per_check) != len(ex.checks):
        return _zero(ex, "broken", "the submission reported malformed results")
    flat = [seen for seen_cases in per_check for seen in (seen_cases or [])]
    if flat and all(isinstance(s, dict) and s.get("not_attempted") for s in flat):
        return _zero(ex, "not attempted", NOT_ATTEMPTED)
    total = sum(check.weight for check in ex.checks) or 1.0
    results, raised, calls = [], set(), _calls(observed)
    for i, (check, check_cases, seen_cases) in enumerate(
        zip(ex.checks, cases, per_check, strict=True)
    ):
        seen_cases = seen_cases if isinstance(seen_cases, list) else []
        reason, hint, failures = None, check.hint, []
        if len(seen_cases) != len(check_cases):
            reason = "the submission reported the wrong number of results"
        for j, (case, seen) in enumerate(zip(check_cases, seen_cases, strict=False)):
            if check.serve is not None and isinstance(seen, dict):
                seen = {**seen, "calls": calls.get((i, j), 0)}  # the grader's count, not its own
            why = _judge_case(check, case, seen)
            if why is not None:
                reason = reason or why  # the first failure is the one reported
                failures.append((case, seen))
        if failures:
            hint = check.hint_for(failures)
        share = ex.points * check.weight / total
        if reason is not None and reason.startswith("raised ") and reason in raised:
            reported = "your function raised (see above), so this was not checked"
            results.append(CheckResult(check.name, False, "", reported, False, 0.0, share))
            continue
        if reason is not None and reason.startswith("raised "):
            raised.add(reason)
            # a raise gets a hint only from a mistake model that recognises it
            modelled = hint if check.mistakes else ""
            results.append(CheckResult(check.name, False, modelled, reason, True, 0.0, share))
            continue
        passed = reason is None
        score = share if passed else 0.0
        results.append(CheckResult(check.name, passed, hint, reason or "", True, score, share))
    if any(r.passed for r in results):  # it works elsewhere: a raise is this case's mistake
        results = [
            replace(r, hint=check.hint) if r.ran and not r.passed and not r.hint else r
            for r, check in zip(results, ex.checks, strict=True)
        ]
    passed = all(r.passed for r in results)
    # The first check is the exercise's main property. The others (the input left alone,
    # the number of evaluations, an edge case) earn their share only once it holds, so
    # a stub that computes nothing earns nothing for what it also does not do. The checks'
    # own scores say so too: they are what the notebook, the --checks columns and
    # Gradescope's tests show, and they add up to the exercise's score.
    if (all_or_nothing and not passed) or not results[0].passed:
        results = [replace(r, score=0.0) for r in results]
    score = sum(r.score for r in results)
    return ExerciseResult(
        ex.id,
        ex.title,
        round(score, 6),
        ex.points,
        "passed" if passed else "failed",
        tuple(results),
    )


def _zero(ex: Exercise, status: str, reason: str) -> ExerciseResult:
    return ExerciseResult(ex.id, ex.title, 0.0, ex.points, status, (), reason)


def broken(ex: Exercise, reason: str) -> ExerciseResult:
    """``ex`` scored 0 because the submission broke while it was checked."""
    return _zero(ex, "broken", reason)
