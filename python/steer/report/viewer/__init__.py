"""`steer view RUNS…`: the report's pages for runs of any size, served from a
local HTTP server that reads the run directories lazily (the responses on
the first page, a run's transcripts on its first question)."""

from __future__ import annotations

import threading
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from steer.errors import InputError
from steer.report.viewer._data import Query, ViewerData
from steer.report.viewer._pages import index, page, question, questions

__all__ = ["Query", "ViewerData", "make_server", "serve_in_thread"]


class QueryError(ValueError):
    """A query string the viewer cannot read: answered 400 with the reason."""


def _query(params: dict[str, list[str]]) -> Query:
    one = {k: v[-1] for k, v in params.items()}
    known = {"card", "element", "domain", "grade", "outcome", "error_type", "text", "page"}
    unknown = sorted(set(one) - known)
    if unknown:
        names = ", ".join(sorted(known))
        raise QueryError(f"unknown filter {unknown[0]!r} (filters: {names})")
    ints: dict[str, int | None] = {}
    for name in ("grade", "page"):
        raw = one.pop(name, "")
        if raw == "":
            ints[name] = None
            continue
        try:
            ints[name] = int(raw)
        except ValueError:
            raise QueryError(f"{name} must be a whole number, got {raw!r}") from None
    page_no = ints["page"] or 0
    if page_no < 0:
        raise QueryError(f"page must be 0 or more, got {page_no}")
    return Query(**one, grade=ints["grade"], page=page_no)


def make_server(data: ViewerData, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """A server for `data` (not started: call serve_forever, or use a thread)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: the terminal shows the address, not every request

        def _send(self, status: int, html: str) -> None:
            body = html.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            # Pages hold text from model replies: nothing in them may run or load.
            self.send_header(
                "Content-Security-Policy",
                "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
            )
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            params = parse_qs(url.query, keep_blank_values=True)
            try:
                if url.path == "/":
                    self._send(200, index(data))
                elif url.path == "/questions":
                    self._send(200, questions(data, _query(params)))
                elif url.path == "/question":
                    one = {k: v[-1] for k, v in params.items()}
                    if "id" not in one:
                        raise QueryError("/question needs ?id=QUESTION_ID (and run=, sample=)")
                    try:
                        sample = int(one.get("sample", "0") or 0)
                    except ValueError:
                        got = one["sample"]
                        raise QueryError(f"sample must be a whole number, got {got!r}") from None
                    html = question(data, one.get("run", ""), one["id"], sample)
                    if html is None:
                        missing = escape(repr(one["id"]))
                        self._send(404, page("Not found", f"<p>No answer to {missing} here.</p>"))
                    else:
                        self._send(200, html)
                else:
                    self._send(404, page("Not found", f"<p>No page {escape(repr(url.path))}.</p>"))
            except QueryError as exc:
                self._send(400, page("Bad request", f"<p>{escape(str(exc))}</p>"))
            except InputError as exc:
                self._send(500, page("Cannot read the runs", f"<p>{escape(str(exc))}</p>"))

    return ThreadingHTTPServer((host, port), Handler)


def serve_in_thread(
    data: ViewerData, host: str = "127.0.0.1", port: int = 0
) -> tuple[ThreadingHTTPServer, str]:
    """Start a server on a daemon thread; returns it and its base URL."""
    server = make_server(data, host, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    h, p = server.server_address[:2]
    return server, f"http://{h}:{p}"
