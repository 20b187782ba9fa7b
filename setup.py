"""Build of the optional C accelerator; everything else is declared in pyproject.toml.

``ag_ui.proto._speedups`` (``src/ag_ui/proto/_c/``) compiles the protobuf fast paths: whole
events for the streaming and open-JSON arms, and the ``google.protobuf.Value`` codec. It is
optional: without a C compiler the build warns and the package uses the pure-Python paths in
``ag_ui/proto/_fast.py``, which give the same bytes and events, more slowly. Set
``AG_UI_REQUIRE_SPEEDUPS=1`` to make a failed compile fail the install instead (CI does).

``ag_ui.core._json_speedups`` (``src/ag_ui/core/_c/``) compiles the SSE/JSON fast paths of the
flat events (writing a model's wire JSON, reading it back), with the same contract: optional,
pydantic's path when it is missing (``ag_ui/core/_json_plans.py``).

Editable installs (``pip install -e .``) put ``src`` at the *front* of ``sys.path``. The
package depends on ``ag-ui-protocol``, whose regular ``ag_ui`` package in site-packages would
otherwise be found before an appended ``src`` and hide everything this SDK adds (``ag_ui.client``
would not exist). setuptools' own ``.pth`` appends; ours inserts.
"""

import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.editable_wheel import editable_wheel


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


setup(
    cmdclass={"editable_wheel": SourceFirstEditableWheel},
    ext_modules=[
        Extension(
            "ag_ui.proto._speedups",
            sorted(str(path) for path in Path("src/ag_ui/proto/_c").glob("*.c")),
            depends=sorted(str(path) for path in Path("src/ag_ui/proto/_c").glob("*.h")),
            extra_compile_args=["-O2"] if os.name == "posix" else [],
            optional=os.environ.get("AG_UI_REQUIRE_SPEEDUPS") != "1",
        ),
        Extension(
            "ag_ui.core._json_speedups",
            sorted(str(path) for path in Path("src/ag_ui/core/_c").glob("*.c")),
            extra_compile_args=["-O2"] if os.name == "posix" else [],
            optional=os.environ.get("AG_UI_REQUIRE_SPEEDUPS") != "1",
        ),
    ],
)
