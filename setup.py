"""The wheel carries the course a student opens: the lectures (notebooks/) and the exercise
notebooks (exercises/), as package data under micrograd_edu/course/content/. solutions/ is
the instructor's and never ships. Everything else about the build is in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

#: The repository's folders a student gets, by the names the notebooks' links use.
COURSE_FOLDERS = ("notebooks", "exercises")


class BuildWithCourse(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's own folders
            return
        here = Path(__file__).resolve().parent
        content = Path(self.build_lib, "micrograd_edu", "course", "content")
        for folder in COURSE_FOLDERS:
            notebooks = sorted((here / folder).glob("*.ipynb"))
            if not notebooks:
                raise SystemExit(f"build: {folder}/ holds no notebooks: the wheel needs the course")
            self.mkpath(str(content / folder))
            for notebook in notebooks:
                self.copy_file(str(notebook), str(content / folder / notebook.name))


setup(cmdclass={"build_py": BuildWithCourse})
