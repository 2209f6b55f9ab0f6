"""Free TCP ports on this machine for the servers that tests and benchmarks start (app.py, a cluster)."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A port nothing listens on now (the kernel's choice)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_block(size: int) -> int:
    """A port P such that P … P+size-1 are all free now (a cluster listens on PORT, PORT+1, …)."""
    for _ in range(200):
        base = free_port()
        if base + size > 65000:
            continue
        try:
            for p in range(base, base + size):
                with socket.socket() as t:
                    t.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
    raise RuntimeError("no free block of ports")
