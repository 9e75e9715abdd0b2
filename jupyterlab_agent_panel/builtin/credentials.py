"""Provider credentials: the server's environment over ``<root>/.env`` (docs/protocol.md §16.2).

The ``.env`` file is read, never exported: its values reach the provider
clients this package builds and nothing else (not the kernels the server
starts). It is read again when it changes, so a key added there takes effect
without a restart. :func:`redact` removes key material from any text before
it goes into an answer, a frame or a log line.
"""
from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Mapping, Optional

from dotenv import dotenv_values

# Long enough that redacting a value cannot blank ordinary words.
MIN_SECRET_CHARS = 8
# What providers print of a key: "sk-proj-abc…", or its masked form "sk-pr****wxyz".
KEY_LIKE = re.compile(r"\b(?:sk|pk|rk|ak|key)[-_][A-Za-z0-9_*\-]{6,}|\S*\*{4,}\S*")
REDACTED = "[redacted]"
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)


class Credentials:
    """What the provider clients read: ``os.environ`` first, then the ``.env`` file."""

    def __init__(self, dotenv_path: Optional[Path], environ: Optional[Mapping[str, str]] = None):
        self.dotenv_path = dotenv_path
        self._environ = os.environ if environ is None else environ
        self._lock = threading.Lock()
        self._stamp: Optional[tuple] = None
        self._dotenv: dict[str, str] = {}

    @property
    def where(self) -> str:
        """Where a variable may be set, for messages."""
        if self.dotenv_path is None:
            return "in the server's environment"
        return f"in the server's environment or {self.dotenv_path}"

    def get(self, name: str) -> str:
        """The variable's value, ``""`` when unset or empty."""
        value = self._environ.get(name)
        if value:
            return value
        return self._from_dotenv().get(name) or ""

    def version(self) -> Optional[tuple]:
        """Changes when the ``.env`` file does: what was built from the old values is stale."""
        self._from_dotenv()
        return self._stamp

    def secrets(self) -> list[str]:
        """Every value of a variable whose name says it is secret, longest first."""
        names = [name for name in {*self._environ, *self._from_dotenv()} if SECRET_NAME.search(name)]
        values = {self.get(name) for name in names}
        return sorted((v for v in values if len(v) >= MIN_SECRET_CHARS), key=len, reverse=True)

    def redact(self, text: str) -> str:
        """``text`` without any secret value or key-like string."""
        for secret in self.secrets():
            text = text.replace(secret, REDACTED)
        return KEY_LIKE.sub(REDACTED, text)

    def _from_dotenv(self) -> dict[str, str]:
        path = self.dotenv_path
        if path is None:
            return {}
        with self._lock:
            try:
                stat = path.stat()
                stamp: Optional[tuple] = (stat.st_mtime_ns, stat.st_size)
            except OSError:
                stamp = None
            if stamp != self._stamp:
                values = dotenv_values(path) if stamp is not None else {}
                self._dotenv = {name: value for name, value in values.items() if value}
                self._stamp = stamp
            return self._dotenv
