"""Real uvicorn servers on 127.0.0.1 for tests: the one place tests start uvicorn.

Every server here listens on a socket this module binds **before** uvicorn starts (port 0: the
kernel picks a free port and keeps it ours). There is no "find a free port, close it, let the
server bind it later" step, so two tests (or two engineers' suites on one machine) can never
race for a port, and a request sent before uvicorn is ready waits in the socket's backlog
instead of being refused.

In a thread of this process (the app object is shared with the test)::

    from tests.support.servers import serve

    with serve(create_app(agent)) as url:          # "http://127.0.0.1:<port>"
        httpx.post(f"{url}/agent", json=body)

``serve`` runs the app's lifespan (``lifespan="on"``: a failing startup fails the test, and
``create_app``'s detached runs are served); pass ``lifespan="off"`` for an app without one.
Leaving the block stops uvicorn (open connections get ``timeout_graceful_shutdown`` = 1 s).

In a process of its own (another venv, several workers, a ``kill``)::

    from tests.support.servers import serve_process

    command = [sys.executable, "-m", "uvicorn", "tests.resume.worker_app:app", "--fd", FD]
    with serve_process(command, cwd=REPO) as url:
        ...

``FD`` in the command is replaced by the number of the listening socket, which the process
inherits (``uvicorn --fd N``, or ``uvicorn.run(app, fd=N)`` in a script). The block waits until
the server answers an HTTP request, and stops the process on exit (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import http.client
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Literal, Optional

import uvicorn
from starlette.types import ASGIApp

__all__ = ["FD", "listening_socket", "serve", "serve_process"]

FD = "{fd}"
"""Placeholder in a ``serve_process`` command for the inherited socket's file descriptor."""

_START_TIMEOUT = 20.0
"""Seconds a server may take to start (generous: the machine has 2 shared cores)."""


def listening_socket() -> socket.socket:
    """A TCP socket bound to 127.0.0.1 on a port the kernel picked, already listening."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    return sock


def _url(sock: socket.socket) -> str:
    return f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextmanager
def serve(
    app: ASGIApp,
    *,
    lifespan: Literal["on", "off", "auto"] = "on",
    log_level: str = "warning",
    sock: Optional[socket.socket] = None,
    **uvicorn_options: Any,
) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a background thread; yields the base URL.

    ``sock``: a ``listening_socket()`` of the caller's, to know the port before the server
    starts (``serve`` closes it at the end); ``uvicorn_options`` go to ``uvicorn.Config``.
    """
    sock = sock if sock is not None else listening_socket()
    config = uvicorn.Config(
        app,
        lifespan=lifespan,
        log_level=log_level,
        timeout_graceful_shutdown=1,
        **uvicorn_options,
    )
    server = uvicorn.Server(config)
    exit_codes: list[object] = []

    def run() -> None:
        try:
            server.run(sockets=[sock])
        except SystemExit as exc:  # uvicorn's answer to a failed startup (lifespan)
            exit_codes.append(exc.code)

    # uvicorn installs signal handlers only on the main thread, so a thread is safe here.
    thread = threading.Thread(target=run, name="uvicorn", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + _START_TIMEOUT
        while not server.started:
            if not thread.is_alive():
                code = f" with exit code {exit_codes[0]}" if exit_codes else ""
                raise RuntimeError(f"uvicorn stopped during startup{code} (see its log above)")
            if time.monotonic() > deadline:
                raise RuntimeError(f"uvicorn did not start within {_START_TIMEOUT:g} s")
            time.sleep(0.005)
        yield _url(sock)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        if thread.is_alive():  # a connection that ignores the graceful shutdown
            server.force_exit = True
            thread.join(timeout=10)
        sock.close()
        if thread.is_alive():
            raise RuntimeError("uvicorn did not stop within 20 s")


@contextmanager
def serve_process(
    command: Sequence[str],
    *,
    cwd: Optional[Path] = None,
    env: Optional[Mapping[str, str]] = None,
    stderr: Optional[IO[str]] = None,
    start_timeout: float = _START_TIMEOUT,
) -> Iterator[str]:
    """Run ``command`` (with ``FD`` in it) as a server process on a socket bound here; yields
    the base URL once the server answers HTTP (within ``start_timeout`` seconds). ``stderr``:
    a file for what the process writes there (a file, not a pipe nobody reads)."""
    sock = listening_socket()
    if FD not in command:
        sock.close()
        raise ValueError("the command must pass the socket on: put FD where its number goes")
    fd = sock.fileno()
    argv = [str(fd) if part == FD else part for part in command]
    try:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stderr=stderr, pass_fds=[fd])
    finally:
        url = _url(sock)
        sock.close()  # the process holds its own copy; ours would keep the port open if it died
    try:
        _wait_until_answering(url, process, start_timeout)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait_until_answering(url: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait for any HTTP answer to ``GET /`` (the socket listens from the start, so a request
    waits in the backlog until the server accepts it; it is retried to notice a crash)."""
    port = int(url.rsplit(":", 1)[1])
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"the server process exited with code {process.returncode}")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=0.5)
        try:
            connection.request("GET", "/")
            connection.getresponse().read()
            return
        except (OSError, http.client.HTTPException):
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the server process did not answer within {timeout:g} s"
                ) from None
        finally:
            connection.close()
