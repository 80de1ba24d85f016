"""The error hierarchy: status, detail, retryable, str() and repr(), who subclasses whom."""

from __future__ import annotations

import pickle

import pytest

from nodecode_cursor.errors import (
    ConfigError,
    CredentialError,
    CursorError,
    ProtocolError,
    ProviderError,
    StoreError,
    StreamIncomplete,
    scrub,
)

DEFAULTS = [
    (CursorError, 500, False),
    (ProviderError, 502, False),
    (StreamIncomplete, 502, True),
    (ProtocolError, 502, False),
    (ConfigError, 400, False),
    (CredentialError, 401, False),
    (StoreError, 500, False),
]


@pytest.mark.parametrize(("cls", "status", "retryable"), DEFAULTS)
def test_defaults(cls: type[CursorError], status: int, retryable: bool) -> None:
    error = cls("something went wrong")
    assert error.status == status
    assert error.retryable is retryable
    assert error.detail == "something went wrong"
    assert str(error) == "something went wrong"
    assert isinstance(error, CursorError)
    assert isinstance(error, Exception)


@pytest.mark.parametrize(("cls", "status", "retryable"), DEFAULTS)
def test_overrides_apply_to_the_instance_only(
    cls: type[CursorError], status: int, retryable: bool
) -> None:
    error = cls("x", status=429, retryable=not retryable)
    assert error.status == 429
    assert error.retryable is (not retryable)
    # The class default is untouched for the next instance.
    fresh = cls("y")
    assert fresh.status == status
    assert fresh.retryable is retryable


def test_str_is_exactly_the_detail() -> None:
    error = ProviderError("Cursor BAD_MODEL_NAME: Model not found", status=404)
    assert str(error) == "Cursor BAD_MODEL_NAME: Model not found"
    assert error.args == ("Cursor BAD_MODEL_NAME: Model not found",)


def test_repr_shows_class_status_and_detail_only() -> None:
    error = CredentialError("Sign in again", status=401)
    assert repr(error) == "CredentialError(status=401, detail='Sign in again')"


def test_repr_carries_nothing_beyond_the_detail() -> None:
    secret = "eyJhbGciOiJIUzI1NiJ9.secret-token"
    error = CredentialError("Sign in again")
    # Attaching context after the fact must not leak into repr/str.
    error.__cause__ = RuntimeError(secret)
    error.token = secret  # type: ignore[attr-defined]
    assert secret not in repr(error)
    assert secret not in str(error)


@pytest.mark.parametrize(
    ("child", "parent"),
    [
        (ProviderError, CursorError),
        (StreamIncomplete, ProviderError),
        (ProtocolError, ProviderError),
        (ConfigError, CursorError),
        (CredentialError, CursorError),
        (StoreError, CursorError),
    ],
)
def test_subclass_relations(child: type[CursorError], parent: type[CursorError]) -> None:
    assert issubclass(child, parent)


@pytest.mark.parametrize(
    ("cls", "not_parent"),
    [
        (ConfigError, ProviderError),
        (CredentialError, ProviderError),
        (StoreError, ProviderError),
        (StreamIncomplete, ProtocolError),
        (ProtocolError, StreamIncomplete),
    ],
)
def test_unrelated_branches(cls: type[CursorError], not_parent: type[CursorError]) -> None:
    assert not issubclass(cls, not_parent)


def test_catching_provider_error_catches_stream_and_protocol_errors() -> None:
    for cls in (StreamIncomplete, ProtocolError):
        with pytest.raises(ProviderError):
            raise cls("boom")


def test_pickle_keeps_detail() -> None:
    # Errors cross thread/process boundaries in hosts; the detail must survive.
    error = ProtocolError("frame too long", status=413, retryable=True)
    back = pickle.loads(pickle.dumps(error))
    assert str(back) == "frame too long"
    assert type(back) is ProtocolError
    assert (back.status, back.retryable) == (413, True)


@pytest.mark.parametrize(
    "leaky",
    [
        "Illegal header value b'Bearer secretAAA\\nsecretBBB'",
        "Illegal header value b'Bearer abc secretAAA\\nX: secretBBB'",
        "headers: {'authorization': 'Bearer abc secretAAA secretBBB'}",
        "authorization: Bearer tok secretAAA secretBBB",
        "authorization: Bearer tok-SECRET-1 refused",
        "cookie WorkosCursorSessionToken=u%3A%3AeyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl",
    ],
)
def test_error_text_never_carries_a_credential(leaky: str) -> None:
    for error in (CursorError(leaky), ProviderError(f"Could not reach http://x: {leaky}")):
        for secret in ("secretAAA", "secretBBB", "tok-SECRET-1", "eyJhbGciOiJIUzI1NiJ9"):
            assert secret not in str(error)
            assert secret not in repr(error)
        assert "[redacted]" in str(error)


def test_scrub_leaves_ordinary_text_alone() -> None:
    text = "Connect error unauthenticated: the bearer token was refused (Bearer token missing)"
    assert scrub(text) == text
    assert scrub("Cursor BAD_API_KEY: Invalid key") == "Cursor BAD_API_KEY: Invalid key"


def test_code_is_none_by_default_and_kept_when_given() -> None:
    assert CursorError("x").code is None
    error = ConfigError("Unknown Cursor model 'x'.", code="unknown_model")
    assert error.code == "unknown_model"
    assert repr(error) == (
        "ConfigError(status=400, code='unknown_model', detail=\"Unknown Cursor model 'x'.\")"
    )
    back = pickle.loads(pickle.dumps(ProviderError("gone", status=404, code="not_found")))
    assert back.code == "not_found"
