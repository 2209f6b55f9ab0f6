"""The cyclic garbage collector kept off the write path (issue 29 item 2, D260).

A full (generation-2) collection walks every tracked object the process holds and stops everything
while it does: with the demo's competition, the matches and 1,000 spectators' connections that was
15-66 ms in the middle of a referee's POST (issue 29). So:

- ``settle()`` collects once and then freezes what survives (``gc.freeze``: the permanent generation,
  never walked again): after start-up (the factory, once the matches and competitions are loaded), after
  the demo data (app.py), and after any big load (``settle`` is public for that);
- every automatic gen-1 or gen-2 collection freezes its survivors the moment it ends
  (``_freeze_survivors``), instead of letting them pile up in generation 2: what lived through two young
  collections (a crowd of spectators that joined, a new match) is long-lived, and a full collection then
  walks only the young generations, never the heap (CPython only starts one when the objects new in
  generation 2 reach a quarter of those it kept, and each walked everything: 15-66 ms);
- ``THRESHOLDS``: the young generation is collected every 10,000 allocations instead of 700 (fewer,
  still sub-millisecond, gen-0 passes on a POST that allocates ~1,000 objects, bench/alloc_bench.py);
- a frozen object that later becomes cyclic garbage (a spectator gone) is only reclaimed when the
  freeze is undone: ``tidy`` does that (unfreeze, collect, freeze again) when no match is in a half or
  a shootout and the frozen heap grew by a quarter since the last tidy; ``start_janitor`` checks once
  a minute (app.py). A tidy is one long pause, at a moment nobody's match is live.

``QALISBALL_GC_LOG=1`` prints one line per gen-2 collection on stderr: its pause, what it collected and
how many objects are frozen (bench/README.md shows them before and after).
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

THRESHOLDS = (2_000, 10, 10)
TIDY_GROWTH = 1.25  # tidy once the frozen heap is a quarter larger than after the last settle/tidy
JANITOR_EVERY_S = 60.0

_state: dict[str, Any] = {"installed": False, "log": False, "started": 0, "frozen_at_tidy": 0, "pauses": []}


def install(environ: dict[str, str] | None = None) -> None:
    """Set the thresholds and the gen-2 callback (once per process); ``QALISBALL_GC_LOG=1`` logs each gen-2 pause."""
    env = os.environ if environ is None else environ
    _state["log"] = env.get("QALISBALL_GC_LOG", "") not in ("", "0")
    if _state["installed"]:
        return
    chosen = env.get("QALISBALL_GC_THRESHOLDS", "")  # e.g. "700,10,10" to measure others (bench/README.md)
    gc.set_threshold(*(tuple(int(x) for x in chosen.split(",")) if chosen else THRESHOLDS))
    gc.callbacks.append(_callback)
    _state["installed"] = True


def settle(why: str = "") -> int:
    """Collect, then freeze everything that survived; returns how many objects are frozen now."""
    started = time.perf_counter()
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    _state["frozen_at_tidy"] = frozen
    if _state["log"]:
        print(
            f"gc: {why or 'settle'}: collected and froze in {(time.perf_counter() - started) * 1000:.1f} ms, {frozen} frozen",
            file=sys.stderr,
            flush=True,
        )
    return frozen


def tidy(quiet: Callable[[], bool]) -> bool:
    """Undo the freeze, collect and freeze again when ``quiet()`` (no match live) and the frozen heap grew."""
    if gc.get_freeze_count() < TIDY_GROWTH * max(_state["frozen_at_tidy"], 1) or not quiet():
        return False
    gc.unfreeze()
    settle("tidy (no match live)")
    return True


def start_janitor(quiet: Callable[[], bool], every_s: float = JANITOR_EVERY_S) -> threading.Thread:
    """A daemon thread (a greenlet under gevent) calling ``tidy(quiet)`` every ``every_s`` seconds."""

    def loop() -> None:
        while True:
            time.sleep(every_s)
            tidy(quiet)

    t = threading.Thread(target=loop, name="qalisball-gc-janitor", daemon=True)
    t.start()
    return t


def recent_pauses() -> list[float]:
    """The last gen-2 pauses in ms (up to 100), oldest first."""
    return list(_state["pauses"])


def _callback(phase: str, info: dict[str, Any]) -> None:
    generation = info.get("generation")
    if phase == "start":
        _state["started"] = time.perf_counter()
        return
    if generation == 0:
        return
    _freeze_survivors()
    if generation != 2:
        return
    pause = (time.perf_counter() - _state["started"]) * 1000
    _state["pauses"] = [*_state["pauses"][-99:], pause]
    if _state["log"]:
        print(
            f"gc: gen-2 collection {pause:.1f} ms, collected {info.get('collected')}, "
            f"uncollectable {info.get('uncollectable')}, {gc.get_freeze_count()} frozen",
            file=sys.stderr,
            flush=True,
        )


def _freeze_survivors() -> None:
    """What survived a gen-1 (or a full) collection is long-lived: frozen, so no full collection walks it."""
    gc.freeze()


def uninstall() -> None:
    """Back to Python's own collector: no callback, Python's thresholds, nothing frozen (tests)."""
    if _callback in gc.callbacks:
        gc.callbacks.remove(_callback)
    gc.set_threshold(700, 10, 10)
    gc.unfreeze()
    _state.update(installed=False, log=False, frozen_at_tidy=0, pauses=[])
