"""``FunctionTool``: the JSON Schema read from a signature or given, argument validation with
readable problems, sync and async calls, the context parameter, and ``run``'s reporting."""

from __future__ import annotations

import dataclasses
import datetime
import threading
from typing import Annotated, Any, Literal, Optional

import anyio
import pytest
from pydantic import BaseModel, Field

from ag_ui.core import Tool
from ag_ui.tools import (
    FunctionTool,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolError,
    serialize_result,
    tool,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Address(BaseModel):
    street: str
    zip_code: Optional[str] = None


def book(
    hotel: str,
    nights: Annotated[int, Field(ge=1, le=30)] = 1,
    room: Literal["single", "double"] = "double",
    address: Optional[Address] = None,
) -> dict[str, Any]:
    """Book a hotel room.

    Checks availability first.

    Args:
        hotel: The hotel's name,
            as the user wrote it.
        room: The kind of room.

    Returns:
        The booking.
    """
    return {"hotel": hotel, "nights": nights, "room": room, "address": address}


def test_schema_and_description_come_from_the_signature_and_docstring() -> None:
    booking = FunctionTool(book)
    assert booking.name == "book"
    assert booking.description == "Book a hotel room.\n\nChecks availability first."
    assert booking.parameters == {
        "type": "object",
        "properties": {
            "hotel": {"type": "string", "description": "The hotel's name, as the user wrote it."},
            "nights": {"type": "integer", "default": 1, "minimum": 1, "maximum": 30},
            "room": {
                "type": "string",
                "enum": ["single", "double"],
                "default": "double",
                "description": "The kind of room.",
            },
            "address": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None},
        },
        "required": ["hotel"],
        "additionalProperties": False,
        "$defs": {
            "Address": {
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "zip_code": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
                },
                "required": ["street"],
            }
        },
    }
    assert booking.definition == Tool(
        name="book", description=booking.description, parameters=booking.parameters
    )


def test_a_property_named_title_survives_title_stripping() -> None:
    def note(title: str) -> str:
        return title

    assert FunctionTool(note).parameters["properties"] == {"title": {"type": "string"}}


def test_sphinx_and_numpy_docstrings() -> None:
    def sphinx(city: str) -> str:
        """Weather.

        :param city: The city.
        :returns: text
        """
        return city

    def numpy(city: str) -> str:
        """Weather.

        Parameters
        ----------
        city : str
            The city.
        """
        return city

    for function in (sphinx, numpy):
        tool_ = FunctionTool(function)
        assert tool_.description == "Weather."
        assert tool_.parameters["properties"]["city"]["description"] == "The city."


async def test_arguments_are_validated_into_the_annotated_types() -> None:
    booking = FunctionTool(book)
    value = await booking.call('{"hotel": "Ritz", "address": {"street": "Place Vendôme"}}')
    assert value == {
        "hotel": "Ritz",
        "nights": 1,
        "room": "double",
        "address": Address(street="Place Vendôme"),
    }
    assert await booking.call({"hotel": "Ritz", "nights": 2}) == {
        "hotel": "Ritz",
        "nights": 2,
        "room": "double",
        "address": None,
    }


@pytest.mark.parametrize(
    ("arguments", "problems"),
    [
        (
            '{"nights": 40, "rooms": 2}',
            [
                '"hotel": missing (required)',
                '"nights": Input should be less than or equal to 30',
                '"rooms": not a parameter of this tool',
            ],
        ),
        (
            '{"hotel": ',
            ["not valid JSON (Invalid JSON: EOF while parsing a value at line 1 column 10)"],
        ),
        ("[1, 2]", ["the arguments must be a JSON object"]),
        ('{"hotel": "Ritz", "room": "suite"}', ["\"room\": Input should be 'single' or 'double'"]),
    ],
)
def test_bad_arguments_list_every_problem(arguments: str, problems: list[str]) -> None:
    with pytest.raises(ToolArgumentsError) as caught:
        FunctionTool(book).parse_arguments(arguments)
    assert caught.value.problems == tuple(problems)
    assert caught.value.tool_name == "book"
    assert str(caught.value).startswith("invalid arguments for tool 'book': ")


def test_empty_arguments_mean_none() -> None:
    def ping() -> str:
        return "pong"

    assert FunctionTool(ping).parse_arguments("") == {}
    assert FunctionTool(ping).parse_arguments(None) == {}
    assert FunctionTool(ping).parameters == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


async def test_sync_functions_run_in_a_worker_thread_async_ones_on_the_loop() -> None:
    seen: dict[str, int] = {}

    def sync_tool() -> str:
        seen["sync"] = threading.get_ident()
        return "s"

    async def async_tool() -> str:
        seen["async"] = threading.get_ident()
        return "a"

    assert await FunctionTool(sync_tool).call("{}") == "s"
    assert await FunctionTool(async_tool).call("{}") == "a"
    assert seen["async"] == threading.get_ident()
    assert seen["sync"] != threading.get_ident()
    assert await FunctionTool(sync_tool, thread=False).call("{}") == "s"
    assert seen["sync"] == threading.get_ident()


class Session:
    def __init__(self, user: str) -> None:
        self.user = user


async def test_a_context_parameter_is_supplied_not_described() -> None:
    async def whoami(greeting: str, session: Session) -> str:
        return f"{greeting}, {session.user}"

    greeter = FunctionTool(whoami, context_type=Session)
    assert list(greeter.parameters["properties"]) == ["greeting"]
    assert greeter.takes_context
    assert await greeter.call('{"greeting": "Hi"}', context=Session("ana")) == "Hi, ana"
    with pytest.raises(ToolDefinitionError, match="pass context_type="):
        FunctionTool(whoami)


async def test_a_given_schema_is_advertised_and_the_signature_still_validates() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string", "minLength": 1}}}
    searcher = FunctionTool(
        lambda q: f"results for {q}", name="search", description="Search.", parameters=schema
    )
    assert searcher.parameters == schema
    assert await searcher.call('{"q": "cats"}') == "results for cats"
    with pytest.raises(ToolArgumentsError, match="not a parameter"):
        searcher.parse_arguments('{"query": "cats"}')


async def test_kwargs_functions_take_any_argument() -> None:
    def anything(**kwargs: Any) -> dict[str, Any]:
        return kwargs

    free = FunctionTool(anything, parameters={"type": "object"})
    assert await free.call('{"a": 1, "b": [2]}') == {"a": 1, "b": [2]}


async def test_run_reports_failures_and_hides_unexpected_exception_text() -> None:
    def fails(kind: str) -> str:
        if kind == "public":
            raise ToolError("the calendar is read-only")
        raise RuntimeError("password=hunter2")

    failing = FunctionTool(fails)
    public = await failing.run('{"kind": "public"}')
    hidden = await failing.run('{"kind": "other"}')
    shown = await failing.run('{"kind": "other"}', expose_errors=True)
    bad = await failing.run("{}")
    assert (public.ok, public.content, public.error) == (
        False,
        "the calendar is read-only",
        "the calendar is read-only",
    )
    assert hidden.content == "tool 'fails' failed; the details are in the server log"
    assert "hunter2" not in hidden.content
    assert shown.content == "tool 'fails' failed: RuntimeError: password=hunter2"
    assert bad.error == "invalid arguments for tool 'fails': \"kind\": missing (required)"
    ok = await FunctionTool(book).run('{"hotel": "Ritz"}')
    assert ok.ok
    assert ok.value["hotel"] == "Ritz"
    assert ok.content == '{"hotel":"Ritz","nights":1,"room":"double","address":null}'


@dataclasses.dataclass
class Forecast:
    day: datetime.date
    summary: str


def test_results_serialize_as_text_or_json() -> None:
    assert serialize_result("plain") == "plain"
    assert serialize_result(None) == "null"
    assert serialize_result(Forecast(datetime.date(2025, 1, 2), "sun")) == (
        '{"day":"2025-01-02","summary":"sun"}'
    )
    assert serialize_result(Address(street="x")) == '{"street":"x","zip_code":null}'
    assert serialize_result({"n": 1.5, "t": (1, 2)}) == '{"n":1.5,"t":[1,2]}'


def test_the_decorator_keeps_the_function_callable() -> None:
    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @tool(name="multiply", description="Multiply.")
    async def mul(a: int, b: int) -> int:
        return a * b

    assert isinstance(add, FunctionTool)
    assert add(2, 3) == 5
    assert add.__name__ == "add"
    assert add.__doc__ == "Add two integers."
    assert (mul.name, mul.description) == ("multiply", "Multiply.")
    assert anyio.run(mul.call, '{"a": 2, "b": 4}') == 8


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: FunctionTool(lambda x: x), "tool name '<lambda>' is not accepted"),
        (lambda: FunctionTool(book, name="has space"), "use 1-64 letters"),
        (lambda: FunctionTool(42), "a tool needs a function"),  # type: ignore[arg-type]
        (lambda: FunctionTool(book, parameters={"type": "array"}), "JSON Schema of an object"),
    ],
)
def test_definition_errors_name_the_fix(make: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        make()


def test_positional_only_and_unschemable_parameters_are_refused() -> None:
    def positional(a: int, /) -> int:
        return a

    def opaque(lock: threading.Lock) -> None:  # type: ignore[valid-type]
        return None

    with pytest.raises(ToolDefinitionError, match="positional-only"):
        FunctionTool(positional)
    with pytest.raises(ToolDefinitionError, match="has no JSON Schema"):
        FunctionTool(opaque)


def test_unresolvable_annotations_are_reported() -> None:
    def forward(x: NotDefinedAnywhere) -> None:  # type: ignore[name-defined]  # noqa: F821
        return None

    with pytest.raises(ToolDefinitionError, match="cannot resolve the annotations"):
        FunctionTool(forward)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_arguments_are_refused_not_passed_to_the_function(constant: str) -> None:
    def scale(factor: float) -> float:
        return factor * 2

    with pytest.raises(ToolArgumentsError) as caught:
        FunctionTool(scale).parse_arguments(f'{{"factor": {constant}}}')
    assert "NaN, Infinity and -Infinity are not JSON" in str(caught.value)


def test_the_words_inside_argument_strings_are_fine() -> None:
    def label(text: str, factor: float) -> str:
        return text

    arguments = '{"text": "NaN or Infinity", "factor": 1.5}'
    assert FunctionTool(label).parse_arguments(arguments) == {
        "text": "NaN or Infinity",
        "factor": 1.5,
    }
