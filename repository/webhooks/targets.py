"""Where a webhook may deliver: an http or https URL whose host resolves only to public
addresses. Private, loopback, link-local (a cloud's metadata service), shared, reserved
and multicast addresses are refused, each address the host resolves to checked (one
private address among public ones is enough to refuse: the connection could go to any),
unless the service allows private targets (ELREPO_WEBHOOKS_ALLOW_PRIVATE=1 or `elrepo
serve --webhooks-allow-private`). The sender connects to an address checked here, never
resolving the name again, so a name that changes its answer in between gains nothing."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL_LENGTH = 2048
# The URLs a webhook may have, as one regular expression (the OpenAPI document shows it):
# http or https in any case; a host name of ASCII letters, digits and the other
# characters RFC 3986 allows in one (an international name in its xn-- form), or an IPv4
# address; a port 1..65535 without leading zeros; a path and query of visible ASCII
# (what an HTTP request line carries as it is); no user name, password or #fragment.
_PORT = ("(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]"
         "|6553[0-5])")
URL_PATTERN = (r"^[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9._~!$&'()*+,;=%-]+"
               rf'(?::{_PORT})?(?:[/?][!-"$-~]*)?$')
_URL = re.compile(URL_PATTERN)
Resolver = Callable[[str, int], list[str]]


class TargetRefused(ValueError):
    """A URL or address a webhook may not deliver to; the message says why."""


@dataclass(frozen=True, slots=True)
class Target:
    scheme: str  # http or https
    host: str  # as written, in lower case: the Host header and TLS's name
    port: int
    path: str  # path and query, at least "/"


def parse_target(url: str) -> Target:
    """The parts of a webhook URL. TargetRefused for anything `URL_PATTERN` refuses."""
    if len(url) > MAX_URL_LENGTH:
        raise TargetRefused(f"A webhook URL has at most {MAX_URL_LENGTH} characters")
    if not _URL.match(url):  # as JSON Schema reads a pattern: `$` before a final "\n" too
        raise TargetRefused(
            "A webhook URL is http:// or https://, a host name (ASCII: an international "
            "one in its xn-- form) or an IPv4 address, an optional port 1..65535, then a "
            "path and query of visible ASCII; no spaces, user name, password or #fragment")
    parts = urlsplit(url)
    assert parts.hostname is not None  # the pattern requires one
    path = parts.path or "/"
    return Target(parts.scheme, parts.hostname,
                  parts.port or (443 if parts.scheme == "https" else 80),
                  path + (f"?{parts.query}" if parts.query else ""))


def is_denied(address: str) -> bool:
    """Whether a delivery may not go to this IP address (unless private ones are allowed)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 scope (fe80::1%eth0)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    return not ip.is_global or ip.is_multicast


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
