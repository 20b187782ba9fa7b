"""How a run or a subagent invocation ended: the ``outcome`` of RUN_FINISHED / SUBAGENT_FINISHED.

An absent outcome means success (every pre-outcome producer stays conformant).
"""

# No ``from __future__ import annotations`` in the model modules: pydantic would compile and
# evaluate every string annotation at import (7 ms of ``import ag_ui.core``).
from typing import Annotated, List, Literal, Optional, Union

from pydantic import Field

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


RunFinishedOutcome = Annotated[
    Union[RunFinishedSuccessOutcome, RunFinishedInterruptOutcome, RunFinishedCancelledOutcome],
    Field(discriminator="type"),
]


class SubagentFinishedSuccessOutcome(AGUIModel):
    """The subagent invocation finished normally (the same as no outcome)."""

    type: Literal["success"] = "success"


class SubagentFinishedSuspendedOutcome(AGUIModel):
    """Paused awaiting outside input: terminal for this stream, not for the subagent."""

    type: Literal["suspended"] = "suspended"
    interrupt_ids: Optional[List[str]] = None


SubagentFinishedOutcome = Annotated[
    Union[SubagentFinishedSuccessOutcome, SubagentFinishedSuspendedOutcome],
    Field(discriminator="type"),
]
