"""``agui inspect``: serves on 127.0.0.1 and prints where; bad input is one line, no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ag_ui.inspect._serve import browser_available
from tests.inspect.conftest import broken_run, timed_recording, write


def agui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ag_ui", "inspect", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (None, "agui inspect: cannot read {path}: No such file or directory"),
        (b"not a recording\n", "agui inspect: {path} is not a recording this SDK reads: "),
    ],
)
def test_a_bad_file_is_one_line_and_exit_1(
    tmp_path: Path, data: bytes | None, message: str
) -> None:
    path = tmp_path / "run.jsonl"
    if data is not None:
        path.write_bytes(data)
    result = agui(str(path), "--no-browser")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith(message.format(path=path))
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_url_options_with_a_file_are_a_usage_error(tmp_path: Path) -> None:
    path = write(tmp_path, "run.jsonl", timed_recording(broken_run()))
    result = agui(str(path), "--tap")
    assert result.returncode == 2
    assert "--tap, --header and --proto go with an agent URL" in result.stderr
    assert agui(str(path), "--speed", "0").returncode == 2


def test_it_serves_a_recording_on_loopback_and_prints_the_address(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.jsonl", timed_recording(broken_run()))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ag_ui",
            "inspect",
            str(path),
            "--no-browser",
            "--play",
            "--speed",
            "100",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "DISPLAY": ""},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("AG-UI inspector for broken.jsonl on http://127.0.0.1:")
        url = line.split(" on ", 1)[1].split(" ", 1)[0]
        page = httpx.get(url, timeout=10)
        assert page.status_code == 200
        assert '<script type="module" src="/assets/app.js">' in page.text
        info = httpx.get(url + "api/info", timeout=10).json()
        assert info["mode"] == "recording"
        [session] = info["sessions"]
        assert (session["events"], session["errors"]) == (5, 1)
        assert session["status"]["playback"]["speed"] == 100
        for asset in ("app.js", "timeline.js", "views.js", "dom.js", "style.css"):
            assert httpx.get(url + "assets/" + asset, timeout=10).status_code == 200
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=15)
    assert "Traceback" not in stderr


def test_no_browser_is_opened_without_a_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if sys.platform.startswith("linux"):
        assert browser_available() is False


def test_the_page_needs_no_build_and_ships_every_file_it_loads() -> None:
    from ag_ui.inspect._app import STATIC

    html = (STATIC / "index.html").read_text()
    assets = {"app.js", "style.css"}
    for script in STATIC.glob("*.js"):
        for line in script.read_text().splitlines():
            if line.startswith("import ") and '"./' in line:
                assets.add(line.split('"./', 1)[1].split('"', 1)[0])
    assert {p.name for p in STATIC.iterdir()} == assets | {"index.html"}
    for asset in ("app.js", "style.css"):
        assert f"/assets/{asset}" in html
    # Nothing from another origin: no http(s) URL in what the page loads.
    for path in STATIC.iterdir():
        text = path.read_text()
        assert "http://" not in text
        assert "https://" not in text, path.name
    # The package data globs cover the assets (a wheel and an sdist ship them).
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"inspect/static/*"' in pyproject
    manifest = (Path(__file__).resolve().parents[2] / "MANIFEST.in").read_text()
    assert "recursive-include src/ag_ui/inspect/static *.html *.css *.js" in manifest


def test_it_serves_a_live_agent_page(tmp_path: Path) -> None:
    from ag_ui.demo import create_demo_app
    from tests.inspect.conftest import serve

    with serve(create_demo_app(), lifespan="off") as agent:
        process = subprocess.Popen(
            [sys.executable, "-m", "ag_ui", "inspect", agent + "/agent", "--no-browser"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line.startswith(f"AG-UI inspector for {agent}/agent on http://127.0.0.1:")
            url = line.split(" on ", 1)[1].split(" ", 1)[0]
            info = httpx.get(url + "api/info", timeout=10).json()
            assert (info["mode"], info["url"]) == ("live", agent + "/agent")
            [session] = info["sessions"]
            headers = {"x-agui-inspector": "1"}
            turn = httpx.post(
                f"{url}api/sessions/{session['id']}/turn",
                json={"message": "hello"},
                headers=headers,
                timeout=10,
            )
            assert turn.status_code == 202
            bad = httpx.post(
                f"{url}api/sessions/{session['id']}/turn",
                json={"tools": "nope"},
                headers=headers,
                timeout=10,
            )
            assert bad.status_code == 400
            assert bad.json() == {"error": "tools must be a list of objects"}
        finally:
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=15)
    assert "Traceback" not in stderr
