"""Turn self-contained report pages into PDFs with WeasyPrint, in a process of its own.

Run by ``render.pdf`` as ``python pdf_worker.py --serve`` (not ``-m``, so that the app's package is
not imported): a long document takes WeasyPrint seconds of pure-Python CPU, which in the server's own
process would stall every other request and live update (one gevent hub, one GIL). The worker stays
up between documents, with WeasyPrint imported and its fonts loaded, which saves about half a second
per PDF (bench/README.md); it exits when its input closes (the server is gone) or after
``IDLE_EXIT_S`` without work, giving its memory back.

Frames on stdin: 4-byte big-endian length, then the page as UTF-8. Answers on stdout: one byte
(``P`` a PDF, ``E`` an error message), a 4-byte length, then the bytes. Without ``--serve`` it makes
one PDF from stdin to stdout (for trying a page by hand).

Nothing is fetched: the page carries its stylesheet and pictures (inline SVG, and the signatures
as ``data:`` PNGs), and the URL fetcher allows ``data:`` URLs only, so names typed by organisers can
never make the server read a file or a URL.
"""

from __future__ import annotations

import logging
import select
import sys
import traceback
from typing import Any, BinaryIO

IDLE_EXIT_S = 15 * 60
WARM_UP = (
    "<html><body style=\"font-family: 'Noto Sans CJK SC', sans-serif\"><p>Qalisball 立群球 <b>0–1 ↑↓→ ′ ✓</b></p></body></html>"
)


def html_to_pdf(page: str) -> bytes:
    from weasyprint import HTML  # type: ignore[import-untyped]
    from weasyprint.urls import URLFetcher  # type: ignore[import-untyped]

    fetcher: Any = URLFetcher(allowed_protocols=("data",))
    data: bytes = HTML(string=page, url_fetcher=fetcher, media_type="print").write_pdf()
    return data


def _read_exact(stream: Any, n: int) -> bytes | None:
    chunks, left = [], n
    while left:
        chunk = stream.read(left)
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _answer(out: BinaryIO, kind: bytes, payload: bytes) -> None:
    out.write(kind + len(payload).to_bytes(4, "big") + payload)
    out.flush()


def serve() -> None:
    # Warnings (a font without a glyph, an image it could not read) go to the server's log; the
    # answer frames own stdout.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    html_to_pdf(WARM_UP)  # imports, font configuration, the CJK font opened: once
    inp: Any = sys.stdin.buffer.raw  # type: ignore[union-attr]  # unbuffered: select sees every byte
    out = sys.stdout.buffer
    while True:
        ready, _, _ = select.select([inp], [], [], IDLE_EXIT_S)
        if not ready:
            return
        head = _read_exact(inp, 4)
        if head is None:
            return
        body = _read_exact(inp, int.from_bytes(head, "big"))
        if body is None:
            return
        try:
            pdf = html_to_pdf(body.decode("utf-8"))
        except Exception:  # noqa: BLE001 - any failure of one document is answered, the worker stays
            _answer(out, b"E", traceback.format_exc(limit=5).encode("utf-8", "replace"))
        else:
            _answer(out, b"P", pdf)


def main() -> None:
    if "--serve" in sys.argv[1:]:
        serve()
        return
    page = sys.stdin.buffer.read().decode("utf-8")
    sys.stdout.buffer.write(html_to_pdf(page))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
