"""Issue 16, finding 5: webhooks POST to public addresses only.

A URL to a loopback, private, link-local (metadata), multicast, reserved or unspecified
address, or to a name that resolves to one, is refused when registered (400
``url_not_allowed`` on the ``url`` field) and again when delivered (resolved once,
every address checked, the connection pinned to one). The log says ``unreachable`` for
every network failure. ``WEBHOOK_ALLOW_HOSTS`` lets named hosts through. Names resolve
through :func:`fake_dns`; the receivers are real servers on 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from pytest_django import Settings

from support.web import client_for
from webapp.projects.models import Project
from webapp.webhooks import services
from webapp.webhooks.models import Delivery, Webhook

PUBLIC_IP = "93.184.215.14"
_real_getaddrinfo = socket.getaddrinfo


@pytest.fixture(autouse=True)
def _no_allow_list(settings: Settings) -> None:
    settings.WEBHOOK_ALLOW_HOSTS = []
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    settings.WEBHOOK_TIMEOUT_S = 1


# --- fakes: name resolution and receivers ----------------------------------------------------


def _answer(ip: str, port: Any) -> tuple[Any, ...]:
    v6 = ":" in ip
    sockaddr = (ip, int(port or 0), 0, 0) if v6 else (ip, int(port or 0))
    return (socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_STREAM, 6, "", sockaddr)


@contextmanager
def fake_dns(names: Mapping[str, list[str] | Callable[[], list[str]]]) -> Iterator[list[str]]:
    """``socket.getaddrinfo`` answering ``names`` (a list, or a function called per
    lookup); IP literals as usual; any other name does not exist. Yields the names looked up."""
    looked_up: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        try:
            ipaddress.ip_address(str(host).split("%")[0])
        except ValueError:
            looked_up.append(str(host))
            if host not in names:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
            answer = names[host]
            return [_answer(ip, port) for ip in (answer() if callable(answer) else answer)]
        return _real_getaddrinfo(host, port, *args, **kwargs)

    with mock.patch("socket.getaddrinfo", getaddrinfo):
        yield looked_up


class Recorder(BaseHTTPRequestHandler):
    """Records each POST's headers (class-level list, reset per server) and answers
    ``status`` with a reason phrase and a body that must never reach the log."""

    seen: list[dict[str, str]]
    status = 200

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.seen.append(dict(self.headers.items()))
        body = b"redis_version:7.2.4 internal banner"
        self.send_response(self.status, "internal-banner-reason")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serving(
    status: int = 200, tls: ssl.SSLContext | None = None
) -> Iterator[tuple[int, list[dict[str, str]]]]:
    """A recording HTTP(S) server on 127.0.0.1; yields its port and the requests' headers."""
    seen: list[dict[str, str]] = []
    handler = type("Handler", (Recorder,), {"seen": seen, "status": status})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def owner(members: dict[str, Any]) -> Any:
    return client_for(members["owner"])


def register(owner: Any, project: Project, url: str) -> Any:
    return owner.post(f"/api/v1/projects/{project.pk}/webhooks/", {"url": url}, format="json")


def deliver(project: Project, url: str) -> Delivery:
    """A delivery to ``url`` (its webhook row written directly, as one registered before
    the check or whose name resolved elsewhere then), attempted once."""
    hook = Webhook.objects.create(project=project, url=url, secret="s")
    delivery = Delivery.objects.create(webhook=hook, event="run.succeeded", payload={"event": "x"})
    services.delivery_attempt(delivery_id=delivery.pk)
    return Delivery.objects.get(pk=delivery.pk)


# --- registration ----------------------------------------------------------------------------

REFUSED = [
    ("http://127.0.0.1:6379/", "is a loopback address"),
    ("http://10.0.0.1/hook", "is a private address"),
    ("http://192.168.1.20:8080/", "is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "is a link-local address"),
    ("http://[::1]:6379/", "is a loopback address"),
    ("http://[::ffff:127.0.0.1]/", "is a loopback address"),
    ("http://[::ffff:169.254.169.254]/", "is a link-local address"),
    ("http://[fe80::1]/", "is a link-local address"),
    ("http://[fd00:ec2::254]/", "is a private address"),
    ("http://0.0.0.0:8000/", "is an unspecified address"),
    ("http://[::]/", "is an unspecified address"),
    ("http://224.0.0.251/", "is a multicast address"),
    ("http://[ff02::1]/", "is a multicast address"),
    ("http://240.0.0.1/", "is a reserved address"),
    ("http://100.100.100.200/", "is a non-public address"),
    ("http://[2002:7f00:1::]/", "is a loopback address"),
    ("http://[64:ff9b::a00:1]/", "is a private address"),
    ("http://localhost:8000/", "is a loopback host name"),
    ("http://internal.example/", "resolves to a private address"),
    ("http://mixed.example/", "resolves to a loopback address"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("url", "reason"), REFUSED)
def test_finding_5_a_non_public_target_is_refused_at_registration(
    owner: Any, project: Project, url: str, reason: str
) -> None:
    """Finding 5: loopback, private, link-local, metadata, multicast, reserved and
    unspecified targets, literal or by name, are a 400 naming the reason."""
    names = {"internal.example": ["10.1.2.3"], "mixed.example": [PUBLIC_IP, "127.0.0.1"]}
    with fake_dns(names):
        response = register(owner, project, url)

    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "url_not_allowed"
    (message,) = error["details"]["fields"]["url"]
    assert reason in message
    assert not Webhook.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    [
        f"https://{PUBLIC_IP}/hook",
        "https://[2606:4700::1111]/hook",
        "https://[::ffff:8.8.8.8]/hook",
        "https://hooks.example/hook",
        "https://not-yet-in-dns.example/hook",  # checked again at each delivery
    ],
)
def test_finding_5_public_targets_are_accepted(owner: Any, project: Project, url: str) -> None:
    """Finding 5: the check refuses what is not public, nothing else."""
    with fake_dns({"hooks.example": [PUBLIC_IP]}):
        response = register(owner, project, url)
    assert response.status_code == 201, response.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("allow", "url"),
    [
        (["127.0.0.1"], "http://127.0.0.1:8000/hook"),
        (["[::1]"], "http://[::1]:8000/hook"),
        (["10.0.0.0/8"], "http://internal.example/hook"),
        (["Receiver.Local"], "http://receiver.local:9000/hook"),
        (["localhost"], "http://localhost:8000/hook"),
    ],
)
def test_finding_5_the_allow_list_lets_named_hosts_through(
    owner: Any, project: Project, settings: Settings, allow: list[str], url: str
) -> None:
    """Finding 5: ``KINETOGRAPH_WEBHOOK_ALLOW_HOSTS`` (names, addresses, networks)."""
    settings.WEBHOOK_ALLOW_HOSTS = allow
    names = {"internal.example": ["10.1.2.3"], "receiver.local": ["192.168.0.9"]}
    with fake_dns(names):
        assert register(owner, project, url).status_code == 201


def test_finding_5_a_malformed_allow_list_fails_at_start_up(settings: Settings) -> None:
    """Finding 5: settings fail loudly (STYLE.md 12)."""
    settings.WEBHOOK_ALLOW_HOSTS = ["good.example", "not a host!"]
    with pytest.raises(ImproperlyConfigured, match="not a host!"):
        apps.get_app_config("webhooks").ready()


# --- delivery --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_finding_5_delivery_refuses_a_non_public_target_without_a_request(project: Project) -> None:
    """Finding 5: a row registered earlier (or a name that resolves elsewhere now) is
    checked at delivery: nothing is sent and the delivery fails at once."""
    with serving() as (port, seen), fake_dns({"moved.example": ["127.0.0.1"]}):
        literal = deliver(project, f"http://127.0.0.1:{port}/hook")
        by_name = deliver(project, f"http://moved.example:{port}/hook")

    assert seen == []
    for d in (literal, by_name):
        assert (d.status, d.attempts, d.last_status_code) == ("failed", 1, None)
        assert "loopback address" in d.last_error


@pytest.mark.django_db
def test_finding_5_a_dns_rebind_cannot_redirect_the_post(project: Project) -> None:
    """Finding 5: the host is resolved once and the connection goes to the checked
    address; a second lookup (which would answer 127.0.0.1) never happens."""
    answers = iter([[PUBLIC_IP]])
    connected: list[tuple[str, int]] = []
    real_connect = socket.create_connection

    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        if address[0] == PUBLIC_IP:  # stand-in for the public host: never leave the machine
            connected.append(address)
            raise ConnectionRefusedError(111, "Connection refused")
        return real_connect(address, *args, **kwargs)

    with (
        serving() as (port, seen),
        fake_dns({"rebind.example": lambda: next(answers, ["127.0.0.1"])}) as looked_up,
        mock.patch("socket.create_connection", create_connection),
    ):
        delivery = deliver(project, f"http://rebind.example:{port}/hook")

    assert seen == []
    assert connected == [(PUBLIC_IP, port)]
    assert looked_up == ["rebind.example"]
    assert (delivery.status, delivery.last_error) == ("pending", "unreachable")


@pytest.mark.django_db
def test_finding_5_a_pinned_post_sends_the_url_host_name(
    project: Project, settings: Settings
) -> None:
    """Finding 5: connected to the checked address, ``Host`` is still the URL's name."""
    settings.WEBHOOK_ALLOW_HOSTS = ["named.example"]
    with serving() as (port, seen), fake_dns({"named.example": ["127.0.0.1"]}):
        delivery = deliver(project, f"http://named.example:{port}/hook?x=1")

    assert (delivery.status, delivery.last_status_code) == ("delivered", 200)
    (headers,) = seen
    assert headers["Host"] == f"named.example:{port}"


def _certificate(folder: Path, name: str) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a test certificate")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", f"/CN={name}"),
            *("-addext", f"subjectAltName=DNS:{name}"),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.mark.django_db
def test_finding_5_https_checks_the_certificate_against_the_url_host_name(
    project: Project, settings: Settings, tmp_path: Path
) -> None:
    """Finding 5: over https the pinned connection sends the URL's host name as SNI and
    checks the certificate against it (not against the address)."""
    cert, key = _certificate(tmp_path, "hooks.example")
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    server_names: list[str | None] = []

    def sni(sock: ssl.SSLObject, name: str | None, context: ssl.SSLContext) -> None:
        server_names.append(name)

    server_tls.sni_callback = sni
    settings.WEBHOOK_ALLOW_HOSTS = ["hooks.example", "other.example"]
    names = {"hooks.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]}

    with (
        serving(tls=server_tls) as (port, seen),
        fake_dns(names),
        mock.patch(
            "webapp.webhooks.egress.tls_context",
            lambda: ssl.create_default_context(cafile=str(cert)),
        ),
    ):
        good = deliver(project, f"https://hooks.example:{port}/hook")
        wrong_name = deliver(project, f"https://other.example:{port}/hook")

    assert (good.status, good.last_status_code) == ("delivered", 200)
    assert [h["Host"] for h in seen] == [f"hooks.example:{port}"]
    assert server_names[:2] == ["hooks.example", "other.example"]
    assert (wrong_name.status, wrong_name.last_error) == ("pending", "unreachable")


# --- what the log tells ----------------------------------------------------------------------


@contextmanager
def raw_server(reply: bytes) -> Iterator[int]:
    """A TCP service on 127.0.0.1 that answers ``reply`` (not HTTP) to one connection."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    with listener:
        yield listener.getsockname()[1]
    thread.join(timeout=5)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.django_db
def test_finding_5_every_network_failure_is_logged_as_unreachable(
    project: Project, settings: Settings
) -> None:
    """Finding 5: refused, timed out, a non-HTTP service (a Redis banner) and a name
    that does not resolve all read the same: no errno, no banner, no distinction."""
    settings.WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]
    with (
        raw_server(b"-ERR unknown command 'POST'\r\n") as redis_like,
        socket.create_server(("127.0.0.1", 0)) as silent,  # listens, never answers
        fake_dns({}),
    ):
        deliveries = [
            deliver(project, f"http://127.0.0.1:{closed_port()}/"),
            deliver(project, f"http://127.0.0.1:{silent.getsockname()[1]}/"),
            deliver(project, f"http://127.0.0.1:{redis_like}/"),
            deliver(project, "http://does-not-resolve.invalid/"),
        ]

    assert {(d.status, d.last_status_code, d.last_error) for d in deliveries} == {
        ("pending", None, "unreachable")
    }


@pytest.mark.django_db
def test_finding_5_an_answer_logs_its_status_not_its_body_or_reason(
    project: Project, settings: Settings
) -> None:
    """Finding 5: a real HTTP answer keeps its status code, with the standard phrase;
    the receiver's own reason phrase and body are not shown."""
    settings.WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]
    with serving(status=500) as (port, _):
        delivery = deliver(project, f"http://127.0.0.1:{port}/hook")

    assert (delivery.last_status_code, delivery.last_error) == (
        500,
        "HTTP 500 Internal Server Error",
    )
