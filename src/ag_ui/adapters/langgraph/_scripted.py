"""``ScriptedChatModel``: a LangChain chat model that streams scripted chunks, for tests and the
documentation's programs (no provider, no network).

Each call to the model plays the next turn of the script. A turn is a string (streamed in one
chunk), one ``AIMessageChunk``, or a list of them (streamed in order, ``tool_call_chunks`` and
all): exactly what a provider's integration would yield, so a script can reproduce any provider
shape (whole arguments in one chunk, text and a tool call in one chunk, interleaved parallel
calls).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Optional, Union

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import agenerate_from_stream, generate_from_stream
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr

__all__ = ["ScriptedChatModel", "Turn"]

Turn = Union[str, AIMessageChunk, Sequence[AIMessageChunk]]


class ScriptedChatModel(BaseChatModel):
    """Plays ``turns`` in order, one per call; a call past the end raises ``IndexError``, or,
    with ``loop=True`` (a served demo that answers any number of runs), starts over.

    >>> model = ScriptedChatModel(turns=["Hello!"])
    >>> model.invoke("hi").content
    'Hello!'
    """

    turns: list[Any]
    loop: bool = False
    _played: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        """The script decides the calls; tools are accepted so graphs that bind them run."""
        return self

    def _next_turn(self) -> list[AIMessageChunk]:
        if self.loop and self.turns:
            self._played %= len(self.turns)
        if self._played >= len(self.turns):
            raise IndexError(
                f"ScriptedChatModel was called {self._played + 1} times but has "
                f"{len(self.turns)} turn(s) scripted"
            )
        turn = self.turns[self._played]
        self._played += 1
        if isinstance(turn, str):
            return [AIMessageChunk(content=turn)]
        if isinstance(turn, AIMessageChunk):
            return [turn]
        return list(turn)

    def _chunks(self) -> Iterator[ChatGenerationChunk]:
        chunks = self._next_turn()
        for position, chunk in enumerate(chunks):
            message = chunk.model_copy(deep=True)
            if position == len(chunks) - 1:
                message.chunk_position = "last"
            yield ChatGenerationChunk(message=message)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: Optional[list[str]] = None,
        run_manager: Optional[CallbackManagerForLLMRun] = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks():
            if run_manager is not None:
                run_manager.on_llm_new_token(str(chunk.text), chunk=chunk)
            yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: Optional[list[str]] = None,
        run_manager: Optional[AsyncCallbackManagerForLLMRun] = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks():
            if run_manager is not None:
                await run_manager.on_llm_new_token(str(chunk.text), chunk=chunk)
            yield chunk

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: Optional[list[str]] = None,
        run_manager: Optional[CallbackManagerForLLMRun] = None,
        **kwargs: Any,
    ) -> ChatResult:
        return generate_from_stream(self._stream(messages, stop, run_manager, **kwargs))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: Optional[list[str]] = None,
        run_manager: Optional[AsyncCallbackManagerForLLMRun] = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await agenerate_from_stream(self._astream(messages, stop, run_manager, **kwargs))
