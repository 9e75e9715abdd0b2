"""Bad input to the conversation routes gets a 400 / 413 naming the problem (docs/protocol.md §13.4).

Nothing of a refused save is stored, and no input reaches SQLite unchecked.
"""
from __future__ import annotations

import pytest

from jupyterlab_agent_panel.json_limits import MAX_DEPTH

GOOD = {"threadId": "t", "endpointName": None, "status": "idle"}
ID_RULE = "is not valid: use 1 to 64 letters, digits, '_' or '-'"
METHOD_BODIES = [("GET", None), ("PUT", GOOD), ("PATCH", {"title": "x"}), ("DELETE", None)]


def refused(answer: tuple, status: int = 400, reason: str = "bad_request") -> str:
    code, body = answer
    assert code == status, body
    assert body["reason"] == reason
    return body["message"]


@pytest.mark.parametrize(
    ("raw_id", "shown"),
    [
        ("bad id", "'bad id'"),
        ("a.b", "'a.b'"),
        ("a/b", "'a/b'"),
        ("café", "'café'"),
        ("x" * 65, repr("x" * 65)),
        ("y" * 500, f"{'y' * 80!r}… (500 characters)"),
    ],
)
@pytest.mark.parametrize(("method", "body"), METHOD_BODIES)
async def test_a_bad_id_is_400_on_every_method(conversations, method, body, raw_id, shown):
    message = refused(await conversations(method, raw_id, body=body))

    assert message == f"Conversation id {shown} {ID_RULE}"


async def test_the_longest_id_and_every_allowed_character_are_accepted(conversations):
    longest = "aZ09_-" * 10 + "abcd"

    assert len(longest) == 64
    assert (await conversations("PUT", longest, body=GOOD))[0] == 200
    assert (await conversations("GET", longest))[0] == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("", "Request body is empty; expected a JSON object"),
        ("not json", "Request body is not valid JSON: Expecting value: line 1 column 1 (char 0)"),
        (b'{"threadId": "\xff"}', "Request body is not valid JSON: 'utf-8' codec can't decode byte 0xff"),
        ('{"threadId": NaN}', "Request body is not valid JSON: NaN is not a JSON value"),
        ("[1, 2]", "Request body must be a JSON object, not list"),
        ('{"entries": ' + "[" * MAX_DEPTH + "]" * MAX_DEPTH + "}", f"nested more than {MAX_DEPTH} levels deep"),
        ("[" * 100_000 + "]" * 100_000, f"Request body is nested more than {MAX_DEPTH} levels deep"),
    ],
)
async def test_a_body_that_is_not_a_json_object_is_400(conversations, body, message):
    assert message in refused(await conversations("PUT", "c", body=body))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"threadId": None}, "threadId must be a string, not null"),
        ({"threadId": 7}, "threadId must be a string, not a number"),
        ({"threadId": "t" * 257}, "threadId is 257 characters long; at most 256 are allowed"),
        ({"threadId": "\udc00"}, "threadId holds a lone surrogate (U+DC00), which is not valid Unicode"),
        ({"endpointName": ["E"]}, "endpointName must be a string or null, not an array"),
        ({"status": "done"}, "status must be one of 'idle', 'running', 'review', not 'done'"),
        ({"status": True}, "status must be one of 'idle', 'running', 'review', not a boolean"),
        ({"title": 3}, "title must be a string, not a number"),
        ({"model": 4}, "model must be a string or null, not a number"),
        ({"model": ["openai:gpt-4.1-mini"]}, "model must be a string or null, not an array"),
        ({"model": ""}, "model must not be empty (null is the endpoint's default model)"),
        ({"model": "m" * 257}, "model is 257 characters long; at most 256 are allowed"),
        ({"model": "openai:\udc00"}, "model holds a lone surrogate (U+DC00), which is not valid Unicode"),
        ({"entries": {"key": "a"}}, "entries must be an array, not an object"),
        ({"entries": [{"key": "a"}, "b"]}, "entries[1] must be an object, not a string"),
        ({"entries": [{"text": "no key"}]}, "entries[0] has no key"),
        ({"entries": [{"key": 1}]}, "entries[0].key must be a string, not a number"),
        ({"entries": [{"key": ""}]}, "entries[0].key must not be empty"),
        ({"entries": [{"key": "k" * 300}]}, "entries[0].key is 300 characters long; at most 256 are allowed"),
        ({"removedKeys": "a"}, "removedKeys must be an array, not a string"),
        ({"removedKeys": ["a", None]}, "removedKeys[1] must be a string, not null"),
        ({"transportMemory": []}, "transportMemory must be an object or null, not an array"),
        ({"queue": {}}, "queue must be an array, not an object"),
        ({"thread_id": "t"}, "Unknown field 'thread_id' in a conversation update; the fields are threadId, "),
    ],
)
async def test_a_field_of_the_wrong_type_is_400_naming_it(conversations, fields, message):
    assert refused(await conversations("PUT", "c", body={**GOOD, **fields})).startswith(message)


@pytest.mark.parametrize("missing", ["threadId", "endpointName", "status"])
async def test_a_missing_required_field_is_400(conversations, missing):
    body = {name: value for name, value in GOOD.items() if name != missing}

    assert refused(await conversations("PUT", "c", body=body)) == f"{missing} is required"


async def test_a_refused_save_changes_nothing(conversations):
    await conversations("PUT", "c", body={**GOOD, "title": "Kept", "entries": [{"key": "a"}]})

    answer = await conversations(
        "PUT", "c", body={**GOOD, "title": "Lost", "removedKeys": ["a"], "entries": [{"key": "b"}, {"key": 2}]}
    )
    code, conversation = await conversations("GET", "c")

    assert refused(answer) == "entries[1].key must be a string, not a number"
    assert code == 200
    assert (conversation["title"], conversation["entries"], conversation["revision"]) == ("Kept", [{"key": "a"}], 1)
    new_refused = await conversations("PUT", "new", body={**GOOD, "threadId": 1})
    assert refused(new_refused) == "threadId must be a string, not a number"
    assert [summary["id"] for summary in (await conversations("GET"))[1]["conversations"]] == ["c"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "title is required"),
        ({"title": None}, "title must be a string, not null"),
        ({"title": "x", "status": "idle"}, "Unknown field 'status' in a rename; the fields are title"),
        ("[]", "Request body must be a JSON object, not list"),
    ],
)
async def test_a_bad_rename_is_400(conversations, body, message):
    await conversations("PUT", "c", body=GOOD)

    assert refused(await conversations("PATCH", "c", body=body)) == message


async def test_a_query_over_1000_characters_is_400(conversations):
    assert (await conversations("GET", params={"q": "q" * 1000}))[0] == 200
    message = refused(await conversations("GET", params={"q": "q" * 1001}))

    assert message == "q is 1,001 characters long; at most 1000 are allowed"


@pytest.mark.parametrize("since", ["", "-1", "1.5", "two", "١", "9" * 16])
async def test_a_since_that_is_not_a_revision_is_400_naming_it(conversations, since):
    await conversations("PUT", "c", body=GOOD)

    message = refused(await conversations("GET", "c", params={"since": since}))

    assert message.startswith("since must be a revision (a whole number of at most 15 digits), not ")


class TestTheSaveLimit:
    @pytest.fixture
    def agent_panel_config(self):
        return {"max_conversation_bytes": 2_000, "max_body_bytes": 100}

    async def test_a_save_over_max_conversation_bytes_is_413_and_stores_nothing(self, conversations):
        body = {**GOOD, "entries": [{"key": "a", "text": "x" * 2_000}]}

        message = refused(await conversations("PUT", "c", body=body), 413, "too_large")

        assert message.endswith("; the limit is 2,000 bytes (AgentPanel.max_conversation_bytes)")
        assert (await conversations("GET", "c"))[0] == 404

    async def test_a_save_is_not_held_to_max_body_bytes_but_a_rename_is(self, conversations):
        under = {**GOOD, "entries": [{"key": "a", "text": "x" * 1_500}]}

        saved = await conversations("PUT", "c", body=under)
        rename = await conversations("PATCH", "c", body={"title": "t" * 200})

        assert saved[0] == 200
        assert refused(rename, 413, "too_large").endswith("the limit is 100 bytes (AgentPanel.max_body_bytes)")
