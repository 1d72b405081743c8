"""In a real browser: the URL `micrograd-edu course` prints opens chapter 00 of the
student's workspace, in JupyterLab with the file browser in notebooks/, and in Notebook 7
(`--app notebook`); the workspace's root holds the lectures and the exercises, no solutions.

The workspace is made as ``micrograd-edu course`` makes it, and the server started with the
same command list, at a laptop's 1,280 x 800. A screenshot of what the student first sees
is saved in the test's temporary folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from test_viz_browser import (
    CHROMIUM_ARGS,
    SLOW,
    _chromium,
    _free_port,
    _stop,
    private_jupyter_env,
    require_browser,
)

from micrograd_edu.course.launch import command
from micrograd_edu.course.workspace import update

pytestmark = pytest.mark.heavy  # a browser: start it first


def _printed_url(server: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(r"http://127\.0\.0\.1:\d+/\S+", log.read_text())
        if found:
            return found.group(0)
        if server.poll() is not None:
            pytest.fail(f"the server exited early:\n{log.read_text()[-2000:]}")
        time.sleep(0.3)
    pytest.fail(f"no URL printed within 120 s:\n{log.read_text()[-2000:]}")


@pytest.fixture(params=["lab", "notebook"])
def course(request, tmp_path):
    require_browser()
    env = private_jupyter_env(tmp_path)
    log = tmp_path / "server.log"
    workspace = tmp_path / "mycourse"
    update(workspace)
    args = command(request.param, port=_free_port(), browser=False, root=workspace)
    args += ["--ServerApp.ip=127.0.0.1", "--LabApp.news_url=",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]  # fmt: skip
    with log.open("w") as out:
        server = subprocess.Popen(
            args, cwd=workspace, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        yield request.param, _printed_url(server, log), tmp_path
    finally:
        _stop(server)


@pytest.mark.skipif(os.name == "nt", reason="the browser test runs on Linux CI")
def test_the_printed_url_opens_chapter_00(course):
    from playwright.sync_api import expect, sync_playwright

    app, url, folder = course
    assert "00_welcome.ipynb" in url and "token=" in url
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, timeout=SLOW)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(SLOW)
            page.goto(url)
            title = page.locator(".jp-Notebook .jp-Cell").first
            expect(title).to_contain_text("00 · Welcome", timeout=SLOW)
            if app == "lab":
                crumbs = page.locator(".jp-BreadCrumbs")
                expect(crumbs).to_contain_text("notebooks", timeout=SLOW)
                tab = page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
                expect(tab).to_contain_text("00_welcome.ipynb")
                page.screenshot(path=str(folder / f"course-{app}.png"))
                crumbs.locator(".jp-BreadCrumbs-home").click()  # the workspace's root
                listing = page.locator(".jp-DirListing-content .jp-DirListing-itemText")
                expect(listing).to_have_text(["exercises", "notebooks"], timeout=SLOW)
                page.screenshot(path=str(folder / f"course-{app}-root.png"))
            else:
                page.screenshot(path=str(folder / f"course-{app}.png"))
        finally:
            browser.close()
