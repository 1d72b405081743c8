"""A class hub: hub/jupyterhub_config.py on a local JupyterHub (127.0.0.1, its dummy
authenticator, its local process spawner, configurable-http-proxy from the npm registry),
for two students. Alice logs in; Bob follows the one link. Each gets a workspace of their
own, opened on chapter 00. Alice answers exercise 1 in her JupyterLab. The instructor then
upgrades the package to a release that changes exercise 1 and adds a lecture, and restarts
the hub: at their next start Bob has the new exercise and lecture; Alice has the new
lecture, her own exercise 1 untouched, and the new one beside it.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from package_helpers import (
    ROOT,
    build,
    clean_env,
    clone,
    environment,
    free_port,
    run,
    stop,
    wait_for_line,
)

COURSE = "micrograd-edu-course"
FIRST = f"{COURSE}/notebooks/00_welcome.ipynb"
EXERCISE = f"{COURSE}/exercises/01_numerical.ipynb"
NEW_LECTURE = f"{COURSE}/notebooks/11_next.ipynb"


@pytest.fixture(scope="module")
def proxy() -> Path:
    """configurable-http-proxy from the npm registry, kept in this environment's folder."""
    npm = shutil.which("npm")
    if npm is None:
        message = "npm is missing (make package-test installs Node and npm with apt-get)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    folder = Path(sys.prefix) / "hub-proxy"
    command = folder / "node_modules" / ".bin" / "configurable-http-proxy"
    if not command.exists():
        node = run("node", "--version").stdout.strip().lstrip("v")
        release = "5" if int(node.split(".")[0]) >= 20 else "4"  # 5 needs Node 20
        run(npm, "install", "--prefix", folder, "--no-audit", "--no-fund", "--loglevel=error",
            f"configurable-http-proxy@{release}")  # fmt: skip
    return command


@pytest.fixture(scope="module")
def hub_bin(tmp_path_factory, wheel) -> Path:
    """The students' servers' environment: the course's wheel and JupyterHub."""
    return environment(tmp_path_factory.mktemp("hub") / "venv", f"{wheel}[course]", "jupyterhub")


def next_release(folder: Path) -> Path:
    """The wheel of a next release, built from a clone: exercise 1's statement changed, a new
    lecture, a higher version."""
    source = clone(folder / "clone")
    init = source / "micrograd_edu" / "version.py"
    text = init.read_text()
    version = re.search(r'__version__ = "([^"]+)"', text).group(1) + ".post1"
    init.write_text(re.sub(r'__version__ = "[^"]+"', f'__version__ = "{version}"', text))
    exercise = source / "exercises" / "01_numerical.ipynb"
    notebook = json.loads(exercise.read_text())
    notebook["cells"][0]["source"] = "# 01 · Numerical differentiation: exercises, revised\n"
    notebook["metadata"].setdefault("micrograd_edu", {})["version"] = version
    exercise.write_text(json.dumps(notebook, indent=1))
    lecture = json.loads((source / "notebooks" / "00_welcome.ipynb").read_text())
    lecture["cells"] = [{"cell_type": "markdown", "id": "t", "metadata": {},
                         "source": "# 11 · What comes next"}]  # fmt: skip
    (source / "notebooks" / "11_next.ipynb").write_text(json.dumps(lecture, indent=1))
    return build(source, folder / "dist")[1]


def start_hub(folder: Path, bin_folder: Path, proxy: Path, port: int) -> subprocess.Popen:
    """JupyterHub on 127.0.0.1 with the recipe, students' homes under ``folder``/homes."""
    local = f"""
c = get_config()  # noqa
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{free_port()}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{free_port()}"
c.ConfigurableHTTPProxy.command = [{str(proxy)!r}]
c.ConfigurableHTTPProxy.pid_file = {str(folder / "proxy.pid")!r}
c.JupyterHub.db_url = "sqlite:///{folder / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(folder / "cookie_secret")!r}
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(folder / "homes" / "{username}")!r}
c.Spawner.ip = "127.0.0.1"
c.Spawner.start_timeout = c.Spawner.http_timeout = 180
c.Spawner.args = {["--allow-root"] if os.geteuid() == 0 else []!r}
"""
    config = folder / "jupyterhub_config.py"
    config.write_text(local + (ROOT / "hub" / "jupyterhub_config.py").read_text())
    env = clean_env()
    env.update(PATH=f"{bin_folder}{os.pathsep}{env['PATH']}", OPENBLAS_NUM_THREADS="1")
    log = folder / f"hub-{len(list(folder.glob('hub-*.log')))}.log"
    with log.open("w") as out:
        hub = subprocess.Popen(
            [bin_folder / "jupyterhub", "-f", config], cwd=folder, env=env,
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    wait_for_line(hub, log, r"JupyterHub is now running")
    return hub


def log_in(base: str, name: str, session: requests.Session, link: str = "") -> str:
    """Log ``name`` in (following ``link`` first, when given) and wait until their server
    answers; returns the URL they land on."""
    answer = session.get(f"{base}{link or '/hub/login'}", timeout=60)
    assert "/hub/login" in answer.url, answer.url  # not logged in yet: the login form
    answer = session.post(
        answer.url, data={"username": name, "password": "", "_xsrf": session.cookies["_xsrf"]},
        timeout=120,
    )  # fmt: skip
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if answer.status_code == 200 and f"/user/{name}/lab" in answer.url:
            return answer.url
        spawn = re.search(r'var spawn_url = "([^"]+)"', answer.text)  # what the page's JS does
        if spawn:  # the server is not running: the page starts it
            answer = session.get(f"{base}{html.unescape(spawn.group(1))}", timeout=120)
            continue
        time.sleep(1)  # starting: the spawn-pending page sends on to the server once it is up
        answer = session.get(answer.url, timeout=120)
    pytest.fail(f"{name}'s server did not answer: {answer.status_code} {answer.url}")


def contents(base: str, name: str, session: requests.Session, path: str) -> dict:
    answer = session.get(f"{base}/user/{name}/api/contents/{path}", timeout=60)
    assert answer.status_code == 200, (path, answer.status_code, answer.text[:300])
    return answer.json()


def cells(model: dict) -> list[str]:
    return [cell["source"] for cell in model["content"]["cells"]]


def test_two_students_get_their_own_workspace_and_an_upgrade_keeps_their_work(
    hub_bin, proxy, tmp_path
):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    link = f"/hub/user-redirect/lab/tree/{FIRST}"
    alice, bob = requests.Session(), requests.Session()
    hub = start_hub(tmp_path, hub_bin, proxy, port)
    try:
        landed = log_in(base, "alice", alice)  # the first login
        assert landed.startswith(f"{base}/user/alice/lab/tree/{FIRST}"), landed
        landed = log_in(base, "bob", bob, link)  # the one link
        assert landed.startswith(f"{base}/user/bob/lab/tree/{FIRST}"), landed
        for name, session in (("alice", alice), ("bob", bob)):
            assert cells(contents(base, name, session, FIRST))[0].startswith("# 00 · Welcome")
            listing = contents(base, name, session, COURSE)["content"]
            assert sorted(item["name"] for item in listing) == ["exercises", "notebooks"]
        # Alice answers exercise 1 and saves it, as JupyterLab does
        model = contents(base, "alice", alice, EXERCISE)
        stub = next(c for c in model["content"]["cells"] if "NotImplementedError" in c["source"])
        stub["source"] = "def one_sided_second_order(f, x, h):\n    return 0.0  # Alice's\n"
        saved = alice.put(
            f"{base}/user/alice/api/contents/{EXERCISE}",
            json={"type": "notebook", "format": "json", "content": model["content"]},
            headers={"X-XSRFToken": alice.cookies.get("_xsrf", path="/user/alice/")},
            timeout=60,
        )
        assert saved.status_code == 200, saved.text[:300]
    finally:
        stop(hub)  # and with it the students' servers and the proxy
    homes = tmp_path / "homes"
    alices = (homes / "alice" / EXERCISE).read_bytes()
    assert b"Alice's" in alices and b"Alice's" not in (homes / "bob" / EXERCISE).read_bytes()
    # the instructor upgrades the package in the students' environment and restarts the hub
    run(hub_bin / "python", "-m", "pip", "install", "--quiet", "--no-deps",
        next_release(tmp_path / "next"))  # fmt: skip
    hub = start_hub(tmp_path, hub_bin, proxy, port)
    try:
        alice, bob = requests.Session(), requests.Session()
        for name, session in (("alice", alice), ("bob", bob)):
            log_in(base, name, session)
            assert cells(contents(base, name, session, NEW_LECTURE)) == ["# 11 · What comes next"]
        revised = "# 01 · Numerical differentiation: exercises, revised\n"
        assert cells(contents(base, "bob", bob, EXERCISE))[0] == revised  # untouched: updated
        listing = contents(base, "alice", alice, f"{COURSE}/exercises")["content"]
        names = [item["name"] for item in listing]
        beside = [n for n in names if re.fullmatch(r"01_numerical\.v.+\.ipynb", n)]
        assert len(beside) == 1, names
        model = contents(base, "alice", alice, f"{COURSE}/exercises/{beside[0]}")
        assert cells(model)[0] == revised
    finally:
        stop(hub)
    assert (homes / "alice" / EXERCISE).read_bytes() == alices  # Alice's answer, untouched
    assert not list((homes / "bob" / COURSE / "exercises").glob("01_numerical.v*"))
