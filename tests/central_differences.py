"""The oracle the tests share: central differences, computed here with numpy alone,
never with the engine under test (for scalars, pass the point as a list or a 0-d array)."""

import numpy as np


def central_gradient(f, x, h=1e-6):
    """The gradient of the scalar function ``f`` at the array ``x``, entry by entry:
    (f(x + h e_i) - f(x - h e_i)) / 2h, with an error of order h**2."""
    x = np.array(x, dtype=float)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (f(up) - f(down)) / (2 * h)
    return grad
