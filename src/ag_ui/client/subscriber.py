"""Kept importable: ``ag_ui.client.subscriber`` became ``ag_ui.client._subscribers``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._subscribers import (
    CALLBACK_NAMES,
    UNSET,
    AgentStateMutation,
    AgentSubscriber,
    SubscriberParams,
    Subscription,
    as_subscriber,
    callback_name_for,
    run_subscribers,
)

__all__ = [
    "AgentStateMutation",
    "AgentSubscriber",
    "CALLBACK_NAMES",
    "SubscriberParams",
    "Subscription",
    "UNSET",
    "as_subscriber",
    "callback_name_for",
    "run_subscribers",
]
