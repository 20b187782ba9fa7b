"""A deployment as teams run one, on 127.0.0.1: N uvicorn worker processes serving
tests/deploy/deploy_app.py on one Redis, and nginx in front of them, started from the repo's
deploy/nginx/agui.conf (only its ports replaced). Every wait is bounded; ``Deployment.close``
stops everything it started.

nginx runs in the foreground of a process of ours (``-g 'daemon off;'``) with a prefix in a
temporary directory: no system service, no file outside that directory.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Literal, Optional

import httpx
import pytest

from tests.conftest import REPO
from tests.deploy.haproxy import HAProxy
from tests.redis_helpers import RedisServer, free_port

__all__ = [
    "NGINX_CONF",
    "NGINX_TLS_CONF",
    "Deployment",
    "Nginx",
    "Worker",
    "render_conf",
    "rss_bytes",
    "worker_env",
]

NGINX_CONF = REPO / "deploy" / "nginx" / "agui.conf"
NGINX_TLS_CONF = REPO / "deploy" / "nginx" / "agui-tls.conf"

START_TIMEOUT = 20.0
"""Seconds a worker or nginx may take to answer its health check (2 shared cores)."""
STOP_TIMEOUT = 20.0
"""Seconds a SIGTERM'd worker may take to exit (uvicorn's graceful timeout + shutdown_grace)."""


def _wait_healthy(url: str, process: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with code {process.returncode} while starting")
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer {url} within {START_TIMEOUT:g} s")
        time.sleep(0.05)


def rss_bytes(pid: int) -> int:
    """The resident memory of process ``pid`` (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


class Worker:
    """One uvicorn process on its own port (an nginx upstream server); restartable on it."""

    def __init__(
        self,
        env: dict[str, str],
        graceful_timeout: float,
        log: Path,
        *,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.port = free_port()
        self._extra_args = extra_args
        """More uvicorn options (``--workers 2``: one port, a supervisor and its processes)."""
        self.env = env
        self.log = log
        """Where the process's stderr goes (uvicorn's and the SDK's log lines), appended."""
        self._env = env
        self._graceful_timeout = graceful_timeout
        self.process: Optional[subprocess.Popen[bytes]] = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.launch()
        self.wait_ready()

    def command(self) -> list[str]:
        """The process to start (uvicorn; ``GunicornWorker`` runs gunicorn instead)."""
        return [
            sys.executable,
            "-m",
            "uvicorn",
            "tests.deploy.deploy_app:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--log-level",
            "warning",
            "--timeout-graceful-shutdown",
            f"{self._graceful_timeout:g}",
            *self._extra_args,
        ]

    def launch(self) -> None:
        """Start the process (``wait_ready`` waits for it: several start at once)."""
        command = self.command()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, cwd=REPO, env=self._env, stderr=log)

    def wait_ready(self) -> None:
        assert self.process is not None
        _wait_healthy(f"{self.url}/agent/health/ready", self.process, f"worker :{self.port}")

    def terminate(self) -> float:
        """SIGTERM (a deploy's stop), then wait for the exit; returns the seconds it took."""
        assert self.process is not None
        began = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=STOP_TIMEOUT)
        return time.monotonic() - began

    def kill(self) -> None:
        """SIGKILL: the worker dies without a word (its runs' heartbeats stop)."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=STOP_TIMEOUT)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def render_tls_lines(port: int, certificate: Path, key: Path) -> str:
    """deploy/nginx/agui-tls.conf's lines with its example port and paths replaced by ours."""
    text = NGINX_TLS_CONF.read_text()
    for example, ours in (
        ("listen 127.0.0.1:8443 ", f"listen 127.0.0.1:{port} "),
        ("/etc/ssl/agui/fullchain.pem;", f"{certificate};"),
        ("/etc/ssl/agui/privkey.pem;", f"{key};"),
    ):
        if text.count(example) != 1:
            raise ValueError(f"{NGINX_TLS_CONF} must hold {example!r} as the tests expect")
        text = text.replace(example, ours)
    return text


def render_conf(
    worker_ports: list[int],
    listen_port: int,
    *,
    read_timeout: Optional[str] = None,
    tls_lines: str = "",
) -> str:
    """deploy/nginx/agui.conf with its example ports replaced by ours (and nothing else but,
    given ``read_timeout``, ``proxy_read_timeout``: the keepalive test shortens it; given
    ``tls_lines``, agui-tls.conf's lines after the listen line)."""
    text = NGINX_CONF.read_text()
    if read_timeout is not None:
        if text.count("proxy_read_timeout 60s;") != 1:
            raise ValueError(f"{NGINX_CONF} must set proxy_read_timeout 60s exactly once")
        text = text.replace("proxy_read_timeout 60s;", f"proxy_read_timeout {read_timeout};")
    examples = re.findall(r"server 127\.0\.0\.1:(800\d)", text)
    if len(examples) != len(worker_ports):
        raise ValueError(
            f"{NGINX_CONF} lists {len(examples)} workers, the test has {len(worker_ports)}"
        )
    for example, port in zip(examples, worker_ports, strict=True):
        text = text.replace(f"127.0.0.1:{example}", f"127.0.0.1:{port}")
    if text.count("listen 127.0.0.1:8080;") != 1:
        raise ValueError(f"{NGINX_CONF} must listen on 127.0.0.1:8080 exactly once")
    listen = f"listen 127.0.0.1:{listen_port};"
    return text.replace("listen 127.0.0.1:8080;", f"{listen}\n{tls_lines}" if tls_lines else listen)


class Nginx:
    """nginx in the foreground, its prefix (config, pid, logs, temp files) in ``directory``."""

    def __init__(
        self,
        directory: Path,
        worker_ports: list[int],
        *,
        read_timeout: Optional[str] = None,
        tls: bool = False,
    ) -> None:
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        if not Path(binary).exists():
            pytest.fail("nginx is not installed (scripts/test installs it with apt-get)")
        self.binary = binary
        self.directory = directory
        self.port = free_port()
        (directory / "logs").mkdir(parents=True, exist_ok=True)  # nginx's error.log
        # With ``tls``: agui-tls.conf's lines too, on a second port, with a certificate for
        # 127.0.0.1 from a throwaway authority (``ssl_context()`` trusts it).
        self.tls_port: Optional[int] = None
        tls_lines = ""
        if tls:
            import trustme

            self.authority = trustme.CA()
            issued = self.authority.issue_cert("127.0.0.1")
            certificate, key = directory / "fullchain.pem", directory / "privkey.pem"
            issued.private_key_pem.write_to_path(str(key))
            certificate.write_bytes(b"".join(blob.bytes() for blob in issued.cert_chain_pems))
            self.tls_port = free_port()
            tls_lines = render_tls_lines(self.tls_port, certificate, key)
        conf = render_conf(worker_ports, self.port, read_timeout=read_timeout, tls_lines=tls_lines)
        (directory / "agui.conf").write_text(conf)
        # As root, nginx's workers would switch to "nobody", who cannot enter pytest's private
        # temporary directories: keep them as the user running the tests.
        user = "user root root;\n" if os.geteuid() == 0 else ""
        self.conf = directory / "nginx.conf"
        self.conf.write_text(
            f"{user}worker_processes 1;\n"
            "worker_rlimit_nofile 16384;\n"
            "pid nginx.pid;\n"
            "error_log logs/error.log warn;\n"
            "events { worker_connections 8192; }\n"
            "http {\n"
            "    access_log off;\n"
            "    client_body_temp_path tmp/body;\n"
            "    proxy_temp_path tmp/proxy;\n"
            "    fastcgi_temp_path tmp/fastcgi;\n"
            "    uwsgi_temp_path tmp/uwsgi;\n"
            "    scgi_temp_path tmp/scgi;\n"
            f"    include {directory / 'agui.conf'};\n"
            "}\n"
        )
        (directory / "tmp").mkdir(exist_ok=True)
        self.process = subprocess.Popen(self._command("-g", "daemon off;"))
        _wait_healthy(f"{self.url}/agent/health", self.process, "nginx")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def tls_url(self) -> str:
        """The https base URL (HTTP/2 or HTTP/1.1) of an nginx started with ``tls``."""
        if self.tls_port is None:
            raise ValueError("this nginx was started without tls")
        return f"https://127.0.0.1:{self.tls_port}"

    def ssl_context(self) -> ssl.SSLContext:
        """A client context that trusts this nginx's certificate (and nothing else)."""
        context = ssl.create_default_context()
        self.authority.configure_trust(context)
        return context

    def _command(self, *extra: str) -> list[str]:
        return [self.binary, "-p", str(self.directory), "-c", str(self.conf), *extra]

    def worker_pids(self) -> set[int]:
        """The pids of nginx's worker processes (children of the master)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return {int(pid) for pid in children.read_text().split()}

    def reload(self) -> None:
        """``nginx -s reload``: new workers take new connections, old ones finish theirs."""
        subprocess.run(self._command("-s", "reload"), check=True, timeout=10)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # fast shutdown: open streams are cut
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def worker_env(redis: RedisServer, *, shutdown_grace: float = 10.0) -> dict[str, str]:
    """The environment deploy_app.py reads, on a key prefix of its own."""
    return {
        **os.environ,
        "AGUI_TEST_REDIS_URL": redis.url,
        "AGUI_TEST_PREFIX": f"deploy{free_port()}:",
        "AGUI_TEST_SHUTDOWN_GRACE": f"{shutdown_grace:g}",
    }


class Deployment:
    """Redis (given), ``workers`` uvicorn workers, nginx in front. ``keepalive``: the workers'
    SSE keepalive interval; ``read_timeout``: nginx's ``proxy_read_timeout`` (default: the
    file's); ``threads_url``: the workers' shared thread store (a PostgreSQL database);
    ``proxy``: nginx (deploy/nginx/agui.conf) or HAProxy (deploy/haproxy/agui.cfg)."""

    def __init__(
        self,
        redis: RedisServer,
        directory: Path,
        *,
        workers: int = 4,
        graceful_timeout: float = 1.0,
        shutdown_grace: float = 10.0,
        keepalive: float = 15.0,
        read_timeout: Optional[str] = None,
        threads_url: Optional[str] = None,
        proxy: Literal["nginx", "haproxy"] = "nginx",
        tls: bool = False,
    ) -> None:
        env = {**worker_env(redis, shutdown_grace=shutdown_grace)}
        env["AGUI_TEST_KEEPALIVE"] = f"{keepalive:g}"
        if threads_url is not None:
            env["AGUI_TEST_THREADS_URL"] = threads_url
        directory.mkdir(parents=True, exist_ok=True)
        self.workers = [
            Worker(env, graceful_timeout, directory / f"worker{n}.log") for n in range(workers)
        ]
        self.nginx: Optional[Nginx] = None
        self.haproxy: Optional[HAProxy] = None
        try:
            for worker in self.workers:
                worker.launch()
            for worker in self.workers:
                worker.wait_ready()
            ports = [worker.port for worker in self.workers]
            if proxy == "haproxy":
                self.haproxy = HAProxy(directory / "haproxy", ports)
                _wait_healthy(f"{self.url}/agent/health", self.haproxy.process, "haproxy")
            else:
                self.nginx = Nginx(directory / "nginx", ports, read_timeout=read_timeout, tls=tls)
        except BaseException:
            self.close()
            raise

    @property
    def url(self) -> str:
        """The proxy's base URL."""
        if self.haproxy is not None:
            return self.haproxy.url
        assert self.nginx is not None
        return self.nginx.url

    def ensure_all_up(self) -> None:
        """Restart any worker a previous test stopped."""
        for worker in self.workers:
            if not worker.alive:
                worker.start()

    def close(self) -> None:
        if self.nginx is not None:
            self.nginx.close()
        if self.haproxy is not None:
            self.haproxy.close()
        for worker in self.workers:
            worker.stop()
