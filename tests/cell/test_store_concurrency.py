"""auth.json under fire: 8 processes refreshing, logging in and out of one file at once.

The simulator (in this process) serves ``oauth/token`` and counts refresh calls;
the workers are separate Python processes using the real ``AuthStore`` and
``signin.refresh_if_due`` against it. A reader process parses the file as fast
as it can the whole time. Properties: the file always parses as a JSON object
(atomic replace, never a half-written file), other providers' fields are never
lost (read-modify-write under the lock), and each expiry is refreshed at most
once however many processes find it due together.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cursor_simulator import Simulator
from cursor_simulator.auth import make_token

WORKERS = 8
REPO = Path(__file__).resolve().parents[2]

OTHERS: dict[str, Any] = {
    "api_keys": {"openai": {"key": "sk-other-provider"}},
    "oauth_tokens": {"anthropic": {"access_token": "a-other", "refresh_token": "r-other"}},
    "theme": {"colors": [1, 2, 3], "name": "dusk"},
}

WORKER = r"""
import json, random, sys, time
from nodecode_cursor.account import signin, store
from cursor_simulator.auth import make_token

home, base_url, mode, ops, seed = sys.argv[1:6]
random.seed(int(seed))
auth = store.AuthStore(home)
counts = {"refresh": 0, "login": 0, "logout": 0, "errors": []}
print("ready", flush=True)
sys.stdin.readline()  # the go: every worker is started and waiting, so they start together
for _ in range(int(ops)):
    mix = ["refresh", "refresh", "login", "logout"]
    op = "refresh" if mode == "refresh" else random.choice(mix)
    try:
        if op == "refresh":
            signin.refresh_if_due(auth, base_url)
        elif op == "login":
            # A login's result: a token already due, so the next refresh has work to do.
            token = make_token("auth0|user_123", 30, jti=f"login-{seed}-{counts['login']}")
            auth.save_entry(store.TokenEntry.from_tokens(token, f"r-{seed}", "p@example.com"))
        else:
            auth.save_entry(None)
        counts[op] += 1
    except Exception as exc:
        counts["errors"].append(f"{op}: {type(exc).__name__}: {exc}")
print(json.dumps(counts))
"""

READER = r"""
import json, os, sys
path, stop_file = sys.argv[1:3]
reads = bad = lost = 0
problems = []
while not os.path.exists(stop_file):
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        continue
    reads += 1
    try:
        data = json.loads(raw)
    except ValueError as exc:
        bad += 1
        problems.append(f"invalid JSON ({len(raw)} bytes): {exc}")
        continue
    others_ok = (
        isinstance(data, dict)
        and data.get("api_keys", {}).get("openai", {}).get("key") == "sk-other-provider"
        and data.get("oauth_tokens", {}).get("anthropic", {}).get("access_token") == "a-other"
        and data.get("theme", {}).get("name") == "dusk"
    )
    if not others_ok:
        lost += 1
        problems.append("another provider's field is missing")
print(json.dumps({"reads": reads, "bad": bad, "lost": lost, "problems": problems[:5]}))
"""


def write_auth(home: Path, token: str) -> None:
    data = json.loads(json.dumps(OTHERS))
    data["oauth_tokens"]["cursor"] = {
        "access_token": token,
        "refresh_token": "r-start",
        "expires_at": time.time() - 1,  # due now
    }
    (home / "auth.json").write_text(json.dumps(data))
    os.chmod(home / "auth.json", 0o600)


def hammer(home: Path, sim: Simulator, mode: str, ops: int) -> tuple[list[dict[str, Any]], Any]:
    """Run WORKERS workers and the reader over HOME; return their reports."""
    stop = home / "stop"
    stop.unlink(missing_ok=True)
    env = {**os.environ, "NO_PROXY": "127.0.0.1,localhost"}
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(home / "auth.json"), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(home), sim.url, mode, str(ops), str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )
        for n in range(WORKERS)
    ]
    reports = []
    try:
        for worker in workers:
            assert worker.stdout is not None
            assert worker.stdout.readline() == "ready\n"
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()  # communicate closes it
        for worker in workers:
            out, err = worker.communicate(timeout=300)  # only stops a hung test
            assert worker.returncode == 0, err[-2000:]
            reports.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        stop.touch()
        reader_out, _ = reader.communicate(timeout=30)
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.communicate()
    return reports, json.loads(reader_out)


def test_eight_processes_refreshing_one_expiry_refresh_it_once(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with Simulator() as sim:
        sim.auth.refresh_delay = 0.05  # widen the window in which the others find it due
        for expiry in range(1, 4):
            write_auth(home, make_token("auth0|user_123", 10, jti=f"start-{expiry}"))
            reports, reader = hammer(home, sim, "refresh", 3)
            assert [r["errors"] for r in reports] == [[]] * WORKERS
            assert sim.auth.refresh_calls == expiry  # one per expiry, not one per process
            assert reader["bad"] == 0 and reader["lost"] == 0, reader["problems"]
        data = json.loads((home / "auth.json").read_text())
        assert data["oauth_tokens"]["cursor"]["access_token"] == sim.auth.refreshed[-1]
        for key, value in OTHERS.items():
            if key != "oauth_tokens":
                assert data[key] == value
        assert data["oauth_tokens"]["anthropic"] == OTHERS["oauth_tokens"]["anthropic"]
    assert sorted(p.name for p in home.iterdir() if p.name.endswith(".tmp")) == []


def test_eight_processes_mixing_refresh_login_and_logout_keep_the_file_whole(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with Simulator() as sim:
        write_auth(home, make_token("auth0|user_123", 10, jti="start"))
        reports, reader = hammer(home, sim, "mix", 25)
        assert [r["errors"] for r in reports] == [[]] * WORKERS
        logins = sum(r["login"] for r in reports)
        # Each expiry (the starting token, and each login's already-due token) is
        # refreshed at most once; a refreshed token is good for an hour.
        assert sim.auth.refresh_calls <= logins + 1
        assert reader["reads"] > 0
        assert reader["bad"] == 0, reader["problems"]
        assert reader["lost"] == 0, reader["problems"]
        data = json.loads((home / "auth.json").read_text())
        assert data["api_keys"] == OTHERS["api_keys"] and data["theme"] == OTHERS["theme"]
        assert data["oauth_tokens"]["anthropic"] == OTHERS["oauth_tokens"]["anthropic"]
        print(
            f"mix: {logins} logins, {sum(r['logout'] for r in reports)} logouts, "
            f"{sum(r['refresh'] for r in reports)} refresh checks, "
            f"{sim.auth.refresh_calls} refreshes; reader parsed {reader['reads']} versions"
        )
    assert (home / "auth.json").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in home.iterdir() if p.name.endswith(".tmp")) == []
