"""``ag_ui.providers``' surface is pinned; each provider's SDK loads only when that provider is
used, and a missing one raises ImportError naming the extra."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ag_ui.providers

PUBLIC = [
    "AnthropicAdapter",
    "AnthropicMessages",
    "ChatCompletionsAdapter",
    "Conversation",
    "DEFAULT_MAX_ROUNDS",
    "MAX_ROUNDS_CODE",
    "ModelAgent",
    "ModelProvider",
    "ModelStream",
    "OpenAIChat",
    "OpenAIResponses",
    "PROVIDERS",
    "PROVIDER_ERROR_CODES",
    "ProviderConfigError",
    "ProviderError",
    "ResponsesAdapter",
    "STATE_TOOL_NAME",
    "StreamAdapter",
    "TOOL_NAME_CONFLICT_CODE",
    "Turn",
    "TurnWriter",
    "UNSUPPORTED_CONTENT_CODE",
    "anthropic_request",
    "chat_request",
    "merge_patch",
    "prepare_messages",
    "provider_from_spec",
    "responses_request",
    "system_text",
]


def test_public_surface() -> None:
    assert ag_ui.providers.__all__ == sorted(ag_ui.providers.__all__)
    assert ag_ui.providers.__all__ == PUBLIC
    for name in PUBLIC:
        assert getattr(ag_ui.providers, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'Gemini'"):
        ag_ui.providers.Gemini  # noqa: B018


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_the_provider_sdks_load_only_when_used() -> None:
    done = _python(
        "import sys, ag_ui.providers\n"
        "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))\n"
        "ag_ui.providers.AnthropicMessages\n"
        "print(sorted(m for m in ('openai', 'anthropic') if m in sys.modules))"
    )
    assert done.stdout.split("\n")[:2] == ["[]", "['anthropic']"], done.stderr


@pytest.mark.parametrize(
    ("blocked", "name", "extra"),
    [("openai", "OpenAIResponses", "openai"), ("anthropic", "AnthropicMessages", "anthropic")],
)
def test_a_missing_sdk_names_its_extra(blocked: str, name: str, extra: str) -> None:
    done = _python(
        f"import sys; sys.modules[{blocked!r}] = None\n"
        "import ag_ui.providers\n"
        "try:\n"
        f"    ag_ui.providers.{name}\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    assert f"install the {extra} extra (pip install 'ag-ui-sdk[{extra}]')" in done.stdout, (
        done.stderr
    )
