"""Is this SDK's ``ag_ui.core`` in place? The check behind every SDK-only subpackage.

This SDK and the official ``ag-ui-protocol`` both write the same 11 files (``SHARED_FILES``):
the last writer wins, and uninstalling, upgrading or downgrading either deletes them, without a
word from pip or uv. The SDK declares ``ag-ui-protocol`` as a dependency so that installers put
the official files down first and this SDK's last, and frameworks that read
``importlib.metadata.version("ag-ui-protocol")`` keep working. What an installer can still do
afterwards (a framework pinning ``ag-ui-protocol<0.2`` downgrades it, ``pip uninstall
ag-ui-protocol``, uv writing both wheels in parallel) is caught here: the first import of a
subpackage only this SDK has (``ag_ui.client``, ``ag_ui.server``, ``ag_ui.verify``...) compares
the shared files with this SDK's installed ``RECORD`` and raises ``SharedFilesError``, naming
the cause and the command that repairs it, instead of failing later in a mixed package.

Only the standard library is used, and no ``importlib.metadata`` (too slow for an import
path): the ``RECORD`` is found beside the package. From a source tree (an editable install,
``PYTHONPATH=src``) there is no ``RECORD`` for the package files, which are this SDK's by
construction; the check then only makes sure ``ag_ui`` itself is the tree's.
``AG_UI_SKIP_INSTALL_CHECK=1`` turns the check off.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Optional

__all__ = [
    "SHARED_FILES",
    "FileOwner",
    "InstallationReport",
    "SharedFilesError",
    "inspect_installation",
    "require_sdk_files",
]

SHARED_FILES: tuple[str, ...] = (
    "ag_ui/__init__.py",
    "ag_ui/py.typed",
    "ag_ui/core/__init__.py",
    "ag_ui/core/capabilities.py",
    "ag_ui/core/deprecated.py",
    "ag_ui/core/events.py",
    "ag_ui/core/token_usage.py",
    "ag_ui/core/types.py",
    "ag_ui/core/version.py",
    "ag_ui/encoder/__init__.py",
    "ag_ui/encoder/encoder.py",
)
"""The paths both distributions install (measured on ag-ui-protocol 0.1.x and 1.0.0)."""

SDK_DISTRIBUTION = "ag-ui-sdk"
OFFICIAL_DISTRIBUTION = "ag-ui-protocol"
SKIP_VARIABLE = "AG_UI_SKIP_INSTALL_CHECK"

PACKAGE_DIR = Path(__file__).resolve().parent

Owner = Literal["sdk", "official", "both", "missing", "unknown"]


class SharedFilesError(ImportError):
    """The files ``ag_ui.core`` and ``ag_ui.encoder`` are made of are not this SDK's."""


@dataclass(frozen=True)
class FileOwner:
    """Who wrote one shared file, judged by its hash against each distribution's RECORD."""

    path: str
    owner: Owner


@dataclass(frozen=True)
class InstallationReport:
    """What ``inspect_installation`` found; ``problems`` is empty when all is well."""

    mode: Literal["wheel", "source"]
    package_dir: Path
    sdk_version: Optional[str]
    installer: Optional[str]
    official_version: Optional[str]
    shared: tuple[FileOwner, ...]
    problems: tuple[str, ...] = ()
    fix: Optional[str] = None
    fix_commands: tuple[tuple[str, ...], ...] = field(default=(), repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems


def _dist_info(site_dir: Path, distribution: str) -> Optional[Path]:
    prefix = distribution.replace("-", "_") + "-"
    for candidate in sorted(site_dir.glob(prefix + "*.dist-info")):
        if (candidate / "RECORD").is_file():
            return candidate
    return None


def _version_of(dist_info: Path, distribution: str) -> str:
    prefix = distribution.replace("-", "_") + "-"
    return dist_info.name[len(prefix) : -len(".dist-info")]


def _record_hashes(dist_info: Optional[Path]) -> dict[str, str]:
    """``path -> "sha256=..."`` for the shared files listed in a RECORD."""
    if dist_info is None:
        return {}
    hashes: dict[str, str] = {}
    wanted = set(SHARED_FILES)
    for line in (dist_info / "RECORD").read_text(encoding="utf-8").splitlines():
        # path,hash,size; none of the shared paths contains a comma or needs CSV quoting.
        path, _, rest = line.partition(",")
        if path in wanted:
            hashes[path] = rest.partition(",")[0]
    return hashes


def _file_hash(path: Path) -> Optional[str]:
    try:
        digest = hashlib.sha256(path.read_bytes()).digest()
    except OSError:
        return None
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _owner(actual: Optional[str], sdk: Optional[str], official: Optional[str]) -> Owner:
    if actual is None:
        return "missing"
    if actual == sdk:
        return "both" if actual == official else "sdk"
    return "official" if actual == official else "unknown"


def _repair_commands(
    installer: Optional[str], version: Optional[str], official_installed: bool
) -> list[list[str]]:
    """The commands that put this SDK's files back (after ``ag-ui-protocol``'s, if missing)."""
    requirement = f"{SDK_DISTRIBUTION}=={version}" if version else SDK_DISTRIBUTION
    python = sys.executable
    if installer == "uv":
        # uv venvs have no pip; uv itself is where the user ran it from, usually on PATH.
        base = [shutil.which("uv") or "uv", "pip", "install", "--python", python]
        reinstall = [*base, "--reinstall-package", SDK_DISTRIBUTION, "--no-deps", requirement]
    else:
        base = [python, "-m", "pip", "install"]
        reinstall = [*base, "--force-reinstall", "--no-deps", requirement]
    # Without ag-ui-protocol, frameworks reading its version fall back to old behaviour.
    return [reinstall] if official_installed else [[*base, OFFICIAL_DISTRIBUTION], reinstall]


def _shell(commands: list[list[str]]) -> str:
    quoted = [" ".join(f"'{a}'" if any(c in a for c in " <>=") else a for a in c) for c in commands]
    return " && ".join(quoted)


def _imported_package_problem() -> Optional[str]:
    package = sys.modules.get("ag_ui")
    origin = getattr(package, "__file__", None)
    if origin is None:
        return (
            "ag_ui is a namespace package: its __init__.py was deleted (uninstalling or "
            f"upgrading {OFFICIAL_DISTRIBUTION} deletes the files both distributions share)"
        )
    if Path(origin).resolve().parent != PACKAGE_DIR:
        return f"ag_ui was imported from {Path(origin).parent}, not from this SDK's {PACKAGE_DIR}"
    return None


def _source_version() -> Optional[str]:
    """``ag_ui.__version__`` of a source tree (no ``RECORD`` to read it from), if it is ours."""
    if _imported_package_problem() is not None:
        return None
    version = getattr(sys.modules.get("ag_ui"), "__version__", None)
    return version if isinstance(version, str) else None


def inspect_installation() -> InstallationReport:
    """Find who owns each shared file and what, if anything, is wrong (never raises)."""
    site_dir = PACKAGE_DIR.parent
    sdk_info = _dist_info(site_dir, SDK_DISTRIBUTION)
    official_info = _dist_info(site_dir, OFFICIAL_DISTRIBUTION)
    official_version = _version_of(official_info, OFFICIAL_DISTRIBUTION) if official_info else None
    sdk_hashes = _record_hashes(sdk_info)
    if sdk_info is None or not sdk_hashes:
        # A source tree: its files are this SDK's; only a foreign ``ag_ui`` can be wrong.
        shared = tuple(
            FileOwner(path, "sdk" if (site_dir / path).is_file() else "missing")
            for path in SHARED_FILES
        )
        problems = [f"{f.path} is missing from {site_dir}" for f in shared if f.owner != "sdk"]
        imported = _imported_package_problem()
        if imported:
            problems.append(imported)
        return InstallationReport(
            "source",
            PACKAGE_DIR,
            _source_version(),
            None,
            official_version,
            shared,
            tuple(problems),
            fix="restore the files from version control (git checkout -- src/ag_ui)"
            if problems
            else None,
        )
    installer_file = sdk_info / "INSTALLER"
    installer = installer_file.read_text().strip() if installer_file.is_file() else None
    version = _version_of(sdk_info, SDK_DISTRIBUTION)
    official_hashes = _record_hashes(official_info)
    shared = tuple(
        FileOwner(
            path,
            _owner(_file_hash(site_dir / path), sdk_hashes.get(path), official_hashes.get(path)),
        )
        for path in SHARED_FILES
    )
    problems = []
    foreign = [f.path for f in shared if f.owner in ("official", "unknown")]
    missing = [f.path for f in shared if f.owner == "missing"]
    if foreign:
        who = (
            f"{OFFICIAL_DISTRIBUTION} {official_version}"
            if any(f.owner == "official" for f in shared)
            else "another package"
        )
        problems.append(
            f"{len(foreign)} of the {len(SHARED_FILES)} files {SDK_DISTRIBUTION} shares with "
            f"{OFFICIAL_DISTRIBUTION} were overwritten by {who} ({', '.join(foreign)})"
        )
    if missing:
        problems.append(
            f"{len(missing)} of the files {SDK_DISTRIBUTION} shares with {OFFICIAL_DISTRIBUTION} "
            f"are missing ({', '.join(missing)}): uninstalling, upgrading or downgrading "
            f"{OFFICIAL_DISTRIBUTION} deletes them"
        )
    imported = _imported_package_problem()
    if imported and not missing:
        problems.append(imported)
    commands = _repair_commands(installer, version, official_info is not None) if problems else []
    return InstallationReport(
        "wheel",
        PACKAGE_DIR,
        version,
        installer,
        official_version,
        shared,
        tuple(problems),
        _shell(commands) if commands else None,
        tuple(tuple(command) for command in commands),
    )


_checked = False


def require_sdk_files() -> None:
    """Raise ``SharedFilesError`` unless this SDK's shared files are in place (checked once)."""
    global _checked
    if _checked or os.environ.get(SKIP_VARIABLE) == "1":
        return
    report = inspect_installation()
    if not report.ok:
        raise SharedFilesError(
            f"{SDK_DISTRIBUTION}: {'; '.join(report.problems)}. "
            f"Repair with: {report.fix} "
            f"(`agui doctor` shows every file's owner; {SKIP_VARIABLE}=1 skips this check)"
        )
    _checked = True
