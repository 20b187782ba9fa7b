"""How a run or a subagent invocation ended: the ``outcome`` of RUN_FINISHED / SUBAGENT_FINISHED.

An absent outcome means success (every pre-outcome producer stays conformant). Both unions
are open, as in the TypeScript client: an outcome ``type`` this SDK does not know (a newer
protocol's, e.g. ``"failed"``) is kept as an ``UnknownOutcome`` holding every field as received,
rather than refusing the event; consumers warn and treat it as no known outcome.
"""

# No ``from __future__ import annotations`` in the model modules: pydantic would compile and
# evaluate every string annotation at import (7 ms of ``import ag_ui.core``).
from typing import Annotated, Any, List, Literal, Optional, Union

from pydantic import Discriminator, Field, Tag

from ag_ui.core._base import AGUIModel
from ag_ui.core.types import Interrupt

__all__ = [
    "RunFinishedCancelledOutcome",
    "RunFinishedInterruptOutcome",
    "RunFinishedOutcome",
    "RunFinishedSuccessOutcome",
    "SubagentFinishedOutcome",
    "SubagentFinishedSuccessOutcome",
    "SubagentFinishedSuspendedOutcome",
    "UnknownOutcome",
]


class RunFinishedSuccessOutcome(AGUIModel):
    """Success; ``pending_tool_call_ids`` lists calls left for the client to answer."""

    type: Literal["success"] = "success"
    pending_tool_call_ids: Optional[List[str]] = None


class RunFinishedInterruptOutcome(AGUIModel):
    """The run paused; the next run on the thread must ``resume`` every interrupt."""

    type: Literal["interrupt"] = "interrupt"
    interrupts: List[Interrupt] = Field(min_length=1)


class RunFinishedCancelledOutcome(AGUIModel):
    """Stopped by whoever ran it: nothing produced, nothing awaited."""

    type: Literal["cancelled"] = "cancelled"


class UnknownOutcome(AGUIModel):
    """An outcome whose ``type`` this SDK does not know (from a newer protocol), kept as
    received: its other fields are extras. Means neither success nor a pause to this SDK."""

    type: str


_UNKNOWN = "unknown outcome"


def _member(known: frozenset[str]) -> Any:
    """The discriminator of an open outcome union: the known member ``type`` names, else the
    unknown one; without a string ``type``, the error a ``type`` discriminator reports."""

    def tag(value: Any) -> Optional[str]:
        kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
        if not isinstance(kind, str):
            return None
        return kind if kind in known else _UNKNOWN

    tag.__name__ = "type"  # pydantic names it in errors as "type()"; _readable reads "type"
    return Discriminator(tag)


RunFinishedOutcome = Annotated[
    Union[
        Annotated[RunFinishedSuccessOutcome, Tag("success")],
        Annotated[RunFinishedInterruptOutcome, Tag("interrupt")],
        Annotated[RunFinishedCancelledOutcome, Tag("cancelled")],
        Annotated[UnknownOutcome, Tag(_UNKNOWN)],
    ],
    _member(frozenset({"success", "interrupt", "cancelled"})),
]


class SubagentFinishedSuccessOutcome(AGUIModel):
    """The subagent invocation finished normally (the same as no outcome)."""

    type: Literal["success"] = "success"


class SubagentFinishedSuspendedOutcome(AGUIModel):
    """Paused awaiting outside input: terminal for this stream, not for the subagent."""

    type: Literal["suspended"] = "suspended"
    interrupt_ids: Optional[List[str]] = None


SubagentFinishedOutcome = Annotated[
    Union[
        Annotated[SubagentFinishedSuccessOutcome, Tag("success")],
        Annotated[SubagentFinishedSuspendedOutcome, Tag("suspended")],
        Annotated[UnknownOutcome, Tag(_UNKNOWN)],
    ],
    _member(frozenset({"success", "suspended"})),
]
