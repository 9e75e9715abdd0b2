"""What every agent-panel route shares: authorization, the body reader, JSON error replies.

Each route is ``@web.authenticated`` and ``@authorized`` on the resource
``agent_panel`` (docs/protocol.md §6.3), so the server's ``Authorizer`` decides
who may read (``health``, the agent list) and who may execute (``chat``,
``resume``, ``cancel``, ``probe``).
"""
from __future__ import annotations

import getpass
import json
from typing import Optional

from jupyter_server.auth.identity import IdentityProvider, LegacyIdentityProvider, PasswordIdentityProvider
from jupyter_server.base.handlers import APIHandler

from ..agent_host import AgentHost
from ..json_limits import MAX_NAME_CHARS, JsonRejected, read_json_body
from .panel import AgentPanel

SETTINGS_KEY = "jupyterlab_agent_panel"
AUTH_RESOURCE = "agent_panel"
MAX_RESULT_LEN = 500  # a tool result's characters in a frame (docs/protocol.md §2.2)
# Jupyter's own identity providers: one token or password for whoever runs the
# server, and a made-up user name per browser. They name no person, so every
# request is the server's owner and sees the same list in any browser.
SHARED_SECRET_PROVIDERS = (IdentityProvider, PasswordIdentityProvider, LegacyIdentityProvider)
SERVER_OWNER = ""


class Rejected(Exception):
    """A request refused before any turn started; becomes a JSON error reply."""

    def __init__(self, status: int, reason: str, message: str):
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message


def bad_request(message: str) -> Rejected:
    return Rejected(400, "bad_request", message)


class PanelHandler(APIHandler):
    """Shared request parsing and error replies."""

    auth_resource = AUTH_RESOURCE

    @property
    def panel(self) -> AgentPanel:
        return self.settings[SETTINGS_KEY]

    @property
    def owner(self) -> str:
        """Whose conversations a request sees: the user, or ``SERVER_OWNER``."""
        if type(self.identity_provider) in SHARED_SECRET_PROVIDERS:
            return SERVER_OWNER
        return self.current_user.username

    @property
    def thread_owner(self) -> str:
        """Whose threads a request's are on a deployment that several Jupyter servers may share
        (docs/protocol.md §15.5): the user, else (one secret for the server) who runs the server."""
        if self.owner != SERVER_OWNER:
            return self.owner
        try:
            return getpass.getuser()
        except (KeyError, OSError):  # no login name and no passwd entry (some containers)
            return SERVER_OWNER

    def agent_host(self, name: Optional[str]) -> AgentHost:
        """The host of the agent named in the URL (``None``: the default agent)."""
        if name is not None and len(name) > MAX_NAME_CHARS:
            raise bad_request(
                f"The agent name in the URL has {len(name):,} characters; names have at most {MAX_NAME_CHARS}"
            )
        host = self.panel.host(name)
        if host is None:
            raise Rejected(404, "not_found", f"No agent named {name!r}")
        return host

    def json_body(self, max_bytes: Optional[int] = None, limit_name: str = "AgentPanel.max_body_bytes") -> dict:
        """The body as a JSON object, within the size and depth limits (400 / 413 otherwise);
        ``max_bytes`` (set by the setting ``limit_name``) replaces ``AgentPanel.max_body_bytes``."""
        limit = self.panel.max_body_bytes if max_bytes is None else max_bytes
        try:
            return read_json_body(self.request.body, limit, limit_name)
        except JsonRejected as rejected:
            if rejected.problem.too_large:
                raise Rejected(413, "too_large", rejected.problem.message) from None
            raise bad_request(rejected.problem.message) from None

    def reply_rejected(self, rejected: Rejected) -> None:
        # Written directly rather than raised as HTTPError: tornado would %-format
        # the message (user-supplied thread ids, JSON errors) when logging it.
        self.log.warning("agent-panel %s: %s", self.request.path, rejected.message)
        self.set_status(rejected.status)
        self.finish(json.dumps({"message": rejected.message, "reason": rejected.reason}))
