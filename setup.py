"""Build of the optional C accelerator; everything else is declared in pyproject.toml.

``ag_ui.proto._speedups`` (``src/ag_ui/proto/_c/``) compiles the protobuf fast paths: whole
events for the streaming and open-JSON arms, and the ``google.protobuf.Value`` codec. It is
optional: without a C compiler the build prints one line saying so and naming what to install
(``LoudBuildExt``), and the package uses the pure-Python paths in ``ag_ui/proto/_fast.py``,
which give the same bytes and events, more slowly. Set ``AG_UI_REQUIRE_SPEEDUPS=1`` to make a
failed compile fail the install instead (CI and the release wheels do). pip shows a build's
output only with ``-v``; ``agui doctor`` reports what an installation has.

``ag_ui.core._json_speedups`` (``src/ag_ui/core/_c/``) compiles the SSE/JSON fast paths of the
flat events (writing a model's wire JSON, reading it back), with the same contract: optional,
pydantic's path when it is missing (``ag_ui/core/_json_plans.py``).

Editable installs (``pip install -e .``) put ``src`` at the *front* of ``sys.path``. The
package depends on ``ag-ui-protocol``, whose regular ``ag_ui`` package in site-packages would
otherwise be found before an appended ``src`` and hide everything this SDK adds (``ag_ui.client``
would not exist). setuptools' own ``.pth`` appends; ours inserts.

Nothing an earlier build left in ``build/`` reaches a wheel: ``CleanBuild`` empties the build's
library directory first (a module deleted since, or an extension that no longer compiles, would
otherwise ship from there), and a failed compile removes that extension's earlier output, in
place too (an editable install would otherwise go on loading the stale one).
"""

import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext
from setuptools.command.editable_wheel import editable_wheel
from setuptools.errors import BaseError, CCompilerError, CompileError

REQUIRED = os.environ.get("AG_UI_REQUIRE_SPEEDUPS") == "1"

# What to install for a compiler and Python's headers, by platform; one line of the warning.
WHAT_TO_INSTALL = (
    "install a C compiler and the Python headers (Debian/Ubuntu: apt-get install gcc python3-dev;"
    " Fedora: dnf install gcc python3-devel; Alpine: apk add build-base python3-dev;"
    " macOS: xcode-select --install; Windows: the Microsoft C++ Build Tools) and reinstall"
)


class _SourceFirst:
    """setuptools' static ``.pth`` strategy, but the ``.pth`` inserts its paths at the front."""

    def __init__(self, inner, name):
        self._inner, self._name = inner, name

    def __call__(self, wheel, files, mapping):
        entries = [str(Path(entry).resolve()) for entry in self._inner.path_entries]
        # One line of code (a .pth runs lines starting with "import"); idempotent, as some
        # interpreters process a site directory twice.
        line = f"import sys; [sys.path.insert(0, p) for p in {entries!r} if p not in sys.path]"
        wheel.writestr(f"__editable__.{self._name}.pth", (line + "\n").encode())

    def __enter__(self):
        self._inner.__enter__()
        return self

    def __exit__(self, *exc):
        return self._inner.__exit__(*exc)


class SourceFirstEditableWheel(editable_wheel):
    def _select_strategy(self, name, tag, build_lib):
        inner = super()._select_strategy(name, tag, build_lib)
        # Another strategy (a future setuptools, a strict-mode link tree) is left as it is.
        if hasattr(inner, "path_entries") and type(inner).__name__ == "_StaticPth":
            return _SourceFirst(inner, name)
        return inner


class CleanBuild(build):
    """``build`` that starts from an empty library directory under ``build/``."""

    def run(self):
        base = Path(self.build_base).resolve()
        for directory in {self.build_lib, self.build_platlib, self.build_purelib}:
            path = Path(directory).resolve()
            # Only under build/: an editable install points these at its own temporary dir.
            if base in path.parents and path.is_dir():
                shutil.rmtree(path)
        super().run()


class LoudBuildExt(build_ext):
    """A failed optional extension: its earlier output removed, and one line saying so."""

    failed: list

    def run(self):
        self.failed = []
        # setuptools builds in build/ and then copies into src/ for an in-place (editable)
        # build: a failed extension's copy in src/ is an earlier build's, removed here.
        in_place = self.inplace or getattr(self, "editable_mode", False)
        super().run()
        if in_place:
            for name in self.failed:
                Path("src", self.get_ext_filename(name)).unlink(missing_ok=True)
        if self.failed:
            names = ", ".join(self.failed)
            print(
                f"WARNING ag-ui-sdk: built WITHOUT its C accelerators ({names} did not compile):"
                " the pure-Python paths run instead, several times slower; to get them,"
                f" {WHAT_TO_INSTALL}, or set AG_UI_REQUIRE_SPEEDUPS=1 to make this an error",
                file=sys.stderr,
                flush=True,
            )

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except (CCompilerError, CompileError, BaseError):
            # Never an earlier build's output in place of this one's.
            Path(self.build_lib, self.get_ext_filename(ext.name)).unlink(missing_ok=True)
            if not ext.optional:
                raise
            self.failed.append(ext.name)
            raise  # build_ext's own handler logs the compiler's message and goes on


setup(
    cmdclass={
        "build": CleanBuild,
        "build_ext": LoudBuildExt,
        "editable_wheel": SourceFirstEditableWheel,
    },
    ext_modules=[
        Extension(
            "ag_ui.proto._speedups",
            sorted(str(path) for path in Path("src/ag_ui/proto/_c").glob("*.c")),
            depends=sorted(str(path) for path in Path("src/ag_ui/proto/_c").glob("*.h")),
            extra_compile_args=["-O2"] if os.name == "posix" else [],
            optional=not REQUIRED,
        ),
        Extension(
            "ag_ui.core._json_speedups",
            sorted(str(path) for path in Path("src/ag_ui/core/_c").glob("*.c")),
            extra_compile_args=["-O2"] if os.name == "posix" else [],
            optional=not REQUIRED,
        ),
    ],
)
