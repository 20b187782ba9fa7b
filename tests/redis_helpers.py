"""A real redis-server on 127.0.0.1 for the store and resume tests (started and stopped here)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def free_port() -> int:
    """A port number no socket holds right now (for names and ports that may not be taken)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """redis-server cannot be handed a bound socket, so it gets a free port number; if another
    process takes the port in between, redis-server exits and is started again on a new one."""

    def __init__(self, tmp: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed (scripts/test installs it with apt-get)")
        for _ in range(5):
            self.port = free_port()
            self.url = f"redis://127.0.0.1:{self.port}/0"
            self.process = subprocess.Popen(
                [
                    binary,
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(tmp),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            if self._answers_ping(timeout=10):
                return
            self.stop()
        pytest.fail("redis-server did not start within 10 s (5 attempts)")

    def _answers_ping(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.process.poll() is None:  # an exit: the port was taken, try another one
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    # Ours, not another redis-server that got the port first: ask for its pid.
                    sock.sendall(b"INFO server\r\n")
                    answer = b""
                    while b"process_id:" not in answer or not answer.endswith(b"\r\n"):
                        chunk = sock.recv(65536)
                        if not chunk:
                            break
                        answer += chunk
                    if f"process_id:{self.process.pid}\r\n".encode() in answer:
                        return True
            except OSError:
                pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return False

    @contextmanager
    def paused(self) -> Iterator[None]:
        """redis-server stopped with SIGSTOP (by its pid) for the block: its sockets stay open
        and the kernel still accepts connections, but nothing is answered. SIGCONT always
        follows, whatever the block raises."""
        os.kill(self.process.pid, signal.SIGSTOP)
        try:
            yield
        finally:
            os.kill(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
