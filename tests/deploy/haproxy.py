"""HAProxy in the foreground (``-db``) from the repo's deploy/haproxy/agui.cfg, only its ports
replaced; the second proxy of the deployment tests (nginx is the first: harness.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.redis_helpers import free_port

__all__ = ["HAPROXY_CONF", "HAProxy", "render_haproxy"]

HAPROXY_CONF = REPO / "deploy" / "haproxy" / "agui.cfg"


def render_haproxy(worker_ports: list[int], listen_port: int) -> str:
    """deploy/haproxy/agui.cfg with its example ports replaced by ours (and nothing else)."""
    text = HAPROXY_CONF.read_text()
    examples = re.findall(r"127\.0\.0\.1:(800\d) check", text)
    if len(examples) != len(worker_ports):
        raise ValueError(
            f"{HAPROXY_CONF} lists {len(examples)} workers, the test has {len(worker_ports)}"
        )
    for example, port in zip(examples, worker_ports, strict=True):
        text = text.replace(f"127.0.0.1:{example} check", f"127.0.0.1:{port} check")
    if text.count("bind 127.0.0.1:8080\n") != 1:
        raise ValueError(f"{HAPROXY_CONF} must bind 127.0.0.1:8080 exactly once")
    return text.replace("bind 127.0.0.1:8080\n", f"bind 127.0.0.1:{listen_port}\n")


class HAProxy:
    """One haproxy process, its config in ``directory``; stopped by ``close``."""

    def __init__(self, directory: Path, worker_ports: list[int]) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(binary).exists():
            pytest.fail("haproxy is not installed (scripts/test installs it with apt-get)")
        directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.conf = directory / "haproxy.cfg"
        self.conf.write_text(render_haproxy(worker_ports, self.port))
        log = (directory / "haproxy.log").open("ab")
        with log:
            self.process = subprocess.Popen([binary, "-db", "-f", str(self.conf)], stderr=log)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
