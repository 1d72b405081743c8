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

Four rules keep a grade honest; here is how a chapter uses each.

* **Every observation a score depends on is made by the grader.** Either the judge
  evaluates what the student's function returned on inputs the child never saw, or the
  check watches through objects whose counters live in the grader: with ``serve``, the
  runner gets ``case["ask"]``, a function the grader's process answers and counts
  (:class:`Served`; runners/served.py has ``remote`` for a function of numbers,
  ``remote_duals`` for one on dual numbers, ``remote_values`` for one on Values). The
  judge reads the count as ``seen["calls"]`` and, with ``log_requests=True``, what was
  asked as ``seen["requests"]``. No secret parameter ever crosses into the child: the
  grader answers with values, never with what it computes them from.
* **A check earns nothing for a property the work does not have.** A check that only
  makes sense once another holds names it in ``after`` (by default every check but the
  first waits for the first, the exercise's main property). While that one fails, a
  waiting check that would pass earns nothing and shows no ✔ ("–, waits for ..."); one
  that fails still says why.
* **A hint is shown only when its mistake is the explanation.** Give the check
  ``right(case)``, the observation a right answer makes (plain data; ``REAL`` where any
  number is right): the registry then tries the plain explanations first
  (:mod:`.explain`): a wrong type or shape gets no hint at all, and a constant factor on
  every failing case only the hint of a ``Mistake(factor=c)`` for that very ``c``.
  Otherwise a mistake's hint is shown when its model reproduces what the student's code
  gave on *every* failing case; else no hint, and the reason says what was seen. Name
  every mistake (``Mistake(..., name="forward")``): tests/mistakes/ holds a wrong
  answer per name, and tests/test_grading_mistakes.py checks, over many seeds, that it
  gets its own hint and no other.
* **Points add up.** Each check's share is rounded so that the shares of an exercise add
  up to its points exactly, and a check's score is its share or 0: what the notebook,
  ``--checks`` and Gradescope show per check adds up to the exercise's score.
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
WAITS = "not counted until"  # a check that holds, waiting for one it builds on


@dataclass(frozen=True)
class Mistake:
    """A typical wrong answer, modelled: ``matches(case, seen)`` says whether the
    observation is what that mistake produces on the case (the grader computes the
    mistaken output from the case; it is never shown). ``hint`` points at the idea the
    mistake misses, never at the answer.

    ``factor``: the mistake is a constant factor (2.0 for a difference over h where 2h
    belongs, 0.0 for a gradient never added, -1.0 for a sign; or a test of the factor,
    such as "a power of 2"): it fits when the check's plain explanation is such a
    factor (see :mod:`.explain`; the check needs ``right``), and ``matches`` may then be
    None. ``name``: how tests/mistakes/ refers to it.
    """

    matches: Callable[[Case, dict[str, Any]], bool] | None
    hint: str
    name: str = ""
    factor: float | Callable[[float], bool] | None = None

    def is_factor(self, c: float | None) -> bool:
        """Whether ``c``, the constant factor seen on every failure, is this mistake's."""
        if c is None or self.factor is None:
            return False
        if callable(self.factor):
            return bool(self.factor(c))
        return abs(c - self.factor) <= 1e-6 * max(1.0, abs(c))


@dataclass(frozen=True)
class Check:
    """One property of a correct answer, aimed at the mistakes students make.

    With ``mistakes``, a failure gets the hint of the first mistake whose model
    reproduces what the student's function returned on every failing case, and no hint
    when none does (the judge's reason then says what it saw against what a correct
    answer satisfies). Without, a failure gets ``hint`` (a hint no model backs: prefer
    a ``Mistake``), unless a plain explanation fits.
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
    # With serve: the judge also gets what the runner asked, in order, as seen["requests"].
    log_requests: bool = False
    # The checks (by name, earlier in the exercise) whose property this one presupposes:
    # it earns nothing and shows no ✔ while one of them fails. None: the first check's
    # (the exercise's main property) for every check but the first itself.
    after: tuple[str, ...] | None = None
    # right(case): the observation a right answer makes on the case, for the keys the judge
    # reads (plain data, explain.REAL where any number is right). With it, a failure is
    # first explained plainly (type, shape, a constant factor) before any mistake's hint.
    right: Callable[[Case], dict[str, Any]] | None = None
    # note(case, seen): what the work reached on a case where the property holds, said to
    # the student beside the ✔ (the held-out loss or accuracy a training reached).
    note: Callable[[Case, dict[str, Any]], str] | None = None

    def hint_for(self, failures: list[tuple[Case, Any]]) -> tuple[str, str]:
        """(the hint, what was seen) for the check's failures, each a case and what the
        student's code returned on it: the hint of the first of :meth:`fitting`, or the
        check-level hint where the check models no mistake and nothing plainer fits.
        "What was seen" is a constant factor's plain explanation, or "" (a type or a
        shape, the judge's reason says itself)."""
        explanation = self._explanation(failures)
        if explanation is not None and explanation.kind == "type":
            return "", ""  # the judge's reason says what the answer was
        seen_text = explanation.text if explanation else ""
        if not self.mistakes:
            return ("" if explanation else self.hint), seen_text
        found = self.fitting(failures, explanation)
        return (found[0].hint if found else ""), seen_text

    def _explanation(self, failures: list[tuple[Case, Any]]) -> Any:
        # The judge's alone: the sandbox mounts what the child runs, and it never judges.
        from .explain import explain

        if self.right is None or not failures:
            return None
        pairs = []
        for case, seen in failures:
            try:
                pairs.append((self.right(case), seen))
            except Exception:  # a right answer the grader cannot state explains nothing
                continue
        return explain(pairs)

    def fitting(self, failures: list[tuple[Case, Any]], explanation: Any = ...) -> list[Mistake]:
        """The mistakes that explain ``failures``, in order. The plain explanations come
        first (with ``right``): a wrong type or shape is explained by no mistake; a
        constant factor on every failing case only by a mistake declared with that
        ``factor``. Otherwise a mistake explains the failures when its model reproduces
        every one of them (on one small case two mistakes may give the same output;
        across all the cases that failed only the one that was made fits)."""
        if explanation is ...:
            explanation = self._explanation(failures)
        if not failures or (explanation is not None and explanation.kind == "type"):
            return []

        def fits(mistake: Mistake, case: Case, seen: Any) -> bool:
            try:
                return isinstance(seen, dict) and bool(mistake.matches(case, seen))
            except Exception:  # a malformed observation matches no model
                return False

        found = []
        for mistake in self.mistakes:
            if mistake.factor is not None:
                if not mistake.is_factor(explanation.factor if explanation else None):
                    continue
            elif explanation is not None:  # a plainer explanation fits: not this mistake
                continue
            if mistake.matches is None or all(fits(mistake, case, seen) for case, seen in failures):
                found.append(mistake)
        return found


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
    waiting: str = ""  # the check this one waits for (Check.after), which does not hold
    note: str = ""  # what the work reached where the property holds (Check.note)

    @property
    def failed(self) -> bool:
        """The property does not hold (one that holds while it waits has not failed).

        >>> CheckResult("x", False, reason=WAITS + " “y” holds", waiting="y").failed
        False
        """
        return not self.passed and not (self.waiting and self.reason.startswith(WAITS))


@dataclass(frozen=True)
class ExerciseResult:
    """A graded exercise: its points shared among its checks by weight (partial
    credit; a check counts once the checks it waits for hold, see ``Check.after``), or,
    graded all or nothing, all of them only when every check passes."""

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
    for k, check in enumerate(ex.checks):
        earlier = {c.name for c in ex.checks[:k]}
        unknown = [name for name in check.after or () if name not in earlier]
        if unknown:
            raise ValueError(
                f"register: {ex.id}'s check {check.name!r} waits for {unknown}, which is not "
                "an earlier check of the exercise"
            )
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
    the student's process (and, for a check with ``log_requests``, what was asked).

    >>> ex = exercise("01.numerical_gradient")
    >>> served = Served(ex, draw_cases(ex, "seed"))
    >>> served(3, 0, [0.0] * len(served.cases[3][0]["xs"]))
    0.0
    >>> served.counted({"checks": []})["calls"]
    [[3, 0, 1]]
    """

    LIMIT = 100_000  # evaluations of one exercise: far above any honest method
    LOGGED = 2_000  # requests kept per case for a judge that reads them (log_requests)

    def __init__(self, ex: Exercise, cases: list[list[Case]]) -> None:
        self.ex, self.cases = ex, cases
        self.counts: dict[tuple[int, int], int] = {}
        self.requests: dict[tuple[int, int], list[Any]] = {}

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
        if self.ex.checks[check].log_requests:
            kept = self.requests.setdefault((check, case), [])
            if len(kept) < self.LOGGED:
                kept.append(to_plain(request))
        return serve(self.cases[check][case], request)

    def counted(self, observed: Any) -> Any:
        """``observed`` with the counts made here as its ``calls``, and the logged
        requests as its ``requests`` (whatever the submission put under those keys is
        replaced)."""
        if not isinstance(observed, dict):
            return observed
        return {
            **observed,
            "calls": [[i, j, n] for (i, j), n in sorted(self.counts.items())],
            "requests": [[i, j, asked] for (i, j), asked in sorted(self.requests.items())],
        }


def _by_case(observed: dict[str, Any], key: str) -> dict[tuple[int, int], Any]:
    """What :meth:`Served.counted` put under ``key`` in ``observed``, by (check, case)."""
    found = {}
    for entry in observed.get(key) or []:
        if isinstance(entry, list) and len(entry) == 3 and all(type(k) is int for k in entry[:2]):
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


def _noted(check: Check, cases: list[Case], seen_cases: list[Any]) -> str:
    """What ``check.note`` says of each case (all of which passed), joined; "" without one."""
    if check.note is None:
        return ""
    notes = []
    for case, seen in zip(cases, seen_cases, strict=False):
        try:
            notes.append(check.note(case, seen))
        except Exception:  # a note is a courtesy: one the grader cannot state is left out
            continue
    return "; ".join(n for n in notes if n)


def _shares(ex: Exercise) -> list[float]:
    """Each check's share of the points, by weight, rounded so that they add up to the
    exercise's points exactly (a share is the difference of two rounded running totals)."""
    total = sum(check.weight for check in ex.checks) or 1.0
    shares, before = [], 0.0
    for check in ex.checks:
        low = round(ex.points * before / total, 6)
        before += check.weight
        shares.append(round(round(ex.points * before / total, 6) - low, 6))
    return shares


def _consistent(
    ex: Exercise, results: list[CheckResult], failed: list[list[tuple[Case, Any]]]
) -> list[CheckResult]:
    """``results`` with each modelled hint chosen among the mistakes that explain the check's
    failures AND those of every other check naming that mistake which failed: a mistake
    made fits everywhere (counting only a node's first argument looks like counting the
    leaves on one tree, not on the next), so a hint another check contradicts is dropped."""
    # (a check whose failures a plain explanation covers, or a raise reported above,
    # neither supports nor contradicts a mistake)
    fitting = [
        {m.name for m in check.fitting(failures)}
        if failures and result.ran and check._explanation(failures) is None
        else None
        for check, failures, result in zip(ex.checks, failed, results, strict=True)
    ]

    def agreed(i: int, name: str) -> bool:
        return not name or all(
            fits is None or j == i or name in fits or name not in {m.name for m in other.mistakes}
            for j, (other, fits) in enumerate(zip(ex.checks, fitting, strict=True))
        )

    out = list(results)
    for i, (check, result) in enumerate(zip(ex.checks, results, strict=True)):
        if not check.mistakes or not result.hint or not failed[i]:
            continue
        mistakes = [m for m in check.fitting(failed[i]) if agreed(i, m.name)]
        out[i] = replace(result, hint=mistakes[0].hint if mistakes else "")
    return out


def _waits_for(ex: Exercise, index: int) -> tuple[str, ...]:
    after = ex.checks[index].after
    if after is None:
        return (ex.checks[0].name,) if index else ()
    return after


def judge(
    ex: Exercise, cases: list[list[Case]], observed: Any, all_or_nothing: bool = False
) -> ExerciseResult:
    """Score ``observed`` (plain data from :func:`observe`) against the oracles.

    A raise is reported once, with the student's line, on the first check it stopped;
    the checks after it that met the same raise are listed as not run. It gets a hint
    only from a mistake model that recognises it. A check whose ``after`` does not hold
    earns nothing and is not marked passed (see :class:`Check`).
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
    shares = _shares(ex)
    results, raised, failed = [], set(), []  # failed: each check's failures
    calls, requests = _by_case(observed, "calls"), _by_case(observed, "requests")
    for i, (check, check_cases, seen_cases) in enumerate(
        zip(ex.checks, cases, per_check, strict=True)
    ):
        seen_cases = seen_cases if isinstance(seen_cases, list) else []
        reason, hint, failures = None, check.hint, []
        if len(seen_cases) != len(check_cases):
            reason = "the submission reported the wrong number of results"
        for j, (case, seen) in enumerate(zip(check_cases, seen_cases, strict=False)):
            if check.serve is not None and isinstance(seen, dict):
                # the grader's count (and requests), never what the submission says
                seen = {**seen, "calls": calls.get((i, j), 0)}
                if check.log_requests:
                    seen["requests"] = requests.get((i, j), [])
            why = _judge_case(check, case, seen)
            if why is not None:
                reason = reason or why  # the first failure is the one reported
                failures.append((case, seen))
        failed.append(failures)
        note = "" if failures or reason is not None else _noted(check, check_cases, seen_cases)
        if failures:
            hint, seen_text = check.hint_for(failures)
            if seen_text and len(failures) > 1 and not hint and reason is not None:
                reason = f"{reason} ({seen_text})"
        share = shares[i]
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
        # a check whose property holds has no hint (it may wait for another, Check.after,
        # and a waiting check must not suggest a mistake it did not see)
        hint = hint if reason is not None else ""
        results.append(
            CheckResult(check.name, reason is None, hint, reason or "", True, 0.0, share, note=note)
        )
    results = _consistent(ex, results, failed)
    if any(r.passed for r in results):  # it works elsewhere: a raise is this case's mistake
        results = [  # (a check-level hint: no model backs it, so chapters prefer a Mistake)
            replace(r, hint=check.hint) if r.ran and not r.passed and not r.hint else r
            for r, check in zip(results, ex.checks, strict=True)
        ]
    # A check whose property presupposes another's (Check.after) waits for it: a stub that
    # computes nothing earns nothing, and shows no ✔, for what it also does not do.
    holds: dict[str, bool] = {}
    for k, r in enumerate(results):
        blocked = next((name for name in _waits_for(ex, k) if not holds.get(name)), "")
        if blocked:
            why = r.reason if not r.passed else f"{WAITS} “{blocked}” holds"
            results[k] = r = replace(r, passed=False, waiting=blocked, reason=why)
        holds[r.name] = r.passed
    passed = all(r.passed for r in results)
    if not (all_or_nothing and not passed):
        results = [replace(r, score=r.max_score if r.passed else 0.0) for r in results]
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
