"""auth.json: the sign-in is written safely, other fields survive, corrupt files stay as is."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path

import jwt
import pytest

from nodecode_cursor.account.store import AuthStore, TokenEntry, token_expiry, token_user_id
from nodecode_cursor.errors import StoreError

SECRET = "s3cr3t-refresh-value-never-shown"


def make_jwt(**claims: object) -> str:
    """A signed JWT with the given claims (the store never verifies it)."""
    return jwt.encode(dict(claims), "k" * 32, algorithm="HS256")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "nodecode-home"


def test_save_entry_creates_private_file_and_folder(home: Path) -> None:
    store = AuthStore(home)
    token = make_jwt(sub="auth0|user_1", exp=2_000_000_000)
    store.save_entry(TokenEntry.from_tokens(token, SECRET, "a@b.example"))
    path = home / "auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    data = json.loads(path.read_text())
    assert data == {
        "oauth_tokens": {
            "cursor": {
                "access_token": token,
                "refresh_token": SECRET,
                "expires_at": 2_000_000_000 - 300,
                "email": "a@b.example",
            }
        }
    }
    # No temp file is left behind by the atomic write.
    assert sorted(p.name for p in home.iterdir()) == ["auth.json", "auth.json.lock"]


def test_save_entry_keeps_every_other_field(home: Path) -> None:
    home.mkdir()
    other = {
        "api_keys": {"openai": {"key": "sk-other"}},
        "oauth_tokens": {"anthropic": {"access_token": "x", "refresh_token": "y"}},
        "extra": [1, 2, {"nested": True}],
    }
    (home / "auth.json").write_text(json.dumps(other))
    store = AuthStore(home)
    store.save_entry(TokenEntry("tok", "ref", 123.0))
    data = json.loads((home / "auth.json").read_text())
    assert data["api_keys"] == other["api_keys"]
    assert data["extra"] == other["extra"]
    assert data["oauth_tokens"]["anthropic"] == other["oauth_tokens"]["anthropic"]
    assert data["oauth_tokens"]["cursor"] == {
        "access_token": "tok",
        "refresh_token": "ref",
        "expires_at": 123.0,
    }
    assert stat.S_IMODE((home / "auth.json").stat().st_mode) == 0o600
    store.save_entry(None)
    data = json.loads((home / "auth.json").read_text())
    assert "cursor" not in data["oauth_tokens"]
    assert data["oauth_tokens"]["anthropic"] == other["oauth_tokens"]["anthropic"]
    assert data["api_keys"] == other["api_keys"]


def test_a_lone_surrogate_in_another_field_survives_a_save(home: Path) -> None:
    home.mkdir()
    # Another provider's field holds a lone surrogate: JSON escapes allow it, UTF-8 cannot
    # encode it.
    raw = '{"api_keys": {"other": {"key": "ab\\ud800cd"}}, "note": "caf\u00e9"}'
    (home / "auth.json").write_text(raw)
    store = AuthStore(home)
    store.save_entry(TokenEntry.from_tokens(make_jwt(sub="u", exp=2_000_000_000), SECRET))
    data = json.loads((home / "auth.json").read_bytes())
    assert data["api_keys"] == {"other": {"key": "ab\ud800cd"}}
    assert data["note"] == "caf\u00e9"
    assert data["oauth_tokens"]["cursor"]["refresh_token"] == SECRET
    assert sorted(p.name for p in home.iterdir()) == ["auth.json", "auth.json.lock"]
    assert store.entry() is not None


def test_a_failed_write_leaves_no_temp_file_and_the_file_as_it_was(home: Path) -> None:
    home.mkdir()
    (home / "auth.json").write_text('{"keep": 1}')
    store = AuthStore(home)

    def change(data: dict[str, object]) -> bool:
        data["unwritable"] = object()  # not JSON at all
        return True

    with pytest.raises(StoreError, match="cannot be written"):
        store.update(change)
    assert (home / "auth.json").read_text() == '{"keep": 1}'
    assert sorted(p.name for p in home.iterdir()) == ["auth.json", "auth.json.lock"]


def test_forgetting_nothing_writes_nothing(home: Path) -> None:
    AuthStore(home).save_entry(None)
    assert not (home / "auth.json").exists()


def test_entry_round_trip_and_api_key(home: Path) -> None:
    home.mkdir()
    (home / "auth.json").write_text(json.dumps({"api_keys": {"cursor": {"key": " key_abc "}}}))
    store = AuthStore(home)
    assert store.entry() is None
    assert store.api_key() == "key_abc"
    store.save_entry(TokenEntry("a", "r", 99.5, None))
    entry = store.entry()
    assert entry == TokenEntry("a", "r", 99.5, None)
    assert store.api_key() == "key_abc"


def test_expiry_is_exp_less_five_minutes() -> None:
    assert token_expiry(make_jwt(sub="auth0|u", exp=1_800_000_000)) == 1_800_000_000 - 300
    # An expired token is still read: the store never verifies.
    assert token_expiry(make_jwt(exp=1000)) == 700


@pytest.mark.parametrize("token", ["not-a-jwt", make_jwt(sub="auth0|u")])
def test_expiry_without_exp_is_an_hour_from_now(token: str) -> None:
    now = time.time()
    assert abs(token_expiry(token) - (now + 3600)) <= 2
    assert token_expiry(token, now=1000.0) == 4600


def test_user_id_is_sub_after_the_bar() -> None:
    assert token_user_id(make_jwt(sub="auth0|user_9")) == "user_9"
    assert token_user_id(make_jwt(sub="user_9")) == "user_9"
    assert token_user_id("garbage") is None


def test_entry_repr_hides_tokens() -> None:
    entry = TokenEntry("access-secret", SECRET, 1.0, "a@b")
    assert "access-secret" not in repr(entry)
    assert SECRET not in repr(entry)


CORRUPT = [
    (b"{not json", "not valid JSON"),
    (b"[1, 2, 3]", "must hold a JSON object"),
    (b'"just a string"', "must hold a JSON object"),
    (b'{"oauth_tokens": "nope"}', "oauth_tokens must be an object"),
    (b'{"oauth_tokens": {"cursor": []}}', "oauth_tokens.cursor must be an object"),
    (
        b'{"oauth_tokens": {"cursor": {"access_token": "a", "expires_at": 1}}}',
        "has no oauth_tokens.cursor.refresh_token (it must be a string)",
    ),
    (
        b'{"oauth_tokens": {"cursor": {"access_token": "a", "refresh_token": "r", '
        b'"expires_at": "soon"}}}',
        "oauth_tokens.cursor.expires_at must be a number",
    ),
    (b'{"api_keys": {"cursor": "bare-key"}}', "api_keys.cursor must be an object"),
    (
        b'{"oauth_tokens": {"cursor": {"access_token": 7, "refresh_token": "'
        + SECRET.encode()
        + b'", "expires_at": 1}}}',
        "oauth_tokens.cursor.access_token must be a string",
    ),
]


@pytest.mark.parametrize(("content", "words"), CORRUPT)
def test_corrupt_file_is_never_overwritten(home: Path, content: bytes, words: str) -> None:
    home.mkdir()
    path = home / "auth.json"
    path.write_bytes(content)
    before = path.stat().st_mtime_ns
    store = AuthStore(home)
    with pytest.raises(StoreError) as caught:
        store.save_entry(TokenEntry("tok", "ref", 1.0))
    message = str(caught.value)
    assert words in message
    assert str(path) in message
    assert SECRET not in message and "bare-key" not in message
    assert "\n" not in message
    with pytest.raises(StoreError):
        store.save_entry(None)
    with pytest.raises(StoreError):
        store.entry()
    assert path.read_bytes() == content
    assert path.stat().st_mtime_ns == before


def test_concurrent_writers_lose_nothing(home: Path) -> None:
    store_count = 8
    errors: list[BaseException] = []

    def add(n: int) -> None:
        store = AuthStore(home)  # one store per thread: they share only the lock file
        try:
            for i in range(5):

                def change(data: dict[str, object], key: str = f"w{n}-{i}") -> bool:
                    data[key] = True
                    return True

                store.update(change)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(n,)) for n in range(store_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    data = json.loads((home / "auth.json").read_text())
    assert len(data) == store_count * 5
    assert os.stat(home / "auth.json").st_mode & 0o077 == 0


def test_a_number_past_the_digit_limit_is_a_store_error_and_the_file_stays(tmp_path: Path) -> None:
    from nodecode_cursor.account.store import AuthStore
    from nodecode_cursor.errors import StoreError

    path = tmp_path / "auth.json"
    body = '{"other": ' + "7" * 5000 + "}"
    path.write_text(body)
    with pytest.raises(StoreError, match="number too long"):
        AuthStore(tmp_path).read()
    assert path.read_text() == body
