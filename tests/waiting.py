"""Waiting in tests on a condition, never for a length of time on the wall clock (issue 27.12).

``wait_until(condition, what)`` asks ``condition`` again and again until it answers something true, and returns
that answer; it fails naming ``what`` once ``timeout`` seconds have gone by without. A test that proves
"nothing happens" waits instead for the thing that would have happened by then (an answer, a later state).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(condition: Callable[[], T], what: str, timeout: float = 30, every: float = 0.05) -> T:
    deadline = time.monotonic() + timeout
    while True:
        got = condition()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(every)  # the poll's interval between two asks, not a wait for time to pass
