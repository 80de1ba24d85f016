"""Fuzzing: the cell's pure parsers fed random and hostile input never fail in a foreign way.

Every target here reads bytes or JSON that another party wrote (the service, a
file on disk, a host's tool list). The property is the same for all: the call
returns, or raises one of the cell's own errors (``errors.CursorError``); it
never raises anything else and never hangs (each call runs under a wall-clock
alarm). The fold's message is always plain chat JSON.

Bounded for CI: each property runs ``FUZZ_EXAMPLES`` examples (small). The long
run is ``HYPOTHESIS_PROFILE=long`` (or ``NODECODE_FUZZ_EXAMPLES=N``), see
benchmarks/README.md.
"""

from __future__ import annotations

import base64
import contextlib
import json
import math
import os
import signal
import struct
import types
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor as pb_descriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from protobytes import varint

from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.account import store
from nodecode_cursor.core import schema
from nodecode_cursor.core.answers import Answerer
from nodecode_cursor.core.blobs import BlobStore
from nodecode_cursor.core.fold import Fold
from nodecode_cursor.core.request_context import tool_definitions
from nodecode_cursor.errors import CursorError, StoreError
from nodecode_cursor.transports.http import http_error
from nodecode_cursor.wire import connect

# --- bounds -----------------------------------------------------------------------------

_LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"
FUZZ_EXAMPLES = int(os.environ.get("NODECODE_FUZZ_EXAMPLES") or (5000 if _LONG else 100))
# No single call on fuzzed input may take longer than this: a hang is a failure.
HANG_SECONDS = 10.0

fuzz = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class Hang(Exception):
    """A fuzzed call ran past HANG_SECONDS."""


@contextlib.contextmanager
def bounded(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Run the block under a wall-clock alarm that raises Hang when it runs too long."""

    def ring(signum: int, frame: types.FrameType | None) -> None:
        raise Hang(f"the call ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def only_our_errors(call: Any, *args: Any, **kwargs: Any) -> Any:
    """Return call(*args) run under the alarm; a CursorError comes back as the value."""
    with bounded():
        try:
            return call(*args, **kwargs)
        except CursorError as exc:
            assert str(exc), "a cell error must carry a line a person can read"
            return exc


# --- JSON strategies -------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=30,
)
# Keys a schema or an error object actually uses, so random trees hit the real branches.
_SCHEMA_KEYS = st.sampled_from(
    [
        "type",
        "properties",
        "required",
        "items",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "$ref",
        "$defs",
        "definitions",
        "additionalProperties",
        "prefixItems",
        "patternProperties",
        "description",
        "title",
        "default",
        "#",
        "#/$defs/a",
        "#/definitions/a",
        "a",
    ]
)
schema_like = st.recursive(
    json_scalars | _SCHEMA_KEYS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(_SCHEMA_KEYS | st.text(max_size=5), children, max_size=6)
    ),
    max_leaves=40,
)


# --- protobuf messages from their descriptors ------------------------------------------

_FD = pb_descriptor.FieldDescriptor
_INT_RANGES: dict[int, tuple[int, int]] = {
    _FD.TYPE_INT32: (-(2**31), 2**31 - 1),
    _FD.TYPE_SINT32: (-(2**31), 2**31 - 1),
    _FD.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    _FD.TYPE_INT64: (-(2**63), 2**63 - 1),
    _FD.TYPE_SINT64: (-(2**63), 2**63 - 1),
    _FD.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    _FD.TYPE_UINT32: (0, 2**32 - 1),
    _FD.TYPE_FIXED32: (0, 2**32 - 1),
    _FD.TYPE_UINT64: (0, 2**64 - 1),
    _FD.TYPE_FIXED64: (0, 2**64 - 1),
}
_MAX_DEPTH = 6


def _value_bytes() -> st.SearchStrategy[bytes]:
    """Return bytes for a field that should hold a google.protobuf.Value: valid or junk."""
    from nodecode_cursor.wire import values

    return json_values.map(values.encode_value) | st.binary(max_size=30)


def _scalar(draw: st.DrawFn, field: pb_descriptor.FieldDescriptor) -> Any:
    kind = field.type
    if kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        return draw(st.integers(low, high) | st.integers(-3, 300).filter(lambda n: low <= n))
    if kind == _FD.TYPE_BOOL:
        return draw(st.booleans())
    if kind in (_FD.TYPE_FLOAT, _FD.TYPE_DOUBLE):
        return draw(st.floats(allow_nan=True, width=32 if kind == _FD.TYPE_FLOAT else 64))
    if kind == _FD.TYPE_STRING:
        return draw(st.text(max_size=40) | st.sampled_from(["{", '{"a":', "[]", '{"a":1}x']))
    if kind == _FD.TYPE_BYTES:
        return draw(_value_bytes() | st.binary(min_size=32, max_size=32))
    if kind == _FD.TYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values]
        return draw(st.sampled_from(numbers) | st.integers(-2, 200))
    raise AssertionError(f"unhandled field type {kind}")


def _fill(draw: st.DrawFn, message: Message, depth: int) -> None:
    """Set a random selection of MESSAGE's fields (one member per oneof)."""
    desc = message.DESCRIPTOR
    chosen_oneofs = {
        oneof.name: draw(st.sampled_from([None, *oneof.fields])) for oneof in desc.oneofs
    }
    for field in desc.fields:
        oneof = field.containing_oneof
        if oneof is not None and not oneof.name.startswith("_"):
            if chosen_oneofs.get(oneof.name) is not field:
                continue
        elif not draw(st.booleans()):
            continue
        _set_field(draw, message, field, depth)


def _set_field(
    draw: st.DrawFn, message: Message, field: pb_descriptor.FieldDescriptor, depth: int
) -> None:
    is_message = field.type == _FD.TYPE_MESSAGE
    if is_message and field.message_type.GetOptions().map_entry:
        key_field = field.message_type.fields_by_name["key"]
        value_field = field.message_type.fields_by_name["value"]
        target = getattr(message, field.name)
        for _ in range(draw(st.integers(0, 3))):
            key = _scalar(draw, key_field)
            if value_field.type == _FD.TYPE_MESSAGE:
                if depth < _MAX_DEPTH:
                    _fill(draw, target[key], depth + 1)
            else:
                target[key] = _scalar(draw, value_field)
        return
    repeated = bool(field.is_repeated)
    if is_message:
        if depth >= _MAX_DEPTH:
            return
        if repeated:
            container = getattr(message, field.name)
            for _ in range(draw(st.integers(0, 2))):
                _fill(draw, container.add(), depth + 1)
        else:
            child = getattr(message, field.name)
            child.SetInParent()
            _fill(draw, child, depth + 1)
        return
    if repeated:
        getattr(message, field.name).extend(
            _scalar(draw, field) for _ in range(draw(st.integers(0, 3)))
        )
    else:
        setattr(message, field.name, _scalar(draw, field))


@st.composite
def server_messages(draw: st.DrawFn) -> agent_pb2.AgentServerMessage:
    """Return a random valid AgentServerMessage, one oneof member chosen at each level."""
    message = agent_pb2.AgentServerMessage()
    _fill(draw, message, 0)
    return message


def _mcp_update(draw: st.DrawFn) -> agent_pb2.AgentServerMessage:
    """Return a random MCP tool-call update: the fold's trickiest path, drawn often."""
    call_id = draw(st.sampled_from(["c1", "c2", ""]))
    args = agent_pb2.McpArgs(
        name=draw(st.sampled_from(["list", "", "x"])),
        tool_name=draw(st.sampled_from(["list", ""])),
        tool_call_id=draw(st.sampled_from(["c1", "c2", "", "bad id!"])),
    )
    for key in draw(st.lists(st.sampled_from(["a", "b", ""]), max_size=3)):
        args.args[key] = draw(_value_bytes())
    tool_call = agent_pb2.ToolCall(mcp_tool_call=agent_pb2.McpToolCall(args=args))
    update = agent_pb2.InteractionUpdate()
    kind = draw(st.sampled_from(["started", "partial", "completed"]))
    if kind == "started":
        update.tool_call_started.call_id = call_id
        update.tool_call_started.tool_call.CopyFrom(tool_call)
    elif kind == "partial":
        update.partial_tool_call.call_id = call_id
        update.partial_tool_call.tool_call.CopyFrom(tool_call)
        update.partial_tool_call.args_text_delta = draw(
            st.sampled_from(['{"a":', '{"a":1}', '{"a":1}{"a"', "[", "", '"x"', "{}"])
            | st.text(max_size=12)
        )
    else:
        update.tool_call_completed.call_id = call_id
        update.tool_call_completed.tool_call.CopyFrom(tool_call)
    return agent_pb2.AgentServerMessage(interaction_update=update)


@st.composite
def message_sequences(draw: st.DrawFn) -> list[agent_pb2.AgentServerMessage]:
    """Return a stream of random server messages, MCP updates mixed in."""
    out: list[agent_pb2.AgentServerMessage] = []
    for _ in range(draw(st.integers(1, 8))):
        out.append(_mcp_update(draw) if draw(st.booleans()) else draw(server_messages()))
    return out


# --- the fold and the answers ----------------------------------------------------------

_MESSAGE_KEYS = {"role", "content", "reasoning_content", "tool_calls"}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "list",
            "description": "list files",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]


def assert_chat_message(message: dict[str, Any]) -> None:
    """Assert MESSAGE is a plain chat-completions assistant message, JSON all the way down."""
    json.dumps(message, allow_nan=False)
    assert set(message) <= _MESSAGE_KEYS
    assert message["role"] == "assistant"
    assert message["content"] is None or isinstance(message["content"], str)
    if "reasoning_content" in message:
        assert isinstance(message["reasoning_content"], str)
    for call in message.get("tool_calls", []):
        assert set(call) == {"id", "type", "function"} and call["type"] == "function"
        assert set(call["function"]) == {"name", "arguments"}
        assert isinstance(call["id"], str) and call["id"]
        assert isinstance(call["function"]["name"], str)
        assert isinstance(call["function"]["arguments"], str)


def fold_and_answer(messages: list[agent_pb2.AgentServerMessage]) -> None:
    """Feed MESSAGES to a fold and an answerer as the lane does; assert the message shape."""
    parts: list[Any] = []
    answerer = Answerer(
        tools=TOOLS,
        system_prompt="be brief",
        cwd="/tmp",
        blobs=BlobStore(),
        project_schemas=True,
        new_id=lambda: str(uuid.uuid4()),
    )
    fold = Fold(new_id=lambda: str(uuid.uuid4()), host_names=answerer.host_names)
    for message in messages:
        fed = only_our_errors(fold.feed, message)
        if not isinstance(fed, CursorError):
            parts += fed
        answer = only_our_errors(answerer.answer, message)
        if not isinstance(answer, CursorError):
            applied = only_our_errors(fold.apply, answer.calls)
            if not isinstance(applied, CursorError):
                parts += applied
            for reply in answer.replies:
                assert isinstance(reply, agent_pb2.AgentClientMessage)
                reply.SerializeToString()
    with bounded():
        assert_chat_message(fold.message())
        assert fold.finish_reason in ("stop", "tool_calls")
        _ = fold.complete, fold.end_error_ignored, fold.usage.as_dict()


@fuzz
@given(message_sequences())
def test_fold_and_answers_take_any_valid_server_messages(
    messages: list[agent_pb2.AgentServerMessage],
) -> None:
    fold_and_answer(messages)


@fuzz
@given(st.lists(st.binary(max_size=200), min_size=1, max_size=6))
def test_fold_and_answers_take_messages_decoded_from_random_bytes(chunks: list[bytes]) -> None:
    decoded = []
    for raw in chunks:
        try:
            decoded.append(agent_pb2.AgentServerMessage.FromString(raw))
        except Exception:  # not a message at all: the transport refuses it before the fold
            continue
    fold_and_answer(decoded)


@fuzz
@given(server_messages())
def test_a_valid_message_survives_its_own_bytes_with_a_bit_flipped(
    message: agent_pb2.AgentServerMessage,
) -> None:
    raw = bytearray(message.SerializeToString())
    if raw:
        raw[len(raw) // 2] ^= 0x5A
    try:
        mutated = agent_pb2.AgentServerMessage.FromString(bytes(raw))
    except Exception:
        return
    fold_and_answer([message, mutated])


# --- Connect framing --------------------------------------------------------------------

frames = st.lists(st.tuples(st.sampled_from([0, 2]), st.binary(max_size=300)), max_size=8)


def hand_frame(flags: int, payload: bytes) -> bytes:
    """Return one Connect frame written by hand: flag byte, 4-byte big-endian length, payload."""
    return bytes([flags]) + struct.pack(">I", len(payload)) + payload


@fuzz
@given(frames, st.lists(st.integers(0, 4000), max_size=12))
def test_the_frame_decoder_gives_the_same_frames_for_any_chunking(
    sent: list[tuple[int, bytes]], cuts: list[int]
) -> None:
    wire = b"".join(hand_frame(f, p) for f, p in sent)
    points = sorted({c % (len(wire) + 1) for c in cuts})
    chunks = [wire[a:b] for a, b in zip([0, *points], [*points, len(wire)], strict=True)]
    decoder = connect.FrameDecoder()
    got = []
    with bounded():
        for chunk in chunks:
            got.extend((f.flags, f.payload) for f in decoder.feed(chunk))
    assert got == sent
    assert decoder.pending == 0


@fuzz
@given(st.lists(st.binary(max_size=64), max_size=10), st.integers(5, 1 << 20))
@example([b"\x01\x00\x00\x00\x05abcde"], 1 << 20)  # "compressed" junk
@example([b"\x00\xff\xff\xff\xff"], 1 << 20)  # a 4 GiB length
@example([b"\x01\x00\x00\x00\x14" + bytes.fromhex("1f8b08000000000000ff") + b"\x00" * 10], 64)
def test_the_frame_decoder_takes_random_bytes(chunks: list[bytes], max_frame: int) -> None:
    decoder = connect.FrameDecoder(max_frame=max_frame)
    for chunk in chunks:
        result = only_our_errors(decoder.feed, chunk)
        if isinstance(result, CursorError):
            break
        for frame in result:
            assert len(frame.payload) <= max_frame


@fuzz
@given(st.binary(min_size=1, max_size=200))
def test_a_gzip_flagged_frame_of_junk_is_a_protocol_error_or_a_payload(payload: bytes) -> None:
    result = only_our_errors(connect.FrameDecoder().feed, hand_frame(1, payload))
    assert isinstance(result, CursorError) or len(result) == 1


# --- the end-of-stream trailer and refused calls ---------------------------------------

_error_codes = st.sampled_from(
    [*connect.CONNECT_CODE_STATUS, "", "weird"] if hasattr(connect, "CONNECT_CODE_STATUS") else [""]
)


@st.composite
def error_objects(draw: st.DrawFn) -> Any:
    """Return something shaped (or misshaped) like a Connect error object."""
    details = draw(
        st.lists(
            st.fixed_dictionaries(
                {},
                optional={
                    "type": st.sampled_from(["aiserver.v1.ErrorDetails", "x", ""]) | json_values,
                    "value": st.binary(max_size=40).map(
                        lambda b: base64.b64encode(b).decode().rstrip("=")
                    )
                    | json_values,
                    "debug": json_values
                    | st.fixed_dictionaries(
                        {"details": st.dictionaries(st.text(max_size=8), json_values)}
                    ),
                },
            )
            | json_values,
            max_size=3,
        )
        | json_values
    )
    return draw(
        st.fixed_dictionaries(
            {},
            optional={
                "code": _error_codes | json_values,
                "message": st.text(max_size=30) | json_values,
                "details": st.just(details),
            },
        )
    )


@fuzz
@given(
    st.one_of(
        error_objects().map(lambda e: json.dumps({"error": e}).encode()),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.binary(max_size=80),
        st.sampled_from(
            [b"", b"{}", b'{"error":null}', b"NaN", b'{"error":Infinity}', b"[" * 5000]
        ),
    )
)
def test_the_trailer_parser_takes_any_json_and_junk(payload: bytes) -> None:
    result = only_our_errors(connect.parse_end_stream, payload)
    assert result is None or isinstance(result, CursorError)
    if isinstance(result, CursorError):
        assert isinstance(result.status, int) and 100 <= result.status <= 599


@fuzz
@given(error_objects(), st.integers(100, 599))
def test_any_error_object_is_classified(error: Any, status: int) -> None:
    if not isinstance(error, dict):
        return
    result = only_our_errors(connect.classify_connect_error, error, http_status=status)
    assert isinstance(result, CursorError)
    body = json.dumps(error).encode()
    refused = only_our_errors(http_error, status, body, "RunSSE")
    assert isinstance(refused, CursorError) and refused.status is not None


# --- tokens that are not JWTs -----------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@st.composite
def not_quite_jwts(draw: st.DrawFn) -> str:
    """Return a string shaped like header.payload.signature whose parts may be anything."""
    header = draw(
        st.sampled_from([b'{"alg":"HS256","typ":"JWT"}', b'{"alg":"none"}', b"{}", b"[]"])
        | st.binary(max_size=20)
    )
    payload = draw(
        st.dictionaries(
            st.sampled_from(["exp", "sub", "iat"]) | st.text(max_size=4),
            json_values | st.sampled_from(["x|user", "|", "a|b|c"]),
            max_size=4,
        ).map(lambda d: json.dumps(d).encode())
        | st.sampled_from(
            [
                b'{"exp":Infinity}',
                b'{"exp":-Infinity}',
                b'{"exp":NaN}',
                b'{"exp":1e400}',
                b'{"exp":1e300,"sub":7}',
                b'{"exp":true}',
                b'{"sub":null}',
            ]
        )
        | st.binary(max_size=30)
    )
    signature = draw(st.binary(max_size=10))
    return ".".join(_b64(part) for part in (header, payload, signature))


@fuzz
@given(not_quite_jwts() | st.text(max_size=60) | st.sampled_from(["", ".", "..", "a.b.c"]))
@example(_b64(b'{"alg":"none"}') + "." + _b64(b'{"exp":Infinity}') + ".")
@example(_b64(b'{"alg":"none"}') + "." + _b64(b'{"exp":NaN}') + ".")
def test_token_expiry_takes_tokens_that_are_not_jwts(token: str) -> None:
    now = 1_700_000_000.0
    expiry = only_our_errors(store.token_expiry, token, now=now)
    assert isinstance(expiry, int) and not isinstance(expiry, bool)
    user = only_our_errors(store.token_user_id, token)
    assert user is None or (isinstance(user, str) and user)
    entry = only_our_errors(store.TokenEntry.from_tokens, token, "r", now=now)
    assert isinstance(entry, store.TokenEntry)
    json.dumps(entry.as_json(), allow_nan=False)


# --- auth.json of random bytes ----------------------------------------------------------


@pytest.fixture(scope="module")
def auth_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-home")


_auth_bodies = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(
        st.sampled_from(["oauth_tokens", "api_keys", "other"]),
        st.dictionaries(
            st.sampled_from(["cursor", "openai"]),
            st.dictionaries(
                st.sampled_from(["access_token", "refresh_token", "expires_at", "email", "key"]),
                json_values,
                max_size=5,
            )
            | json_values,
            max_size=2,
        )
        | json_values,
        max_size=3,
    ).map(lambda d: json.dumps(d).encode()),
    st.sampled_from(
        [
            b"[" * 100_000,  # nesting deeper than the parser's recursion limit
            b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
            b"\xff\xfe{}",
            b'{"oauth_tokens":{"cursor":{"access_token":"a","refresh_token":"b","expires_at":NaN}}}',
            b'{"oauth_tokens":{"cursor":{"access_token":"a","refresh_token":"b",'
            b'"expires_at":Infinity}}}',
        ]
    ),
)


@fuzz
@given(_auth_bodies)
def test_auth_json_of_any_bytes_reads_or_raises_store_error_and_is_never_changed(
    auth_home: Path, raw: bytes
) -> None:
    path = auth_home / "auth.json"
    path.write_bytes(raw)
    before = path.stat().st_mtime_ns
    auth = store.AuthStore(auth_home)
    for call in (auth.read, auth.entry, auth.api_key):
        result = only_our_errors(call)
        assert not isinstance(result, CursorError) or isinstance(result, StoreError)
    entry = only_our_errors(auth.entry)
    if isinstance(entry, store.TokenEntry):
        json.dumps(entry.as_json(), allow_nan=False)
        only_our_errors(entry.due_within, 60, now=0.0)
    # A write over a file that does not read is refused and leaves the file alone.
    if isinstance(only_our_errors(auth.read), StoreError):
        fresh = store.TokenEntry("access", "refresh", 1.0)
        assert isinstance(only_our_errors(auth.save_entry, fresh), StoreError)
        assert isinstance(only_our_errors(auth.save_entry, None), StoreError)
        assert path.read_bytes() == raw
        assert path.stat().st_mtime_ns == before
    leftovers = [p.name for p in auth_home.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


# --- tool schemas of random JSON --------------------------------------------------------


@fuzz
@given(schema_like)
@example({"$ref": "#"})
@example({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})
@example({"anyOf": [{"type": "object", "properties": {"a": {"$ref": "#"}}}]})
@example({"allOf": [{"properties": 1}, {"required": "x"}]})
def test_schema_projection_takes_any_json(value: Any) -> None:
    projected = only_our_errors(schema.project_schema, value)
    assert not isinstance(projected, CursorError)
    json.dumps(projected)
    if not isinstance(value, dict):
        assert projected == value
    for project in (True, False):
        input_schema = only_our_errors(schema.tool_input_schema, value, project=project)
        assert isinstance(input_schema, dict)
        json.dumps(input_schema)


@fuzz
@given(
    st.lists(
        st.fixed_dictionaries(
            {"type": st.just("function") | json_values},
            optional={
                "function": st.fixed_dictionaries(
                    {},
                    optional={
                        "name": st.sampled_from(["list", "write", "bash", ""]) | json_values,
                        "description": st.text(max_size=10) | json_values,
                        "parameters": schema_like,
                    },
                )
                | json_values
            },
        )
        | json_values,
        max_size=4,
    ),
    st.booleans(),
)
def test_tool_definitions_take_any_tool_list(tools: list[Any], project: bool) -> None:
    result = only_our_errors(tool_definitions, tools, project_schemas=project)
    if not isinstance(result, CursorError):
        for definition in result:
            assert isinstance(definition, agent_pb2.McpToolDefinition)
            definition.SerializeToString()


def test_the_hang_guard_itself_fires() -> None:
    with pytest.raises(Hang), bounded(0.05):
        while True:
            math.sqrt(2.0)


def test_deeply_nested_arguments_do_not_escape_the_fold() -> None:
    deep_text = "[" * 50_000 + "]" * 50_000
    # A Value nested far past protobuf's recursion limit, written by hand:
    # Value{6 list_value: ListValue{1 values: Value{...}}}, innermost Value{4 bool_value: 1}.
    inner = b"\x20\x01"
    for _ in range(300):
        list_value = b"\x0a" + varint(len(inner)) + inner
        inner = b"\x32" + varint(len(list_value)) + list_value
    args = agent_pb2.McpArgs(name="list", tool_call_id="c1")
    args.args["deep"] = inner
    args.args["text"] = b"\x1a" + varint(len(deep_text)) + deep_text.encode()
    call = agent_pb2.ToolCall(mcp_tool_call=agent_pb2.McpToolCall(args=args))
    started = agent_pb2.InteractionUpdate()
    started.tool_call_started.call_id = "c1"
    started.tool_call_started.tool_call.CopyFrom(call)
    partial = agent_pb2.InteractionUpdate()
    partial.partial_tool_call.call_id = "c1"
    partial.partial_tool_call.tool_call.CopyFrom(call)
    partial.partial_tool_call.args_text_delta = deep_text
    done = agent_pb2.InteractionUpdate()
    done.tool_call_completed.call_id = "c1"
    done.tool_call_completed.tool_call.CopyFrom(call)
    exec_ask = agent_pb2.ExecServerMessage(id=1, exec_id="e1", mcp_args=args)
    fold_and_answer(
        [
            agent_pb2.AgentServerMessage(interaction_update=started),
            agent_pb2.AgentServerMessage(interaction_update=partial),
            agent_pb2.AgentServerMessage(interaction_update=done),
            agent_pb2.AgentServerMessage(exec_server_message=exec_ask),
        ]
    )


# --- answers of the account endpoints (refresh, roster) over sockets -------------------

_bodies = st.one_of(
    st.binary(max_size=120),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.fixed_dictionaries(
        {},
        optional={
            "access_token": st.text(max_size=8) | json_values,
            "refresh_token": st.text(max_size=8) | json_values,
            "shouldLogout": json_values,
            "code": st.text(max_size=8) | json_values,
            "error": json_values,
        },
    ).map(lambda d: json.dumps(d).encode()),
    st.sampled_from([b"[" * 100_000, b'{"a":' * 50_000, b'{"access_token":NaN}']),
)


@pytest.fixture(scope="module")
def account_sim() -> Iterator[Any]:
    from cursor_simulator import SimResponse, Simulator

    served: dict[str, Any] = {"status": 200, "body": b"{}"}

    def answer(request: Any) -> Any:
        return SimResponse(served["status"], {"content-type": "application/json"}, served["body"])

    with Simulator() as sim:
        sim.route("/oauth/token", answer)
        sim.route("/agent.v1.AgentService/GetUsableModels", answer)
        yield sim, served


@settings(
    max_examples=max(10, FUZZ_EXAMPLES // 4),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.sampled_from([200, 400, 401, 429, 500, 503]), _bodies)
def test_refresh_and_roster_answers_of_any_body_fail_only_in_our_errors(
    account_sim: Any, status: int, body: bytes
) -> None:
    import asyncio

    from nodecode_cursor.account import signin
    from nodecode_cursor.models import listing

    sim, served = account_sim
    served["status"], served["body"] = status, body
    entry = store.TokenEntry("old-access", "old-refresh", 0.0)
    renewed = only_our_errors(signin.refresh_entry, None, sim.url, entry)
    assert isinstance(renewed, CursorError | store.TokenEntry)
    roster = only_our_errors(asyncio.run, listing.fetch_roster("tok", sim.url))
    assert isinstance(roster, CursorError | tuple)
