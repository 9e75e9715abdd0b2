"""The conversation routes under ``<base_url>agent-panel/conversations`` (docs/protocol.md §13).

``GET conversations[?q=]`` lists the user's conversations; ``GET``, ``PUT``,
``PATCH`` and ``DELETE conversations/<id>`` read, save, rename and delete one
(``GET conversations/<id>?since=<revision>``: 204 while it has not changed).
Reading asks the server's ``Authorizer`` for ``read`` on ``agent_panel``,
changing for ``write``. Errors are JSON like the other routes'
(docs/protocol.md §6.3), plus 503 ``store_unavailable`` when the database
cannot be used (docs/protocol.md §13.4).
"""
from __future__ import annotations

import json
from typing import Awaitable, Callable

from jupyter_server.auth.decorator import authorized
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.ioloop import IOLoop

from ..store.conversation_schema import StoreUnavailable
from ..store.conversation_store import Update
from .conversation_update import conversation_id_of, query_of, rename_of, since_of, update_of
from .panel_handler import PanelHandler, Rejected


class ConversationHandler(PanelHandler):
    """Shared: the store's errors as JSON."""

    async def answer(self, work: Callable[[], Awaitable[None]]) -> None:
        try:
            await work()
        except Rejected as rejected:
            self.reply_rejected(rejected)
        except StoreUnavailable as exc:
            self.log.error("agent-panel conversations: %s", exc)
            self.reply_rejected(Rejected(503, "store_unavailable", str(exc)))

    def not_found(self, conversation_id: str) -> Rejected:
        return Rejected(404, "not_found", f"No conversation {conversation_id!r}")


class ConversationListHandler(ConversationHandler):
    @web.authenticated
    @authorized("read")
    async def get(self) -> None:
        """``{"conversations": [Summary, ...]}``, newest activity first, filtered by ``q``."""

        async def work() -> None:
            query = query_of(self.get_query_argument("q", ""))
            summaries = await self.panel.conversations.summaries(self.owner, query)
            self.finish(json.dumps({"conversations": summaries}))

        await self.answer(work)


class ConversationItemHandler(ConversationHandler):
    @web.authenticated
    @authorized("read")
    async def get(self, raw_id: str) -> None:
        """The whole conversation, entries in order; with ``since`` (a revision the client
        has), 204 without a body when it is still that revision."""

        async def work() -> None:
            conversation_id = conversation_id_of(raw_id)
            since = since_of(self.get_query_argument("since", None))
            if since is not None:
                revision = await self.panel.conversations.revision(self.owner, conversation_id)
                if revision is None:
                    raise self.not_found(conversation_id)
                if revision == since:
                    self.set_status(204)
                    self.finish()
                    return
            text = await self.panel.conversations.conversation_json(self.owner, conversation_id)
            if text is None:
                raise self.not_found(conversation_id)
            self.finish(text)

        await self.answer(work)

    @web.authenticated
    @authorized("write")
    async def put(self, raw_id: str) -> None:
        """Upsert entries by key and set the fields given: ``{"revision", "updatedAt"}``."""

        async def work() -> None:
            conversation_id = conversation_id_of(raw_id)
            # A save may be hundreds of MB: its depth walk runs in a worker thread, which lets the loop run.
            update = await IOLoop.current().run_in_executor(None, self.read_update)
            saved = await self.panel.conversations.put(self.owner, conversation_id, update)
            self.finish(json.dumps(saved))

        await self.answer(work)

    def read_update(self) -> Update:
        return update_of(self.json_body(self.panel.max_conversation_bytes, "AgentPanel.max_conversation_bytes"))

    @web.authenticated
    @authorized("write")
    async def patch(self, raw_id: str) -> None:
        """``{"title"}`` renames: the conversation's ``Summary``."""

        async def work() -> None:
            conversation_id = conversation_id_of(raw_id)
            title = rename_of(self.json_body())
            summary = await self.panel.conversations.rename(self.owner, conversation_id, title)
            if summary is None:
                raise self.not_found(conversation_id)
            self.finish(json.dumps(summary))

        await self.answer(work)

    @web.authenticated
    @authorized("write")
    async def delete(self, raw_id: str) -> None:
        """Delete the conversation: 204."""

        async def work() -> None:
            conversation_id = conversation_id_of(raw_id)
            if not await self.panel.conversations.delete(self.owner, conversation_id):
                raise self.not_found(conversation_id)
            self.set_status(204)
            self.finish()

        await self.answer(work)


def conversation_routes(prefix: str) -> list:
    """The routes under ``prefix`` (``<base_url>agent-panel``). Any id reaches the handler,
    which answers one it does not accept with a JSON 400."""
    base = url_path_join(prefix, "conversations")
    return [(base + "/?", ConversationListHandler), (base + "/(.+)", ConversationItemHandler)]
