"""The images a run carries, within the limits the live service keeps (docs/protocol.md, Images).

``fit_messages`` rewrites a round's chat messages before the request is built:

* the current turn (the last user message and the tool results after it) keeps
  its images, each fitted by ``fit_image``: at most ``limits.MAX_IMAGES_PER_MESSAGE``
  a message; one over ``limits.MAX_IMAGE_BYTES`` or with an edge over
  ``limits.MAX_IMAGE_EDGE`` re-encoded as a JPEG scaled to fit; one that cannot be
  read left out. A model whose bundled row takes no images gets placeholders instead;
* every earlier image becomes the text ``[image: MIME, W×H, sent in an earlier turn]``,
  so a long session stops sending every past picture again each round.

Whatever was left out or replaced is said in ``ImageFit.notices`` (the lane tells
the person). Pillow does the decoding and encoding; it is imported on first need,
and without it an image that needs shrinking is left out with a notice naming
``pip install pillow`` (a drop-in folder's Python may lack it). The same input gives
the same bytes. Pure: no I/O (Pillow works on bytes in memory); building the request
from the messages is ``history.py``'s, telling the person is the lane's.
"""

from __future__ import annotations

import base64
import binascii
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .. import limits
from .history import parse_data_url
from .seen import PassMemo

__all__ = [
    "Fitted",
    "ImageFit",
    "ImageMemo",
    "fit_image",
    "fit_messages",
    "has_images",
    "image_size",
    "placeholder",
]

# What Cursor's clients send as a SelectedImage; another type is re-encoded as a JPEG.
_SENDABLE = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
# Pillow's format names for them (what a decoded image says it is).
_FORMAT_MIME = {"JPEG": "image/jpeg", "PNG": "image/png", "GIF": "image/gif", "WEBP": "image/webp"}
# The base64 an earlier image's size is first read from: every header but a JPEG's
# with a long EXIF block is inside it, and the rest is decoded only when it is not.
_HEADER_CHARS = 64 * 1024
_PILLOW_HINT = "pip install pillow"


@dataclass(frozen=True, slots=True)
class Fitted:
    """One image fitted for the wire: its type and bytes, or None with why it was left out."""

    mime: str
    data: bytes | None
    # Why the image is left out (None: it is sent), and what was done to it (for a log).
    refused: str | None = None
    change: str | None = None


@dataclass(frozen=True, slots=True)
class ImageFit:
    """A round's messages with their images fitted, and what the person should be told."""

    messages: list[dict[str, Any]]
    notices: tuple[str, ...] = ()
    # What was re-encoded, for a debug log.
    changes: tuple[str, ...] = ()


def image_size(data: bytes) -> tuple[int, int] | None:
    """Return (width, height) from a PNG, JPEG, GIF or WebP header, or None when unknown."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR" and len(data) >= 24:
        return _positive(int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big"))
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return _positive(int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little"))
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_size(data)
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


def _positive(width: int, height: int) -> tuple[int, int] | None:
    """Return (WIDTH, HEIGHT) when both are positive, else None."""
    return (width, height) if width > 0 and height > 0 else None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    """Return a WebP's size from its first chunk (lossy VP8, lossless VP8L, extended VP8X)."""
    chunk = data[12:16]
    if chunk == b"VP8 " and len(data) >= 30 and data[23:26] == b"\x9d\x01\x2a":
        width = int.from_bytes(data[26:28], "little") & 0x3FFF
        height = int.from_bytes(data[28:30], "little") & 0x3FFF
        return _positive(width, height)
    if chunk == b"VP8L" and len(data) >= 25 and data[20] == 0x2F:
        bits = int.from_bytes(data[21:25], "little")
        return _positive((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(data) >= 30:
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return _positive(width, height)
    return None


# JPEG start-of-frame markers (every coding but DHT C4, JPG C8 and DAC CC).
_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})
# Markers that stand alone, without a length.
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    """Return a JPEG's size from its start-of-frame segment, walking the segments before it."""
    index = 2
    end = len(data)
    while index + 4 <= end:
        if data[index] != 0xFF:
            return None
        marker = data[index + 1]
        if marker == 0xFF:  # fill byte before a marker
            index += 1
            continue
        if marker in _STANDALONE:
            index += 2
            continue
        length = int.from_bytes(data[index + 2 : index + 4], "big")
        if marker in _SOF:
            if index + 9 > end:
                return None
            height = int.from_bytes(data[index + 5 : index + 7], "big")
            width = int.from_bytes(data[index + 7 : index + 9], "big")
            return _positive(width, height)
        if marker == 0xDA or length < 2:  # the scan starts: no frame header before it
            return None
        index += 2 + length
    return None


def _size_text(size: tuple[int, int] | None) -> str:
    """Return SIZE as ``W×H``, or ``size unknown``."""
    return f"{size[0]}×{size[1]}" if size is not None else "size unknown"


def placeholder(mime: str, data: bytes, why: str = "sent in an earlier turn") -> str:
    """Return the text an image is replaced by: ``[image: MIME, W×H, WHY]``."""
    return f"[image: {mime}, {_size_text(image_size(data))}, {why}]"


def _pillow() -> ModuleType | None:
    """Return Pillow's Image module, or None when Pillow is not installed."""
    try:
        from PIL import Image
    except ImportError:
        return None
    return Image


def _mib(size: int) -> str:
    """Return SIZE bytes as MiB with one decimal."""
    return f"{size / (1024 * 1024):.1f} MiB"


def fit_image(mime: str, data: bytes) -> Fitted:
    """Return DATA (of type MIME) as it may be sent: as it is, re-encoded, or left out (why).

    With Pillow every image is decoded first (one that does not decode is left out);
    one within the bounds goes as it is, under the type its bytes say; one over them,
    or of a type Cursor's clients do not send, is re-encoded (``_reencoded``). Without
    Pillow an image within the bounds by its header goes unchecked, and one over them
    is left out.
    """
    mime = mime.strip().lower()
    mime = "image/jpeg" if mime == "image/jpg" else mime
    size = image_size(data)
    over = len(data) > limits.MAX_IMAGE_BYTES or (
        size is not None and max(size) > limits.MAX_IMAGE_EDGE
    )
    image = _pillow()
    if image is None:
        if over or mime not in _SENDABLE:
            what = f"{mime}, {_mib(len(data))}, {_size_text(size)}"
            return Fitted(
                mime,
                None,
                refused=f"it ({what}) is over Cursor's limits ({_mib(limits.MAX_IMAGE_BYTES)}, "
                f"{limits.MAX_IMAGE_EDGE} px) or of a type it does not take, and shrinking "
                f"it needs Pillow ({_PILLOW_HINT})",
            )
        return Fitted(mime, data)
    return _fitted_with(image, mime, data)


def _fitted_with(image: ModuleType, mime: str, data: bytes) -> Fitted:
    """Return ``fit_image``'s answer with Pillow's Image module IMAGE."""
    try:
        with image.open(io.BytesIO(data)) as picture:
            picture.load()
            real = _FORMAT_MIME.get(picture.format or "")
            width, height = picture.size
            if (
                real is not None
                and len(data) <= limits.MAX_IMAGE_BYTES
                and max(width, height) <= limits.MAX_IMAGE_EDGE
            ):
                return Fitted(real, data)
            encoded, shape = _reencoded(image, picture)
    except (OSError, ValueError, SyntaxError, image.DecompressionBombError):
        # Pillow's errors for bytes that are not an image it can read (a truncated
        # file, an unknown format, a header that lies, a picture of absurd size).
        return Fitted(mime, None, refused="it could not be read as an image")
    if encoded is None:
        return Fitted(
            mime,
            None,
            refused=f"even as a JPEG it is over Cursor's {_mib(limits.MAX_IMAGE_BYTES)} limit",
        )
    change = (
        f"{mime} {_mib(len(data))} {width}×{height} re-encoded as "
        f"image/jpeg {_mib(len(encoded))} {shape[0]}×{shape[1]}"
    )
    return Fitted("image/jpeg", encoded, change=change)


def _reencoded(image: ModuleType, picture: Any) -> tuple[bytes | None, tuple[int, int]]:
    """Return PICTURE as a JPEG within the limits (None when none fits) and its size.

    Turned as its EXIF orientation says (the tags do not survive), transparency laid
    on white (a JPEG has none), scaled so its longest edge is at most the limit,
    then encoded at the first quality of ``limits.IMAGE_JPEG_QUALITIES`` that fits.
    """
    from PIL import ImageOps

    picture = ImageOps.exif_transpose(picture)
    if picture.mode not in ("RGB", "L"):
        rgba = picture.convert("RGBA")
        flat = image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        picture = flat
    width, height = picture.size
    longest = max(width, height)
    if longest > limits.MAX_IMAGE_EDGE:
        scale = limits.MAX_IMAGE_EDGE / longest
        shape = (max(1, round(width * scale)), max(1, round(height * scale)))
        picture = picture.resize(shape, image.Resampling.LANCZOS)
    for quality in limits.IMAGE_JPEG_QUALITIES:
        out = io.BytesIO()
        picture.save(out, "JPEG", quality=quality, optimize=True)
        if out.tell() <= limits.MAX_IMAGE_BYTES:
            return out.getvalue(), picture.size
    return None, picture.size


def _unbase64(text: str) -> bytes | None:
    """Return the bytes base64 TEXT spells, or None when it does not decode."""
    try:
        return base64.b64decode(text, validate=False)
    except (binascii.Error, ValueError):
        return None


def _earlier_size_data(encoded: str) -> bytes:
    """Return enough of base64 ENCODED to read its image's size (all of it if need be)."""
    head = _unbase64(encoded[:_HEADER_CHARS]) or b""
    if image_size(head) is not None or len(encoded) <= _HEADER_CHARS:
        return head
    return _unbase64(encoded) or b""


def _image_url(part: Mapping[str, Any]) -> Any:
    """Return an ``image_url`` part's URL (the object form or the bare string)."""
    image_url = part.get("image_url")
    return image_url.get("url") if isinstance(image_url, Mapping) else image_url


def _text(text: str) -> dict[str, Any]:
    """Return a text content part."""
    return {"type": "text", "text": text}


def _image_part(mime: str, data: bytes) -> dict[str, Any]:
    """Return an ``image_url`` content part of DATA as a data URL."""
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


class _Told:
    """What a fit says: notices for the person, changes for the log."""

    def __init__(self) -> None:
        self.notices: list[str] = []
        self.changes: list[str] = []


def _earlier(content: list[Any]) -> list[Any]:
    """Return an earlier turn's CONTENT with each data-URL image as its placeholder text."""
    out: list[Any] = []
    for part in content:
        parsed = (
            parse_data_url(_image_url(part))
            if isinstance(part, Mapping) and part.get("type") == "image_url"
            else None
        )
        if parsed is None:
            out.append(part)
            continue
        out.append(_text(placeholder(parsed[0], _earlier_size_data(parsed[1]))))
    return out


def _current(content: list[Any], no_images: str | None, told: _Told) -> list[Any]:
    """Return the current turn's CONTENT with its images fitted (placeholders instead when
    NO_IMAGES names the model, which takes none)."""
    out: list[Any] = []
    seen = 0
    for part in content:
        if not isinstance(part, Mapping) or part.get("type") != "image_url":
            out.append(part)
            continue
        url = _image_url(part)
        parsed = parse_data_url(url)
        if parsed is None:
            # history.py leaves such an image out; the person hears of it here.
            told.notices.append(
                "An image given by address, not inline, was left out: Cursor takes images "
                "as data: URLs."
            )
            continue
        seen += 1
        if seen > limits.MAX_IMAGES_PER_MESSAGE:
            continue
        mime, encoded = parsed
        data = _unbase64(encoded)
        if data is None:
            told.notices.append(f"Image {seen} was left out: its base64 does not decode.")
            continue
        if no_images is not None:
            why = f"not sent: {no_images} takes no images"
            out.append(_text(placeholder(mime, data, why)))
            told.notices.append(f"{no_images} takes no images: image {seen} was sent as text.")
            continue
        fitted = fit_image(mime, data)
        if fitted.data is None:
            told.notices.append(f"Image {seen} was left out: {fitted.refused}.")
            continue
        if fitted.change is not None:
            told.changes.append(f"image {seen}: {fitted.change}")
        out.append(part if fitted.data is data else _image_part(fitted.mime, fitted.data))
    extra = seen - limits.MAX_IMAGES_PER_MESSAGE
    if extra > 0:
        told.notices.append(
            f"{extra} image{'s' if extra > 1 else ''} left out: Cursor takes at most "
            f"{limits.MAX_IMAGES_PER_MESSAGE} in one message."
        )
    return out


def has_images(content: Any) -> bool:
    """Return whether CONTENT is a list of parts with an image among them."""
    return isinstance(content, list) and any(
        isinstance(part, Mapping) and part.get("type") == "image_url" for part in content
    )


class ImageMemo(PassMemo):
    """What ``fit_messages`` read of a session's messages and made of their images.

    The index of the last user message, the indexes of the messages with images,
    and each of those as fitted (with what its fit said), under its index, whether
    it was in the current turn, and the model that takes no images (None: any
    model). A message is fitted once: an image of the current turn is not decoded
    and encoded again every round of a tool loop, nor an earlier one measured.
    """

    __slots__ = ("last_user", "made", "with_images")

    def __init__(self) -> None:
        super().__init__()
        self.reset()

    def reset(self) -> None:
        """Forget what was read and fitted."""
        super().reset()
        self.last_user = 0
        self.with_images: list[int] = []
        self.made: dict[tuple[int, bool, str | None], _Made] = {}

    def read(self, messages: Sequence[Mapping[str, Any]]) -> None:
        """Read the MESSAGES not read yet (all of them when they do not go on from those)."""
        start = self.known(messages)
        try:
            for index in range(start, len(messages)):
                message = messages[index]
                if message.get("role") == "user":
                    self.last_user = index
                if has_images(message.get("content")):
                    self.with_images.append(index)
            self.seen += messages[start:]
        except BaseException:
            self.reset()
            raise


# A message with its images fitted, and the notices and changes that said.
_Made = tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]


def fit_messages(
    messages: Sequence[dict[str, Any]],
    no_images: str | None = None,
    memo: ImageMemo | None = None,
) -> ImageFit:
    """Return MESSAGES with every image fitted or replaced, and what to tell the person.

    The current turn starts at the last user message: its images and those of the
    tool results after it are fitted (a tool loop keeps seeing the picture it works
    on); every image before it becomes its placeholder. NO_IMAGES is the model's
    name when its bundled row takes no images: then the current turn's images are
    placeholders too, with a notice. Messages without images are the same objects;
    MESSAGES itself is never modified. MEMO is what an earlier round of the session
    read and fitted (``ImageMemo``): a message fitted then is not fitted again.
    """
    memo = memo if memo is not None else ImageMemo()
    memo.read(messages)
    start = memo.last_user
    out = list(messages)
    notices: list[str] = []
    changes: list[str] = []
    made = memo.made
    for index in memo.with_images:
        current = index >= start
        key = (index, current, no_images if current else None)
        found = made.get(key)
        if found is None:
            message = messages[index]
            content = message["content"]
            told = _Told()
            new = _current(content, no_images, told) if current else _earlier(content)
            found = made[key] = ({**message, "content": new}, (*told.notices,), (*told.changes,))
        out[index], said, changed = found
        notices += said
        changes += changed
    for key in [key for key in made if key[1] and key[0] < start]:
        del made[key]  # of a turn that is no longer the current one
    return ImageFit(out, tuple(notices), tuple(changes))
