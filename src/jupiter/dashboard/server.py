"""`jupiter dashboard`: one page on a domain's run, served from this process on 127.0.0.1.

The standard library's threading HTTP server, three static files from the package (the
page, its script, its style: no build step, nothing fetched from elsewhere) and one JSON
endpoint the script polls every 1.5 s. Every text of the data is set as text by the script
(never parsed as HTML), and the Content-Security-Policy allows no inline script, so a
document holding markup shows as the text it is.
"""

from __future__ import annotations

import errno
import hmac
import json
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from jupiter.dashboard.state import Board
from jupiter.errors import JupiterError

STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
LOOPBACK_NAMES = {"127.0.0.1", "localhost", "::1"}


def static_files() -> dict[str, bytes]:
    """The page's files, shipped inside the package (jupiter/dashboard/static/)."""
    folder = resources.files("jupiter.dashboard") / "static"
    return {path: (folder / name).read_bytes() for path, (name, _) in STATIC.items()}


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name of a Host header, without its port ("[::1]:8765" -> "::1")."""
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class DashboardServer(ThreadingHTTPServer):
    daemon_threads = True  # an open page's request never holds up Ctrl-C

    def __init__(
        self,
        address: tuple[str, int],
        board: Board,
        files: dict[str, bytes],
        api_key: str | None = None,
    ) -> None:
        self.board, self.files, self.api_key = board, files, api_key
        # bound to loopback, the page answers only to loopback names: a web page elsewhere
        # cannot rebind its own name to 127.0.0.1 and read the run's documents
        self.check_host = is_loopback(address[0])
        self.address_family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        super().__init__(address, Handler)


class Handler(BaseHTTPRequestHandler):
    """HTTP/1.0: a connection per request (one every 1.5 s), so a stopped server is gone
    for every page at once, none kept answering on a kept-alive connection."""

    server: DashboardServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # a request every 1.5 s per page: no log line for each

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: dict[str, Any]) -> None:
        body = json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8")

    def do_HEAD(self) -> None:  # noqa: N802 - the stdlib's name
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        url = urlsplit(self.path)
        if self.server.check_host and host_name(self.headers.get("Host", "")) not in LOOPBACK_NAMES:
            self._json(403, {"error": "this dashboard answers only to 127.0.0.1 / localhost"})
            return
        if not self._has_key(url.query):
            self._json(
                401,
                {
                    "error": "this dashboard needs its key: open /?key=KEY, or send "
                    "Authorization: Bearer KEY"
                },
            )
            return
        if url.path in STATIC:
            self._send(200, self.server.files[url.path], STATIC[url.path][1])
        elif url.path == "/favicon.ico":
            self._send(204, b"", "image/x-icon")
        elif url.path == "/api/state":
            self._state(parse_qs(url.query).get("since", [""])[0])
        else:
            self._json(404, {"error": f"no page {url.path}"})

    def _has_key(self, query: str) -> bool:
        """No key set, or the request carries it (Bearer header or ?key=), compared in
        constant time."""
        key = self.server.api_key
        if not key:
            return True
        given = parse_qs(query).get("key", [""])[0]
        auth = self.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        return hmac.compare_digest(given.encode(), key.encode())

    def _state(self, since: str) -> None:
        try:
            doc = self.server.board.document()
        except Exception as err:  # noqa: BLE001 - the page shows it and asks again
            self._json(500, {"error": f"{type(err).__name__}: {err}"})
            return
        if since and since == doc["version"]:  # nothing changed since the page's last look
            self._json(200, {"version": doc["version"], "unchanged": True})
        else:
            self._json(200, doc)


def make_server(board: Board, host: str, port: int, api_key: str | None = None) -> DashboardServer:
    if not api_key and not is_loopback(host):
        raise JupiterError(
            f"refusing to show the run on {host} without a key: pass --api-key KEY (or set "
            "JUPITER_DASHBOARD_KEY) and open /?key=KEY, or bind 127.0.0.1"
        )
    try:
        return DashboardServer((host, port), board, static_files(), api_key)
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise JupiterError(
                f"port {port} on {host} is in use: choose another with --port"
            ) from None
        raise JupiterError(
            f"cannot listen on {host}:{port} ({err.strerror or err}): choose another "
            "--host or --port"
        ) from None


def start_in_thread(
    board: Board, host: str = "127.0.0.1", port: int = 0, api_key: str | None = None
) -> DashboardServer:
    """A running server in a background thread (for tests and embedding); its URL is
    url_of(server); stop with server.shutdown() and server.server_close()."""
    server = make_server(board, host, port, api_key)
    threading.Thread(
        target=lambda: server.serve_forever(poll_interval=0.1),
        name="jupiter-dashboard",
        daemon=True,
    ).start()
    return server


def url_of(server: DashboardServer) -> str:
    host, port = server.server_address[:2]
    name = host.decode() if isinstance(host, bytes) else str(host)
    shown = f"[{name}]" if ":" in name else name
    return f"http://{shown}:{port}/"


def run_dashboard(
    root: Path,
    name: str,
    host: str = "127.0.0.1",
    port: int = 8765,
    cycles: int | None = None,
    max_examples: int | None = None,
    start: str = "",
    log: Callable[[str], None] = print,
    api_key: str | None = None,
) -> None:
    """Serve the page until interrupted (Ctrl-C). `start`: the command that makes the
    workspace, named when there is none yet."""
    board = Board(root, name, cycles, max_examples, start)
    try:
        server = make_server(board, host, port, api_key)
        log(f"dashboard of '{name}' ({root}) on {url_of(server)} (Ctrl-C stops it)")
        if not is_loopback(host):
            log(
                f"{host} is not loopback: the page answers only with its key (open "
                f"{url_of(server)}?key=KEY)"
            )
        try:
            server.serve_forever(poll_interval=0.5)
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    finally:
        board.close()
    log("stopped")
