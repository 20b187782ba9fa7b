"""``agui doctor [--fix] [--output text|json]``: is this environment's AG-UI installation sound?

Reports the SDK version and where it runs from, the ``ag-ui-protocol`` distribution beside it,
which distribution owns each file under ``ag_ui/`` (the 11 shared files one by one), whether the
C accelerator of the protobuf transport and the compiled SSE/JSON writer (``_json_speedups``)
are built and load, which extras import, and every
conflict with the exact command that repairs it. Exit status 1 when something is wrong.
``--fix`` runs that command (it reinstalls this SDK's files without touching dependencies) and
checks again in a fresh interpreter.

This module is imported before anything shared with ``ag-ui-protocol`` (``agui`` dispatches
``doctor`` first), so it works in the environments it diagnoses: it imports only the standard
library and ``ag_ui._integrity`` at module level.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from ag_ui._integrity import (
    OFFICIAL_DISTRIBUTION,
    SDK_DISTRIBUTION,
    SHARED_FILES,
    InstallationReport,
    inspect_installation,
)

__all__ = ["register", "run_doctor"]

EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    # extra: (the module that shows it works: imported if the SDK's, else found; the
    # distributions it installs, whose versions are shown). Every extra of
    # pyproject.toml but the aggregates (all, dev); tests/cli/test_doctor.py holds them equal.
    "client": ("ag_ui.client", ("httpx",)),
    "server": ("ag_ui.server", ("starlette", "uvicorn")),
    "proto": ("ag_ui.proto", ("protobuf",)),
    "redis": ("ag_ui.store.redis", ("redis", "hiredis")),
    "postgres": ("psycopg_pool", ("psycopg", "psycopg-pool")),
    "testing": ("ag_ui.testing", ("httpx", "starlette", "uvicorn", "pytest")),
    "fastapi": ("fastapi", ("starlette", "uvicorn", "fastapi")),
    "openai": ("openai", ("starlette", "uvicorn", "openai")),
    "anthropic": ("anthropic", ("starlette", "uvicorn", "anthropic")),
    "otel": ("ag_ui.telemetry", ("opentelemetry-api",)),
    "otel-export": (
        "opentelemetry.exporter.otlp.proto.http",
        ("opentelemetry-api", "opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-http"),
    ),
    "langgraph": ("langgraph", ("starlette", "uvicorn", "langgraph", "langchain-core")),
    "openai-agents": ("agents", ("starlette", "uvicorn", "openai", "openai-agents")),
}


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--fix",
        action="store_true",
        help="repair what can be repaired (reinstall this SDK's files)",
    )
    parser.add_argument("--output", choices=("text", "json"), default="text")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "doctor",
        help="check the installation: file owners beside ag-ui-protocol, accelerator, extras",
        description=(__doc__ or "").split("\n\n")[1],
    )
    _add_arguments(parser)
    parser.set_defaults(func=lambda args: run_doctor(_as_argv(args)))


def _as_argv(args: argparse.Namespace) -> list[str]:
    return [*(["--fix"] if args.fix else []), "--output", args.output]


@dataclass(frozen=True)
class ExtraStatus:
    name: str
    module: str
    versions: dict[str, Optional[str]]
    imports: bool
    detail: str


def _version(distribution: str) -> Optional[str]:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _import_status(module: str) -> tuple[bool, str]:
    """An SDK module is imported; another package only found (importing the model providers'
    SDKs and OpenTelemetry's exporter would triple the doctor's time; their versions are read)."""
    try:
        if module.startswith("ag_ui."):
            importlib.import_module(module)
            return True, "imports"
        if importlib.util.find_spec(module) is None:
            return False, f"{module} cannot be found"
    except Exception as exc:  # any failure is something to report, not to crash on
        return False, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return True, "found"


def _extras(installation_ok: bool) -> list[ExtraStatus]:
    statuses = []
    for name, (module, distributions) in EXTRAS.items():
        versions = {d: _version(d) for d in distributions}
        if not installation_ok:
            imports, detail = False, "not tried: the shared files are not this SDK's"
        elif any(v is None for v in versions.values()):
            missing = ", ".join(d for d, v in versions.items() if v is None)
            imports, detail = (
                False,
                f"not installed ({missing}): pip install '{SDK_DISTRIBUTION}[{name}]'",
            )
        else:
            imports, detail = _import_status(module)
        statuses.append(ExtraStatus(name, module, versions, imports, detail))
    return statuses


def _compiled_files(directory: Path, stem: str) -> list[Path]:
    """The compiled extension files of module ``stem`` in ``directory`` (``.so``, ``.pyd``)."""
    return sorted(directory.glob(f"{stem}*.so")) + sorted(directory.glob(f"{stem}*.pyd"))


def _accelerator(installation_ok: bool, package_dir: Path) -> tuple[str, str]:
    """(``built``/``not built``, detail) for ``ag_ui.proto._speedups``."""
    built = _compiled_files(package_dir / "proto", "_speedups")
    if not built:
        return "not built", "no compiled _speedups (installed without a C compiler); pure Python"
    if not installation_ok:
        return "built", f"{built[0].name}; not loaded: the shared files are not this SDK's"
    if _version("protobuf") is None:
        return "built", f"{built[0].name}; not loaded: the proto extra is not installed"
    try:
        accelerator = importlib.import_module("ag_ui.proto._accelerator")
    except Exception as exc:  # reported, not raised
        return "built", f"{built[0].name}; failed to load: {exc}"
    implementation = getattr(accelerator, "IMPLEMENTATION", "python")
    if implementation == "c":
        return "built", f"{built[0].name}; loaded"
    reason = "AG_UI_PURE_PYTHON=1" if os.environ.get("AG_UI_PURE_PYTHON") == "1" else "failed"
    return "built", f"{built[0].name}; not used ({reason})"


def _json_speedups(installation_ok: bool, package_dir: Path) -> tuple[str, str]:
    """(``built``/``not built``, detail) for ``ag_ui.core._json_speedups``, the SSE/JSON writer.

    Loaded through ``ag_ui.core._json_plans``, as the encoder and ``parse_event`` load it, so
    that "loaded" means the compiled paths are the ones that run.
    """
    built = _compiled_files(package_dir / "core", "_json_speedups")
    if not built:
        return "not built", "no compiled _json_speedups (built without a C compiler); pydantic's"
    if not installation_ok:
        return "built", f"{built[0].name}; not loaded: the shared files are not this SDK's"
    if os.environ.get("AG_UI_PURE_PYTHON") == "1":
        return "built", f"{built[0].name}; not used (AG_UI_PURE_PYTHON=1)"
    try:
        plans = importlib.import_module("ag_ui.core._json_plans")
        if getattr(plans, "IMPLEMENTATION", "python") == "c":
            return "built", f"{built[0].name}; loaded"
        # _json_plans swallows the ImportError (it falls back); import again for its message.
        importlib.import_module("ag_ui.core._json_speedups")
    except Exception as exc:  # reported, not raised
        return "built", f"{built[0].name}; failed to load: {exc}"
    return "built", f"{built[0].name}; not used (failed)"


def _owners(report: InstallationReport) -> dict[str, int]:
    """How many files under ``ag_ui/`` each distribution owns (shared files counted apart)."""
    site_dir = report.package_dir.parent
    files = [
        path.relative_to(site_dir).as_posix()
        for path in report.package_dir.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]
    listed = {
        dist: _record_paths(site_dir, dist) for dist in (SDK_DISTRIBUTION, OFFICIAL_DISTRIBUTION)
    }
    counts = {f"{SDK_DISTRIBUTION} only": 0, f"{OFFICIAL_DISTRIBUTION} only": 0, "shared": 0}
    counts["neither"] = 0
    for path in files:
        if path in SHARED_FILES:
            counts["shared"] += 1
        elif path in listed[SDK_DISTRIBUTION] or report.mode == "source":
            counts[f"{SDK_DISTRIBUTION} only"] += 1
        elif path in listed[OFFICIAL_DISTRIBUTION]:
            counts[f"{OFFICIAL_DISTRIBUTION} only"] += 1
        else:
            counts["neither"] += 1
    return counts


def _record_paths(site_dir: Path, distribution: str) -> set[str]:
    prefix = distribution.replace("-", "_") + "-"
    for info in sorted(site_dir.glob(prefix + "*.dist-info")):
        record = info / "RECORD"
        if record.is_file():
            lines = record.read_text(encoding="utf-8").splitlines()
            return {line.partition(",")[0] for line in lines}
    return set()


_OWNER_WORDS = {
    "sdk": SDK_DISTRIBUTION,
    "official": OFFICIAL_DISTRIBUTION,
    "both": "identical in both",
    "missing": "MISSING",
    "unknown": "unknown (neither RECORD's hash)",
}


def _text(
    report: InstallationReport,
    extras: list[ExtraStatus],
    accel: tuple[str, str],
    json_accel: tuple[str, str],
) -> str:
    where = "a source tree (editable install)" if report.mode == "source" else "an installed wheel"
    by = f", installed by {report.installer}" if report.installer else ""
    lines = [
        f"{SDK_DISTRIBUTION} {report.sdk_version or '(source)'}: {where}{by}",
        f"  package: {report.package_dir}",
        f"  python:  {sys.executable}",
        f"{OFFICIAL_DISTRIBUTION}: "
        + (
            f"{report.official_version} (frameworks checking its version see this)"
            if report.official_version
            else "not installed"
        ),
        "files under ag_ui/: "
        + ", ".join(f"{count} {owner}" for owner, count in _owners(report).items() if count),
        "shared files (both distributions write them; the last writer wins):",
    ]
    lines += [f"  {f.path:<28} {_OWNER_WORDS[f.owner]}" for f in report.shared]
    lines.append(f"C accelerator: {accel[0]} ({accel[1]})")
    lines.append(f"JSON speedups: {json_accel[0]} ({json_accel[1]})")
    lines.append("extras:")
    for extra in extras:
        versions = ", ".join(f"{d} {v or '-'}" for d, v in extra.versions.items())
        mark = "ok" if extra.imports else "--"
        lines.append(f"  {mark} {extra.name:<11} {versions}: {extra.detail}")
    if report.ok:
        lines.append("no problem found")
    else:
        lines += [f"PROBLEM: {problem}" for problem in report.problems]
        lines.append(
            f"FIX: {report.fix}" + ("  (or: agui doctor --fix)" if report.fix_commands else "")
        )
    return "\n".join(lines)


def _json(
    report: InstallationReport,
    extras: list[ExtraStatus],
    accel: tuple[str, str],
    json_accel: tuple[str, str],
) -> str:
    return json.dumps(
        {
            "ok": report.ok,
            "sdk_version": report.sdk_version,
            "mode": report.mode,
            "installer": report.installer,
            "package_dir": str(report.package_dir),
            "official_version": report.official_version,
            "shared_files": {f.path: f.owner for f in report.shared},
            "file_owners": _owners(report),
            "accelerator": {"status": accel[0], "detail": accel[1]},
            "json_speedups": {"status": json_accel[0], "detail": json_accel[1]},
            "extras": {
                e.name: {
                    "module": e.module,
                    "versions": e.versions,
                    "imports": e.imports,
                    "detail": e.detail,
                }
                for e in extras
            },
            "problems": list(report.problems),
            "fix": report.fix,
        },
        indent=2,
    )


def run_doctor(argv: Sequence[str]) -> int:
    """Entry point of ``agui doctor``; returns the exit status."""
    from ag_ui.cli._arguments import CommandParser  # standard library only: safe here

    parser = CommandParser(prog="agui doctor", description=(__doc__ or "").split("\n\n")[1])
    _add_arguments(parser)
    args = parser.parse_args(list(argv))
    report = inspect_installation()
    if args.fix and not report.ok:
        return _fix(report)
    extras = _extras(report.ok)
    accel = _accelerator(report.ok, report.package_dir)
    json_accel = _json_speedups(report.ok, report.package_dir)
    if report.official_version is None:
        # From a source tree the distributions' metadata is not beside the package.
        report = dataclasses.replace(report, official_version=_version(OFFICIAL_DISTRIBUTION))
    render = _json if args.output == "json" else _text
    text = render(report, extras, accel, json_accel)
    try:
        print(text, flush=True)
    except BrokenPipeError:  # agui doctor | head
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keeps the interpreter's exit quiet
    return 0 if report.ok else 1


def _fix(report: InstallationReport) -> int:
    if not report.fix_commands:
        print(f"agui doctor: cannot repair this automatically; {report.fix}", file=sys.stderr)
        return 1
    print(f"agui doctor: {'; '.join(report.problems)}")
    for command in report.fix_commands:
        print(f"agui doctor: running {' '.join(command)}", flush=True)
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False)
        except OSError as exc:
            print(f"agui doctor: could not run it ({exc}); run it yourself", file=sys.stderr)
            return 1
        if done.returncode != 0:
            print(done.stdout + done.stderr, file=sys.stderr, end="")
            print(f"agui doctor: the repair failed (exit {done.returncode})", file=sys.stderr)
            return 1
    # A fresh interpreter: this one has the broken modules cached.
    again = subprocess.run([sys.executable, "-m", "ag_ui", "doctor"], check=False)
    return again.returncode
