"""The proxy configs docs/deploy.md shows are the files the deployment tests run."""

from __future__ import annotations

import re

from tests.conftest import REPO
from tests.deploy.haproxy import HAPROXY_CONF
from tests.deploy.harness import NGINX_CONF, NGINX_TLS_CONF, render_conf


def test_the_documented_nginx_config_is_the_tested_file() -> None:
    doc = (REPO / "docs" / "deploy.md").read_text()
    blocks = re.findall(r"```nginx\n(.*?)```", doc, flags=re.DOTALL)
    assert blocks == [NGINX_CONF.read_text(), NGINX_TLS_CONF.read_text()]
    haproxy = re.findall(r"```haproxy\n(.*?)```", doc, flags=re.DOTALL)
    assert haproxy == [HAPROXY_CONF.read_text()]


def test_only_the_ports_are_replaced() -> None:
    rendered = render_conf([9001, 9002, 9003, 9004], 9080)
    original = NGINX_CONF.read_text()
    assert "listen 127.0.0.1:9080;" in rendered
    assert "127.0.0.1:8001" not in rendered
    assert rendered.count("\n") == original.count("\n")
    unchanged = re.sub(r"127\.0\.0\.1:\d+", "ADDR", rendered)
    assert unchanged == re.sub(r"127\.0\.0\.1:\d+", "ADDR", original)
