"""Build of the optional C accelerator; everything else is declared in pyproject.toml.

``ag_ui.proto._speedups`` (``src/ag_ui/proto/_c/``) compiles the protobuf fast paths: whole
events for the streaming and open-JSON arms, and the ``google.protobuf.Value`` codec. It is
optional: without a C compiler the build warns and the package uses the pure-Python paths in
``ag_ui/proto/_fast.py``, which give the same bytes and events, more slowly. Set
``AG_UI_REQUIRE_SPEEDUPS=1`` to make a failed compile fail the install instead (CI does).
"""

import os
from pathlib import Path

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "ag_ui.proto._speedups",
            sorted(str(path) for path in Path("src/ag_ui/proto/_c").glob("*.c")),
            depends=sorted(str(path) for path in Path("src/ag_ui/proto/_c").glob("*.h")),
            extra_compile_args=["-O2"] if os.name == "posix" else [],
            optional=os.environ.get("AG_UI_REQUIRE_SPEEDUPS") != "1",
        )
    ]
)
