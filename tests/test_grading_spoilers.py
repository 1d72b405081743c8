"""No statement, hint or message gives the answer away (issue 11): each exercise lists its
reference solution's key expressions in ``Exercise.answers``, and none of them may appear in
what a student is shown: the statement, every check's hint, every mistake's hint, and the
feedback on the typical mistakes the chapters' tests grade."""

import pytest
from grading_helpers import spoilers

from micrograd_edu.grading import EXERCISES

WITH_ANSWERS = [ex for ex in EXERCISES.values() if ex.answers]


def shown(ex) -> list[str]:
    texts = [ex.statement]
    for check in ex.checks:
        texts += [check.hint, check.name] + [m.hint for m in check.mistakes]
    return texts


def test_the_chapters_that_list_their_answers():
    assert {ex.chapter for ex in WITH_ANSWERS} >= {"10"}


@pytest.mark.parametrize("ex", WITH_ANSWERS, ids=[ex.id for ex in WITH_ANSWERS])
def test_no_statement_or_hint_contains_the_answer(ex):
    assert not spoilers(ex, shown(ex))


def test_a_spoiler_is_caught():
    (ex,) = [ex for ex in WITH_ANSWERS if ex.id == "10.weighted_cross_entropy_backward"]
    assert spoilers(ex, ["hint: return P - ONEHOT over N"])
