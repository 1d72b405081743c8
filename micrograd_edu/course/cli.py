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
    from ..grading.release import ReleaseError, release

    try:
        changed = release(args.solutions, args.exercises, check=args.check)
    except (ReleaseError, FileNotFoundError) as error:
        print(f"release: nothing written:\n{error}", file=sys.stderr)
        return 1
    for path in changed:
        print(f"{'out of date' if args.check else 'wrote'}: {path}")
    if args.check and changed:
        print("exercises/ is out of date: run `micrograd-edu release`", file=sys.stderr)
        return 1
    return 0


def _grade(args: argparse.Namespace) -> int:
    from ..grading.batch import Limits
    from ..grading.gradebook import Interrupted, grade_all, progress_bar
    from ..grading.sandbox import SandboxUnavailable

    def fail(message: object) -> int:
        print(f"grade: {message}", file=sys.stderr)
        return 2

    if not (args.csv or args.gradescope or args.canvas or args.feedback):
        return fail("give --csv FILE, --gradescope FILE, --canvas FILE or --feedback DIR to write")
    if args.canvas and not (args.roster and args.csv):
        return fail("--canvas is derived from the whole gradebook: give --roster and --csv too")
    try:
        options = _grade_options(args)
    except (OSError, ValueError, KeyError) as error:
        return fail(str(error).strip("'\""))
    given = {"timeout": args.timeout, "memory_mb": args.memory}
    limits = Limits(
        **{name: value for name, value in given.items() if value is not None},
        isolation="none" if args.no_sandbox else args.isolation,
        all_or_nothing=args.all_or_nothing,
    )
    interrupted = None
    try:
        rows = grade_all(
            args.submissions,
            chapter_number=options["chapter"],
            csv_path=args.csv,
            gradescope_path=args.gradescope,
            workers=args.workers,
            limits=limits,
            seed=args.seed,
            progress=progress_bar,
            per_check=args.checks,
            roster=options["roster"],
            late=options["late"],
            only=options["only"],
            one_submission=args.one_submission,
            visibility=options["rules"],
        )
    except SandboxUnavailable as error:
        print(error, file=sys.stderr)
        if args.gradescope:  # Gradescope shows this instead of a grade made unsandboxed
            from ..grading.gradescope import not_graded

            Path(args.gradescope).write_text(not_graded(str(error)), encoding="utf-8")
        return 2
    except Interrupted as stop:
        rows, interrupted = stop.rows, stop
    except ValueError as error:  # a --csv that is not a gradebook
        return fail(error)
    _grade_outputs(args, rows, options["roster"])
    if interrupted is not None:
        print(f"grade: {interrupted}; not graded: {', '.join(interrupted.left)}", file=sys.stderr)
        return 130
    return 0


def _grade_options(args: argparse.Namespace) -> dict:
    """The roster, late policy, visibility rules, instructor exercises and the exercises
    to regrade that the command line names, each checked."""
    from ..grading.gradescope import parse_rules
    from ..grading.instructor import load_checks
    from ..grading.late import Policy
    from ..grading.registry import chapter, exercise
    from ..grading.roster import Roster

    load_checks(args.solutions, required=args.solutions != "solutions")
    roster = Roster.read(args.roster) if args.roster else None
    late = Policy.read(args.late) if args.late else None
    if late is not None and roster is not None:
        late = late.resolve(roster.find)
    only = [exercise(e).id for e in args.exercise or []]
    number = args.chapter
    if number:
        chapter(number)  # a clear error naming the chapters there are
    chapters = {e.split(".", 1)[0] for e in only}
    if len(chapters) > 1 or (number and chapters and chapters != {number}):
        raise ValueError(f"--exercise names chapter {', '.join(sorted(chapters))}'s exercises")
    return {
        "roster": roster,
        "late": late,
        "rules": parse_rules(args.visibility or []),
        "only": only,
        "chapter": number or (chapters.pop() if chapters else None),
    }


def _grade_outputs(args: argparse.Namespace, rows: list, roster: object) -> None:
    """The feedback pages, the Canvas file and the summary for the rows graded."""
    import re

    from ..grading.canvas import canvas_csv, feedback_html
    from ..grading.record import Gradebook, write

    backed: set[Path] = set()
    if args.feedback:
        folder = Path(args.feedback)
        folder.mkdir(parents=True, exist_ok=True)
        for row in rows:
            name = re.sub(r"[^\w.-]+", "_", row.student or Path(row.submission).stem)
            write(folder / f"{name}.html", feedback_html(row), backed)
    if args.canvas:
        chapters = sorted({row.chapter for row in rows if row.chapter})
        names = {c: args.assignment or f"micrograd_edu chapter {c}" for c in chapters}
        if args.assignment and len(chapters) > 1:
            names = {c: f"{args.assignment} ({c})" for c in chapters}
        text, absent, unknown = canvas_csv(Gradebook(args.csv).rows(), roster, names)
        write(args.canvas, text, backed)
        if unknown:
            print(f"grade: not in the roster, left out of {args.canvas}: {', '.join(unknown)}")
        if absent:
            print(f"grade: no submission, 0 in {args.canvas}: {', '.join(absent)}")
    for row in rows:
        who = f" [{row.student}]" if row.student else ""
        print(f"{row.submission}{who}: {row.score:g}/{row.max_score:g}")
        for note in row.notes:
            print(f"    {note}")


def _bundle(args: argparse.Namespace) -> int:
    from ..grading.gradescope import bundle, level, parse_rules
    from ..grading.instructor import load_checks
    from ..grading.registry import chapter

    try:
        rules = parse_rules(args.visibility or [])
        files = load_checks(args.solutions, required=args.solutions != "solutions")
        checks = [f for f in files if f.name[:2] == args.chapter]
        exercises = chapter(args.chapter)
    except (ValueError, KeyError) as error:
        print(f"gradescope-bundle: {str(error).strip(chr(39))}", file=sys.stderr)
        return 2
    out = bundle(args.chapter, args.output or f"autograder_{args.chapter}.zip", rules, checks)
    print(f"wrote {out}" + (f" (with {', '.join(f.name for f in checks)})" if checks else ""))
    hidden = [
        f"{e.id}: {c.name}"
        for e in exercises
        for c in e.checks
        if level(f"{e.id}: {c.name}", rules) == "hidden"
    ]
    if hidden:
        print(
            f"note: {len(hidden)} hidden test(s) still count in the total score students see "
            "(Gradescope's rule); use after_due_date to keep graded tests out of sight",
            file=sys.stderr,
        )
    return 0


def _similarity(args: argparse.Namespace) -> int:
    from ..grading.instructor import load_checks
    from ..grading.record import write
    from ..grading.roster import Roster
    from ..grading.similarity import build

    try:
        load_checks(args.solutions, required=args.solutions != "solutions")
        roster = Roster.read(args.roster) if args.roster else None
        page, sections, notes = build(args.submissions, args.chapter, args.released, roster)
    except (OSError, ValueError, KeyError) as error:
        print(f"similarity: {str(error).strip(chr(39))}", file=sys.stderr)
        return 2
    write(args.html, page)
    for note in notes:
        print(f"similarity: {note}", file=sys.stderr)
    for exercise_id, compared, pairs in sections:
        print(f"{exercise_id}: {compared} submissions compared, {len(pairs)} pair(s) listed")
        for pair in pairs:
            print(f"    {pair.a.who} / {pair.b.who}: {pair.similarity:.0%}")
    print(f"wrote {args.html}")
    return 0


def _written(args: argparse.Namespace) -> int:
    from ..grading.record import write
    from ..grading.roster import Roster
    from ..grading.written import collect

    try:
        roster = Roster.read(args.roster) if args.roster else None
        pages, sheet, notes = collect(args.submissions, args.chapter, args.solutions, roster)
    except (OSError, ValueError) as error:
        print(f"written: {error}", file=sys.stderr)
        return 2
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    backed: set[Path] = set()
    for name, page in pages.items():
        write(folder / name, page, backed)
    sheet_path = folder / f"marks_{args.chapter}.csv"
    if sheet_path.exists():
        print(f"written: kept {sheet_path} (it may hold marks); the new sheet is .new.csv")
        sheet_path = folder / f"marks_{args.chapter}.new.csv"
    write(sheet_path, sheet, backed)
    for note in notes:
        print(f"written: {note}", file=sys.stderr)
    print(f"wrote {len(pages)} page(s) and {sheet_path} in {folder}")
    return 0


def _marks(args: argparse.Namespace) -> int:
    from ..grading.written import merge_marks

    try:
        merged, problems = merge_marks(args.marks, args.csv)
    except (OSError, ValueError) as error:
        problems, merged = [str(error)], 0
    if problems:
        print("marks: nothing merged:\n" + "\n".join(problems), file=sys.stderr)
        return 1
    print(f"merged {merged} mark(s) into {args.csv}")
    return 0


def _visibility_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--visibility",
        action="append",
        metavar="PATTERN=LEVEL",
        help="Gradescope visibility of the tests matching PATTERN (an exercise id or "
        "'id: check', wildcards allowed; repeatable, the first match wins): visible, "
        "hidden, after_due_date, after_published",
    )


def _solutions_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--solutions",
        default="solutions",
        help="folder of instructor exercises' check files (*.checks.py; default: solutions)",
    )


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
    grade.add_argument(
        "--csv",
        help="the gradebook CSV: each row graded is merged in as it finishes; other rows stay",
    )
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
        "--memory",
        type=int,
        help="MB for all of a submission's processes (default: the batch grader's limit)",
    )
    grade.add_argument("--seed", help="fix the secret seed (to reproduce a run)")
    grade.add_argument(
        "--roster",
        help="CSV of the class: Student, ID (+ SIS User ID, SIS Login ID, Login, Email, Section, "
        "submission, submitted); files are matched to students by the IDs in their names",
    )
    grade.add_argument("--late", help="TOML file of due dates, extensions and the late policy")
    grade.add_argument(
        "--exercise",
        action="append",
        help="regrade only this exercise (repeatable): only its cells change in the gradebook",
    )
    grade.add_argument(
        "--one-submission",
        action="store_true",
        help="all that is given is one student's submission (Gradescope): find its notebook",
    )
    _visibility_option(grade)
    _solutions_option(grade)
    grade.add_argument("--canvas", help="CSV to write in the layout Canvas's gradebook imports")
    grade.add_argument("--assignment", help="the Canvas column's name (default: the chapter)")
    grade.add_argument("--feedback", help="folder to write one feedback page per submission in")
    grade.add_argument(
        "--all-or-nothing",
        action="store_true",
        help="an exercise's points only when all its checks pass (default: shared by check)",
    )
    grade.add_argument(
        "--isolation",
        choices=["bubblewrap", "user", "auto"],
        default="bubblewrap",
        help="how each submission is isolated: bubblewrap (default), an unprivileged user "
        "(as root, where bubblewrap cannot run: Gradescope), or auto (the first that works)",
    )
    grade.add_argument(
        "--no-sandbox",
        action="store_true",
        help="grade without isolation where none can run (the gradebook records it)",
    )
    grade.set_defaults(run=_grade)

    similarity = commands.add_parser(
        "similarity",
        help="compare every pair of submissions, exercise by exercise (an HTML page)",
        description="Each exercise's code, names renamed, comments and layout dropped and the "
        "released notebook's code left out, compared pair by pair; the closest pairs are shown "
        "side by side. No verdict is given.",
    )
    similarity.add_argument("submissions", nargs="+", help="notebooks, folders or zips")
    similarity.add_argument("--chapter", required=True, help='chapter number, e.g. "01"')
    similarity.add_argument("--html", default="similarity.html", help="the page to write")
    similarity.add_argument(
        "--released",
        default="exercises",
        help="the released notebooks' folder (or one notebook), whose code is left out",
    )
    similarity.add_argument("--roster", help="name students as the roster does (see grade)")
    _solutions_option(similarity)
    similarity.set_defaults(run=_similarity)

    written = commands.add_parser(
        "written",
        help="collect the written answers, one HTML page per question, and a marks sheet",
    )
    written.add_argument("submissions", nargs="+", help="notebooks, folders or zips")
    written.add_argument("--chapter", required=True, help='chapter number, e.g. "01"')
    written.add_argument("--out", default="marking", help="folder to write in (default: marking)")
    written.add_argument(
        "--solutions", default="solutions", help="where the questions are (default: solutions)"
    )
    written.add_argument("--roster", help="name students as the roster does (see grade)")
    written.set_defaults(run=_written)

    marks = commands.add_parser("marks", help="merge a filled-in marks sheet into the gradebook")
    marks.add_argument("marks", help="the sheet `written` wrote, with marks filled in")
    marks.add_argument("--csv", required=True, help="the gradebook to merge them into")
    marks.set_defaults(run=_marks)

    gradescope = commands.add_parser(
        "gradescope-bundle", help="write the Gradescope autograder zip for a chapter"
    )
    gradescope.add_argument("chapter", help='chapter number, e.g. "01"')
    gradescope.add_argument("-o", "--output", help="default: autograder_CHAPTER.zip")
    _visibility_option(gradescope)
    _solutions_option(gradescope)
    gradescope.set_defaults(run=_bundle)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
