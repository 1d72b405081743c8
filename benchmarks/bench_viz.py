"""Diagrams of large graphs, timed: folding keeps them as cheap as walking the graph.

micrograd's demo MLP (2 -> 16 -> 16 -> 1 on 100 points) builds about 68,000
scalar Values. ``draw_graph`` must show it in about the time it takes merely
to walk the graph (``topological_order``, the baseline measured here), not
hang the browser: it folds everything past ``max_nodes`` into one summary
node. Target: draw_graph + SVG rendering at most 5x the baseline walk.
Also printed: the WebAssembly renderer's first call (module compile) and a
warm call on a small graph.

Run as a plain script (a few seconds): ``python benchmarks/bench_viz.py``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

try:
    import micrograd_edu  # noqa: F401
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import measure

from micrograd_edu import draw_graph, topological_order
from micrograd_edu.scalar.nn import MLP
from micrograd_edu.viz import render

TARGET = 5.0


def main() -> int:
    start = time.perf_counter()
    render.render("digraph { a -> b }")
    first = time.perf_counter() - start
    warm = measure({"warm": lambda: render.render("digraph { a -> b -> c }")}, 1, 5)["warm"][0]
    print(
        f"renderer: {render.renderer()}; first call {first * 1e3:.0f} ms, warm {warm / 1e3:.1f} ms"
    )

    model = MLP(2, [16, 16, 1], seed=0)
    rng = random.Random(0)
    points = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(100)]
    loss = sum((model(x) - 1.0) ** 2 for x in points)
    # Timed in turns (the shared helper), so a busy machine slows both alike.
    times = measure(
        {"walk": lambda: topological_order(loss), "draw": lambda: draw_graph(loss).svg}, 1, 5
    )
    walk, draw = times["walk"][0] / 1e6, times["draw"][0] / 1e6
    ratio = draw / walk
    print(f"graph: {len(topological_order(loss)):,} values; {draw_graph(loss)!r}")
    print(f"baseline topological_order: {walk * 1e3:.0f} ms")
    print(f"draw_graph + SVG:           {draw * 1e3:.0f} ms  ({ratio:.1f}x the walk)")
    met = ratio <= TARGET
    print(f"target <= {TARGET:.0f}x: {'met' if met else 'NOT met'}")
    return 0  # a missed target is reported, not a failure: timings vary with the machine


if __name__ == "__main__":
    sys.exit(main())
