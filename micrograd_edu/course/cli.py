"""The ``micrograd-edu`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def _doctor(args: argparse.Namespace) -> int:
    from .doctor import doctor

    report = doctor()
    print(report)
    return 0 if report.ok else 1


def _course(args: argparse.Namespace) -> int:
    from .launch import main

    try:
        return main(args.folder, args.app, args.port, False if args.no_browser else None)
    except OSError as error:  # no notebooks installed, a file where the folder goes, ...
        print(error, file=sys.stderr)
        return 2


def _update(args: argparse.Namespace) -> int:
    from .launch import workspace_folder
    from .workspace import report, update

    folder = workspace_folder(args.folder)
    try:
        changes = update(folder)
    except OSError as error:
        print(error, file=sys.stderr)
        return 2
    print(report(folder, changes))
    return 0


def _release(args: argparse.Namespace) -> int:
    from ..grading.release import release

    changed = release(args.solutions, args.exercises, check=args.check)
    for path in changed:
        print(f"{'out of date' if args.check else 'wrote'}: {path}")
    if args.check and changed:
        print("exercises/ is out of date: run `micrograd-edu release`", file=sys.stderr)
        return 1
    return 0


def _grade(args: argparse.Namespace) -> int:
    from ..grading.batch import Limits
    from ..grading.canvas import canvas_csv, feedback_html, read_roster
    from ..grading.gradebook import grade_all, progress_bar

    if not (args.csv or args.gradescope or args.canvas or args.feedback):
        print(
            "grade: give --csv FILE, --gradescope FILE, --canvas FILE or --feedback DIR to write",
            file=sys.stderr,
        )
        return 2
    if bool(args.canvas) != bool(args.roster):
        print("grade: --canvas needs --roster (and --roster is for --canvas)", file=sys.stderr)
        return 2
    try:
        roster = read_roster(args.roster) if args.roster else {}
    except (OSError, ValueError) as error:
        print(f"grade: {error}", file=sys.stderr)
        return 2
    from ..grading.sandbox import SandboxUnavailable

    given = {"timeout": args.timeout, "memory_mb": args.memory}
    limits = Limits(
        **{name: value for name, value in given.items() if value is not None},
        sandbox=not args.no_sandbox,
        all_or_nothing=args.all_or_nothing,
    )
    try:
        rows = grade_all(
            args.submissions,
            chapter_number=args.chapter,
            csv_path=args.csv,
            gradescope_path=args.gradescope,
            workers=args.workers,
            limits=limits,
            seed=args.seed,
            progress=progress_bar,
            per_check=args.checks,
        )
    except SandboxUnavailable as error:
        print(error, file=sys.stderr)
        return 2
    if args.feedback:
        folder = Path(args.feedback)
        folder.mkdir(parents=True, exist_ok=True)
        for row in rows:
            (folder / f"{Path(row.submission).stem}.html").write_text(
                feedback_html(row), encoding="utf-8"
            )
    if args.canvas:
        chapter = args.chapter or "?"
        text, unknown, absent = canvas_csv(
            rows, roster, args.assignment or f"micrograd_edu chapter {chapter}"
        )
        Path(args.canvas).write_text(text, encoding="utf-8")
        if unknown:
            print(f"grade: not in the roster (left out of {args.canvas}): {', '.join(unknown)}")
        if absent:
            print(f"grade: no submission, 0 in {args.canvas}: {', '.join(absent)}")
    for row in rows:
        print(f"{row.submission}: {row.score:g}/{row.max_score:g}")
    return 0


def _bundle(args: argparse.Namespace) -> int:
    from ..grading.gradescope import bundle

    print(f"wrote {bundle(args.chapter, args.output or f'autograder_{args.chapter}.zip')}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="micrograd-edu", description="The micrograd_edu course's tools."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    doctor = commands.add_parser("doctor", help="check that this machine is ready for the course")
    doctor.set_defaults(run=_doctor)

    where = (
        "the course's folder (default: the one you are in, or ./micrograd-edu-course); "
        "made when missing, brought up to date when there"
    )
    course = commands.add_parser(
        "course",
        help="open your course on chapter 00 (JupyterLab, or Notebook 7)",
        description="Make or update your course's folder (the lectures and the exercises; "
        "a notebook you changed is never overwritten: the new version goes beside it), "
        "then open it in JupyterLab on chapter 00.",
    )
    course.add_argument("folder", nargs="?", help=where)
    course.add_argument("--app", choices=["lab", "notebook"], default="lab")
    course.add_argument("--port", type=int, help="default: 8888, or the next free port")
    course.add_argument("--no-browser", action="store_true", help="only print the URL")
    course.set_defaults(run=_course)

    update = commands.add_parser(
        "update",
        help="update your course's folder without opening it (as a class hub does at login)",
    )
    update.add_argument("folder", nargs="?", help=where)
    update.set_defaults(run=_update)

    release = commands.add_parser("release", help="write exercises/ from solutions/")
    release.add_argument("--check", action="store_true", help="fail if exercises/ is out of date")
    release.add_argument("--solutions", default="solutions", help="default: solutions")
    release.add_argument("--exercises", default="exercises", help="default: exercises")
    release.set_defaults(run=_release)

    grade = commands.add_parser(
        "grade",
        help="grade submitted notebooks into a gradebook (POSIX only)",
        description="Each submission runs in its own process with time and memory limits. "
        "With one submission --gradescope writes Gradescope's results.json; with several, "
        "a JSON object mapping each submission's file name to such a result.",
    )
    grade.add_argument("submissions", nargs="+", help="notebooks, or folders of notebooks")
    grade.add_argument("--csv", help="gradebook CSV to write (rows appear as they finish)")
    grade.add_argument("--gradescope", help="results.json to write in Gradescope's format")
    grade.add_argument(
        "--chapter", help="chapter to grade (default: from the functions each notebook defines)"
    )
    grade.add_argument("--checks", action="store_true", help="the CSV also gets a column per check")
    grade.add_argument("--workers", type=int, default=2, help="processes at once (default 2)")
    grade.add_argument(
        "--timeout",
        type=float,
        help="seconds for the cells, and per exercise (default: the in-notebook check's limit)",
    )
    grade.add_argument(
        "--memory", type=int, help="MB per submission (default: the batch grader's limit)"
    )
    grade.add_argument("--seed", help="fix the secret seed (to reproduce a run)")
    grade.add_argument(
        "--roster", help="CSV: submission (file name), Student, ID (+ SIS columns, Section)"
    )
    grade.add_argument("--canvas", help="CSV to write in the layout Canvas's gradebook imports")
    grade.add_argument("--assignment", help="the Canvas column's name (default: the chapter)")
    grade.add_argument("--feedback", help="folder to write one feedback page per submission in")
    grade.add_argument(
        "--all-or-nothing",
        action="store_true",
        help="an exercise's points only when all its checks pass (default: shared by check)",
    )
    grade.add_argument(
        "--no-sandbox",
        action="store_true",
        help="grade without bubblewrap where it cannot run (the gradebook records it)",
    )
    grade.set_defaults(run=_grade)

    gradescope = commands.add_parser(
        "gradescope-bundle", help="write the Gradescope autograder zip for a chapter"
    )
    gradescope.add_argument("chapter", help='chapter number, e.g. "01"')
    gradescope.add_argument("-o", "--output", help="default: autograder_CHAPTER.zip")
    gradescope.set_defaults(run=_bundle)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
