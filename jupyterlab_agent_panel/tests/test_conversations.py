"""The conversation routes against a real ServerApp and its SQLite store (docs/protocol.md §13).

Saving, listing, opening, renaming and deleting; entries upserted by key in the
order of first insertion; the ``q`` filter; whose conversations a request sees.
"""
from __future__ import annotations

import pytest
from jupyter_server.auth.identity import IdentityProvider, User

SUMMARY_KEYS = {
    "id", "title", "threadId", "endpointName", "model", "status", "createdAt", "updatedAt", "revision", "entryCount"
}


def update(**fields) -> dict:
    """A ``PUT`` body: the required fields, then ``fields``."""
    return {"threadId": "thread-1", "endpointName": None, "status": "idle", **fields}


def entry(key: str, **fields) -> dict:
    return {"key": key, **fields}


def keys_of(conversation: dict) -> list:
    return [item["key"] for item in conversation["entries"]]


async def saved(conversations, conversation_id: str, body: dict) -> dict:
    code, answer = await conversations("PUT", conversation_id, body=body)
    assert code == 200, answer
    return answer


async def opened(conversations, conversation_id: str) -> dict:
    code, answer = await conversations("GET", conversation_id)
    assert code == 200, answer
    return answer


async def listed(conversations, **params) -> list:
    code, answer = await conversations("GET", params=params)
    assert code == 200, answer
    return answer["conversations"]


async def test_a_saved_conversation_is_listed_and_opened_whole(conversations):
    assert await listed(conversations) == []
    memory = {"kind": "agui", "messages": [{"id": "m1", "role": "user", "content": "hi"}]}
    body = update(
        threadId="th-42",
        endpointName="Local agent",
        status="review",
        title="Plot the data",
        entries=[entry("u1", kind="user", text="plot it"), entry("a1", kind="assistant", text="Done.")],
        transportMemory=memory,
        queue=[{"text": "and then?"}],
    )

    first = await saved(conversations, "conv-1", body)
    conversation = await opened(conversations, "conv-1")
    [summary] = await listed(conversations)

    assert first["revision"] == 1 and isinstance(first["updatedAt"], int)
    assert set(summary) == SUMMARY_KEYS
    assert summary == {
        "id": "conv-1",
        "title": "Plot the data",
        "threadId": "th-42",
        "endpointName": "Local agent",
        "model": None,
        "status": "review",
        "createdAt": summary["createdAt"],
        "updatedAt": first["updatedAt"],
        "revision": 1,
        "entryCount": 2,
    }
    assert summary["createdAt"] <= summary["updatedAt"]
    assert conversation == {
        **summary,
        "entries": body["entries"],
        "transportMemory": memory,
        "queue": [{"text": "and then?"}],
    }


async def test_a_new_conversation_has_an_empty_title_no_memory_and_an_empty_queue(conversations):
    await saved(conversations, "c", update())

    conversation = await opened(conversations, "c")

    assert conversation["title"] == ""
    assert conversation["entries"] == [] and conversation["entryCount"] == 0
    assert conversation["transportMemory"] is None and conversation["queue"] == []


async def test_entries_are_upserted_by_key_in_the_order_of_first_insertion(conversations):
    await saved(conversations, "c", update(entries=[entry("a", n=1), entry("b", n=1), entry("c", n=1)]))
    await saved(conversations, "c", update(entries=[entry("b", n=2), entry("d", n=1)]))

    conversation = await opened(conversations, "c")

    assert [(item["key"], item["n"]) for item in conversation["entries"]] == [("a", 1), ("b", 2), ("c", 1), ("d", 1)]
    assert conversation["entryCount"] == 4 and conversation["revision"] == 2


async def test_removed_keys_are_deleted_and_a_key_removed_and_given_again_goes_last(conversations):
    await saved(conversations, "c", update(entries=[entry("a"), entry("b"), entry("c")]))
    await saved(conversations, "c", update(removedKeys=["b", "never-there"]))
    after_removal = keys_of(await opened(conversations, "c"))
    await saved(conversations, "c", update(removedKeys=["a"], entries=[entry("a", again=True)]))

    conversation = await opened(conversations, "c")

    assert after_removal == ["a", "c"]
    assert keys_of(conversation) == ["c", "a"] and conversation["entries"][1]["again"] is True


async def test_a_key_given_twice_in_one_save_keeps_its_first_place_and_last_body(conversations):
    await saved(conversations, "c", update(entries=[entry("a", n=1), entry("b"), entry("a", n=2)]))

    conversation = await opened(conversations, "c")

    assert keys_of(conversation) == ["a", "b"] and conversation["entries"][0]["n"] == 2


async def test_omitted_optional_fields_keep_their_value_and_null_clears_the_memory(conversations):
    await saved(conversations, "c", update(title="T", transportMemory={"m": 1}, queue=["q"], entries=[entry("a")]))
    await saved(conversations, "c", update(status="running", endpointName="E"))
    kept = await opened(conversations, "c")
    await saved(conversations, "c", update(transportMemory=None, queue=[], title=""))

    cleared = await opened(conversations, "c")

    assert (kept["title"], kept["transportMemory"], kept["queue"], keys_of(kept)) == ("T", {"m": 1}, ["q"], ["a"])
    assert (kept["status"], kept["endpointName"]) == ("running", "E")
    assert (cleared["title"], cleared["transportMemory"], cleared["queue"]) == ("", None, [])
    assert (cleared["status"], cleared["endpointName"]) == ("idle", None)


async def test_the_chosen_model_is_saved_listed_kept_when_omitted_and_cleared_by_null(conversations):
    await saved(conversations, "c", update(model="openai:gpt-4.1-mini", entries=[entry("a")]))
    chosen = await opened(conversations, "c")
    [listed_chosen] = await listed(conversations)
    await saved(conversations, "c", update(status="running", entries=[entry("b")]))
    kept = await opened(conversations, "c")
    await saved(conversations, "c", update(model=None))

    cleared = await opened(conversations, "c")

    assert chosen["model"] == listed_chosen["model"] == "openai:gpt-4.1-mini"
    assert kept["model"] == "openai:gpt-4.1-mini" and keys_of(kept) == ["a", "b"]
    assert cleared["model"] is None and (await listed(conversations))[0]["model"] is None


async def test_the_store_keeps_entries_exactly_as_sent(conversations):
    odd = entry("k", text="café ☕ 𝄞 \"quoted\" \\ \n", lone="\ud800", nested={"a": [1, 2.5, None, True]})

    await saved(conversations, "c", update(entries=[odd], title="emoji cut in half \ud83d"))
    conversation = await opened(conversations, "c")

    assert conversation["entries"] == [odd]
    assert conversation["title"] == "emoji cut in half \ufffd"


async def test_the_list_is_newest_activity_first_and_a_rename_keeps_the_place(conversations):
    for conversation_id in ("old", "middle", "new"):
        await saved(conversations, conversation_id, update())

    code, renamed = await conversations("PATCH", "old", body={"title": "Renamed"})
    order_after_rename = [summary["id"] for summary in await listed(conversations)]
    await saved(conversations, "old", update(entries=[entry("x")]))

    assert code == 200
    assert renamed["title"] == "Renamed" and renamed["revision"] == 2 and set(renamed) == SUMMARY_KEYS
    assert order_after_rename == ["new", "middle", "old"]
    assert [summary["id"] for summary in await listed(conversations)] == ["old", "new", "middle"]


async def test_q_keeps_conversations_whose_title_or_an_entry_holds_the_text_ignoring_case(conversations):
    await saved(conversations, "by-title", update(title="Quarterly REPORT"))
    await saved(conversations, "by-entry", update(entries=[entry("a", text="the Report is ready")]))
    await saved(conversations, "quoted", update(entries=[entry("a", text='he said "ÉTÉ"\nthen left')]))
    await saved(conversations, "other", update(title="Lunch", entries=[entry("a", text="soup")]))

    def ids(found):
        return sorted(summary["id"] for summary in found)

    assert ids(await listed(conversations, q="report")) == ["by-entry", "by-title"]
    assert ids(await listed(conversations, q='said "été"')) == ["quoted"]
    assert ids(await listed(conversations, q='ÉTÉ"\nTHEN')) == ["quoted"]
    assert ids(await listed(conversations, q="nothing like it")) == []
    assert ids(await listed(conversations, q="")) == ["by-entry", "by-title", "other", "quoted"]


async def test_delete_removes_the_conversation_and_its_entries(conversations):
    await saved(conversations, "gone", update(entries=[entry("a"), entry("b")]))
    await saved(conversations, "kept", update(entries=[entry("a")]))

    code, body = await conversations("DELETE", "gone")
    again = await conversations("DELETE", "gone")
    await saved(conversations, "gone", update())

    assert (code, body) == (204, None)
    assert again == (404, {"message": "No conversation 'gone'", "reason": "not_found"})
    assert (await opened(conversations, "gone"))["entries"] == []
    assert keys_of(await opened(conversations, "kept")) == ["a"]


@pytest.mark.parametrize(("method", "body"), [("GET", None), ("PATCH", {"title": "x"}), ("DELETE", None)])
async def test_an_unknown_id_is_404(conversations, method, body):
    code, answer = await conversations(method, "no-such-id", body=body)

    assert (code, answer) == (404, {"message": "No conversation 'no-such-id'", "reason": "not_found"})


async def test_since_answers_204_while_the_revision_is_the_clients_and_the_whole_conversation_after(conversations):
    first = await saved(conversations, "watched", update(entries=[entry("a")]))

    unchanged = await conversations("GET", "watched", params={"since": str(first["revision"])})
    second = await saved(conversations, "watched", update(entries=[entry("b")]))
    changed = await conversations("GET", "watched", params={"since": str(first["revision"])})
    missing = await conversations("GET", "no-such-id", params={"since": "1"})

    assert unchanged == (204, None)
    assert changed[0] == 200
    assert changed[1]["revision"] == second["revision"] == first["revision"] + 1
    assert keys_of(changed[1]) == ["a", "b"]
    assert missing == (404, {"message": "No conversation 'no-such-id'", "reason": "not_found"})


async def test_a_10_mb_entry_round_trips(conversations):
    text = "".join(chr(0x20 + i % 90) for i in range(10 * 1024 * 1024))
    big = entry("big", kind="assistant", text=text)

    await saved(conversations, "long", update(entries=[entry("before"), big, entry("after")]))
    conversation = await opened(conversations, "long")

    assert keys_of(conversation) == ["before", "big", "after"]
    assert conversation["entries"][1] == big


async def test_anonymous_users_of_the_servers_token_share_one_list(conversations, jp_serverapp):
    # Jupyter's own identity provider makes up a user per cookie-less request.
    assert type(jp_serverapp.identity_provider).__name__ == "PasswordIdentityProvider"
    await saved(conversations, "shared", update(entries=[entry("a")]))

    assert [summary["id"] for summary in await listed(conversations)] == ["shared"]


class TwoUsers(IdentityProvider):
    """``Authorization: token <name>-token`` is the user ``<name>``, for alice and bob."""

    USERS = ("alice", "bob")

    def get_user(self, handler):
        match = self.auth_header_pat.match(handler.request.headers.get("Authorization", ""))
        name = match and match.group(2).removesuffix("-token")
        if name not in self.USERS:
            return None
        handler._token_authenticated = True  # as jupyter_server's own token check does
        return User(name)


class TestEachUserHasTheirOwnConversations:
    @pytest.fixture
    def jp_server_config(self, jp_server_config):
        jp_server_config["ServerApp"]["identity_provider_class"] = TwoUsers
        return jp_server_config

    @staticmethod
    def as_user(conversations, name: str):
        headers = {"Authorization": f"token {name}-token"}
        return lambda method, *path, **kwargs: conversations(method, *path, headers=headers, **kwargs)

    async def test_one_user_never_sees_or_changes_anothers(self, conversations):
        alice, bob = self.as_user(conversations, "alice"), self.as_user(conversations, "bob")
        await saved(alice, "same-id", update(title="Alice's", entries=[entry("a")]))
        await saved(bob, "same-id", update(title="Bob's", entries=[entry("b")]))
        await saved(alice, "only-alice", update())

        bob_list = await listed(bob)
        bob_rename = await bob("PATCH", "only-alice", body={"title": "mine now"})
        bob_delete = await bob("DELETE", "only-alice")

        assert [summary["id"] for summary in bob_list] == ["same-id"]
        assert bob_list[0]["title"] == "Bob's"
        assert keys_of(await opened(alice, "same-id")) == ["a"]
        assert keys_of(await opened(bob, "same-id")) == ["b"]
        assert bob_rename[0] == 404 and bob_delete[0] == 404
        assert (await opened(alice, "only-alice"))["title"] == ""
        assert [summary["id"] for summary in await listed(bob, q="Alice")] == []
        assert sorted(summary["id"] for summary in await listed(alice)) == ["only-alice", "same-id"]

    async def test_a_request_without_a_user_is_refused(self, conversations):
        code, _ = await self.as_user(conversations, "mallory")("GET")

        assert code == 403

