"""Where a webhook may deliver: an http or https URL whose host resolves only to public
addresses. Private, loopback, link-local (a cloud's metadata service), shared, reserved
and multicast addresses are refused, each address the host resolves to checked (one
private address among public ones is enough to refuse: the connection could go to any),
unless the service allows private targets (ELREPO_WEBHOOKS_ALLOW_PRIVATE=1 or `elrepo
serve --webhooks-allow-private`). The sender connects to an address checked here, never
resolving the name again, so a name that changes its answer in between gains nothing."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2048
Resolver = Callable[[str, int], list[str]]


class TargetRefused(ValueError):
    """A URL or address a webhook may not deliver to; the message says why."""


@dataclass(frozen=True, slots=True)
class Target:
    scheme: str  # http or https
    host: str  # as written (without IPv6 brackets): the Host header and TLS's name
    port: int
    path: str  # path and query, at least "/"


def parse_target(url: str) -> Target:
    """The parts of a webhook URL. TargetRefused for anything but an absolute http(s)
    URL with a host and without credentials or a fragment."""
    if len(url) > MAX_URL_LENGTH:
        raise TargetRefused(f"A webhook URL has at most {MAX_URL_LENGTH} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise TargetRefused(f"Not a usable URL: {error}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetRefused("A webhook URL is an absolute http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise TargetRefused("A webhook URL carries no user name or password; the signature "
                            "authenticates the deliveries")
    if parts.fragment:
        raise TargetRefused("A webhook URL has no #fragment")
    if any(ord(character) <= 32 or ord(character) == 127 for character in url):
        raise TargetRefused("A webhook URL has no spaces or control characters")
    path = parts.path or "/"
    return Target(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80),
                  path + (f"?{parts.query}" if parts.query else ""))


def is_denied(address: str) -> bool:
    """Whether a delivery may not go to this IP address (unless private ones are allowed)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 scope (fe80::1%eth0)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    return not ip.is_global or ip.is_multicast


def literal_address(host: str) -> str | None:
    """The host when it is an IP address, else None."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return None


def check_literal(target: Target, allow_private: bool) -> None:
    """At registration: refuse a host that is a denied IP address or `localhost` without
    resolving anything (a name is checked, resolved, at each delivery)."""
    if allow_private:
        return
    address = literal_address(target.host)
    if target.host.lower().rstrip(".") == "localhost" or (
            address is not None and is_denied(address)):
        raise TargetRefused(f"{target.host} is a private, loopback or link-local address; "
                            "webhooks go to public addresses only (unless the service allows "
                            "private ones: ELREPO_WEBHOOKS_ALLOW_PRIVATE=1)")


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def checked_addresses(target: Target, allow_private: bool,
                      resolve: Resolver = system_resolver) -> list[str]:
    """The addresses to connect to, every one checked. TargetRefused when the host does
    not resolve or any address it resolves to is denied."""
    try:
        addresses = resolve(target.host, target.port)
    except OSError as error:
        raise TargetRefused(f"{target.host} does not resolve: {error}") from None
    if not addresses:
        raise TargetRefused(f"{target.host} resolves to no address")
    denied = [address for address in addresses if is_denied(address)]
    if denied and not allow_private:
        where = target.host if denied == [target.host] else (
            f"{target.host} resolves to {', '.join(denied)}")
        raise TargetRefused(f"{where}: private, loopback and link-local addresses are "
                            "refused (ELREPO_WEBHOOKS_ALLOW_PRIVATE=1 allows them)")
    return addresses
