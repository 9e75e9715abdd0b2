"""What ``POST agent-panel/probe`` agrees to try: an ``http(s)`` URL with a valid host and port.

Anything else is refused with a 400 naming the problem (docs/protocol.md §6.9),
before any name is looked up.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from encodings import idna
from urllib.parse import urlsplit

import httpx

DEFAULT_TIMEOUT = 5.0
MAX_TIMEOUT = 10.0
MAX_HOST_CHARS = 253  # RFC 1035, in ASCII (punycode) form
MAX_LABEL_CHARS = 63


class ProbeRefused(ValueError):
    """The request cannot be probed (not a URL the probe tries); a 400."""


@dataclass(frozen=True)
class ProbeTarget:
    url: str
    scheme: str
    host: str
    port: int

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port}"


def probe_target(url: object) -> ProbeTarget:
    """The scheme, host and port of an ``http(s)`` URL, or ``ProbeRefused`` saying why not."""
    if not isinstance(url, str) or not url.strip():
        raise ProbeRefused("url is required and must be a string")
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ProbeRefused(f"only http and https URLs are probed, not {parts.scheme or 'a relative URL'!r}")
    try:
        port = parts.port
    except ValueError as exc:  # not a number, or outside 0-65535
        raise ProbeRefused(f"the URL has an invalid port: {exc}") from exc
    if port == 0:
        raise ProbeRefused("the URL has port 0, which nothing can listen on")
    if not parts.hostname:
        raise ProbeRefused("the URL has no host name")
    check_host(parts.hostname)
    try:
        httpx.URL(url)  # what the probe's client will send; it refuses what it cannot
    except httpx.InvalidURL as exc:
        raise ProbeRefused(f"the URL cannot be requested: {exc}") from exc
    return ProbeTarget(url, parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80))


def check_host(host: str) -> None:
    """``ProbeRefused`` naming what is wrong with ``host`` as an IP address or DNS name."""
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    ascii_length = len(labels) - 1
    for label in labels:
        if not label:
            raise ProbeRefused(f"the host name {host!r} has an empty label (two dots in a row, or a leading dot)")
        try:
            encoded = idna.ToASCII(label)
        except UnicodeError as exc:
            if "too long" in str(exc):  # the codec's "label empty or too long"; empty ones are caught above
                size = f"{len(label)} characters" if label.isascii() else "more characters in ASCII (punycode)"
                raise ProbeRefused(
                    f"the host name {host!r} has a label of {size}; at most {MAX_LABEL_CHARS} are allowed"
                ) from exc
            raise ProbeRefused(f"the host name {host!r} is not a valid name: {exc}") from exc
        ascii_length += len(encoded)
    if ascii_length > MAX_HOST_CHARS:
        raise ProbeRefused(f"the host name is {ascii_length} characters long; at most {MAX_HOST_CHARS} are allowed")


def probe_timeout(value: object) -> float:
    if value is None:
        return DEFAULT_TIMEOUT
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT:
        raise ProbeRefused(f"timeout_seconds must be a number in (0, {MAX_TIMEOUT:g}]")
    return float(value)
