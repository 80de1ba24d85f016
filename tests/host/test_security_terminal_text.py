"""Text the service, the profile or a proxy chose never reaches the terminal raw (issue 36, item 4).

The CLI runs as a process against the simulator. The profile's email, a refusal's
message and a stream's error text carry an escape sequence that sets the terminal's
title (OSC 0); each must come out as visible escapes, on every line that shows it:
``login``, ``status``, ``doctor``'s catalog line, ``-v``'s traceback and log lines.
A proxy that echoes the ``Proxy-Authorization`` it was sent has it scrubbed.
"""

from __future__ import annotations

import base64
from pathlib import Path

from cli_run import RUN_TIMEOUT, cli_env, run_cli, start_login
from test_cli_doctor_network import SECRET, TunnelProxy, doctor, set_proxy

from cursor_simulator import Simulator
from cursor_simulator.steps import GrpcEnd

TITLE = "\x1b]0;pwned\x07"
SHOWN = "\\x1b]0;pwned\\x07"


def raw_free(text: str) -> None:
    """Assert TEXT holds no escape or bell character (the sequence was shown, not sent)."""
    assert "\x1b" not in text and "\x07" not in text, text


def test_the_profiles_email_is_escaped_by_login_and_status(sim: Simulator, home: Path) -> None:
    sim.auth.email = f"eve{TITLE}@example.com"
    env = cli_env(home, signed_out=True)
    process = start_login(sim, env)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        login_id = first.split("uuid=")[1].split("&")[0].split()[0]
        sim.auth.confirm(login_id)
        out, err = process.communicate(timeout=RUN_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert f"cursor: signed in as eve{SHOWN}@example.com" in out
    raw_free(out + err)
    status = run_cli("--base-url", sim.url, "status", env=env)
    assert status.returncode == 0, status.stderr
    assert f"signed in as eve{SHOWN}@example.com" in status.stdout
    raw_free(status.stdout + status.stderr)
    # A second login says who is signed in first.
    again = start_login(sim, env)
    try:
        assert again.stdout is not None
        said = again.stdout.readline()
    finally:
        again.kill()
        again.communicate()
    assert said == f"cursor: already signed in as eve{SHOWN}@example.com; " + (
        "a new sign-in replaces it when it finishes (login --add keeps it and adds another"
        " account)\n"
    )


def test_doctors_catalog_line_shows_a_refusals_text_escaped(sim: Simulator, home: Path) -> None:
    sim.catalog.refuse(503, "unavailable", f"down{TITLE}")
    done = run_cli("--base-url", sim.url, "doctor", "--no-rounds", env=cli_env(home))
    assert done.returncode == 1
    catalog = next(line for line in done.stdout.splitlines() if "catalog:" in line)
    assert catalog.startswith("FAIL  catalog:")
    assert SHOWN in catalog
    raw_free(done.stdout + done.stderr)


def test_a_verbose_traceback_and_log_show_the_services_error_text_escaped(
    sim: Simulator, home: Path
) -> None:
    sim.agent.script([GrpcEnd(13, f"boom{TITLE}")])
    done = run_cli("-v", "--base-url", sim.url, "ask", "hello", env=cli_env(home))
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert f"gRPC status 13 (internal): boom{SHOWN}" in done.stderr
    raw_free(done.stdout + done.stderr)


def test_a_proxy_echoing_its_credential_has_it_scrubbed_from_doctor(home: Path) -> None:
    encoded = base64.b64encode(f"user:{SECRET}".encode()).decode()
    proxy = TunnelProxy(f"HTTP/1.1 407 you sent Basic {encoded}\r\n\r\n".encode())
    try:
        set_proxy(home, proxy.url(f"user:{SECRET}@"))
        code, checks, said = doctor("https://cursor.invalid", home)
    finally:
        proxy.stop()
    assert code == 1
    assert checks["proxy"]["verdict"].endswith(
        "refused CONNECT cursor.invalid:443: HTTP/1.1 407 you sent Basic [redacted]"
    )
    assert encoded not in said and SECRET not in said
