"""The student's workspace: what `micrograd-edu course` and `update` do to a folder when the
course changes under it. The oracle is the rule itself, stated as invariants that hold after
any sequence of a student's actions and course releases: nothing the student wrote is ever
lost, and every notebook the student did not change is the newest version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from micrograd_edu.course import workspace
from micrograd_edu.course.cli import main as cli
from micrograd_edu.course.launch import command, workspace_folder
from micrograd_edu.course.workspace import MANIFEST, fingerprint, update


def notebook(*sources: str, version: str | None = None, outputs: bool = False) -> bytes:
    cells = [
        {
            "cell_type": "code",
            "execution_count": 1 if outputs else None,
            "id": f"c{i}",
            "metadata": {},
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "ran\n"}]
            if outputs
            else [],
            "source": source,
        }
        for i, source in enumerate(sources)
    ]
    metadata = {"micrograd_edu": {"version": version}} if version else {}
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4}).encode()


def release(root: Path, version: str, files: dict[str, str]) -> Path:
    """A course source: ``files`` maps 'notebooks/00_x.ipynb' to its one cell's source."""
    source = root / f"course-{version}"
    for sub in workspace.FOLDERS:
        (source / sub).mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        (source / path).write_bytes(notebook(text, version=version))
    return source


def cells(path: Path) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(path.read_bytes())["cells"]]


V1_LECTURE = "notebooks/01_numerical.ipynb"
V1_EXERCISE = "exercises/01_numerical.ipynb"
OWN = "notebooks/02_symbolic.ipynb"
V1 = {
    "notebooks/00_welcome.ipynb": "welcome",
    "notebooks/01_numerical.ipynb": "lecture 1",
    "exercises/01_numerical.ipynb": "raise NotImplementedError",
}


def test_a_new_workspace_gets_every_notebook_with_the_version_it_came_from(tmp_path):
    folder = tmp_path / "course"
    changes = update(folder, release(tmp_path, "1.0", V1))
    assert sorted(c.path for c in changes) == sorted(V1)
    assert {c.action for c in changes} == {"added"}
    for path, text in V1.items():
        data = json.loads((folder / path).read_bytes())
        assert cells(folder / path) == [text]
        assert data["metadata"]["micrograd_edu"]["version"] == "1.0"
    received = json.loads((folder / MANIFEST).read_text())["files"]
    assert set(received) == set(V1) and {e["version"] for e in received.values()} == {"1.0"}


def test_a_notebook_without_a_version_gets_the_package_s(tmp_path):
    source = release(tmp_path, "1.0", {})
    (source / "notebooks" / "00_welcome.ipynb").write_bytes(notebook("hello"))
    update(tmp_path / "course", source)
    data = json.loads((tmp_path / "course" / "notebooks" / "00_welcome.ipynb").read_bytes())
    from micrograd_edu import __version__

    assert data["metadata"]["micrograd_edu"]["version"] == __version__


def test_running_a_notebook_is_not_touching_it(tmp_path):
    folder = tmp_path / "course"
    update(folder, release(tmp_path, "1.0", V1))
    ran = notebook("lecture 1", version="1.0", outputs=True)
    (folder / "notebooks" / "01_numerical.ipynb").write_bytes(ran)
    assert update(folder, release(tmp_path, "1.0", V1)) == []  # the same course: nothing to do
    assert (folder / "notebooks" / "01_numerical.ipynb").read_bytes() == ran  # outputs kept
    changes = update(folder, release(tmp_path, "2.0", dict(V1, **{V1_LECTURE: "lecture 1, v2"})))
    assert [(c.action, c.path) for c in changes] == [("updated", V1_LECTURE)]
    assert cells(folder / V1_LECTURE) == ["lecture 1, v2"]


def test_a_changed_notebook_is_kept_and_the_new_version_put_beside_it(tmp_path):
    folder = tmp_path / "course"
    update(folder, release(tmp_path, "1.0", V1))
    mine = notebook("def f(x):\n    return 2 * x  # my answer", version="1.0")
    (folder / V1_EXERCISE).write_bytes(mine)
    v2 = dict(V1, **{V1_EXERCISE: "raise NotImplementedError  # v2"})
    changes = update(folder, release(tmp_path, "2.0", v2))
    assert (folder / V1_EXERCISE).read_bytes() == mine
    beside = folder / "exercises" / "01_numerical.v2.0.ipynb"
    assert cells(beside) == ["raise NotImplementedError  # v2"]
    [change] = changes
    assert change.action == "kept" and change.path == V1_EXERCISE
    assert "you changed it" in str(change) and beside.name in str(change)
    assert update(folder, release(tmp_path, "2.0", v2)) == []  # said once, not at every start
    # a third release: its new version goes beside; the untouched v2 copy makes way for it
    v3 = dict(V1, **{V1_EXERCISE: "raise NotImplementedError  # v3"})
    changes = update(folder, release(tmp_path, "3.0", v3))
    assert (folder / V1_EXERCISE).read_bytes() == mine
    assert cells(folder / "exercises" / "01_numerical.v3.0.ipynb") == [v3[V1_EXERCISE]]
    assert not beside.exists()
    assert {(c.action, c.path) for c in changes} == {
        ("kept", V1_EXERCISE),
        ("removed", "exercises/01_numerical.v2.0.ipynb"),
    }


def test_a_new_version_beside_that_the_student_worked_in_is_kept_too(tmp_path):
    folder = tmp_path / "course"
    update(folder, release(tmp_path, "1.0", V1))
    (folder / V1_EXERCISE).write_bytes(notebook("mine", version="1.0"))
    update(folder, release(tmp_path, "2.0", dict(V1, **{V1_EXERCISE: "v2"})))
    beside = folder / "exercises" / "01_numerical.v2.0.ipynb"
    beside.write_bytes(notebook("mine, on v2"))
    # the same version number with other content (a checkout an instructor edits)
    changes = update(folder, release(tmp_path, "2.0", dict(V1, **{V1_EXERCISE: "v2, again"})))
    assert cells(beside) == ["mine, on v2"]
    assert cells(folder / "exercises" / "01_numerical.v2.0-2.ipynb") == ["v2, again"]
    earlier = beside.relative_to(folder).as_posix()
    assert {(c.action, c.path) for c in changes} == {("kept", V1_EXERCISE), ("kept", earlier)}
    assert "yours now" in str([c for c in changes if c.path == earlier][0])
    update(folder, release(tmp_path, "3.0", dict(V1, **{V1_EXERCISE: "v3"})))
    assert cells(beside) == ["mine, on v2"]  # the student's: kept, though the course moved on


def test_a_deleted_notebook_is_restored(tmp_path):
    folder = tmp_path / "course"
    update(folder, release(tmp_path, "1.0", V1))
    (folder / V1_EXERCISE).unlink()
    changes = update(folder, release(tmp_path, "1.0", V1))
    assert [(c.action, c.path) for c in changes] == [("restored", V1_EXERCISE)]
    assert cells(folder / V1_EXERCISE) == [V1[V1_EXERCISE]]


def test_a_file_of_the_student_s_own_with_a_new_notebook_s_name_is_kept(tmp_path):
    folder = tmp_path / "course"
    update(folder, release(tmp_path, "1.0", V1))
    own = folder / "notebooks" / "02_symbolic.ipynb"
    own.write_bytes(b"my notes, not even a notebook")
    changes = update(folder, release(tmp_path, "2.0", dict(V1, **{OWN: "lecture 2"})))
    assert own.read_bytes() == b"my notes, not even a notebook"
    assert cells(folder / "notebooks" / "02_symbolic.v2.0.ipynb") == ["lecture 2"]
    assert [c.action for c in changes] == ["kept"] and "a file of yours" in str(changes[0])


def test_a_notebook_the_course_dropped_goes_only_if_untouched(tmp_path):
    folder = tmp_path / "course"
    update(folder, release(tmp_path, "1.0", V1))
    (folder / V1_EXERCISE).write_bytes(notebook("my work"))
    v2 = {k: v for k, v in V1.items() if k not in (V1_EXERCISE, V1_LECTURE)}
    changes = update(folder, release(tmp_path, "2.0", v2))
    assert not (folder / V1_LECTURE).exists()
    assert cells(folder / V1_EXERCISE) == ["my work"]
    assert {(c.action, c.path) for c in changes} == {("removed", V1_LECTURE), ("kept", V1_EXERCISE)}
    assert update(folder, release(tmp_path, "2.0", v2)) == []  # it is the student's now


@pytest.mark.parametrize("manifest", ["{not json", '{"files": []}', '{"files": {"x": 1}}'])
def test_without_a_readable_manifest_every_file_there_counts_as_the_student_s(tmp_path, manifest):
    folder = tmp_path / "course"
    update(folder, release(tmp_path, "1.0", V1))
    (folder / V1_LECTURE).write_bytes(notebook("lecture 1", version="1.0", outputs=True))
    (folder / V1_EXERCISE).write_bytes(notebook("my work"))
    (folder / MANIFEST).write_text(manifest)
    changes = update(folder, release(tmp_path, "2.0", {k: v + " v2" for k, v in V1.items()}))
    assert cells(folder / V1_EXERCISE) == ["my work"]
    assert cells(folder / V1_LECTURE) == ["lecture 1"]  # unknown provenance: not overwritten
    assert {c.action for c in changes} == {"kept"} and len(changes) == 3


def test_a_manifest_never_leads_outside_the_workspace_s_folders(tmp_path):
    folder = tmp_path / "course"
    update(folder, release(tmp_path, "1.0", V1))
    victim = tmp_path / "victim.ipynb"
    victim.write_bytes(notebook("precious"))
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["files"]["../victim.ipynb"] = {"fingerprint": fingerprint(victim.read_bytes())}
    manifest["files"]["notebooks/../../victim.ipynb"] = manifest["files"]["../victim.ipynb"]
    (folder / MANIFEST).write_text(json.dumps(manifest))
    update(folder, release(tmp_path, "2.0", {"notebooks/00_welcome.ipynb": "welcome"}))
    assert victim.exists()


def test_an_attachment_pasted_into_a_markdown_cell_counts_as_a_change():
    plain = {"cell_type": "markdown", "source": "see:", "metadata": {}}
    pasted = dict(plain, attachments={"image.png": {"image/png": "iVBORw0"}})
    assert fingerprint(json.dumps({"cells": [plain]}).encode()) != fingerprint(
        json.dumps({"cells": [pasted]}).encode()
    )


# -- the rule as invariants, over random histories --------------------------------------

PATHS = ["notebooks/00_a.ipynb", "notebooks/01_b.ipynb", "exercises/01_b.ipynb"]
action = st.one_of(
    st.tuples(st.just("edit"), st.sampled_from(PATHS), st.text("abc", max_size=3)),
    st.tuples(st.just("run"), st.sampled_from(PATHS), st.just("")),
    st.tuples(st.just("delete"), st.sampled_from(PATHS), st.just("")),
    st.tuples(st.just("own file"), st.sampled_from(PATHS), st.text("xyz", min_size=1, max_size=3)),
    st.tuples(
        st.just("release"),
        st.just(""),
        st.dictionaries(st.sampled_from(PATHS), st.sampled_from(["p", "q", "r"]), min_size=1),
    ),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(history=st.lists(action, max_size=12))
def test_no_history_of_edits_and_releases_loses_work_or_leaves_an_untouched_notebook_stale(
    tmp_path_factory, history
):
    root = tmp_path_factory.mktemp("history")
    folder, course, version = root / "course", {p: "p" for p in PATHS}, 1
    update(folder, release(root, "1", course))
    written: list[bytes] = []  # the student's work: every file they saved, as it is now
    seen = dict(course)  # per notebook, the course's text the student last had there

    def save(target: Path, data: bytes, work: bool) -> None:
        before = target.read_bytes() if target.exists() else None
        if before in written:  # the student replaced their own work, as they may
            written.remove(before)
            work = True
        target.write_bytes(data)
        if work:
            written.append(data)

    for kind, path, arg in history:
        target = folder / path
        if kind == "release":
            version, course = version + 1, dict(arg)  # a release may drop notebooks
        elif kind == "edit" and target.exists():
            save(target, notebook(f"student wrote {arg} at {len(written)}"), work=True)
        elif kind == "run" and target.exists() and cells_or_none(target) is not None:
            ran = json.loads(target.read_bytes())
            for cell in ran["cells"]:
                cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ran"}]
            save(target, json.dumps(ran).encode(), work=False)  # running is not editing
        elif kind == "delete" and target.exists():
            save(target, b"", work=False)
            written.remove(b"") if b"" in written else None
            target.unlink()
        elif kind == "own file" and not target.exists():
            save(target, arg.encode(), work=True)
        update(folder, release(root, str(version), course))
        present = [p.read_bytes() for p in folder.rglob("*") if p.is_file()]
        for data in written:  # nothing the student saved is lost
            assert data in present
        for path, text in course.items():  # each course notebook is there, newest or beside
            here = folder / path
            if cells_or_none(here) == [text]:
                seen[path] = text
                continue
            assert here.read_bytes() in written, (path, "stale, but the student never wrote it")
            if seen.get(path) != text:  # the course changed it since: the new one is beside
                stem = path[: -len(".ipynb")]
                assert any(cells_or_none(p) == [text] for p in folder.glob(f"{stem}.v*.ipynb"))


def cells_or_none(path: Path) -> list[str] | None:
    try:
        return cells(path)
    except (OSError, ValueError, KeyError):
        return None


# -- the command line -------------------------------------------------------------------


def test_the_folder_defaults_to_the_workspace_the_student_is_in(tmp_path, monkeypatch):
    update(tmp_path / "mine", release(tmp_path, "1.0", V1))
    monkeypatch.chdir(tmp_path / "mine" / "exercises")
    assert workspace_folder() == (tmp_path / "mine").resolve()
    monkeypatch.chdir(tmp_path)
    assert workspace_folder() == tmp_path / workspace.DEFAULT
    assert workspace_folder("elsewhere") == Path("elsewhere")


def test_update_command_reports_what_changed_and_a_file_in_the_way_is_an_error(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    assert cli(["update", "course"]) == 0
    out = capsys.readouterr().out
    assert "your course is in" in out and "in notebooks/" in out and "in exercises/" in out
    assert (tmp_path / "course" / workspace.FIRST).is_file()
    assert cli(["update", "course"]) == 0 and "up to date" in capsys.readouterr().out
    (tmp_path / "a file").write_text("")
    assert cli(["course", "a file", "--no-browser"]) == 2
    assert "is a file; give a folder" in capsys.readouterr().err


def test_an_installation_without_notebooks_says_how_to_repair_it(tmp_path, monkeypatch):
    monkeypatch.setattr(workspace, "_PACKAGED", tmp_path / "content")
    monkeypatch.setattr(workspace, "__file__", str(tmp_path / "a" / "b" / "workspace.py"))
    with pytest.raises(FileNotFoundError, match="force-reinstall"):
        workspace.course_source()


def test_the_server_is_rooted_in_the_workspace_and_opens_chapter_00(tmp_path):
    args = command("lab", port=None, browser=False, root=tmp_path)
    assert f"--ServerApp.root_dir={tmp_path}" in args and "--no-browser" in args
    assert "--LabApp.default_url=/lab/tree/notebooks/00_welcome.ipynb" in args
    assert not any(a.startswith("--port") for a in args)  # Jupyter picks a free one
    with pytest.raises(ValueError, match="'lab' or 'notebook'"):
        command("vscode")


def test_the_report_counts_a_new_course_and_names_what_a_release_changed(tmp_path):
    course = {f"notebooks/{i:02d}_x.ipynb": "x" for i in range(8)}
    folder = tmp_path / "course"
    said = workspace.report(folder, update(folder, release(tmp_path, "1.0", course)))
    assert said.splitlines()[1].split() == ["added", "8", "in", "notebooks/"]
    (folder / "notebooks" / "00_x.ipynb").write_bytes(notebook("mine"))
    newer = dict(course, **{"notebooks/00_x.ipynb": "y", "exercises/01_x.ipynb": "e"})
    said = workspace.report(folder, update(folder, release(tmp_path, "2.0", newer)))
    assert "added     exercises/01_x.ipynb" in said
    assert "kept      notebooks/00_x.ipynb: you changed it; the new version is beside it: " in said
    assert workspace.report(folder, []).endswith("up to date")
