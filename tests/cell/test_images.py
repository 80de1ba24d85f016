"""Images within Cursor's limits: fitted for the current turn, placeholders for earlier ones.

Rounds run through the lane against the simulator, whose scripted model misreads an
image over 1 MiB as Cursor's models do; what the simulator received is decoded here.
The header reader is checked on bytes written by hand, the Pillow-less path in a
child process whose ``PIL`` cannot be imported.
"""

from __future__ import annotations

import base64
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from runs import round_context

from cursor_simulator import Simulator
from cursor_simulator.records import RunRecord
from cursor_simulator.scripted_model import MISREAD_IMAGE_BYTES, scripted_model
from cursor_simulator.steps import Text
from nodecode_cursor._proto import agent_pb2
from nodecode_cursor.core.blobs import BlobStore
from nodecode_cursor.core.history import build_history
from nodecode_cursor.core.images import fit_image, fit_messages, image_size, placeholder
from nodecode_cursor.host import MemoryHost, RoundContext
from nodecode_cursor.lanes import lane
from nodecode_cursor.lanes.round_images import NOTICE_KEY
from nodecode_cursor.state import CellState

pytestmark = pytest.mark.sim_answer_timeout(5.0)

TOKEN = "tok-images"
# A PNG's signature and IHDR chunk of a 2×3 picture: all the header reader needs.
PNG_2X3 = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\x0dIHDR" + b"\x00\x00\x00\x02\x00\x00\x00\x03"


def png(width: int, height: int, seed: int = 1) -> bytes:
    """Return a real PNG of noise WIDTH×HEIGHT, the same bytes for the same arguments."""
    rng = random.Random(seed)
    picture = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
    out = io.BytesIO()
    picture.save(out, "PNG")
    return out.getvalue()


def large_png() -> bytes:
    """Return a 3000×2000 PNG of about 3 MiB (coarse noise, smoothed: it compresses some)."""
    rng = random.Random(7)
    small = Image.frombytes("RGB", (30, 20), rng.randbytes(30 * 20 * 3))
    out = io.BytesIO()
    small.resize((3000, 2000), Image.Resampling.BILINEAR).save(out, "PNG")
    return out.getvalue()


def url(mime: str, data: bytes) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def image_part(mime: str, data: bytes) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": url(mime, data)}}


def user(text: str, *images: tuple[str, bytes]) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "text", "text": text}, *(image_part(m, d) for m, d in images)],
    }


def context(sim: Simulator, messages: list[dict[str, Any]], **overrides: Any) -> RoundContext:
    return round_context(sim.url, TOKEN, messages=messages, tools=[], **overrides)


def selected(run: RunRecord) -> list[agent_pb2.SelectedImage]:
    """Return the images of the run's action, as the simulator received them."""
    assert run.run_request is not None
    message = run.run_request.action.user_message_action.user_message
    return list(message.selected_context.selected_images)


# --- through real rounds ----------------------------------------------------------------


def test_a_large_png_arrives_as_a_jpeg_within_the_limits(sim: Simulator) -> None:
    data = large_png()
    assert 2.5 * 2**20 < len(data) < 4 * 2**20
    result = lane.stream_round_sync(context(sim, [user("what is this", ("image/png", data))]))
    [image] = selected(sim.agent.run())
    assert image.mime_type == "image/jpeg"
    assert len(image.data) <= 1024 * 1024
    with Image.open(io.BytesIO(image.data)) as received:
        assert received.format == "JPEG"
        assert received.size == (2000, 1333)
    # The model read it: the simulator misreads only an image over 1 MiB.
    assert result.message["content"] == "Simulated Cursor here. You said: what is this"
    assert sim.agent.violations() == []


def test_thirteen_images_send_twelve_and_a_notice(sim: Simulator, tmp_path: Path) -> None:
    host = MemoryHost(tmp_path)
    images = [("image/png", png(4, 4, seed)) for seed in range(13)]
    messages = [user("count them", *images)]
    lane.stream_round_sync(context(sim, messages, host=host), CellState())
    sent = selected(sim.agent.run())
    assert [bytes(image.data) for image in sent] == [data for _, data in images[:12]]
    notice = host.notices[NOTICE_KEY]
    assert notice.text == "1 image left out: Cursor takes at most 12 in one message."
    # The next round without a problem clears it.
    lane.stream_round_sync(context(sim, [user("plain")], host=host), CellState())
    assert NOTICE_KEY not in host.notices


def test_an_undecodable_image_is_left_out_and_the_round_answers(
    sim: Simulator, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    host = MemoryHost(tmp_path)
    good = png(3, 3)
    messages = [user("look", ("image/png", b"not a png at all"), ("image/png", good))]
    with caplog.at_level("INFO", logger="nodecode_cursor.lanes.round_images"):
        result = lane.stream_round_sync(context(sim, messages, host=host), CellState())
    assert [bytes(image.data) for image in selected(sim.agent.run())] == [good]
    expected = "Image 1 was left out: it could not be read as an image."
    assert host.notices[NOTICE_KEY].text == expected
    assert f"images: {expected}" in caplog.messages
    assert result.message["content"] == "Simulated Cursor here. You said: look"


def test_an_earlier_turns_image_is_a_placeholder_without_its_bytes(sim: Simulator) -> None:
    earlier = PNG_2X3 + b"\x00" * 64
    messages = [
        user("look", ("image/png", earlier)),
        {"role": "assistant", "content": "A small picture."},
        {"role": "user", "content": "and now?"},
    ]
    result = lane.stream_round_sync(context(sim, messages))
    run = sim.agent.run()
    served = list(run.served.values())
    assert (
        b'{"role":"user","content":[{"type":"text","text":"look"},'
        b'{"type":"text","text":"[image: image/png, 2\xc3\x973, sent in an earlier turn]"}]}'
    ) in served
    encoded = base64.b64encode(earlier)
    for sent in [result.request, *served]:
        assert encoded not in sent and earlier not in sent
    assert selected(run) == []


def test_the_current_turns_image_stays_through_its_tool_loop(sim: Simulator) -> None:
    picture = png(5, 4)
    messages = [
        user("describe it after listing", ("image/png", picture)),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a.png"},
    ]
    lane.stream_round_sync(context(sim, messages))
    [first] = sim.agent.run().root_messages()[1:2]
    assert first["content"][1] == {
        "type": "image",
        "image": url("image/png", picture),
        "mediaType": "image/png",
    }


def test_a_model_that_takes_no_images_gets_the_placeholder_and_a_notice(
    sim: Simulator, tmp_path: Path
) -> None:
    host = MemoryHost(tmp_path)
    model = "claude-4.6-opus-high"  # its bundled row: input ["text"]
    messages = [user("what is this", ("image/png", PNG_2X3))]
    result = lane.stream_round_sync(context(sim, messages, host=host, model=model), CellState())
    run = sim.agent.run()
    assert selected(run) == []
    assert run.prompt() == (
        f"what is this\n[image: image/png, 2×3, not sent: {model} takes no images]"
    )
    assert host.notices[NOTICE_KEY].text == f"{model} takes no images: image 1 was sent as text."
    assert result.finish_reason == "stop"


# --- the simulator misreads what Cursor's models misread ---------------------------------


def _first_text(run: RunRecord) -> str:
    return next(step.text for step in scripted_model(run) if isinstance(step, Text))


def _run_with_image(data: bytes, misread: int | None) -> RunRecord:
    request = agent_pb2.AgentRunRequest()
    message = request.action.user_message_action.user_message
    message.text = "what is this"
    message.selected_context.selected_images.add(uuid="i", mime_type="image/png", data=data)
    return RunRecord("r", run_request=request, misread_images_over=misread)


def test_the_scripted_model_misreads_an_image_over_a_mib_unless_switched_off() -> None:
    over = b"\x00" * (MISREAD_IMAGE_BYTES + 1)
    said = _first_text(_run_with_image(over, MISREAD_IMAGE_BYTES))
    assert said == f"I could not read the image you sent (1 over {MISREAD_IMAGE_BYTES} bytes)."
    assert _first_text(_run_with_image(over, None)).startswith("Simulated Cursor here.")
    at = b"\x00" * MISREAD_IMAGE_BYTES
    assert _first_text(_run_with_image(at, MISREAD_IMAGE_BYTES)).startswith("Simulated")


def test_the_service_switch_reaches_each_run(sim: Simulator) -> None:
    assert sim.agent.misread_images_over == MISREAD_IMAGE_BYTES
    sim.agent.misread_images_over = None
    lane.stream_round_sync(context(sim, [{"role": "user", "content": "hi"}]))
    assert sim.agent.run().misread_images_over is None


# --- the pure pieces ----------------------------------------------------------------------


def test_the_header_reader_knows_png_gif_webp_and_jpeg_by_hand() -> None:
    assert image_size(PNG_2X3) == (2, 3)
    assert image_size(b"GIF89a" + b"\x05\x00\x07\x00") == (5, 7)
    # RIFF....WEBP, then a VP8X chunk: canvas width-1 and height-1, 24 bits each.
    vp8x = b"RIFF\x00\x00\x00\x00WEBPVP8X" + b"\x0a\x00\x00\x00" + b"\x00" * 4
    assert image_size(vp8x + b"\x09\x00\x00\x04\x00\x00") == (10, 5)
    # VP8L: signature 0x2f, then 14 bits of width-1 and 14 of height-1, little-endian.
    bits = (20 - 1) | ((30 - 1) << 14)
    vp8l = b"RIFF\x00\x00\x00\x00WEBPVP8L" + b"\x00" * 4 + b"\x2f" + bits.to_bytes(4, "little")
    assert image_size(vp8l) == (20, 30)
    # JPEG: SOI, an APP0 segment to walk over, then SOF0 {length, precision, height, width}.
    jpeg = b"\xff\xd8" + b"\xff\xe0\x00\x04\x00\x00" + b"\xff\xc0\x00\x11\x08\x00\x03\x00\x04"
    assert image_size(jpeg) == (4, 3)
    assert image_size(b"\xff\xd8\xff\xda\x00\x02") is None  # a scan before any frame
    assert image_size(b"hello") is None


@pytest.mark.parametrize("kind", ["PNG", "JPEG", "GIF", "WEBP"])
def test_the_header_reader_agrees_with_pillow(kind: str) -> None:
    out = io.BytesIO()
    Image.new("RGB", (37, 21), (10, 200, 30)).save(out, kind)
    assert image_size(out.getvalue()) == (37, 21)


def test_placeholder_says_when_the_size_is_unknown() -> None:
    said = placeholder("image/x", b"??")
    assert said == "[image: image/x, size unknown, sent in an earlier turn]"


def test_fitting_is_deterministic_and_leaves_a_small_image_alone() -> None:
    data = large_png()
    first, second = fit_image("image/png", data), fit_image("image/png", data)
    assert first.data is not None and first.data == second.data
    small = png(8, 8)
    kept = fit_image("image/png", small)
    assert kept.data is small and kept.mime == "image/png" and kept.change is None


def test_a_transparent_or_mislabelled_image_is_sent_as_what_it_is() -> None:
    out = io.BytesIO()
    Image.new("RGBA", (2100, 10), (0, 0, 0, 0)).save(out, "PNG")
    fitted = fit_image("image/png", out.getvalue())
    assert fitted.mime == "image/jpeg" and fitted.data is not None
    with Image.open(io.BytesIO(fitted.data)) as picture:
        assert picture.size == (2000, 10)
        assert picture.getpixel((0, 0)) == (255, 255, 255)  # transparency laid on white
    gif = io.BytesIO()
    Image.new("RGB", (3, 3)).save(gif, "GIF")
    assert fit_image("image/png", gif.getvalue()).mime == "image/gif"


def test_the_turns_user_message_carries_the_placeholder_not_the_image() -> None:
    messages = [user("look", ("image/png", PNG_2X3)), {"role": "user", "content": "next"}]
    fit = fit_messages(messages)
    assert fit.notices == ()
    store = BlobStore()
    history = build_history(fit.messages, None, store)
    [turn_id] = history.turn_ids
    turn = agent_pb2.ConversationTurnStructure.FromString(store.get(turn_id) or b"")
    user_blob = store.get(turn.agent_conversation_turn.user_message) or b""
    message = agent_pb2.UserMessage.FromString(user_blob)
    assert message.text == "look\n[image: image/png, 2×3, sent in an earlier turn]"
    assert not message.HasField("selected_context")
    assert messages[0]["content"][1]["type"] == "image_url"  # the host's own left alone


# --- without Pillow ----------------------------------------------------------------------

_NO_PILLOW = """
import json, sys
sys.modules["PIL"] = None  # import PIL now raises ImportError, as in a Python without it
from nodecode_cursor.core.images import fit_image
big, small = sys.stdin.buffer.read().split(b"--")
out = []
for data in (big, small):
    fitted = fit_image("image/png", data)
    out.append([fitted.data == data, fitted.refused])
print(json.dumps(out))
"""


def test_without_pillow_an_oversized_image_is_left_out_naming_pip_install() -> None:
    big = PNG_2X3[:16] + (3000).to_bytes(4, "big") + (2000).to_bytes(4, "big")
    done = subprocess.run(
        [sys.executable, "-c", _NO_PILLOW],
        input=big + b"--" + PNG_2X3,
        capture_output=True,
        check=True,
        timeout=60,
    )
    (big_sent, big_why), (small_sent, small_why) = json.loads(done.stdout)
    assert not big_sent and "pip install pillow" in big_why and "3000×2000" in big_why
    assert small_sent and small_why is None
