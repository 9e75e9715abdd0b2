"""Where and how the conversations are kept (docs/protocol.md §13.5): the SQLite file, its schema
versions and migrations, writers that run at the same time, and a server restart.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from jupyter_server.utils import url_path_join
from tornado.httpclient import AsyncHTTPClient

from jupyterlab_agent_panel.store import conversation_schema
from jupyterlab_agent_panel.store.conversation_schema import SCHEMA_VERSION, StoreUnavailable
from jupyterlab_agent_panel.store.conversation_store import ConversationStore, Update
from server_process import JupyterServerProcess

REQUIRED = {"thread_id": "t", "endpoint_name": None, "status": "idle"}
WRITES_PER_WRITER = 40


def entries_update(*keys: str) -> Update:
    return Update(dict(REQUIRED), [(key, {"key": key}) for key in keys])


def tables(path: Path) -> set:
    with sqlite3.connect(path) as connection:
        return {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def pragma(path: Path, name: str):
    connection = sqlite3.connect(path)
    try:
        return connection.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        connection.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def store_at():
    """``store_at(path)``: a store on ``path``, closed at teardown."""
    stores = []

    def make(path: Path) -> ConversationStore:
        stores.append(ConversationStore(str(path)))
        return stores[-1]

    yield make
    for store in stores:
        store.close()


async def keys_in(store: ConversationStore, conversation_id: str = "c") -> list:
    text = await store.conversation_json("", conversation_id)
    return [entry["key"] for entry in json.loads(text)["entries"]]


class TestSchema:
    async def test_a_missing_file_and_its_folder_are_created_at_the_current_version_in_wal(self, tmp_path, store_at):
        path = tmp_path / "not" / "yet" / "conversations.sqlite"

        assert await store_at(path).summaries("") == []

        assert pragma(path, "user_version") == SCHEMA_VERSION == 2
        assert pragma(path, "journal_mode") == "wal"
        assert tables(path) == {"conversations", "entries"}

    async def test_a_version_0_database_without_tables_is_migrated_and_keeps_what_else_it_holds(
        self, tmp_path, store_at
    ):
        path = tmp_path / "old.sqlite"
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE notes (text TEXT)")
            connection.execute("INSERT INTO notes VALUES ('keep me')")
        assert pragma(path, "user_version") == 0

        store = store_at(path)
        await store.put("", "c", entries_update("a"))

        assert pragma(path, "user_version") == SCHEMA_VERSION
        assert tables(path) == {"conversations", "entries", "notes"}
        assert await keys_in(store) == ["a"]
        with sqlite3.connect(path) as connection:
            assert connection.execute("SELECT text FROM notes").fetchall() == [("keep me",)]

    async def test_a_database_of_the_current_version_is_opened_as_it_is(self, tmp_path, store_at):
        path = tmp_path / "current.sqlite"
        first = store_at(path)
        await first.put("", "c", entries_update("a", "b"))
        first.close()

        again = store_at(path)

        assert await keys_in(again) == ["a", "b"]
        assert [summary["id"] for summary in await again.summaries("")] == ["c"]
        assert pragma(path, "user_version") == SCHEMA_VERSION

    async def test_each_later_step_runs_once_in_order(self, tmp_path, store_at, monkeypatch):
        path = tmp_path / "current.sqlite"
        written = store_at(path)
        await written.put("", "c", entries_update("a"))
        written.close()
        ran = []

        def add_pins(connection):
            ran.append(pragma_version(connection))
            connection.execute("ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")

        monkeypatch.setattr(conversation_schema, "MIGRATIONS", [*conversation_schema.MIGRATIONS, add_pins])
        monkeypatch.setattr(conversation_schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
        await store_at(path).summaries("")
        await store_at(path).summaries("")  # the migrated file: no step runs again

        assert ran == [SCHEMA_VERSION]
        assert pragma(path, "user_version") == SCHEMA_VERSION + 1
        with sqlite3.connect(path) as connection:
            assert connection.execute("SELECT id, pinned FROM conversations").fetchall() == [("c", 0)]

    async def test_a_version_1_database_gets_the_model_column_and_keeps_its_conversations(self, tmp_path, store_at):
        path = tmp_path / "v1.sqlite"
        with sqlite3.connect(path) as connection:
            conversation_schema.MIGRATIONS[0](connection)
            connection.execute(
                "INSERT INTO conversations (owner, id, title, thread_id, endpoint_name, status, created_at,"
                " updated_at, revision) VALUES ('', 'old', 'Before models', 't', 'Local', 'idle', 1, 2, 1)"
            )
            connection.execute("PRAGMA user_version = 1")
        store = store_at(path)

        [summary] = await store.summaries("")
        old = json.loads(await store.conversation_json("", "old"))
        await store.put("", "old", Update({**REQUIRED, "model": "openai:gpt-4.1-mini"}))

        assert pragma(path, "user_version") == SCHEMA_VERSION
        assert (summary["title"], summary["endpointName"], summary["model"]) == ("Before models", "Local", None)
        assert old["model"] is None and old["entries"] == []
        assert json.loads(await store.conversation_json("", "old"))["model"] == "openai:gpt-4.1-mini"

    @pytest.mark.parametrize("operation", ["list", "save"])
    async def test_a_database_of_a_newer_schema_is_refused_and_left_unchanged(self, tmp_path, store_at, operation):
        path = tmp_path / "future.sqlite"
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE future_things (x)")
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        before = digest(path)
        store = store_at(path)
        call = store.summaries("") if operation == "list" else store.put("", "c", entries_update("a"))

        with pytest.raises(StoreUnavailable) as refused:
            await call

        assert str(refused.value) == (
            f"The conversations database {path} has schema version {SCHEMA_VERSION + 1}, written by a newer "
            f"jupyterlab-agent-panel; this one knows versions up to {SCHEMA_VERSION}. It was left unchanged: "
            "upgrade jupyterlab-agent-panel, or set AgentPanel.conversations_db to another file."
        )
        assert digest(path) == before and not Path(f"{path}-wal").exists()
        assert tables(path) == {"future_things"}

    async def test_a_file_that_is_not_sqlite_is_refused_and_left_unchanged(self, tmp_path, store_at):
        path = tmp_path / "notes.txt"
        path.write_text("these are my notes, not a database\n" * 200)

        with pytest.raises(StoreUnavailable, match="cannot be used: file is not a database"):
            await store_at(path).summaries("")

        assert path.read_text() == "these are my notes, not a database\n" * 200


def pragma_version(connection: sqlite3.Connection) -> int:
    return connection.execute("PRAGMA user_version").fetchone()[0]


class TestTwoWritersLoseNoEntry:
    async def test_two_stores_on_one_file_append_at_once(self, tmp_path, store_at):
        path = tmp_path / "shared.sqlite"
        first, second = store_at(path), store_at(path)

        await asyncio.gather(
            *(first.put("", "c", entries_update(f"first-{i}")) for i in range(WRITES_PER_WRITER)),
            *(second.put("", "c", entries_update(f"second-{i}")) for i in range(WRITES_PER_WRITER)),
        )
        keys = await keys_in(first)

        assert sorted(keys) == sorted([f"first-{i}" for i in range(WRITES_PER_WRITER)] +
                                      [f"second-{i}" for i in range(WRITES_PER_WRITER)])
        assert [key for key in keys if key.startswith("first")] == [f"first-{i}" for i in range(WRITES_PER_WRITER)]
        assert json.loads(await second.conversation_json("", "c"))["revision"] == 2 * WRITES_PER_WRITER

    def test_a_store_opens_a_new_file_while_another_connection_holds_it(self, tmp_path):
        # A second server opening the file while the first creates it: SQLite refuses the
        # switch to WAL at once ("database is locked"), without its busy timeout.
        path = tmp_path / "shared.sqlite"
        holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        holder.execute("CREATE TABLE other (x)")
        release = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
        release.start()
        try:
            connection = conversation_schema.open_database(str(path))
        finally:
            release.join()
            holder.close()

        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conversation_schema.schema_version(connection) == SCHEMA_VERSION
        connection.close()

    async def test_another_process_appends_at_the_same_time(self, tmp_path, store_at):
        path = tmp_path / "shared.sqlite"
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD_WRITER, str(path), str(WRITES_PER_WRITER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert child.stdout.readline() == "ready\n"  # its store is open
            store = store_at(path)
            await store.summaries("")
            child.stdin.write("go\n")
            child.stdin.flush()
            for i in range(WRITES_PER_WRITER):
                await store.put("", "c", entries_update(f"parent-{i}"))
            assert child.wait(timeout=60) == 0
        finally:
            child.kill()

        keys = await keys_in(store)

        assert sorted(keys) == sorted([f"parent-{i}" for i in range(WRITES_PER_WRITER)] +
                                      [f"child-{i}" for i in range(WRITES_PER_WRITER)])

    async def test_two_clients_put_to_one_conversation_at_once(self, jp_serverapp, jp_base_url, conversations):
        url = f"http://127.0.0.1:{jp_serverapp.port}{url_path_join(jp_base_url, 'agent-panel', 'conversations', 'c')}"
        headers = {"Authorization": f"token {jp_serverapp.identity_provider.token}"}
        clients = [AsyncHTTPClient(force_instance=True, max_clients=WRITES_PER_WRITER) for _ in range(2)]

        def put(client, key: str):
            body = {"threadId": "t", "endpointName": None, "status": "running", "entries": [{"key": key}]}
            return client.fetch(url, method="PUT", headers=headers, body=json.dumps(body))

        try:
            responses = await asyncio.gather(
                *(put(client, f"tab{n}-{i}") for i in range(WRITES_PER_WRITER) for n, client in enumerate(clients))
            )
        finally:
            for client in clients:
                client.close()
        code, conversation = await conversations("GET", "c")

        assert {response.code for response in responses} == {200}
        assert sorted(json.loads(response.body)["revision"] for response in responses) == list(
            range(1, 2 * WRITES_PER_WRITER + 1)
        )
        assert code == 200 and conversation["entryCount"] == 2 * WRITES_PER_WRITER
        assert sorted(entry["key"] for entry in conversation["entries"]) == sorted(
            f"tab{n}-{i}" for i in range(WRITES_PER_WRITER) for n in range(2)
        )


CHILD_WRITER = textwrap.dedent(
    """
    import asyncio, sys
    from jupyterlab_agent_panel.store.conversation_store import ConversationStore, Update

    async def main(path, count):
        store = ConversationStore(path)
        await store.summaries("")
        print("ready", flush=True)
        sys.stdin.readline()
        for i in range(count):
            fields = {"thread_id": "t", "endpoint_name": None, "status": "idle"}
            await store.put("", "c", Update(fields, [(f"child-{i}", {"key": f"child-{i}"})]))
        store.close()

    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
    """
)


async def test_the_default_file_is_created_in_the_jupyter_data_dir_on_first_use(conversations, jp_data_dir):
    path = Path(jp_data_dir) / "agent_panel" / "conversations.sqlite"
    assert not path.parent.exists()

    code, answer = await conversations("GET")

    assert (code, answer) == (200, {"conversations": []})
    assert path.exists() and pragma(path, "user_version") == SCHEMA_VERSION


class TestANewerDatabase:
    @pytest.fixture
    def agent_panel_config(self, tmp_path):
        path = tmp_path / "future.sqlite"
        with sqlite3.connect(path) as connection:
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        return {"conversations_db": str(path)}

    async def test_every_route_answers_503_naming_the_problem(self, conversations):
        save = {"threadId": "t", "endpointName": None, "status": "idle"}
        for method, body in [("GET", None), ("PUT", save), ("PATCH", {"title": "x"}), ("DELETE", None)]:
            code, answer = await conversations(method, *(() if method == "GET" else ("c",)), body=body)

            assert code == 503 and answer["reason"] == "store_unavailable", (method, answer)
            assert f"has schema version {SCHEMA_VERSION + 1}, written by a newer" in answer["message"]


class TestARestartedServer:
    @pytest.fixture
    def db_path(self, tmp_path):
        return tmp_path / "kept" / "conversations.sqlite"

    @pytest.fixture
    def agent_panel_config(self, db_path):
        return {"conversations_db": str(db_path)}

    async def test_a_new_server_on_the_same_file_has_the_list_and_the_conversations(
        self, conversations, agent_panel, db_path, tmp_path
    ):
        body = {"threadId": "t-1", "endpointName": "Agent", "status": "review", "title": "Before the restart"}
        await conversations("PUT", "kept", body={**body, "entries": [{"key": "a", "text": "hello"}], "queue": ["q"]})
        await conversations("PUT", "second", body={**body, "title": "Another"})
        code, before = await conversations("GET", "kept")
        assert code == 200
        agent_panel.conversations.close()  # this server's store is gone, as when it stops

        async with JupyterServerProcess(tmp_path, f"--AgentPanel.conversations_db={db_path}") as server:
            fetch = server.fetch
            listed = await fetch("GET", "conversations")
            after = await fetch("GET", "conversations/kept")
            saved = await fetch("PUT", "conversations/kept", {**body, "entries": [{"key": "b"}]})
            continued = await fetch("GET", "conversations/kept")

        assert [summary["id"] for summary in listed["conversations"]] == ["second", "kept"]
        assert after == before
        assert saved["revision"] == 2
        assert [entry["key"] for entry in continued["entries"]] == ["a", "b"]
