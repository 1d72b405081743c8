"""The ``micrograd-edu`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _doctor(args: argparse.Namespace) -> int:
    from .doctor import doctor

    report = doctor()
    print(report)
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="micrograd-edu", description="The micrograd_edu course's tools."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    doctor = commands.add_parser("doctor", help="check that this machine is ready for the course")
    doctor.set_defaults(run=_doctor)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
