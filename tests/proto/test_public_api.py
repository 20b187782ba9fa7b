"""The public surface of ``ag_ui.proto`` and its import-time contract."""

from __future__ import annotations

import subprocess
import sys

import ag_ui.proto


def test_public_names() -> None:
    assert ag_ui.proto.__all__ == [
        "AGUI_MEDIA_TYPE",
        "DEFAULT_MAX_FRAME_SIZE",
        "FrameDecoder",
        "FrameTooLargeError",
        "MalformedFrameError",
        "TruncatedFrameError",
        "UnknownEventArmError",
        "decode_event",
        "encode_event",
        "encode_frame",
    ]
    assert ag_ui.proto.AGUI_MEDIA_TYPE == "application/vnd.ag-ui.event+proto"


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_core_never_imports_protobuf() -> None:
    done = _run(
        "import sys, ag_ui.core, ag_ui.core.decoding, ag_ui.encoder\n"
        "print(sorted(m for m in sys.modules if m.startswith(('google', 'ag_ui.proto'))))"
    )
    assert done.stdout.strip() == "[]", done.stderr


def test_without_protobuf_the_import_names_the_extra() -> None:
    # A None entry in sys.modules makes "import google" fail as if protobuf were not installed.
    done = _run(
        "import sys\n"
        "sys.modules['google'] = None\n"
        "try:\n"
        "    import ag_ui.proto\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    assert done.stdout.strip() == (
        "ag_ui.proto needs the protobuf package: pip install 'ag-ui-sdk[proto]'"
    ), done.stderr


def test_without_protobuf_the_encoder_falls_back_to_sse() -> None:
    done = _run(
        "import sys\n"
        "sys.modules['google'] = None\n"
        "from ag_ui.encoder import EventEncoder\n"
        "print(EventEncoder(accept='application/vnd.ag-ui.event+proto').get_binary_content_type())\n"
    )
    assert done.stdout.strip() == "text/event-stream", done.stderr
