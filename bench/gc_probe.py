"""Start a checkout's ``app.py`` with a collector probe: every gen-2 pause written to a file (fanout_bench.py).

usage: python bench/gc_probe.py <checkout>/app.py   (QB_GC_PROBE=<file>: where the pauses go)

Works for any commit, whatever its layout (an old tree has no QALISBALL_GC_LOG): the callback is
installed here, then the checkout's app.py runs as ``__main__`` from its own directory, exactly as
``make run`` runs it. Each line of the file is ``<CLOCK_MONOTONIC ns at the end> <generation> <pause ms>``
for generation 2 only; fanout_bench.py counts those inside its measured window. Nothing here imports
``socket`` or ``threading``, so app.py's gevent monkey-patching still comes first.
"""

from __future__ import annotations

import gc
import os
import runpy
import sys
import time

_out = open(os.environ.get("QB_GC_PROBE", os.devnull), "a", buffering=1)  # noqa: SIM115 (open for the process's life)
_started = [0]


def _probe(phase: str, info: dict) -> None:
    if info.get("generation") != 2:
        return
    if phase == "start":
        _started[0] = time.monotonic_ns()
    else:
        end = time.monotonic_ns()
        _out.write(f"{end} 2 {(end - _started[0]) / 1e6:.3f}\n")


def _snapshot(signum: int, frame: object) -> None:
    """SIGUSR1 with QB_TRACEMALLOC=<dir>: the traced allocations written to <dir>/snapshot-<n> (memory_bench.py).

    The first signal starts tracing (so start-up runs at full speed): its snapshot holds only what follows."""
    import tracemalloc

    if not tracemalloc.is_tracing():
        tracemalloc.start(int(os.environ.get("QB_TRACEMALLOC_FRAMES", "12")))
    gc.collect()
    where = os.environ["QB_TRACEMALLOC"]
    n = len([f for f in os.listdir(where) if f.startswith("snapshot-")])
    tmp = os.path.join(where, f".snapshot-{n}")
    tracemalloc.take_snapshot().dump(tmp)
    os.replace(tmp, os.path.join(where, f"snapshot-{n}"))


if __name__ == "__main__":
    if os.environ.get("QB_TRACEMALLOC"):
        import signal

        signal.signal(signal.SIGUSR1, _snapshot)
    app_py = os.path.abspath(sys.argv[1])
    os.chdir(os.path.dirname(app_py))
    sys.path[0] = os.path.dirname(app_py)
    sys.argv = [app_py]
    gc.callbacks.append(_probe)
    runpy.run_path(app_py, run_name="__main__")
