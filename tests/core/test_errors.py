"""The one error tree (``ag_ui.core.errors``): every class drawn, each built by its parents."""

from __future__ import annotations

import inspect

import pytest

from ag_ui.core import errors
from ag_ui.core.errors import (
    AGUIError,
    AGUIValidationError,
    ConnectionLostError,
    DecodeError,
    IncompleteStreamError,
    ProtocolError,
    SequenceViolation,
    SequenceViolationError,
    SubscriberError,
    TransportError,
    UnknownEventArmError,
    UnknownEventTypeError,
)


def _classes() -> list[type[BaseException]]:
    return [
        value
        for name in errors.__all__
        if inspect.isclass(value := getattr(errors, name))
        and issubclass(value, BaseException)
        and value.__name__ == name  # aliases (SequenceViolation) are checked below
    ]


def test_every_error_is_in_the_tree_and_drawn_in_its_docstring() -> None:
    assert errors.__doc__ is not None
    for cls in _classes():
        assert issubclass(cls, AGUIError), cls
        drawn = f"── {cls.__name__} " in errors.__doc__ or cls is AGUIError
        assert drawn, f"{cls.__name__} is not drawn in the tree"


def test_connection_lost_is_an_incomplete_stream_in_core() -> None:
    error = ConnectionLostError("cut", events_received=3)
    assert isinstance(error, IncompleteStreamError)
    assert isinstance(error, TransportError)
    assert error.events_received == 3
    from ag_ui.client import ConnectionLostError as client_name

    assert client_name is ConnectionLostError


def test_sequence_violation_has_an_error_name_and_keeps_the_old_one() -> None:
    cause = ProtocolError("no", rule="T2", event_type="TEXT_MESSAGE_CONTENT", ids={"m": 1})
    error = SequenceViolationError(cause)
    assert SequenceViolation is SequenceViolationError
    assert (error.rule, error.event_type, error.ids, error.cause) == (
        "T2",
        "TEXT_MESSAGE_CONTENT",
        {"m": 1},
        cause,
    )
    from ag_ui.server import SequenceViolation as server_old
    from ag_ui.server import SequenceViolationError as server_new

    assert server_old is server_new is SequenceViolationError


def test_unknown_event_arm_error_is_built_by_both_parents() -> None:
    error = UnknownEventArmError([99, 100], frame_index=3)
    # DecodeError's fields and message...
    assert isinstance(error, DecodeError)
    assert error.frame_index == 3
    assert str(error) == (
        "frame 3: the envelope carries only unknown event arm(s) 99, 100 "
        "(an event from a newer protocol version?); skip the frame"
    )
    # ... and UnknownEventTypeError's, so one ``except`` serves SSE and protobuf alike.
    assert isinstance(error, UnknownEventTypeError)
    assert isinstance(error, AGUIValidationError)
    assert isinstance(error, ValueError)
    assert (error.event_type, error.what, error.problems) == (
        None,
        "event",
        ("unknown protobuf event arm 99, 100",),
    )
    assert error.field_numbers == (99, 100)
    with pytest.raises(UnknownEventTypeError):
        raise error


def test_subscriber_error_names_the_callback_and_keeps_the_cause() -> None:
    class Printer:
        pass

    cause = NameError("name 'AgentStateMutation' is not defined")
    error = SubscriberError("on_state_snapshot_event", Printer(), cause)
    assert error.callback == "on_state_snapshot_event"
    assert isinstance(error.subscriber, Printer)
    assert error.__cause__ is cause is error.error
    assert str(error) == (
        "subscriber Printer.on_state_snapshot_event raised "
        "NameError: name 'AgentStateMutation' is not defined"
    )


def _public_exceptions() -> dict[str, type[BaseException]]:
    """Every exception class a public module of the SDK exports (warnings aside)."""
    import importlib

    from tests.test_public_surface import current_surface

    found: dict[str, type[BaseException]] = {}
    for name in sorted(current_surface()):
        module, _, attribute = name.rpartition(".")
        value = getattr(importlib.import_module(module), attribute)
        if (
            inspect.isclass(value)
            and issubclass(value, BaseException)
            and not issubclass(value, Warning)
        ):
            found[name] = value
    return found


# Below the tree: raised before ag_ui.core can be trusted (the files it is made of are not this
# SDK's), so it cannot be a class of ag_ui.core (ag_ui._integrity imports nothing of the SDK).
OUTSIDE_THE_TREE = {"SharedFilesError"}


def test_every_exception_users_can_import_is_in_the_one_tree() -> None:
    outside = {
        name: cls
        for name, cls in _public_exceptions().items()
        if cls.__name__ not in OUTSIDE_THE_TREE
        and not (issubclass(cls, AGUIError) and cls.__module__ == errors.__name__)
    }
    assert outside == {}, "define it in ag_ui.core.errors, under AGUIError, drawn in the tree"


def test_varint_and_inspector_errors_keep_their_bases() -> None:
    from ag_ui.inspect import InspectorError
    from ag_ui.proto._varint import VarintError, read_varint

    assert issubclass(VarintError, DecodeError)
    with pytest.raises(ValueError, match="truncated varint") as raised:
        read_varint(b"\x80", 0)
    assert isinstance(raised.value, VarintError)
    assert InspectorError is errors.InspectorError
