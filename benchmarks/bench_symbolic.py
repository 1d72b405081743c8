"""``simplify`` on the logistic map's derivative: raw against already expanded.

The raw derivative of ``l_10`` is a graph of shared subtrees; its simplified
form is a sum of 512 terms ``c*x**k``. Simplifying the expanded form again (or
reading its ``coefficients``) should cost no more than simplifying the raw
derivative: every term is already a polynomial, so the work is linear in the
number of terms.

Run: ``python benchmarks/bench_symbolic.py``. Prints milliseconds per call
(minimum and median, taking turns) and the ratios expanded / raw (target <= 1).
"""

from __future__ import annotations

from timing import measure

from micrograd_edu.scalar.symbolic import Symbol, coefficients, diff, logistic_map, simplify

N = 10
NUMBER, REPEAT = 1, 7


def main() -> None:
    x = Symbol("x")
    raw = diff(logistic_map(N, x), x)
    expanded = simplify(raw)
    assert simplify(expanded) == expanded
    assert coefficients(expanded, x) == coefficients(raw, x)

    results = measure(
        {
            "simplify(raw)": lambda: simplify(raw),
            "simplify(expanded)": lambda: simplify(expanded),
            "coefficients(expanded)": lambda: coefficients(expanded, x),
        },
        NUMBER,
        REPEAT,
    )
    print(f"logistic map n = {N}, derivative of degree {2 ** (N - 1) - 1} (ms: min, median)")
    for name, (low, mid) in results.items():
        print(f"  {name:24s} {low / 1e3:8.1f} {mid / 1e3:8.1f}")
    baseline = results["simplify(raw)"][0]
    for name in ("simplify(expanded)", "coefficients(expanded)"):
        ratio = results[name][0] / baseline
        verdict = "met" if ratio <= 1 else "NOT met"
        print(f"  {name} / simplify(raw) = {ratio:.2f}  (target <= 1: {verdict})")


if __name__ == "__main__":
    main()
