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

    def __init__(self, tmp: Path, *options: str) -> None:
        """``options``: more redis-server arguments (a cluster node's, say)."""
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed (scripts/test installs it with apt-get)")
        self._command = [binary, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self._command += ["--dir", str(tmp), *options]
        for _ in range(5):
            self.port = free_port()
            self.url = f"redis://127.0.0.1:{self.port}/0"
            if self.start():
                return
            self.stop()
        pytest.fail("redis-server did not start within 10 s (5 attempts)")

    def start(self) -> bool:
        """Start it on its port (again, after ``stop``); whether it answers within 10 s."""
        self.process = subprocess.Popen(
            [*self._command, "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return self._answers_ping(timeout=10)

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


class RedisClusterNodes:
    """A real Redis Cluster on 127.0.0.1: ``masters`` masters with ``replicas`` replicas each,
    every node a ``RedisServer`` in a directory of its own (its ``nodes.conf`` there), joined by
    ``redis-cli --cluster create``. ``node_timeout_ms`` is how long a master may be silent
    before its replica is promoted (short, so that a failover test stays short)."""

    def __init__(
        self, tmp: Path, *, masters: int = 3, replicas: int = 1, node_timeout_ms: int = 500
    ) -> None:
        cli = shutil.which("redis-cli")
        if cli is None:
            pytest.fail("redis-cli is not installed (Debian: redis-tools, with redis-server)")
        self.cli = cli
        self.nodes: list[RedisServer] = []
        try:
            for n in range(masters * (1 + replicas)):
                directory = tmp / f"node{n}"
                directory.mkdir()
                self.nodes.append(
                    RedisServer(
                        directory,
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-node-timeout",
                        str(node_timeout_ms),
                        # A replica's first sync at once, not after the default 5 s wait for
                        # more replicas to share it.
                        "--repl-diskless-sync-delay",
                        "0",
                    )
                )
            created = subprocess.run(
                [
                    cli,
                    "--cluster",
                    "create",
                    *(f"127.0.0.1:{node.port}" for node in self.nodes),
                    "--cluster-replicas",
                    str(replicas),
                    "--cluster-yes",
                ],
                capture_output=True,
                text=True,
                timeout=30,
            )
            if created.returncode != 0:
                pytest.fail(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        self.url = self.nodes[0].url

    def command(self, node: RedisServer, *arguments: str) -> str:
        """One command's answer from ``node``, by redis-cli."""
        answer = subprocess.run(
            [self.cli, "-p", str(node.port), *arguments],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return answer.stdout

    def running(self) -> list[RedisServer]:
        return [node for node in self.nodes if node.process.poll() is None]

    def wait_healthy(self, timeout: float = 20) -> None:
        """Until every running node says ``cluster_state:ok`` and every replica's link to
        its master is up (so that a master's writes reach its replica)."""
        deadline = time.monotonic() + timeout
        while True:
            if all(self._healthy(node) for node in self.running()):
                return
            if time.monotonic() > deadline:
                states = {node.port: self.command(node, "cluster", "info") for node in self.nodes}
                pytest.fail(f"the Redis Cluster is not healthy within {timeout} s: {states}")
            time.sleep(0.05)

    def _healthy(self, node: RedisServer) -> bool:
        if "cluster_state:ok" not in self.command(node, "cluster", "info"):
            return False
        replication = self.command(node, "info", "replication")
        return "role:master" in replication or "master_link_status:up" in replication

    def master_of(self, key: str) -> RedisServer:
        """The node that is the master of ``key``'s slot now."""
        slot = int(self.command(self.running()[0], "cluster", "keyslot", key).strip())
        for line in self.command(self.running()[0], "cluster", "nodes").splitlines():
            fields = line.split()
            if "master" not in fields[2] or "fail" in fields[2]:
                continue
            for ranges in fields[8:]:
                if ranges.startswith("["):  # a slot being migrated, not held
                    continue
                low, _, high = ranges.partition("-")
                if int(low) <= slot <= int(high or low):
                    port = int(fields[1].split(":")[1].split("@")[0])
                    return next(node for node in self.nodes if node.port == port)
        raise AssertionError(f"no master holds slot {slot} of {key!r}")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
