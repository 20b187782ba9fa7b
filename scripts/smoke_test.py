"""Smoke test of an installed ag-ui-sdk: a wheel or an sdist, in a fresh environment.

Run by cibuildwheel on every wheel it builds (pyproject.toml, ``[tool.cibuildwheel]``) and by
``scripts/release-check`` on the wheel and the sdist it builds here. Run it from outside the
checkout (cibuildwheel runs tests in a temporary directory), so that ``ag_ui`` is the installed
one. It checks that:

- ``ag_ui`` comes from an installed distribution whose version is ``ag_ui.__version__``;
- an event goes through SSE and back, and through protobuf and back (when the ``proto`` extra
  is installed: cibuildwheel installs it);
- ``agui doctor --output json`` finds no problem and knows the version; with
  ``--require-accelerators``, both C accelerators (protobuf, SSE/JSON) are built and loaded;
  with ``--pure-python``, neither is built (a build without a C compiler).

Prints one line per check and exits 1 at the first that fails. Standard library only.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import subprocess
import sys


def check(what: str, ok: bool, detail: str = "") -> None:
    print(f"{'ok' if ok else 'FAILED'}: {what}" + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        raise SystemExit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--require-accelerators", action="store_true")
    mode.add_argument("--pure-python", action="store_true")
    args = parser.parse_args()

    import ag_ui

    installed = importlib.metadata.version("ag-ui-sdk")
    check("ag_ui.__version__ is the installed version", ag_ui.__version__ == installed, installed)

    from ag_ui.core import TextMessageContentEvent, parse_event
    from ag_ui.encoder import EventEncoder

    event = TextMessageContentEvent(message_id="m1", delta="héllo ✓")
    sse = EventEncoder().encode_sse(event)
    payload = sse.decode().removeprefix("data: ").strip()
    check("SSE: encode and parse back", parse_event(payload) == event, sse.decode().strip())

    if importlib.util.find_spec("google.protobuf") is not None:
        from ag_ui.proto import decode_event, encode_event

        check("protobuf: encode and decode back", decode_event(encode_event(event)) == event)

    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "doctor", "--output", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    check("agui doctor ran", done.returncode in (0, 1) and done.stdout.startswith("{"), done.stderr)
    report = json.loads(done.stdout)
    check("agui doctor: no problem", report["ok"], "; ".join(report["problems"]))
    check("agui doctor knows the version", report["sdk_version"] == installed, report["mode"])
    accelerators = {name: report[name] for name in ("accelerator", "json_speedups")}
    for name, status in accelerators.items():
        print(f"   {name}: {status['status']} ({status['detail']})")
    if args.require_accelerators:
        loaded = [
            name
            for name, status in accelerators.items()
            if status["status"] == "built" and status["detail"].endswith("; loaded")
        ]
        check("both C accelerators built and loaded", len(loaded) == 2, ", ".join(loaded))
    if args.pure_python:
        built = [name for name, status in accelerators.items() if status["status"] != "not built"]
        check("no C accelerator built (pure Python)", built == [], ", ".join(built))


if __name__ == "__main__":
    main()
