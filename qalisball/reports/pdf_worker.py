"""Turn a self-contained report page into a PDF with WeasyPrint: HTML on stdin, PDF on stdout.

Run as a separate process by ``render.pdf`` (``python pdf_worker.py``, not ``-m``, so that the app's
package is not imported): a long document takes WeasyPrint seconds of pure-Python CPU, which in the
server's own process would stall every other request and live update (one gevent hub, one GIL).
Nothing is fetched: the page carries its stylesheet and pictures, and the URL fetcher allows no
protocol at all, so names typed by organisers can never make the server read a file or a URL.
"""

from __future__ import annotations

import sys


def html_to_pdf(page: str) -> bytes:
    from weasyprint import HTML  # type: ignore[import-untyped]
    from weasyprint.urls import URLFetcher  # type: ignore[import-untyped]

    data: bytes = HTML(string=page, url_fetcher=URLFetcher(allowed_protocols=()), media_type="print").write_pdf()
    return data


def main() -> None:
    page = sys.stdin.buffer.read().decode("utf-8")
    sys.stdout.buffer.write(html_to_pdf(page))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
