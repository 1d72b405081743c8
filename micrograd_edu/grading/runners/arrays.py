"""An answer read as an array, next to the submission (where the student's objects may be
asked to convert themselves: nothing of the grader's runs there).

>>> import numpy as np
>>> as_array(np.matrix([[1, 2]])).tolist(), as_array(np.float64(3.0)).tolist(), as_array(None)
([[1.0, 2.0]], 3.0, None)
"""

from __future__ import annotations

from typing import Any

import numpy as np


def as_array(value: Any) -> Any:
    """``value`` as a float array when it is array-like (a list, an np.matrix, a numpy
    scalar), else as it was (the judge then names what it is)."""
    if value is None or isinstance(value, (str, bytes, dict)):
        return value
    try:
        return np.asarray(value, dtype=float)
    except Exception:
        return value
