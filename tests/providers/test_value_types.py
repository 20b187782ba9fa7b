"""Which clients get Anthropic's redacted thinking in the pre-1.1 in-band form."""

from __future__ import annotations

from typing import Optional

import pytest

from ag_ui.core import ReasoningEncryptedValueEvent
from ag_ui.providers._value_types import for_client_before_1_1, predates_value_types
from ag_ui.verify import reject_optional_nulls


@pytest.mark.parametrize(
    ("declared", "older"),
    [
        (None, True),
        ("0.0.57", True),
        ("1.0", True),
        ("1.0.3", True),
        ("1.1", False),
        ("1.2", False),
        ("2.0", False),
        ("not a version", False),
    ],
)
def test_clients_before_1_1(declared: Optional[str], older: bool) -> None:
    assert predates_value_types(declared) is older


def test_only_redacted_thinking_changes_form() -> None:
    redacted = ReasoningEncryptedValueEvent(
        subtype="message",
        entity_id="r",
        encrypted_value="DATA",
        encrypted_value_type="anthropic.redacted_thinking",
    )
    older = for_client_before_1_1(redacted)
    reject_optional_nulls(older)  # the type is absent, not null
    assert older.model_dump(by_alias=True) == {
        "type": "REASONING_ENCRYPTED_VALUE",
        "subtype": "message",
        "entityId": "r",
        "encryptedValue": "redacted_thinking:DATA",
    }
    other = redacted.model_copy(update={"encrypted_value_type": "openai.encrypted_content"})
    assert for_client_before_1_1(other) is other
