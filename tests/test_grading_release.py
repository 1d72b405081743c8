"""release: exercises/ from solutions/, stubs in place of solutions, checked in sync, and
refused (nothing written) for a broken marker, a solution short of full marks, or an
exercise notebook that still earns points."""

import json
from pathlib import Path

import pytest

import micrograd_edu
from micrograd_edu.course.cli import main
from micrograd_edu.grading.notebook import NotebookError, Shell, code_cells, dumps, read_notebook
from micrograd_edu.grading.release import ReleaseError, exercise_notebook, release, strip_solutions

ROOT = Path(__file__).resolve().parents[1]


def test_exercises_are_up_to_date_with_solutions():
    assert release(ROOT / "solutions", ROOT / "exercises", check=True) == []
    assert (
        main(
            [
                "release",
                "--check",
                "--solutions",
                str(ROOT / "solutions"),
                "--exercises",
                str(ROOT / "exercises"),
            ]
        )
        == 0
    )


def test_release_stubs_solutions_clears_outputs_and_keeps_ids():
    solution = read_notebook(ROOT / "solutions" / "01_numerical.ipynb")
    solution["cells"][1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "x"}]
    student = exercise_notebook(solution)
    assert [c.get("id") for c in student["cells"]] == [c.get("id") for c in solution["cells"]]
    code = "\n".join(code_cells(student))
    assert "BEGIN SOLUTION" not in code and code.count("raise NotImplementedError()") == 5
    assert "return (f(x + h) - 2 * f(x) + f(x - h)) / h**2" not in code
    assert all(c.get("outputs", []) == [] for c in student["cells"])
    assert solution["cells"][1]["outputs"]  # the solution itself is untouched


def test_release_check_names_stale_and_orphan_notebooks(tmp_path):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    (solutions / "01_numerical.ipynb").write_text(
        (ROOT / "solutions" / "01_numerical.ipynb").read_text()
    )
    assert release(solutions, exercises, check=True) == [exercises / "01_numerical.ipynb"]
    assert release(solutions, exercises, grade=False) == [exercises / "01_numerical.ipynb"]
    assert release(solutions, exercises, check=True) == []
    (exercises / "99_old.ipynb").write_text("{}")
    assert (
        main(["release", "--check", "--solutions", str(solutions), "--exercises", str(exercises)])
        == 1
    )
    release(solutions, exercises, grade=False)
    assert not (exercises / "99_old.ipynb").exists()


def test_markdown_solutions_become_your_answer_here():
    nb = {
        "nbformat": 4,
        "cells": [
            {
                "cell_type": "markdown",
                "id": "a",
                "metadata": {},
                "source": "Why?\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION\n",
            }
        ],
    }
    assert exercise_notebook(nb)["cells"][0]["source"] == "Why?\nYOUR ANSWER HERE\n"


@pytest.mark.parametrize(
    "text, message",
    [
        ("### BEGIN SOLUTION\nx = 1\n", "without an ### END SOLUTION"),
        ("x = 1\n### END SOLUTION\n", "without a ### BEGIN SOLUTION"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n", "line 2: ### BEGIN SOLUTION inside"),
        ("x = 1\n#BEGIN SOLUTION\n", "line 2: `#BEGIN SOLUTION` looks like a marker"),
        ("x = 1\n    ## end solution\n", "line 2: `## end solution` looks like a marker"),
    ],
)
def test_unbalanced_markers_are_named(text, message):
    with pytest.raises(NotebookError, match=message):
        strip_solutions(text, ["pass"], "01_numerical.ipynb cell x")


def test_a_file_that_is_not_a_notebook_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text(json.dumps({"cells": "nope"}))
    with pytest.raises(NotebookError, match="not a valid notebook"):
        read_notebook(bad)
    with pytest.raises(FileNotFoundError, match="no solutions folder"):
        release(tmp_path / "missing", tmp_path / "out")


def test_ipython_syntax_runs_as_jupyter_runs_it():
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "source": "%%time\nx = 1\n!ls\nfor i in range(2):\n    %timeit x",
            },
            {"cell_type": "code", "source": "%%writefile a.py\nprint(1)"},
            {"cell_type": "code", "source": "np.einsum?\ny = x + 1"},
            {"cell_type": "code", "source": "files = !ls\nz = %time y * 2"},
        ]
    }
    namespace = {"np": __import__("numpy")}
    shell = Shell(namespace)
    namespace["get_ipython"] = lambda: shell
    for code in code_cells(nb):
        exec(compile(code, "cell", "exec"), namespace)
    # %%time ran its body once (its !ls did nothing); %%writefile wrote nothing; the help
    # line did not make its cell a SyntaxError; !ls gave an empty list; %time returned y * 2
    assert namespace["x"] == 1 and namespace["y"] == 2 and namespace["z"] == 4
    assert namespace["files"] == [] and not Path("a.py").exists()


def test_an_nbformat_3_notebook_is_upgraded(tmp_path):
    old = {
        "nbformat": 3,
        "nbformat_minor": 0,
        "metadata": {"name": "old"},
        "worksheets": [
            {
                "cells": [
                    {
                        "cell_type": "code",
                        "input": "x = 41 + 1",
                        "language": "python",
                        "outputs": [],
                        "metadata": {},
                    }
                ]
            }  # fmt: skip
        ],
    }
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(old))
    assert code_cells(read_notebook(path)) == ["x = 41 + 1\n"]


def test_deeply_nested_json_is_a_clear_error_not_a_crash(tmp_path):
    path = tmp_path / "deep.ipynb"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(NotebookError, match="not a valid notebook"):
        read_notebook(path)


def test_released_notebooks_carry_the_package_version():
    for path in sorted((ROOT / "exercises").glob("*.ipynb")):
        meta = read_notebook(path)["metadata"]["micrograd_edu"]
        assert meta["version"] == micrograd_edu.__version__, path.name
        assert meta["chapter"] == path.name[:2]


def _solution(folder: Path, name: str, cell_id: str, code: str) -> None:
    nb = read_notebook(ROOT / "solutions" / "01_numerical.ipynb")
    next(c for c in nb["cells"] if c.get("id") == cell_id)["source"] = code
    (folder / name).write_text(dumps(nb), encoding="utf-8")


def test_a_broken_marker_is_named_with_its_cell_and_line_and_nothing_is_written(tmp_path, capsys):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    unclosed = "def step_size(x):\n    ### BEGIN SOLUTION\n    return 1e-4\n"
    _solution(solutions, "01_a.ipynb", "step-code", unclosed)
    stray = "def step_size(x):\n    return 1e-4\n    ### END SOLUTION\n"
    _solution(solutions, "01_b.ipynb", "step-code", stray)
    args = ["release", "--solutions", str(solutions), "--exercises", str(exercises)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and not exercises.exists()
    cells = read_notebook(ROOT / "solutions" / "01_numerical.ipynb")["cells"]
    codes = [c.get("id") for c in cells if c["cell_type"] == "code"]
    n = codes.index("step-code") + 1  # as the message counts code cells
    assert f"01_a.ipynb code cell {n} (id step-code), line 2: ### BEGIN SOLUTION without" in err
    assert f"01_b.ipynb code cell {n} (id step-code), line 3: ### END SOLUTION without" in err


def test_release_refuses_a_solution_short_of_full_marks_or_a_stub_that_earns(tmp_path):
    solutions, exercises = tmp_path / "solutions", tmp_path / "exercises"
    solutions.mkdir()
    # the precedence slip the fixtures know: it scores 9/11 with the grader
    slip = (
        "def second_difference(f, x, h):\n    ### BEGIN SOLUTION\n"
        "    return (f(x + h) - 2 * f(x) + f(x - h)) / h * h\n    ### END SOLUTION\n"
    )
    _solution(solutions, "01_broken.ipynb", "second-code", slip)
    # a solution written outside its markers reaches the students
    leak = (
        "def step_size(x):\n    return 2.0 ** (-52 / 4) * max(1.0, abs(x))\n"
        "    ### BEGIN SOLUTION\n    ### END SOLUTION\n"
    )
    _solution(solutions, "01_leaky.ipynb", "step-code", leak)
    with pytest.raises(ReleaseError) as refused:
        release(solutions, exercises)
    problems = str(refused.value).splitlines()
    assert any(p.startswith("01_broken.ipynb scores 9/11 with the grader") for p in problems)
    assert any("01_leaky.ipynb, as released, earns" in p and "01.step_size" in p for p in problems)
    assert not exercises.exists()
