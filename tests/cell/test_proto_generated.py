"""The committed protobuf modules match proto/*.proto, and the wire bytes are right.

The expected bytes below are written out by hand from the field numbers in
PROTOCOL.md: a tag is one varint of ``field_number << 3 | wire_type`` (wire
type 0 = varint, 2 = length-delimited), so a mistake in a .proto number shows
up here as a byte difference rather than as a silent hang against the service.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from nodecode_cursor._proto import agent_pb2, aiserver_pb2

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "nodecode_cursor" / "_proto"


def _files(directory: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in sorted(directory.iterdir())
        if p.is_file() and p.suffix in {".py", ".pyi"}
    }


def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools")
    out = tmp_path / "gen"
    subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_proto.py"), "--out", str(out)],
        check=True,
        capture_output=True,
        cwd=ROOT,
    )
    fresh = _files(out)
    committed = _files(COMMITTED)
    assert sorted(fresh) == sorted(committed), "generated file set differs; run tools/gen_proto.py"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"stale generated files {stale}; run tools/gen_proto.py"


def _version(text: str) -> tuple[int, ...]:
    """Return a dotted version as a tuple of ints."""
    return tuple(int(part) for part in text.split("."))


def test_protobuf_pin_admits_the_generated_code() -> None:
    # Generated modules refuse to load on a protobuf runtime older than the
    # protoc that wrote them, or of another major version. The runtime pin in
    # pyproject must therefore start at or above that version and stay in its
    # major; the grpcio-tools pin is the one that writes that version.
    with (ROOT / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)["project"]
    (spec,) = [d for d in project["dependencies"] if d.startswith("protobuf")]
    lower = re.search(r">=\s*([0-9.]+)", spec)
    upper = re.search(r"<\s*([0-9]+)", spec)
    assert lower is not None and upper is not None, spec
    (tools,) = [d for d in project["optional-dependencies"]["test"] if d.startswith("grpcio-tools")]
    assert "==" in tools, f"grpcio-tools must be pinned exactly: {tools}"
    for module in ("agent_pb2.py", "aiserver_pb2.py"):
        text = (COMMITTED / module).read_text(encoding="utf-8")
        found = re.search(
            r"ValidateProtobufRuntimeVersion\(\s*_runtime_version\.Domain\.PUBLIC,"
            r"\s*(\d+),\s*(\d+),\s*(\d+),",
            text,
        )
        assert found is not None, module
        gencode = tuple(int(n) for n in found.groups())
        assert _version(lower.group(1)) >= gencode, (spec, gencode)
        assert int(upper.group(1)) == gencode[0] + 1, (spec, gencode)
    from google.protobuf import __version__ as runtime

    assert _version(runtime)[:3] >= gencode


def test_client_heartbeat() -> None:
    msg = agent_pb2.AgentClientMessage(client_heartbeat=agent_pb2.ClientHeartbeat())
    # field 7, wire type 2, length 0
    assert msg.SerializeToString() == bytes([0x3A, 0x00])


def test_bidi_append_request() -> None:
    req = aiserver_pb2.BidiAppendRequest(
        request_id=aiserver_pb2.BidiRequestId(request_id="r"),
        append_seqno=5,
        data_binary=b"\x3a\x00",
    )
    assert req.SerializeToString() == bytes(
        [0x12, 0x03, 0x0A, 0x01, 0x72, 0x18, 0x05, 0x22, 0x02, 0x3A, 0x00]
    )


def test_exec_client_message_exec_id() -> None:
    msg = agent_pb2.ExecClientMessage(
        id=3,
        exec_id="e",
        read_result=agent_pb2.ReadResult(
            rejected=agent_pb2.ReadRejected(path="p", reason="n"),
        ),
    )
    assert msg.SerializeToString() == bytes(
        [
            0x08, 0x03,  # 1 id = 3
            0x3A, 0x08,  # 7 read_result
            0x1A, 0x06,  #   3 rejected
            0x0A, 0x01, 0x70,  # 1 path "p"
            0x12, 0x01, 0x6E,  # 2 reason "n"
            0x7A, 0x01, 0x65,  # 15 exec_id "e"
        ]
    )  # fmt: skip


def test_exec_server_message_parses_member() -> None:
    # 1 id = 1, 15 exec_id = "e1", 10 request_context_args = {}
    raw = bytes([0x08, 0x01, 0x7A, 0x02, 0x65, 0x31, 0x52, 0x00])
    msg = agent_pb2.ExecServerMessage.FromString(raw)
    assert (msg.id, msg.exec_id) == (1, "e1")
    assert msg.WhichOneof("message") == "request_context_args"
    # 52 mini_swe_agent_bash_args is a ShellArgs; its answer is result 55
    ask = agent_pb2.ExecServerMessage.FromString(bytes([0xA2, 0x03, 0x03, 0x0A, 0x01, 0x6C]))
    assert ask.WhichOneof("message") == "mini_swe_agent_bash_args"
    assert ask.mini_swe_agent_bash_args.command == "l"
    answer = agent_pb2.ExecClientMessage(mini_swe_agent_bash_result=agent_pb2.ShellResult())
    assert answer.SerializeToString() == bytes([0xBA, 0x03, 0x00])


def test_mcp_args_map() -> None:
    args = agent_pb2.McpArgs(args={"k": b"\x01"}, smart_mode_approval_only=True)
    assert args.SerializeToString() == bytes(
        [
            0x12, 0x06,  # 2 args: one map entry
            0x0A, 0x01, 0x6B,  # key "k"
            0x12, 0x01, 0x01,  # value b"\x01"
            0x38, 0x01,  # 7 smart_mode_approval_only = true
        ]
    )  # fmt: skip


def test_tool_call_mcp_and_id() -> None:
    call = agent_pb2.ToolCall(mcp_tool_call=agent_pb2.McpToolCall(), tool_call_id="t")
    # 15 mcp_tool_call {}, then 57 tool_call_id: tag 57 << 3 | 2 = 458 = varint ca 03
    assert call.SerializeToString() == bytes([0x7A, 0x00, 0xCA, 0x03, 0x01, 0x74])
    # a variant we never run still names itself: 61 pi_read_tool_call
    other = agent_pb2.ToolCall.FromString(bytes([0xEA, 0x03, 0x00]))
    assert other.WhichOneof("tool") == "pi_read_tool_call"


def test_turn_ended_counters() -> None:
    update = agent_pb2.InteractionUpdate(
        turn_ended=agent_pb2.TurnEndedUpdate(
            input_tokens=10,
            output_tokens=2,
            cache_read_tokens=3,
            cache_write_tokens=0,
            reasoning_tokens=1,
        )
    )
    # 14 turn_ended; the optional counters are written even when zero
    assert update.SerializeToString() == bytes(
        [0x72, 0x0A, 0x08, 0x0A, 0x10, 0x02, 0x18, 0x03, 0x20, 0x00, 0x28, 0x01]
    )
    parsed = agent_pb2.InteractionUpdate.FromString(update.SerializeToString())
    assert parsed.turn_ended.HasField("cache_write_tokens")
    assert not agent_pb2.TurnEndedUpdate().HasField("input_tokens")


def test_routed_model_and_ttft() -> None:
    # AgentServerMessage 1 interaction_update { 24 routed_model { 1 "m", 2 "M" } }
    raw = bytes([0x0A, 0x09, 0xC2, 0x01, 0x06, 0x0A, 0x01, 0x6D, 0x12, 0x01, 0x4D])
    msg = agent_pb2.AgentServerMessage.FromString(raw)
    assert msg.interaction_update.WhichOneof("message") == "routed_model"
    assert msg.interaction_update.routed_model.model_id == "m"
    assert msg.interaction_update.routed_model.display_name == "M"
    ttft = agent_pb2.AgentServerMessage.FromString(bytes([0x42, 0x00]))
    assert ttft.WhichOneof("message") == "ttft_breakdown"


def test_checkpoint_rides_back_unchanged() -> None:
    raw = bytes(
        [
            0x0A, 0x01, 0xAA,  # 1 root_prompt_messages_json: one blob id
            0x2A, 0x04, 0x08, 0x07, 0x10, 0x09,  # 5 token_details {1 used 7, 2 max 9}
            0x7A, 0x08,  # 15 file_states_v2 entry
            0x0A, 0x01, 0x66,  # key "f"
            0x12, 0x03, 0x0A, 0x01, 0x78,  # value: a placeholder message with field 1 "x"
            0x88, 0x01, 0x02,  # 17 self_summary_count = 2
            0x9A, 0x06, 0x01, 0x7A,  # 99: a field this schema does not know
        ]
    )  # fmt: skip
    state = agent_pb2.ConversationStateStructure.FromString(raw)
    assert list(state.root_prompt_messages_json) == [b"\xaa"]
    assert (state.token_details.used_tokens, state.token_details.max_tokens) == (7, 9)
    assert state.self_summary_count == 2
    assert state.SerializeToString() == raw


def test_error_details() -> None:
    # 1 error = 41 RESOURCE_EXHAUSTED, 2 details {1 "t", 2 "d", 4 is_retryable}, 3 is_expected
    raw = bytes(
        [0x08, 0x29, 0x12, 0x08, 0x0A, 0x01, 0x74, 0x12, 0x01, 0x64, 0x20, 0x01, 0x18, 0x01]
    )
    err = aiserver_pb2.ErrorDetails.FromString(raw)
    assert err.error == aiserver_pb2.ErrorDetails.ERROR_RESOURCE_EXHAUSTED == 41
    assert (err.details.title, err.details.detail) == ("t", "d")
    assert err.details.is_retryable and err.is_expected
    assert aiserver_pb2.ErrorDetails.Error.Name(5) == "ERROR_BAD_MODEL_NAME"


def test_kv_and_interaction_numbers() -> None:
    # KvClientMessage 1 id = 2, 2 get_blob_result {} (no data: not held)
    kv = agent_pb2.KvClientMessage(id=2, get_blob_result=agent_pb2.GetBlobResult())
    assert kv.SerializeToString() == bytes([0x08, 0x02, 0x12, 0x00])
    # InteractionResponse 1 id = 4, 7 create_plan {1 result {2 error {1 "x"}}}
    resp = agent_pb2.InteractionResponse(
        id=4,
        create_plan_request_response=agent_pb2.CreatePlanRequestResponse(
            result=agent_pb2.CreatePlanResult(error=agent_pb2.CreatePlanError(error="x"))
        ),
    )
    assert resp.SerializeToString() == bytes(
        [0x08, 0x04, 0x3A, 0x07, 0x0A, 0x05, 0x12, 0x03, 0x0A, 0x01, 0x78]
    )
