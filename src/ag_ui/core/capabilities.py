"""``AgentCapabilities``: what an agent declares about itself (discovery only, PROTOCOL.md §2.8).

Every field is optional; absent means undeclared, not unsupported.
"""

# No ``from __future__ import annotations`` in the model modules: pydantic would compile and
# evaluate every string annotation at import (7 ms of ``import ag_ui.core``).
from typing import Annotated, Any, Dict, List, Optional

from pydantic import AliasChoices, Field

from ag_ui.core._base import AGUIModel
from ag_ui.core._wire import MAX_SAFE_INTEGER
from ag_ui.core.types import Metadata, Tool

__all__ = [
    "AgentCapabilities",
    "ExecutionCapabilities",
    "HumanInTheLoopCapabilities",
    "IdentityCapabilities",
    "MultiAgentCapabilities",
    "MultimodalCapabilities",
    "MultimodalInputCapabilities",
    "MultimodalOutputCapabilities",
    "OutputCapabilities",
    "ReasoningCapabilities",
    "StateCapabilities",
    "SubAgentInfo",
    "SubagentInfo",
    "ToolsCapabilities",
    "TransportCapabilities",
]

_Count = Annotated[int, Field(ge=0, le=MAX_SAFE_INTEGER)]


class SubagentInfo(AGUIModel):
    """A subagent an agent can call: its ``name`` and an optional ``description``."""

    name: str
    description: Optional[str] = None


SubAgentInfo = SubagentInfo
"""0.x name of ``SubagentInfo``."""


class IdentityCapabilities(AGUIModel):
    """Who the agent is: name, type, description, version, provider, documentation URL."""

    name: Optional[str] = None
    type: Optional[str] = None
    description: Optional[str] = None
    version: Optional[str] = None
    provider: Optional[str] = None
    documentation_url: Optional[str] = None
    metadata: Optional[Metadata] = None


class TransportCapabilities(AGUIModel):
    """How the agent can be reached: streaming, websocket, binary HTTP, push, resumable runs."""

    streaming: Optional[bool] = None
    websocket: Optional[bool] = None
    http_binary: Optional[bool] = None
    push_notifications: Optional[bool] = None
    resumable: Optional[bool] = None


class ToolsCapabilities(AGUIModel):
    """``items`` are tools the agent provides itself (not the client's ``RunAgentInput.tools``)."""

    supported: Optional[bool] = None
    items: Optional[List[Tool]] = None
    parallel_calls: Optional[bool] = None
    client_provided: Optional[bool] = None


class OutputCapabilities(AGUIModel):
    """Structured output support and the MIME types the agent can produce."""

    structured_output: Optional[bool] = None
    supported_mime_types: Optional[List[str]] = None


class StateCapabilities(AGUIModel):
    """Shared-state support: snapshots, deltas, memory, persistent state."""

    snapshots: Optional[bool] = None
    deltas: Optional[bool] = None
    memory: Optional[bool] = None
    persistent_state: Optional[bool] = None


class MultiAgentCapabilities(AGUIModel):
    """``subagents`` is the 1.0 wire key; the 0.x ``subAgents``/``sub_agents`` are read into it."""

    supported: Optional[bool] = None
    delegation: Optional[bool] = None
    handoffs: Optional[bool] = None
    # The alias rides in ``Annotated`` so the default is a plain ``None``: the class body form that
    # gets the omission rule before pydantic builds the class (``_omission``), not after.
    subagents: Annotated[
        Optional[List[SubagentInfo]],
        Field(validation_alias=AliasChoices("subagents", "subAgents", "sub_agents")),
    ] = None

    @property
    def sub_agents(self) -> Optional[List[SubagentInfo]]:
        """The 0.x name of ``subagents``, for code written against 0.x."""
        return self.subagents


class ReasoningCapabilities(AGUIModel):
    """Whether the agent reasons visibly, streams its reasoning, or encrypts it."""

    supported: Optional[bool] = None
    streaming: Optional[bool] = None
    encrypted: Optional[bool] = None


class MultimodalInputCapabilities(AGUIModel):
    """The kinds of input parts the agent accepts (image, audio, video, pdf, file)."""

    image: Optional[bool] = None
    audio: Optional[bool] = None
    video: Optional[bool] = None
    pdf: Optional[bool] = None
    file: Optional[bool] = None


class MultimodalOutputCapabilities(AGUIModel):
    """The kinds of media the agent can produce (image, audio)."""

    image: Optional[bool] = None
    audio: Optional[bool] = None


class MultimodalCapabilities(AGUIModel):
    """Multimodal support: what the agent accepts (``input``) and produces (``output``)."""

    input: Optional[MultimodalInputCapabilities] = None
    output: Optional[MultimodalOutputCapabilities] = None


class ExecutionCapabilities(AGUIModel):
    """``max_execution_time`` is in milliseconds."""

    code_execution: Optional[bool] = None
    sandboxed: Optional[bool] = None
    max_iterations: Optional[_Count] = None
    max_execution_time: Optional[_Count] = None


class HumanInTheLoopCapabilities(AGUIModel):
    """Human-in-the-loop support: approvals, interventions, feedback, interrupts."""

    supported: Optional[bool] = None
    approvals: Optional[bool] = None
    interventions: Optional[bool] = None
    feedback: Optional[bool] = None
    interrupts: Optional[bool] = None
    approve_with_edits: Optional[bool] = None


class AgentCapabilities(AGUIModel):
    """What an agent declares about itself (discovery only; absent means undeclared, not
    unsupported).
    """

    identity: Optional[IdentityCapabilities] = None
    transport: Optional[TransportCapabilities] = None
    tools: Optional[ToolsCapabilities] = None
    output: Optional[OutputCapabilities] = None
    state: Optional[StateCapabilities] = None
    multi_agent: Optional[MultiAgentCapabilities] = None
    reasoning: Optional[ReasoningCapabilities] = None
    multimodal: Optional[MultimodalCapabilities] = None
    execution: Optional[ExecutionCapabilities] = None
    human_in_the_loop: Optional[HumanInTheLoopCapabilities] = None
    custom: Optional[Dict[str, Any]] = None
