"""Files matched to students as LMS downloads name them; the late policy's arithmetic."""

import io
from datetime import UTC, datetime, timedelta, timezone

import pytest

from micrograd_edu.grading.late import Policy, as_time
from micrograd_edu.grading.lms import late_marked
from micrograd_edu.grading.roster import Roster

CANVAS_EXPORT = """Student,ID,SIS User ID,SIS Login ID,Section,Email,Homework 1 (123)
Points Possible,,,,,,10
"Lee, Ann",104233,S-0001,alee,A,ann.lee@uni.edu,
"Chen, Bo",104234,S-0002,bchen,A,,
"Park, Cy",1,S-0003,cpark,B,,
"García, José",88123,S-0004,jgarcia,B,,
"Lee, Anna",104299,S-0005,alee2,B,,
"""


@pytest.fixture(scope="module")
def roster():
    return Roster.read(io.StringIO(CANVAS_EXPORT))


def keys(found):
    return [s.key for s in found[0]]


@pytest.mark.parametrize(
    "name, key",
    [
        # Canvas: lastfirst[_LATE]_userid_submissionid_filename
        ("leeann_104233_998877_01_numerical.ipynb", "104233"),
        ("chenbo_LATE_104234_998878_01_numerical-1.ipynb", "104234"),
        # a zip's renamed copy, the ID anywhere in the name
        ("01_numerical_104233 (1) LATE.ipynb", "104233"),
        ("submissions/A/104234/homework.ipynb", "104234"),
        # Moodle: "Full Name_participant_assignsubmission_file_/file"
        ("José García_55_assignsubmission_file_/01_numerical.ipynb", "88123"),
        ("Bo Chen_12_assignsubmission_file_/notebook.ipynb", "104234"),
        # a login or an e-mail in the name
        ("bchen-01.ipynb", "104234"),
        ("ann.lee@uni.edu_01.ipynb", "104233"),
        # "(1)" does not make Cy (ID 1) the owner: the longer ID found wins
        ("01_numerical_104234 (1).ipynb", "104234"),
    ],
)
def test_files_are_matched_by_the_id_login_or_name_in_their_path(roster, name, key):
    assert keys(roster.match(name)) == [key]


def test_an_id_inside_a_longer_number_is_not_an_id(roster):
    students, why = roster.match("homework_9104233_v2.ipynb")
    assert students == [] and "no roster ID" in why


def test_two_students_in_one_name_is_an_error_that_names_them(roster):
    students, why = roster.match("104233_and_104234.ipynb")
    assert students == [] and "Lee, Ann (104233)" in why and "Chen, Bo (104234)" in why


def test_a_name_two_students_share_is_an_error(tmp_path):
    roster = Roster.read(io.StringIO("Student,ID\nAnn Lee,1001\nAnn Lee,1002\n"))
    students, why = roster.match("Ann Lee_5_assignsubmission_file_/hw.ipynb")
    assert students == [] and "1001" in why and "1002" in why


def test_the_canvas_name_breaks_a_tie_between_ids(roster):
    # Canvas's submission ID (104299) is also another student's user ID: the name decides
    assert keys(roster.match("chenbo_104234_104299_hw.ipynb")) == ["104234"]


def test_gradescope_submitters_decide_including_a_group(roster):
    hints = [{"name": "Ann Lee", "sid": "S-0001"}, {"name": "Bo Chen", "email": "x@y"}]
    assert keys(roster.match("submission_777/hw.ipynb", hints)) == ["104233", "104234"]
    students, why = roster.match("submission_778/hw.ipynb", [{"name": "Nobody", "sid": "0"}])
    assert students == [] and "Nobody" in why


def test_a_roster_column_names_a_file_outright():
    roster = Roster.read(io.StringIO("Student,ID,submission\nAnn Lee,7,ann.ipynb\n"))
    assert keys(roster.match("some/folder/ann.ipynb")) == ["7"]


def test_the_points_possible_line_is_not_a_student(roster):
    assert [s.name for s in roster.students][0] == "Lee, Ann"
    assert len(roster.students) == 5


@pytest.mark.parametrize(
    "text, message",
    [
        ("Name,ID\nAnn,1\n", "no column Student"),
        ("Student,ID\nAnn,1\nBo,1\n", "repeats ID 1"),
    ],
)
def test_a_bad_roster_is_a_clear_error(text, message):
    with pytest.raises(ValueError, match=message):
        Roster.read(io.StringIO(text))


def test_the_late_marker_is_a_word():
    assert late_marked("leeann_LATE_104233_1_hw.ipynb") and late_marked("hw (late).ipynb")
    assert not late_marked("template_latest.ipynb") and not late_marked("chocolate.ipynb")


UTC = UTC


def test_days_late_count_every_started_day_after_the_grace_period():
    policy = Policy.parse(
        "timezone = 'UTC'\npercent_per_day = 10\nmax_percent = 35\ngrace_minutes = 15\n"
        "[due]\n01 = 2026-02-06T23:59:00\n[extensions.01]\nalee = 2026-02-09T12:00:00+01:00\n"
    )
    due = datetime(2026, 2, 6, 23, 59, tzinfo=UTC)
    assert policy.due_for("01", "someone") == due
    # an independent count: minutes past due, rounded up to days, unless within the grace
    for minutes in (0, 10, 15, 16, 60 * 24, 60 * 24 + 1, 60 * 24 * 3, 60 * 24 * 30):
        days = 0 if minutes <= 15 else -(-minutes // (60 * 24))
        percent = min(35, 10 * days)
        assert policy.late(due, due + timedelta(minutes=minutes)) == (days, percent), minutes


def test_extensions_are_named_through_the_roster(roster):
    policy = Policy.parse("[due]\n01 = 2026-02-06T23:59:00Z\n[extensions.01]\nalee = 2026-02-09")
    resolved = policy.resolve(roster.find)
    # a date alone: the end of that day, in the file's zone (this machine's when unset)
    assert resolved.due_for("01", "104233") == datetime(2026, 2, 10, tzinfo=resolved.zone)
    assert resolved.due_for("01", "104234") == datetime(2026, 2, 6, 23, 59, tzinfo=UTC)
    with pytest.raises(ValueError, match="nobody in the roster"):
        Policy.parse("[extensions.01]\nzed = 2026-02-09").resolve(roster.find)


@pytest.mark.parametrize(
    "text, message",
    [
        ("percent_per_day = 'ten'", "percent_per_day must be a number"),
        ("max_percent = 150", "max_percent must be a number from 0 to 100"),
        ("[due]\n01 = 'soon'", "not a date and time"),
        ("deadline = 1", "unknown entries"),
        ("timezone = 'Mars/Olympus'", "unknown timezone"),
        ("[due", "not valid TOML"),
    ],
)
def test_a_bad_late_file_names_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        Policy.parse(text)


def test_times_as_lms_exports_write_them():
    # Gradescope's metadata: nanoseconds and a separate offset
    assert as_time("2026-02-01 22:15:03.123456789 -05:00") == datetime(
        2026, 2, 2, 3, 15, 3, 123456, tzinfo=UTC
    )
    # a time without an offset is in the policy's zone; a date alone ends that day
    zone = timezone(timedelta(hours=2))
    assert as_time("2026-02-01T10:00", zone).utcoffset() == timedelta(hours=2)
    assert as_time("2026-02-01", zone) == datetime(2026, 2, 2, tzinfo=zone)


GRADESCOPE_METADATA = """---
:submission_1001:
  :submitters:
  - :name: Ann Lee
    :sid: S-0001
    :email: ann.lee@uni.edu
  :created_at: 2026-02-05 10:00:00.123456789 -05:00
  :score: 0.0
  :history: []
:submission_1002:
  :submitters:
  - :name: Bo Chen
    :sid: S-0002
  - :name: Cy Park
    :sid: S-0003
  :created_at: 2026-02-08 12:00:00.000000000 +00:00
"""


def _export(folder):
    from pathlib import Path

    solution = Path(__file__).resolve().parents[1] / "solutions" / "01_numerical.ipynb"
    export = folder / "assignment_42_export"
    for sub, name in (("submission_1001", "01_numerical.ipynb"), ("submission_1002", "hw.ipynb")):
        (export / sub).mkdir(parents=True)
        (export / sub / name).write_bytes(solution.read_bytes())
    (export / "submission_metadata.yml").write_text(GRADESCOPE_METADATA)
    return export


@pytest.mark.parametrize("layout", ["the export folder", "its parent", "the export zip"])
def test_a_gradescope_export_names_its_submitters_and_times(roster, tmp_path, layout):
    """A Gradescope export's files carry no ID: its metadata names the submitters (a group
    submission counts for each) and the time, wherever the export sits."""
    import shutil

    from micrograd_edu.grading.gradebook import plan
    from micrograd_edu.grading.intake import Reader, documents

    export = _export(tmp_path)
    given = {"the export folder": export, "its parent": tmp_path}.get(layout)
    if given is None:
        given = shutil.make_archive(str(tmp_path / "export"), "zip", tmp_path, export.name)
    policy = Policy.parse("timezone = 'UTC'\npercent_per_day = 10\n[due]\n01 = 2026-02-06T23:59:00")
    with Reader() as reader:
        found = documents([given], reader)
        plans = plan(found, "01", (), roster, policy.resolve(roster.find), tmp_path, reader)
    by_folder = {p.document.name.split("submission_")[1][:4]: p for p in plans}
    ann, group = by_folder["1001"], by_folder["1002"]
    assert [s.key for s in ann.students] == ["104233"] and ann.late == (0, 0.0)
    assert ann.submitted == datetime(2026, 2, 5, 15, 0, 0, 123456, tzinfo=UTC)
    assert [s.key for s in group.students] == ["104234", "1"] and group.late == (2, 20.0)
