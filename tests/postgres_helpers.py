"""A real PostgreSQL for the thread-store tests: a throwaway cluster (``initdb`` in a temp dir,
``pg_ctl start`` on a free port of 127.0.0.1, its unix socket in the same dir), no system
service. scripts/test installs the Debian ``postgresql`` package when ``initdb`` is missing.

PostgreSQL refuses to run as root. When the tests run as root (containers, CI), ``initdb``,
``pg_ctl`` and so the server run as the unprivileged ``nobody`` user (another one when
``AG_UI_TEST_PG_USER`` names it): ``subprocess`` switches user for the child, and the cluster's
directory is made directly under the system temp dir (pytest's temp dirs are private to root,
so ``nobody`` could not enter them) and handed to that user. The tests connect over TCP with
``trust`` authentication, so no password is involved.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.redis_helpers import free_port


def postgres_bindir() -> Path:
    """Where ``initdb`` and ``pg_ctl`` are: on PATH, else ``pg_config --bindir``, else the
    newest /usr/lib/postgresql/*/bin (Debian puts them there, off PATH)."""
    found = shutil.which("pg_ctl")
    if found is not None and shutil.which("initdb") is not None:
        return Path(found).resolve().parent
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        bindir = Path(
            subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True
            ).stdout.strip()
        )
        if (bindir / "initdb").exists():
            return bindir
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(Path(path).parts[-3]) if Path(path).parts[-3].isdigit() else 0,
    )
    if candidates:
        return Path(candidates[-1]).parent
    pytest.fail("PostgreSQL is not installed (scripts/test installs the postgresql package)")


_PREFIX = "agui-pg-"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep_abandoned() -> None:
    """Stop and remove the clusters of test sessions that were killed before their teardown:
    ``pg_ctl`` detaches the server, so it would outlive them."""
    for root in Path(tempfile.gettempdir()).glob(f"{_PREFIX}*"):
        try:
            owner = int((root / "owner.pid").read_text())
        except (OSError, ValueError):
            continue  # not ours, or still being made
        if _alive(owner):
            continue
        try:
            postmaster = int((root / "data" / "postmaster.pid").read_text().split()[0])
            # The pid may have been reused since: only a postgres running on that data dir.
            command = Path(f"/proc/{postmaster}/cmdline").read_bytes().split(b"\0")
            if any(part.endswith(b"postgres") for part in command) and (
                str(root / "data").encode() in command
            ):
                os.kill(postmaster, signal.SIGQUIT)  # an immediate shutdown
        except (OSError, ValueError, IndexError):
            pass  # not running any more
        shutil.rmtree(root, ignore_errors=True)


class PostgresServer:
    """One cluster for the session; ``database()`` makes a fresh database per test."""

    def __init__(self, *, fsync: bool = False) -> None:
        self.bindir = postgres_bindir()
        _sweep_abandoned()
        self.root = Path(tempfile.mkdtemp(prefix=_PREFIX))
        (self.root / "owner.pid").write_text(str(os.getpid()))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:
            user = pwd.getpwnam(os.environ.get("AG_UI_TEST_PG_USER", "nobody"))
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        self._pg(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--no-locale",
            "--no-sync",
        )
        # fsync off: the tests kill clients and stop the server cleanly, never the machine, and
        # a database per test is created much faster without it.
        self._settings = "" if fsync else " -c fsync=off"
        self.port = 0
        self._databases = 0
        self.start(new_port=True)

    def _pg(self, program: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.bindir / program), *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            **self._as,
        )
        if check and done.returncode != 0:
            pytest.fail(f"{program} failed: {done.stdout}{done.stderr}")
        return done

    def start(self, *, new_port: bool = False) -> None:
        """Start the cluster (on a new free port the first time; on the same one afterwards,
        so that stores keep their URL across a restart). A port another process took in between
        makes postgres exit, and the start is tried again on another one."""
        for _ in range(5):
            if new_port or not self.port:
                self.port = free_port()
            options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root}{self._settings}"
            started = self._pg(
                "pg_ctl",
                "-D",
                str(self.data),
                "-l",
                str(self.log),
                "-w",
                "-t",
                "30",
                "-o",
                options,
                "start",
                check=False,
            )
            if started.returncode == 0:
                return
            new_port = True
        pytest.fail(f"PostgreSQL did not start (5 attempts): {self.log.read_text()[-2000:]}")

    def stop(self, mode: str = "fast") -> None:
        """``pg_ctl stop``: ``fast`` ends the sessions and stops; ``immediate`` is a crash."""
        self._pg("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop", check=False)

    def _processes(self) -> list[int]:
        """The postmaster's pid (first line of postmaster.pid) and its children's."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        children = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue  # exited meanwhile
            if int(stat.rsplit(")", 1)[1].split()[1]) == postmaster:  # field 4: the parent
                children.append(int(entry.name))
        return [postmaster, *children]

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Every process of the cluster stopped with SIGSTOP for the block: connections are
        still accepted by the kernel and queries sent, but nothing answers (a hung server).
        SIGCONT always follows."""
        processes = self._processes()
        for pid in processes:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in processes:
                os.kill(pid, signal.SIGCONT)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def database(self) -> str:
        """A new, empty database; its URL."""
        import psycopg

        self._databases += 1
        name = f"agui_{os.getpid()}_{self._databases}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop(self, url: str) -> None:
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
