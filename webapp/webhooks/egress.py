"""Where webhooks may POST: public addresses only (issue 16, finding 5: no SSRF).

A webhook URL is checked when it is registered (:func:`url_check`) and again at every
delivery (:func:`post`). The delivery resolves the host once, refuses it unless every
address is public, then connects to one of *those* addresses: the address is pinned,
so a DNS answer that changes between the check and the connection (a rebind) cannot
redirect the POST. The URL's host name still goes in ``Host`` and, for https, in the
TLS server name that the certificate is checked against. Redirects are never followed
(:mod:`http.client` does not follow them: a 3xx is the answer).

Refused: unspecified, loopback, link-local (169.254.169.254, the cloud metadata
address, included), multicast, private, site-local, reserved and any other non-global
address, IPv4 and IPv6, an IPv4 address inside an IPv6 one (mapped ``::ffff:a.b.c.d``,
6to4, NAT64) judged as that IPv4 address, and the ``localhost`` names.
``settings.WEBHOOK_ALLOW_HOSTS`` (``KINETOGRAPH_WEBHOOK_ALLOW_HOSTS``) lists host
names, addresses and networks allowed anyway (a receiver on the developer's machine).
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import re
import socket
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_KINDS = (
    ("is_unspecified", "an unspecified address"),
    ("is_loopback", "a loopback address"),
    ("is_link_local", "a link-local address"),
    ("is_multicast", "a multicast address"),
    ("is_reserved", "a reserved address"),
    ("is_private", "a private address"),
    ("is_site_local", "a site-local address"),
)
"""Address properties (:mod:`ipaddress`) that refuse a target, most specific first."""
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_HOST_NAME = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class EgressRefused(Exception):
    """The URL may not be POSTed to; ``reason`` is the sentence for its owner."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- the allow list --------------------------------------------------------------------------


@dataclass(frozen=True)
class AllowList:
    """Host names (lower case, no trailing dot) and networks allowed although not public."""

    names: frozenset[str]
    networks: tuple[Network, ...]

    def allows_name(self, host: str) -> bool:
        return _name_key(host) in self.names

    def allows_address(self, address: Address) -> bool:
        return any(address in network for network in self.networks)


def allow_list(entries: Iterable[str]) -> AllowList:
    """Parse ``KINETOGRAPH_WEBHOOK_ALLOW_HOSTS`` entries: ``receiver.local``, ``127.0.0.1``,
    ``[::1]``, ``10.0.0.0/8``. A malformed entry is :class:`ImproperlyConfigured`."""
    names: set[str] = set()
    networks: list[Network] = []
    for entry in entries:
        text = entry.strip().lower().removeprefix("[").replace("]", "", 1)
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
            continue
        except ValueError:
            pass
        if not _HOST_NAME.fullmatch(_name_key(text)):
            raise ImproperlyConfigured(
                f"KINETOGRAPH_WEBHOOK_ALLOW_HOSTS: {entry!r} is not a host name, an IP "
                "address or a network."
            )
        names.add(_name_key(text))
    return AllowList(frozenset(names), tuple(networks))


def _allowed() -> AllowList:
    return allow_list(settings.WEBHOOK_ALLOW_HOSTS)


def _name_key(host: str) -> str:
    return host.lower().rstrip(".")


# --- addresses -------------------------------------------------------------------------------


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, NAT64), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_refusal(address: Address) -> str | None:
    """Why ``address`` is not a public one (``"a loopback address"``, ...), ``None`` if it is."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return address_refusal(embedded)
    for prop, kind in _KINDS:
        if getattr(address, prop, False):
            return kind
    return None if address.is_global else "a non-public address"


def resolve(host: str, port: int) -> list[Address]:
    """The addresses of ``host`` (its own for an IP literal), in the resolver's order.
    :class:`OSError` (:class:`socket.gaierror`) when it does not resolve."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except UnicodeError as exc:  # a label the IDNA codec refuses
        raise socket.gaierror(str(exc)) from None
    addresses: list[Address] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    return addresses


def checked_addresses(host: str, port: int) -> list[Address]:
    """The addresses a POST to ``host`` may connect to: every one it resolves to, each
    public or allowed. :class:`EgressRefused` if any is neither (the name is then not
    sent to at all); :class:`OSError` if it does not resolve."""
    allowed = _allowed()
    name = _name_key(host)
    if not allowed.allows_name(name) and (name == "localhost" or name.endswith(".localhost")):
        raise EgressRefused(f"The webhook URL's host {host} is a loopback host name.")
    literal = _literal(host)
    addresses = [literal] if literal is not None else resolve(host, port)
    if allowed.allows_name(name):
        return addresses
    for address in addresses:
        refusal = None if allowed.allows_address(address) else address_refusal(address)
        if refusal is not None:
            verb = "is" if literal is not None else "resolves to"
            raise EgressRefused(f"The webhook URL's host {host} {verb} {refusal}.")
    return addresses


def _literal(host: str) -> Address | None:
    """The address ``host`` is written as (an IP literal, zone dropped), else ``None``."""
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None


# --- URLs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """Where a URL POSTs: scheme, host (ASCII, no brackets), port and request target."""

    scheme: str
    host: str
    port: int
    path: str


def target(url: str) -> Target:
    """The parts of an http(s) ``url`` a POST needs; :class:`EgressRefused` if malformed."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        host = (parts.hostname or "").encode("idna").decode("ascii")
        port = parts.port or _DEFAULT_PORTS[scheme]
    except (KeyError, UnicodeError, ValueError):
        raise EgressRefused("The webhook URL's scheme, host or port is not valid.") from None
    if not host:
        raise EgressRefused("The webhook URL has no host.")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme, host, port, path)


def url_check(url: str) -> None:
    """Refuse (:class:`EgressRefused`) a URL that leads to a non-public address. A host
    that does not resolve now is accepted: every delivery checks it again."""
    where = target(url)
    with contextlib.suppress(OSError):
        checked_addresses(where.host, where.port)


# --- the POST --------------------------------------------------------------------------------


@cache
def tls_context() -> ssl.SSLContext:
    """The system's trust store, hostname checking on (built once per process)."""
    return ssl.create_default_context()


def _connect(addresses: list[Address], port: int, timeout: float | None) -> socket.socket:
    """A TCP connection to the first of ``addresses`` that answers (never a name)."""
    error: OSError = OSError("no address")
    for address in addresses:
        try:
            return socket.create_connection((str(address), port), timeout)
        except OSError as exc:
            error = exc
    raise error


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """HTTP to ``host`` (its ``Host`` header) over a connection to checked addresses."""

    def __init__(self, host: str, port: int, addresses: list[Address], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.addresses = addresses

    def connect(self) -> None:
        self.sock = _connect(self.addresses, self.port, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to ``host`` (``Host``, SNI and the certificate's name) over checked addresses."""

    def __init__(self, host: str, port: int, addresses: list[Address], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout, context=tls_context())
        self.addresses = addresses

    def connect(self) -> None:
        sock = _connect(self.addresses, self.port, self.timeout)
        try:
            self.sock = tls_context().wrap_socket(sock, server_hostname=self.host)
        except BaseException:
            sock.close()
            raise


def post(url: str, *, body: bytes, headers: Mapping[str, str], timeout_s: float) -> int:
    """POST ``body`` to ``url`` through a checked, pinned address; the answer's status.

    :class:`EgressRefused` when the URL leads to a non-public address (nothing is sent);
    :class:`OSError` or :class:`http.client.HTTPException` when it cannot be reached or
    does not answer HTTP. The answer's body is never read.
    """
    where = target(url)
    addresses = checked_addresses(where.host, where.port)
    kind = _PinnedHTTPSConnection if where.scheme == "https" else _PinnedHTTPConnection
    connection = kind(where.host, where.port, addresses, timeout_s)
    try:
        connection.request("POST", where.path, body=body, headers=dict(headers))
        return connection.getresponse().status
    finally:
        connection.close()
