"""Late submissions: due dates, extensions, and what a policy takes off.

The due dates are a TOML file given to ``grade --late``::

    timezone = "America/New_York"  # for times written without an offset (default: this machine's)
    percent_per_day = 10           # off the raw score for each day, or part of one, past due
    max_percent = 50               # never more than this off (100: a late file can earn nothing)
    grace_minutes = 15             # this little late counts as on time

    [due]
    01 = 2026-02-06T23:59:00       # a date alone (2026-02-06) means the end of that day

    [extensions.01]                # a student's own due date, by roster ID, login or name
    104233 = 2026-02-09T23:59:00

The gradebook keeps the raw score, the days late, the percent taken off and the final
score side by side.

>>> policy = Policy.parse('percent_per_day = 10\\nmax_percent = 25\\n[due]\\n01 = 2026-02-06')
>>> due = policy.due_for("01", "104233")
>>> [policy.late(due, due + timedelta(hours=h)) for h in (0, 1, 30, 300)]
[(0, 0.0), (1, 10.0), (2, 20.0), (13, 25.0)]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from typing import Any

__all__ = ["Policy", "as_time"]

_DAY = timedelta(days=1)
_NUMBERS = (("percent_per_day", 0, 100), ("max_percent", 100, 100), ("grace_minutes", 0, 10**6))


def _zone(name: str | None) -> tzinfo:
    if not name:
        return datetime.now().astimezone().tzinfo or UTC
    if name.upper() in ("UTC", "Z"):
        return UTC
    if name[:1] in "+-":
        try:
            return datetime.fromisoformat(f"2000-01-01T00:00{name}").tzinfo or UTC
        except ValueError:
            raise ValueError(f"late: unknown timezone offset {name!r} (e.g. '+01:00')") from None
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"late: unknown timezone {name!r} (e.g. 'Europe/Paris' or '+01:00')"
        ) from None


def as_time(value: Any, zone: tzinfo | None = None) -> datetime:
    """``value`` (a datetime, a date, or ISO text as rosters and LMS exports write it) as
    an aware datetime; a time without an offset is in ``zone``, a date alone is the end
    of that day.

    >>> as_time("2026-02-01 22:15:03.123456000 -05:00").isoformat()
    '2026-02-01T22:15:03.123456-05:00'
    """
    zone = zone or _zone(None)
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time()) + _DAY
    else:
        text = " ".join(str(value).split())
        # Gradescope writes nanoseconds and a separate offset: "... 22:15:03.123456789 -05:00"
        head, _, offset = text.rpartition(" ")
        if head and offset[:1] in "+-" and ":" in offset:
            text = f"{head}{offset}"
        if "." in text:
            whole, _, rest = text.partition(".")
            digits = len(rest) - len(rest.lstrip("0123456789"))
            text = f"{whole}.{rest[: min(digits, 6)]}{rest[digits:]}"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(f"not a date and time: {value!r} (write 2026-02-06T23:59)") from None
        if len(text) <= 10:  # a date alone
            moment += _DAY
    return moment if moment.tzinfo else moment.replace(tzinfo=zone)


@dataclass(frozen=True)
class Policy:
    due: dict[str, datetime] = field(default_factory=dict)  # chapter -> due date
    extensions: dict[str, dict[str, datetime]] = field(
        default_factory=dict
    )  # chapter -> who -> due
    percent_per_day: float = 0.0
    max_percent: float = 100.0
    grace: timedelta = timedelta(0)
    zone: tzinfo = UTC

    @classmethod
    def read(cls, path: str | Path) -> Policy:
        return cls.parse(Path(path).read_text(encoding="utf-8"), str(path))

    @classmethod
    def parse(cls, text: str, where: str = "late") -> Policy:
        """The policy in TOML ``text``, or an error naming the entry that is wrong."""
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            try:
                import tomli as tomllib
            except ModuleNotFoundError:
                raise ValueError(
                    f"{where}: reading it needs Python 3.11, or pip install tomli"
                ) from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"{where}: not valid TOML ({error})") from None
        known = {"timezone", "percent_per_day", "max_percent", "grace_minutes", "due", "extensions"}
        if set(data) - known:
            raise ValueError(
                f"{where}: unknown entries {sorted(set(data) - known)}; known: {sorted(known)}"
            )
        zone = _zone(data.get("timezone"))
        numbers = {}
        for name, default, high in _NUMBERS:
            value = data.get(name, default)
            if not isinstance(value, int | float) or not 0 <= value <= high:
                raise ValueError(
                    f"{where}: {name} must be a number from 0 to {high:g}, not {value!r}"
                )
            numbers[name] = float(value)

        def times(table: Any, what: str) -> dict[str, datetime]:
            if not isinstance(table, dict):
                raise ValueError(f"{where}: [{what}] must be a table of name = date")
            try:
                return {str(k): as_time(v, zone) for k, v in table.items()}
            except ValueError as error:
                raise ValueError(f"{where}: [{what}]: {error}") from None

        extensions = data.get("extensions", {})
        return cls(
            times(data.get("due", {}), "due"),
            {str(c): times(t, f"extensions.{c}") for c, t in extensions.items()},
            numbers["percent_per_day"],
            numbers["max_percent"],
            timedelta(minutes=numbers["grace_minutes"]),
            zone,
        )

    def resolve(self, find: Callable[[str], Any]) -> Policy:
        """The policy with each extension's student named by roster ID (``find`` maps an
        ID, login or name to the roster's student), or an error naming one not found."""
        extensions = {}
        for chapter, table in self.extensions.items():
            extensions[chapter] = {}
            for who, moment in table.items():
                student = find(who)
                if student is None:
                    raise ValueError(f"late: extensions.{chapter}: {who!r} is nobody in the roster")
                extensions[chapter][student.key] = moment
        return Policy(
            self.due, extensions, self.percent_per_day, self.max_percent, self.grace, self.zone
        )

    def due_for(self, chapter: str, student: str) -> datetime | None:
        return self.extensions.get(chapter, {}).get(student) or self.due.get(chapter)

    def late(self, due: datetime, submitted: datetime) -> tuple[int, float]:
        """(days late, percent off) for a file handed in at ``submitted`` against ``due``:
        every day or part of one counts, from the due date, once past the grace period."""
        if submitted <= due + self.grace:
            return 0, 0.0
        days = math.ceil((submitted - due) / _DAY)
        return days, min(self.max_percent, days * self.percent_per_day)
