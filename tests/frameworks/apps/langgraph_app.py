"""ag-ui-langgraph's FastAPI endpoint serving a LangGraph graph driven by a scripted chat model.

POST /agent (AG-UI), GET /health. Deterministic: the model reacts to the last user message:

* ``weather ...``: the backend tool ``get_weather`` ({"city": "Paris"}), then text;
* ``frontend ...``: calls the first tool the client offered in ``RunAgentInput.tools`` with
  ``{"value": "blue"}``; the graph ends with the call pending; once the client posts the tool
  result, text quoting it. The first streamed tool-call chunk carries only the name and id;
* ``frontend first-chunk-args ...``: the same, but the first chunk also carries argument text
  (``{"value": ``), as OpenAI-compatible providers often stream: ag-ui-langgraph 0.0.47 drops
  that piece, so the concatenated ``TOOL_CALL_ARGS`` are ``"blue"}``, not valid JSON (its defect,
  reproduced here on purpose);
* ``state ...``: the backend tool ``bump_counter`` increments ``counter`` in the graph state
  (a ``STATE_SNAPSHOT`` follows), then text;
* ``book ...``: the tool ``book_table`` goes through a node that calls LangGraph's
  ``interrupt()``: the run ends with an interrupt outcome; resumed (``RunAgentInput.resume``)
  with ``{"approved": true}`` it books, then text;
* anything else: ``Hello from LangGraph!`` in three pieces.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from _serve import health, serve
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt

BACKEND_TOOLS = {"get_weather", "bump_counter", "book_table"}


class ScriptedChatModel(BaseChatModel):
    """Streams a scripted answer: text pieces, or one tool call in argument chunks."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _script(self, messages: list[BaseMessage], frontend: list[str]) -> list[AIMessageChunk]:
        last = messages[-1] if messages else None
        if isinstance(last, ToolMessage):
            # A client's tool message carries no name: take it from the call it answers.
            names = {
                c["id"]: c["name"] for m in messages for c in getattr(m, "tool_calls", None) or []
            }
            name = last.name or names.get(last.tool_call_id, "?")
            return [
                AIMessageChunk(content=p)
                for p in ("The tool ", f"{name} said: ", str(last.content))
            ]
        prompt = next(
            (
                str(m.content).strip().lower()
                for m in reversed(messages)
                if isinstance(m, HumanMessage)
            ),
            "",
        )
        if prompt.startswith("weather"):
            return _tool_chunks("get_weather", {"city": "Paris"}, "call-weather")
        if prompt.startswith("frontend"):
            if not frontend:
                return [AIMessageChunk(content="No frontend tool was offered.")]
            first_carries_args = "first-chunk-args" in prompt
            return _tool_chunks(frontend[0], {"value": "blue"}, "call-frontend", first_carries_args)
        if prompt.startswith("state"):
            return _tool_chunks("bump_counter", {}, "call-state")
        if prompt.startswith("book"):
            return _tool_chunks("book_table", {"people": 2}, "call-book")
        return [AIMessageChunk(content=p) for p in ("Hello ", "from ", "LangGraph!")]

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._script(messages, kwargs.get("frontend_tools", [])):
            generation = ChatGenerationChunk(message=chunk)
            if run_manager is not None:
                run_manager.on_llm_new_token(str(chunk.content), chunk=generation)
            yield generation

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chunks = list(self._stream(messages, stop, run_manager, **kwargs))
        merged = chunks[0].message
        for chunk in chunks[1:]:
            merged = merged + chunk.message
        message = AIMessage(content=merged.content, tool_calls=merged.tool_calls)
        return ChatResult(generations=[ChatGeneration(message=message)])


def _tool_chunks(
    name: str, arguments: dict[str, Any], call_id: str, first_carries_args: bool = False
) -> list[AIMessageChunk]:
    text = json.dumps(arguments)
    split = text.index(":") + 2 if ":" in text else len(text)
    head, tail = (text[:split], text[split:]) if first_carries_args else ("", text)
    chunks = [
        AIMessageChunk(
            content="", tool_call_chunks=[{"name": name, "args": head, "id": call_id, "index": 0}]
        )
    ]
    if tail:
        chunks.append(
            AIMessageChunk(
                content="", tool_call_chunks=[{"name": None, "args": tail, "id": None, "index": 0}]
            )
        )
    return chunks


class State(MessagesState):
    counter: int
    tools: list[Any]


model = ScriptedChatModel()


async def call_model(state: State) -> dict[str, Any]:
    offered = [t.get("name") for t in state.get("tools") or [] if isinstance(t, dict)]
    frontend = [name for name in offered if name and name not in BACKEND_TOOLS]
    answer = await model.ainvoke(state["messages"], frontend_tools=frontend)
    return {"messages": [answer]}


def route(state: State) -> str:
    last = state["messages"][-1]
    calls = getattr(last, "tool_calls", None) or []
    if not calls:
        return END
    name = calls[0]["name"]
    if name == "book_table":
        return "approve"
    return "tools" if name in BACKEND_TOOLS else END  # a frontend tool: the client runs it


def run_tools(state: State) -> dict[str, Any]:
    call = state["messages"][-1].tool_calls[0]
    if call["name"] == "get_weather":
        result = {"city": call["args"].get("city"), "conditions": "sunny", "temperature_c": 21}
        return {
            "messages": [
                ToolMessage(json.dumps(result), tool_call_id=call["id"], name=call["name"])
            ]
        }
    counter = int(state.get("counter") or 0) + 1
    message = ToolMessage(f"counter={counter}", tool_call_id=call["id"], name=call["name"])
    return {"messages": [message], "counter": counter}


def approve(state: State) -> dict[str, Any]:
    call = state["messages"][-1].tool_calls[0]
    answer = interrupt({"question": f"Book a table for {call['args'].get('people')}?"})
    approved = isinstance(answer, dict) and answer.get("approved") is True
    content = f"booked a table for {call['args'].get('people')}" if approved else "not booked"
    return {"messages": [ToolMessage(content, tool_call_id=call["id"], name=call["name"])]}


builder = StateGraph(State)
builder.add_node("model", call_model)
builder.add_node("tools", run_tools)
builder.add_node("approve", approve)
builder.add_edge(START, "model")
builder.add_conditional_edges("model", route, ["tools", "approve", END])
builder.add_edge("tools", "model")
builder.add_edge("approve", "model")
graph = builder.compile(checkpointer=InMemorySaver())

app = FastAPI()
add_langgraph_fastapi_endpoint(
    app,
    LangGraphAgent(
        name="scripted", graph=graph, emit_interrupt_outcome=True, emit_raw_events=False
    ),
    "/agent",
)
app.add_api_route("/health", health, methods=["GET"])

if __name__ == "__main__":
    serve(app)
