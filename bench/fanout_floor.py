"""The floor of bench/fanout_bench.py: a bare asyncio ``websockets`` broadcast server that stores nothing.

usage: python bench/fanout_floor.py PORT STATE_BYTES

WebSocket spectators connect to ws://127.0.0.1:PORT/ (no compression, no pings: the spectators'
client negotiates neither). A minimal HTTP/1.1 server on PORT+1 takes ``POST /event`` ``{"seq", "t0"}``:
it parses the body, writes one text frame of STATE_BYTES (JSON with ``seq`` and ``t0``, padded to the
size of the project's ``state`` frame) to every socket with ``websockets.broadcast`` and answers ``ok``.
``GET /ping`` answers ``pong``. It keeps no state: the transport's limit, not the project's.
"""

from __future__ import annotations

import asyncio
import json
import sys

from websockets.asyncio.server import broadcast, serve
from websockets.exceptions import ConnectionClosed

CLIENTS: set = set()
BASE_STATE: dict = {
    "match_id": "m-2024-0001",
    "status": "live",
    "period": 2,
    "clock": "63:12",
    "home": {"name": "Riverside Rovers", "short": "RIV", "score": 2, "fouls": 7},
    "away": {"name": "Hilltop United", "short": "HIL", "score": 1, "fouls": 9},
}


def pad_to(size: int) -> None:
    """Pad BASE_STATE's ``note`` so that a message with a 2-digit seq is ``size`` bytes long."""
    probe = json.dumps({"seq": 10, "t0": 10**15, **BASE_STATE, "note": ""})
    if size < len(probe):
        sys.exit(f"STATE_BYTES={size} is below the unpadded message ({len(probe)})")
    BASE_STATE["note"] = "x" * (size - len(probe))


async def ws_handler(ws) -> None:  # type: ignore[no-untyped-def]
    CLIENTS.add(ws)
    try:
        async for _ in ws:  # spectators send nothing that matters
            pass
    except ConnectionClosed:
        pass
    finally:
        CLIENTS.discard(ws)


async def http_handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                k, _, v = line.partition(":")
                if k.strip().lower() == "content-length":
                    length = int(v)
            body = await reader.readexactly(length) if length else b""
            if method == "POST" and path == "/event":
                d = json.loads(body)
                broadcast(CLIENTS, json.dumps({"seq": int(d["seq"]), "t0": int(d["t0"]), **BASE_STATE}))
                out = b"ok"
            else:
                out = b"pong"
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n%s" % (len(out), out))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def main(port: int) -> None:
    async with serve(ws_handler, "127.0.0.1", port, compression=None, ping_interval=None, max_queue=None, backlog=2048):
        server = await asyncio.start_server(http_handler, "127.0.0.1", port + 1, backlog=2048)
        async with server:
            await asyncio.Future()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    pad_to(int(sys.argv[2]))
    asyncio.run(main(int(sys.argv[1])))
