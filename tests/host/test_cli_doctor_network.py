"""``nodecode-cursor doctor``: which layer below HTTP failed — DNS, the proxy, the connection, TLS.

Every failure is made on this machine: a ``.invalid`` name (it never resolves and
no query for it leaves the machine), a closed loopback port, a loopback proxy
stand-in that refuses or tunnels, and the simulator serving TLS with a ``trustme``
certificate the client trusts or not.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trustme
from cli_run import cli_env, run_main

from cursor_simulator import Simulator
from cursor_simulator.models import PATH as ROSTER_PATH

SECRET = "pw-s3cr3t"
NETWORK = ("dns", "proxy", "connection", "tls")


def doctor(base_url: str, home: Path, *flags: str, **env: str) -> tuple[int, dict[str, Any], str]:
    """Return (exit code, the checks by name, stdout + stderr) of ``doctor --json --no-rounds``."""
    done = run_main(
        "--base-url", base_url, "doctor", "--json", "--no-rounds", *flags, env=cli_env(home, **env)
    )
    data = json.loads(done.stdout)
    return done.returncode, {c["name"]: c for c in data["checks"]}, done.stdout + done.stderr


def closed_port() -> int:
    """Return a loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def set_proxy(home: Path, proxy: str) -> None:
    """Name PROXY in the cursor.proxy setting of HOME's config.json."""
    (home / "config.json").write_text(json.dumps({"cursor": {"proxy": proxy}}))


def serve_tls(sim: Simulator, ca: trustme.CA) -> str:
    """Serve the simulator over TLS with a certificate for localhost signed by CA; its URL."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)
    context.set_alpn_protocols(["h2", "http/1.1"])
    return sim.listen_tls(context)


def trust(tmp_path: Path, ca: trustme.CA, name: str = "ca.pem") -> str:
    """Write CA's certificate as a PEM bundle; return its path (for SSL_CERT_FILE)."""
    bundle = tmp_path / name
    ca.cert_pem.write_to_path(str(bundle))
    return str(bundle)


class TunnelProxy:
    """A loopback HTTP proxy stand-in: answers CONNECT with ANSWER, tunnelling to loopback on 200.

    It keeps each request's head, so a test can read what the client asked for.
    """

    def __init__(self, answer: bytes = b"HTTP/1.1 200 Connection established\r\n\r\n") -> None:
        self.answer = answer
        self.heads: list[str] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.port = int(self._listener.getsockname()[1])
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    def url(self, userinfo: str = "") -> str:
        return f"http://{userinfo}127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            with self._lock:
                self._sockets.append(conn)
                self._threads.append(thread)
            thread.start()

    def _serve(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError):
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                head += chunk
            text = head.decode("latin-1")
            self.heads.append(text)
            method, target, _ = text.split("\r\n", 1)[0].split(" ")
            if method != "CONNECT" or not self.answer.split(b" ", 2)[1].startswith(b"2"):
                conn.sendall(self.answer if method == "CONNECT" else b"HTTP/1.1 405 No\r\n\r\n")
                return
            host, port = target.rsplit(":", 1)
            assert host in ("localhost", "127.0.0.1"), host  # nothing leaves the machine
            upstream = socket.create_connection(("127.0.0.1", int(port)))
            with self._lock:
                self._sockets.append(upstream)
            conn.sendall(self.answer)
            self._pump(conn, upstream)

    def _pump(self, one: socket.socket, other: socket.socket) -> None:
        peers = {one: other, other: one}
        with selectors.DefaultSelector() as selector:
            for sock in peers:
                selector.register(sock, selectors.EVENT_READ)
            while not self._stopping.is_set():
                for key, _ in selector.select(0.1):
                    sock: socket.socket = key.fileobj  # type: ignore[assignment]
                    data = sock.recv(65536)
                    if not data:
                        return
                    peers[sock].sendall(data)

    def stop(self) -> None:
        self._stopping.set()
        self._listener.close()
        with self._lock:
            threads, sockets = list(self._threads), list(self._sockets)
        for thread in threads:
            thread.join(timeout=5)
        for sock in sockets:
            sock.close()


@pytest.fixture
def proxy() -> Iterator[TunnelProxy]:
    stand_in = TunnelProxy()
    yield stand_in
    stand_in.stop()


def test_a_healthy_plain_service_names_each_layer(sim: Simulator, home: Path) -> None:
    code, checks, _ = doctor(sim.url, home)
    assert code == 0
    host, port = sim.url.removeprefix("http://").rsplit(":", 1)
    assert checks["dns"]["verdict"] == f"{host} is an address: nothing to resolve"
    assert checks["proxy"] == {
        "name": "proxy",
        "status": "skip",
        "verdict": "not checked: no proxy is set: the connection goes direct",
        "fix": None,
    }
    assert checks["connection"]["verdict"] == f"{host}:{port} accepts connections"
    assert checks["tls"]["verdict"] == "not checked: the base URL is cleartext http://"
    assert checks["reaching the service"]["status"] == "ok"
    names = list(checks)
    assert names[1:6] == [*NETWORK, "reaching the service"]  # after the credential, in order


def test_a_name_that_does_not_resolve(home: Path) -> None:
    done = run_main(
        "--base-url", "https://cursor.invalid", "doctor", "--no-rounds", env=cli_env(home)
    )
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("FAIL  dns:"))
    assert lines[at] == (
        "FAIL  dns: cursor.invalid does not resolve: a .invalid name never resolves (RFC 6761)"
    )
    assert lines[at + 1].startswith("      fix: check the host name in --base-url")
    assert "--    proxy: not checked: the name does not resolve" in lines
    assert "--    reaching the service: not checked: the dns check failed" in lines
    assert sum(line.startswith("FAIL") for line in lines) == 1  # the one cause, said once


def test_a_name_the_resolver_refuses_before_any_query(home: Path) -> None:
    # A 64-character label: getaddrinfo fails here, before any query could be sent.
    host = "a" * 64 + ".example"
    code, checks, _ = doctor(f"https://{host}", home)
    assert code == 1
    assert checks["dns"]["verdict"] == (
        f"{host} does not resolve: not a host name (a label is empty or longer than 63 characters)"
    )
    assert checks["dns"]["fix"].startswith("check the host name in --base-url")


def test_the_network_is_checked_without_a_credential(home: Path) -> None:
    code, checks, _ = doctor("https://cursor.invalid", home, signed_out="1")
    assert code == 1
    assert checks["credential"]["status"] == "fail"
    assert checks["dns"]["status"] == "fail"
    assert checks["reaching the service"]["verdict"] == "not checked: the dns check failed"


def test_a_proxy_that_refuses_from_the_environment(home: Path) -> None:
    port = closed_port()
    proxy_url = f"http://user:{SECRET}@127.0.0.1:{port}"
    code, checks, said = doctor("https://cursor.invalid", home, HTTPS_PROXY=proxy_url)
    assert code == 1
    # Behind a proxy the proxy resolves the service's name: not a failure here.
    assert checks["dns"]["status"] == "ok"
    assert checks["dns"]["verdict"].startswith("cursor.invalid does not resolve here")
    assert checks["dns"]["verdict"].endswith(f"the proxy at http://127.0.0.1:{port} resolves it")
    assert checks["proxy"]["status"] == "fail"
    assert checks["proxy"]["verdict"].startswith(
        f"the proxy at http://127.0.0.1:{port} (HTTPS_PROXY) refused: "
    )
    assert checks["proxy"]["fix"] == (
        "start the proxy, or fix or unset HTTPS_PROXY to connect directly"
    )
    assert checks["tls"]["verdict"] == "not checked: the proxy failed"
    assert checks["reaching the service"]["verdict"] == "not checked: the proxy check failed"
    assert SECRET not in said


def test_no_proxy_exempts_the_service_as_httpx_does(sim: Simulator, home: Path) -> None:
    dead = f"http://127.0.0.1:{closed_port()}"
    # The suite's NO_PROXY names 127.0.0.1: the simulator is reached directly.
    code, checks, _ = doctor(sim.url, home, HTTP_PROXY=dead)
    assert code == 0
    assert checks["proxy"]["verdict"] == (
        "not checked: NO_PROXY exempts 127.0.0.1: the connection goes direct"
    )
    # A NO_PROXY naming only other hosts leaves the service to the proxy.
    code, checks, _ = doctor(sim.url, home, HTTP_PROXY=dead, NO_PROXY="example.org")
    assert code == 1
    assert checks["proxy"]["status"] == "fail"
    assert "(HTTP_PROXY)" in checks["proxy"]["verdict"]
    # The cursor.proxy setting carries every request, NO_PROXY or not (httpx's proxy=).
    set_proxy(home, dead)
    asked = len(sim.requests)
    code, checks, _ = doctor(sim.url, home)
    assert code == 1
    assert "(the cursor.proxy setting) refused" in checks["proxy"]["verdict"]
    assert len(sim.requests) == asked  # nothing went past the refusing proxy


def test_an_unusable_proxy_names_the_setting_not_the_url(home: Path) -> None:
    set_proxy(home, f"ftp://user:{SECRET}@proxy.invalid:21")
    code, checks, said = doctor("https://cursor.invalid", home)
    assert code == 1
    assert checks["proxy"]["verdict"] == "the proxy in the cursor.proxy setting is not a usable URL"
    assert SECRET not in said


@pytest.mark.parametrize(
    ("answer", "fix"),
    [
        (b"HTTP/1.1 403 Forbidden\r\n\r\n", "ask for cursor.invalid to be let through the proxy"),
        (b"HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", "the proxy wants a sign-in"),
    ],
)
def test_a_proxy_that_refuses_the_connect_tunnel(
    proxy: TunnelProxy, home: Path, answer: bytes, fix: str
) -> None:
    proxy.answer = answer
    set_proxy(home, proxy.url(f"user:{SECRET}@"))
    code, checks, said = doctor("https://cursor.invalid", home)
    assert code == 1
    status = answer.split(b"\r\n", 1)[0].decode()
    assert checks["proxy"]["verdict"] == (
        f"the proxy at http://127.0.0.1:{proxy.port} (the cursor.proxy setting) "
        f"refused CONNECT cursor.invalid:443: {status}"
    )
    assert checks["proxy"]["fix"].startswith(fix)
    assert proxy.heads[0].startswith("CONNECT cursor.invalid:443 HTTP/1.1\r\n")
    assert "Proxy-Authorization: Basic " in proxy.heads[0]  # the URL's user signs in
    assert SECRET not in said


def test_an_untrusted_certificate_says_so_and_names_ssl_cert_file(
    sim: Simulator, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)  # the bundled CAs only
    url = serve_tls(sim, trustme.CA())  # a CA the client does not trust
    code, checks, _ = doctor(url, home)
    assert code == 1
    tls = checks["tls"]
    assert tls["status"] == "fail"
    assert tls["verdict"] == (
        "the certificate localhost presented is not trusted: unable to get local issuer certificate"
    )
    assert "set SSL_CERT_FILE to a PEM bundle holding that CA" in tls["fix"]
    assert checks["connection"]["status"] == "ok"
    assert checks["reaching the service"]["verdict"] == "not checked: the tls check failed"
    assert sim.requests == []
    # With SSL_CERT_FILE naming another CA, the fix says that file lacks the signer.
    other = trust(tmp_path, trustme.CA(), "other.pem")
    code, checks, _ = doctor(url, home, SSL_CERT_FILE=other)
    assert checks["tls"]["fix"].startswith(f"SSL_CERT_FILE ({other}) does not hold the CA")


def test_a_certificate_for_another_name_says_so_by_its_verify_code(
    sim: Simulator, home: Path, tmp_path: Path
) -> None:
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("other.example").configure_cert(context)  # not the name dialled
    url = sim.listen_tls(context)
    code, checks, _ = doctor(url, home, SSL_CERT_FILE=trust(tmp_path, ca))
    assert code == 1
    tls = checks["tls"]
    assert tls["status"] == "fail"
    assert tls["fix"].startswith("the certificate is for another name: check the host")


def test_a_healthy_run_over_tls_through_a_tunnelling_proxy(
    sim: Simulator, home: Path, tmp_path: Path, proxy: TunnelProxy
) -> None:
    ca = trustme.CA()
    url = serve_tls(sim, ca)
    set_proxy(home, proxy.url())
    code, checks, _ = doctor(url, home, SSL_CERT_FILE=trust(tmp_path, ca))
    assert code == 0, checks
    authority = url.removeprefix("https://")
    assert checks["proxy"]["verdict"] == (
        f"the proxy at http://127.0.0.1:{proxy.port} (the cursor.proxy setting) "
        f"tunnels to {authority}"
    )
    assert checks["connection"]["verdict"] == (
        f"not checked: the proxy at http://127.0.0.1:{proxy.port} connects"
    )
    assert checks["tls"]["status"] == "ok"
    assert checks["tls"]["verdict"].startswith("localhost's certificate is trusted (TLS")
    assert checks["reaching the service"]["status"] == "ok"
    assert checks["catalog"]["status"] == "ok"
    # doctor's own tunnel, then the roster's and the catalog's through the same proxy.
    assert all(head.startswith(f"CONNECT {authority} ") for head in proxy.heads)
    assert len(proxy.heads) >= 3
    assert len(sim.requests_to(ROSTER_PATH)) == 1
