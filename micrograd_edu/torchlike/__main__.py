"""Run a PyTorch program on torchlike, unchanged:

    python -m micrograd_edu.torchlike program.py [arguments]
    python -m micrograd_edu.torchlike -c "import torch; print(torch.ones(2))"

``import torch`` (and ``torch.nn``, ``torch.optim``, ``torch.utils.data``, ...) in the program
gives micrograd_edu.torchlike, whether PyTorch is installed or not.
"""

from __future__ import annotations

import runpy
import sys

from . import aliases

USAGE = (
    "usage: python -m micrograd_edu.torchlike program.py [arguments]\n"
    '       python -m micrograd_edu.torchlike -c "code"\n'
    "Runs a PyTorch program with `import torch` bound to micrograd_edu.torchlike."
)


def main(argv: list[str] | None = None) -> int:
    """Run the program (or ``-c`` code) that ``argv`` names; returns the exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not args else sys.stdout)
        return 2 if not args else 0
    aliases.install()
    if args[0] == "-c":
        if len(args) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = ["-c", *args[2:]]
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102
        return 0
    sys.argv = args
    runpy.run_path(args[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
