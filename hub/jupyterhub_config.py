# The course on a class's JupyterHub: add these lines to the hub's jupyterhub_config.py (on
# The Littlest JupyterHub: a file in /opt/tljh/config/jupyterhub_config.d/), and install
# "micrograd-edu[course]" in the environment the students' servers run from.
#
# Each time a student's server starts (their first login, or any later one), their
# workspace ~/micrograd-edu-course is made or brought up to date with the installed
# package: new notebooks are added, the ones the student has not touched are updated, and a
# notebook the student changed is kept, the new version put beside it. Then the server
# opens on chapter 00. Upgrade the package (pip install --upgrade "micrograd-edu[course]")
# and each student gets the new notebooks at their next start. One link does the same for
# a student who is not logged in yet:
#   https://YOUR-HUB/hub/user-redirect/lab/tree/micrograd-edu-course/notebooks/00_welcome.ipynb
# tests/package/test_hub.py runs this file on a local JupyterHub for two students.

c = get_config()  # noqa: F821 (JupyterHub defines it)

# The folder is relative to where the server starts, the student's home, which is also the
# server's root: the default URL below names it from there. If the update fails, the
# server still starts, on the student's files as they were.
c.Spawner.cmd = [
    "sh",
    "-c",
    'micrograd-edu update micrograd-edu-course; exec jupyterhub-singleuser "$@"',
    "jupyterhub-singleuser",
]
c.Spawner.default_url = "/lab/tree/micrograd-edu-course/notebooks/00_welcome.ipynb"
# The one link starts a student's server that is not running yet by itself, as logging in
# does, rather than showing a page with a button to start it.
c.JupyterHub.implicit_spawn_seconds = 1
