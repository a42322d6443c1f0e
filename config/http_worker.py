"""gunicorn's gthread worker, reading each request's headers in its event loop instead of in a thread.

gthread hands a connection to one of its few threads as soon as the first byte arrives, and that thread then
blocks until the whole header block is in: five clients sending one header line every 5 s held every thread of
a 1 x 4 web, and ``/healthz`` timed out (issue 25, item 1; docs/security.md, slow clients). This worker keeps a
connection in the poller until its header block is complete (the blank line that ends it), buffering what
arrives with non-blocking reads, and only then gives it to a thread, with the bytes already read put back in
front of gunicorn's own parser. A thread therefore only ever waits for a request that has arrived; a client too
slow to finish its headers within ``HEADER_TIMEOUT`` seconds of its first byte (or of its connection, if it
sends nothing) is closed without an answer, as nginx's ``client_header_timeout`` does. gunicorn's own limits
(``limit_request_line``, ``limit_request_fields``, ``limit_request_field_size``, config/gunicorn.py) still
apply: a header block longer than ``MAX_HEADER_BYTES`` goes to the parser as it is, which answers it 431 or 400.

The request body is still read by the thread: a slow body is the buffering proxy's to absorb (nginx reads the
whole body before it forwards a request; the production checklist in docs/operations.md requires one). TLS is
the proxy's too; with gunicorn's own TLS this worker behaves exactly as gthread.

An answer given before its request's body was read to the end (a 401, 404 or 405 to a body the view never asked
for, a 413 past the endpoint's cap; issue 25 §2) closes the connection: gunicorn would otherwise read and discard
the rest of that body, all of it, in the thread, before the next request on the connection. The answer says
``Connection: close``, and the connection then lingers in the poller, not in a thread, discarding at most
``LINGER_BYTES`` for at most ``LINGER_SECONDS`` before it is closed (nginx's lingering close): closing a socket
with unread bytes sends a reset, which could destroy the answer before the client reads it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import selectors
import socket
import time
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

from gunicorn.workers.gthread import TConn, ThreadWorker

HEADER_END = b"\r\n\r\n"
# Seconds a client has to send its request line and headers (nginx's client_header_timeout defaults to 60 s; a
# real client sends them in one packet).
HEADER_TIMEOUT = float(os.environ.get("ARENA_HEADER_TIMEOUT", "10"))
# Larger than any header block gunicorn's limits let through (config/gunicorn.py: 4094 + 50 x 8190 bytes would be
# more, but a block this long is refused by the parser in any case); past it, the parser answers.
MAX_HEADER_BYTES = 64 * 1024
READ_SIZE = 16 * 1024
# A connection closed with its request's body unread is drained this long and this much at most, then closed.
LINGER_SECONDS = 2.0
LINGER_BYTES = 1024 * 1024


class HeaderBufferingWorker(ThreadWorker):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending: dict[TConn, float] = {}  # connection -> the time its headers must be in by
        self._buffers: dict[TConn, bytearray] = {}
        self._lingering: dict[TConn, list[float]] = {}  # connection -> [deadline, bytes it may still discard]

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = partial(_closing_when_unread, self.wsgi)

    def finish_request(self, fs: Any) -> None:
        if not fs.cancelled() and fs.exception() is None and not self.cfg.is_ssl:
            keepalive, conn = fs.result()
            request = getattr(conn.parser, "mesg", None) if conn.parser is not None else None
            if not (keepalive and self.alive) and request is not None and body_unread(request.body):
                self._linger(conn)
                return
        super().finish_request(fs)

    def _linger(self, conn: TConn) -> None:
        with contextlib.suppress(OSError):
            conn.sock.shutdown(socket.SHUT_WR)  # the answer is complete: the client sees its end
            conn.sock.setblocking(False)
        with self._lock:
            self._lingering[conn] = [time.monotonic() + LINGER_SECONDS, float(LINGER_BYTES)]
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._discard, conn))

    def _discard(self, conn: TConn, client: Any) -> None:
        try:
            data = conn.sock.recv(64 * 1024)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        with self._lock:
            left = self._lingering.get(conn)
            if left is None:
                return
            left[1] -= len(data)
            if not data or left[1] <= 0:
                del self._lingering[conn]
                self._drop(conn)

    def accept(self, server: Any, listener: Any) -> None:
        if self.cfg.is_ssl:
            super().accept(server, listener)
            return
        try:
            sock, client = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        conn = TConn(self.cfg, sock, client, server)  # non-blocking until a thread takes it
        self.nr_conns += 1
        with self._lock:
            self._pending[conn] = time.monotonic() + HEADER_TIMEOUT
            self.poller.register(conn.sock, selectors.EVENT_READ, partial(self.on_client_socket_readable, conn))

    def on_client_socket_readable(self, conn: TConn, client: Any) -> None:
        if self.cfg.is_ssl:
            super().on_client_socket_readable(conn, client)
            return
        try:
            data = conn.sock.recv(READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""  # reset by the peer: as closed
        with self._lock:
            if conn.initialized and conn in self._keep:
                # A kept-alive connection starts its next request: from now on its headers are timed.
                self._keep.remove(conn)
                self._pending[conn] = time.monotonic() + HEADER_TIMEOUT
            if not data:
                self._drop(conn)
                return
            buffer = self._buffers.setdefault(conn, bytearray())
            buffer += data
            if HEADER_END not in buffer and len(buffer) < MAX_HEADER_BYTES:
                return  # wait in the poller, not in a thread
            self.poller.unregister(conn.sock)
            self._pending.pop(conn, None)
            del self._buffers[conn]
        conn.init()  # blocking from here, with gunicorn's parser on the socket
        conn.parser.unreader.unread(bytes(buffer))
        self.enqueue_req(conn)

    def murder_keepalived(self) -> None:
        super().murder_keepalived()
        now = time.monotonic()
        with self._lock:
            late = [conn for conn, deadline in self._pending.items() if deadline <= now]
            for conn in late:
                self._drop(conn)
            done = [conn for conn, (deadline, _) in self._lingering.items() if deadline <= now]
            for conn in done:
                del self._lingering[conn]
                self._drop(conn)

    def _drop(self, conn: TConn) -> None:
        """Close a connection still in the poller (under ``self._lock``)."""
        self._pending.pop(conn, None)
        self._buffers.pop(conn, None)
        with contextlib.suppress(KeyError, ValueError, OSError):  # already gone from the poller
            self.poller.unregister(conn.sock)
        self.nr_conns -= 1
        conn.close()


def body_unread(body: Any) -> bool:
    """True if gunicorn's request ``body`` has bytes the application has not read (or not yet received)."""
    if getattr(body, "buf", None) is not None and body.buf.tell():
        return True
    reader = getattr(body, "reader", None)
    if hasattr(reader, "length"):  # a declared Content-Length
        return bool(reader.length)
    if hasattr(reader, "parser"):  # chunked: the parser is dropped once the last chunk was read
        return reader.parser is not None or bool(reader.buf.tell())
    return False


def _closing_when_unread(
    app: Callable[..., Iterable[bytes]], environ: dict[str, Any], start_response: Callable[..., Any]
) -> Iterable[bytes]:
    """The application, with ``Connection: close`` on an answer given before its request's body was read."""

    def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        response = getattr(start_response, "__self__", None)  # gunicorn's Response
        if response is not None and body_unread(environ.get("wsgi.input")):
            response.force_close()
        return start_response(status, headers, exc_info)

    return app(environ, start)
