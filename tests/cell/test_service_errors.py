"""Cursor refusing an outdated client, and details of a standard type, classified from bytes.

The ErrorDetails and ErrorInfo values are written byte by byte from their field numbers
(docs/protocol.md §9); the words are the ones other public clients reported.
"""

from __future__ import annotations

import base64
import json

import pytest

from nodecode_cursor.errors import ConfigError, OutdatedClient, ProviderError, ResourceExhausted
from nodecode_cursor.wire.connect import classify_connect_error, parse_end_stream, parse_refusal

TITLE = "Update Required"
DETAIL = "Your version of Cursor is no longer supported. Please update to the latest version."


def _field(number: int, data: bytes) -> bytes:
    assert len(data) < 0x80
    return bytes([number << 3 | 2, len(data)]) + data


def outdated_details(code: int = 28) -> str:
    """Return ErrorDetails{1 error CODE, 2 details{1 title, 2 detail}} as unpadded base64."""
    inner = _field(1, TITLE.encode()) + _field(2, DETAIL.encode())
    raw = bytes([0x08, code]) + _field(2, inner)
    return base64.b64encode(raw).decode().rstrip("=")


def test_update_required_in_error_details_is_a_config_error_never_a_rate_limit() -> None:
    trailer = {
        "error": {
            "code": "resource_exhausted",
            "message": "Error",
            "details": [{"type": "aiserver.v1.ErrorDetails", "value": outdated_details()}],
        }
    }
    error = parse_end_stream(json.dumps(trailer).encode())
    assert isinstance(error, OutdatedClient)
    assert isinstance(error, ConfigError) and isinstance(error, ProviderError)
    assert not isinstance(error, ResourceExhausted)
    assert (error.status, error.retryable, error.code) == (400, False, "outdated_client")
    assert "Update Required" in str(error) and "no longer supported" in str(error)
    assert "CURSOR_CLIENT_VERSION" in str(error) and "cursor.client_version" in str(error)
    assert error.hint is not None and "CURSOR_CLIENT_VERSION" in error.hint


def test_only_the_detail_saying_the_version_is_unsupported_is_enough() -> None:
    inner = _field(2, b"This version is no longer supported")
    value = base64.b64encode(bytes([0x08, 28]) + _field(2, inner)).decode()
    error = classify_connect_error(
        {
            "code": "resource_exhausted",
            "details": [{"type": "aiserver.v1.ErrorDetails", "value": value}],
        }
    )
    assert isinstance(error, OutdatedClient) and not error.retryable


def test_a_bare_update_required_refusal_is_the_same_error() -> None:
    body = b'{"code":"invalid_argument","message":"Update Required for Composer 2"}'
    parsed = parse_refusal(body)
    assert parsed is not None
    error = classify_connect_error(parsed, http_status=400)
    assert isinstance(error, OutdatedClient)
    assert str(error).startswith(
        "Cursor no longer accepts this client version (Connect error invalid_argument: "
        "Update Required for Composer 2)"
    )


def test_code_28_without_those_words_stays_a_rate_limit() -> None:
    raw = bytes([0x08, 28]) + _field(2, _field(1, b"Slow down"))
    value = base64.b64encode(raw).decode()
    error = classify_connect_error(
        {
            "code": "resource_exhausted",
            "details": [{"type": "aiserver.v1.ErrorDetails", "value": value}],
        }
    )
    assert not isinstance(error, OutdatedClient)
    assert (error.status, error.retryable) == (429, True)


def test_a_standard_detail_shows_its_type_and_value_and_is_no_usage_limit() -> None:
    # oh-my-pi's terminal-error case: google.rpc.ErrorInfo whose value is text, not protobuf.
    error = classify_connect_error(
        {
            "code": "invalid_argument",
            "message": "Error",
            "details": [
                {"type": "google.rpc.ErrorInfo", "value": "resource exhausted for field tools"}
            ],
        }
    )
    assert str(error) == (
        "Connect error invalid_argument: Error "
        "(google.rpc.ErrorInfo: resource exhausted for field tools)"
    )
    assert type(error) is ProviderError
    assert (error.status, error.retryable) == (400, False)


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "google.rpc.ErrorInfo", "debug": "resource_exhausted for this account"},
        {"type": "google.rpc.QuotaFailure", "value": "resource-exhausted quota"},
    ],
)
def test_details_after_the_message_never_decide_the_kind(entry: dict[str, str]) -> None:
    error = classify_connect_error(
        {"code": "invalid_argument", "message": "Error", "details": [entry]}
    )
    assert "exhausted" in str(error)
    assert not isinstance(error, ResourceExhausted) and not error.retryable


def test_the_older_wording_to_update_to_the_latest_version_is_the_same_error() -> None:
    # The title and detail a public client reported in October 2025 (wisdgod/cursor-api #27).
    words = b"Please update to the latest version of Cursor at cursor.com/downloads"
    value = base64.b64encode(bytes([0x08, 0]) + _field(2, _field(1, words))).decode()
    error = classify_connect_error(
        {"code": "unknown", "details": [{"type": "aiserver.v1.ErrorDetails", "value": value}]}
    )
    assert isinstance(error, OutdatedClient)
