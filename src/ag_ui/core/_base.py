"""The base model every AG-UI type derives from, and the serialization contract it enforces.

Wire names are camelCase aliases of snake_case attributes; both spellings populate a model.
Unknown fields are kept and re-emitted. An optional field whose default is ``None`` is left out
of every serialization when it holds ``None`` (PROTOCOL.md §3.2), while required fields, extras
and values nested in dicts or lists keep their nulls (``_omission``). Event type literals
serialize through the plain ``str`` path (``_str_literals``). User subclasses get both for their
own fields automatically.

Each class is built by pydantic once: the omission rule is attached to the class body before
pydantic collects its fields, not to the built class (which would need a rebuild).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from ag_ui.core._gc_tracking import PLAIN_TYPES, track_again
from ag_ui.core._omission import attach_to_declared_nones, attach_to_remaining
from ag_ui.core._str_literals import compile_str_literal_serializer

__all__ = ["AGUIModel", "ConfiguredBaseModel", "GeneratedBaseModel"]


class AGUIModel(BaseModel):
    """Base of every AG-UI model: camelCase wire names, extras kept, unset optionals omitted."""

    model_config: ClassVar[ConfigDict] = ConfigDict(
        extra="allow",
        alias_generator=to_camel,
        populate_by_name=True,
    )

    def __setattr__(self, name: str, value: Any) -> None:
        BaseModel.__setattr__(self, name, value)
        if type(value) not in PLAIN_TYPES:
            track_again(self)  # a parsed model may have been left out of the GC (_gc_tracking)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Runs before pydantic collects the fields of ``cls`` (see ``_omission``).
        attach_to_declared_nones(cls)
        super().__init_subclass__(**kwargs)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if attach_to_remaining(cls):
            cls.model_rebuild(force=True)
        if cls.__pydantic_complete__:
            # Serialization only; validation keeps the exact schema (enum members on input).
            compile_str_literal_serializer(cls)


ConfiguredBaseModel = AGUIModel
"""The 0.x name of the base model (seed API)."""

GeneratedBaseModel = AGUIModel
"""The 1.0 name of the base model in the official package."""
