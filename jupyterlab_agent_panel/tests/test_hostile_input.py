"""Hostile bodies and comm messages get a 4xx or a ``rejected`` naming the problem (docs/protocol.md §6.3, §7.3).

Depth, size and length limits come from ``json_limits.py``; the HTTP routes run
against a real ``ServerApp``, the comm against a real ipykernel.
"""
from __future__ import annotations

import json
import uuid

import pytest
from tornado.httpclient import HTTPClientError

from helpers import text_of
from jupyterlab_agent_panel.json_limits import DEFAULT_MAX_BODY_BYTES, MAX_DEPTH
from kernel_comm_client import PanelComm

TOO_DEEP = f"Request body is nested more than {MAX_DEPTH} levels deep"
ROUTE_BODIES = {  # JSON text with VALUE where the hostile value goes
    "chat": '{"message": "hi", "thread_id": "t", "x": VALUE}',
    "resume": '{"thread_id": "t", "decisions": VALUE}',
    "cancel": '{"thread_id": VALUE}',
    "probe": '{"url": VALUE}',
}


def body_with(route: str, value: str) -> str:
    return ROUTE_BODIES[route].replace("VALUE", value)


def nested(levels: int) -> str:
    """A JSON list nested ``levels`` deep."""
    return "[" * levels + "]" * levels


def problem_of(response, status: int = 400, reason: str = "bad_request") -> str:
    assert response.code == status, response.body
    answer = json.loads(response.body)
    assert answer["reason"] == reason
    return answer["message"]


@pytest.mark.parametrize("levels", [2_000, 100_000])
@pytest.mark.parametrize("route", ROUTE_BODIES)
async def test_deep_bodies_are_400_on_every_route(post_json, route, levels):
    response = await post_json(route, body_with(route, nested(levels)))

    assert problem_of(response) == TOO_DEEP


async def test_the_depth_limit_is_exact(run_turn, post_json):
    # The body object is level 1: a list nested 63 deep inside it reaches level 64.
    at_limit = body_with("chat", nested(MAX_DEPTH - 1))
    over = body_with("chat", nested(MAX_DEPTH))

    assert text_of(await run_turn("chat", json.loads(at_limit))) == "(demo agent) You said: hi"
    assert problem_of(await post_json("chat", over)) == TOO_DEEP


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
async def test_non_json_numbers_are_refused(post_json, constant):
    response = await post_json("chat", body_with("chat", constant))

    assert problem_of(response) == f"Request body is not valid JSON: {constant} is not a JSON value"


async def test_a_body_over_the_default_limit_is_413(post_json):
    body = json.dumps({"message": "x" * DEFAULT_MAX_BODY_BYTES, "thread_id": "t"})

    response = await post_json("chat", body)

    assert problem_of(response, 413, "too_large") == (
        f"Request body is {len(body):,} bytes; the limit is {DEFAULT_MAX_BODY_BYTES:,} bytes "
        "(AgentPanel.max_body_bytes)"
    )


class TestConfiguredBodyLimit:
    @pytest.fixture
    def agent_panel_config(self):
        return {"max_body_bytes": 100}

    @pytest.mark.parametrize("route", ["chat", "resume", "cancel", "probe"])
    async def test_the_limit_is_a_traitlet(self, post_json, route):
        body = json.dumps({"message": "x" * 80, "thread_id": "t", "url": "http://h/"})

        response = await post_json(route, body)

        assert problem_of(response, 413, "too_large") == (
            f"Request body is {len(body)} bytes; the limit is 100 bytes (AgentPanel.max_body_bytes)"
        )

    async def test_a_body_within_it_runs(self, run_turn):
        assert text_of(await run_turn("chat", {"message": "hi", "thread_id": "t"})) == "(demo agent) You said: hi"


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("chat", {"message": "hi"}),
        ("resume", {"decisions": []}),
        ("cancel", {}),
    ],
)
async def test_a_megabyte_thread_id_is_refused(post_json, route, body):
    response = await post_json(route, {**body, "thread_id": "t" * 1_000_000})

    assert problem_of(response) == "thread_id is 1,000,000 characters long; at most 256 are allowed"


async def test_a_thread_id_at_the_limit_is_accepted(run_turn):
    frames = await run_turn("chat", {"message": "hi", "thread_id": "t" * 256})

    assert text_of(frames) == "(demo agent) You said: hi"


async def test_an_over_long_agent_name_is_refused(jp_fetch):
    with pytest.raises(HTTPClientError) as caught:
        await jp_fetch("agent-panel", "agents", "a" * 200, "health")

    assert problem_of(caught.value.response) == (
        "The agent name in the URL has 200 characters; names have at most 128"
    )


# -- the kernel comm ---------------------------------------------------------------


def rejection(panel: PanelComm, msg_id: str) -> dict:
    """The ``rejected`` the kernel sent in answer to the comm message ``msg_id``."""
    answer = panel.kernel.wait_iopub(
        lambda m: panel.is_mine(m)
        and m["msg_type"] == "comm_msg"
        and m["parent_header"].get("msg_id") == msg_id
        and m["content"]["data"].get("type") == "rejected",
        timeout=10,
    )
    return answer["content"]["data"]


def start(**fields) -> dict:
    return {"type": "start_turn", "turn_id": uuid.uuid4().hex, "thread_id": "th", "message": "hi", **fields}


@pytest.mark.parametrize(
    ("fields", "reason", "detail"),
    [
        (
            {"context": {"x": json.loads(nested(MAX_DEPTH))}},
            "bad_request",
            f"the message is nested more than {MAX_DEPTH} levels deep",
        ),
        (
            {"message": "x" * DEFAULT_MAX_BODY_BYTES},
            "too_large",
            f"the message is larger than the limit of {DEFAULT_MAX_BODY_BYTES:,} bytes",
        ),
    ],
)
def test_a_message_over_a_limit_is_rejected_for_its_turn(panel, fields, reason, detail):
    data = start(**fields)

    answer = rejection(panel, panel.send(data))

    assert answer == {"type": "rejected", "turn_id": data["turn_id"], "reason": reason, "detail": detail}


def test_a_lone_surrogate_in_the_turn_id_is_rejected_without_it(panel):
    raw = '{"type": "start_turn", "turn_id": "\\ud800x", "thread_id": "th", "message": "hi"}'

    answer = rejection(panel, panel.send_raw(raw))

    # A reply carrying the lone surrogate could not be encoded: the turn_id is left out.
    assert answer == {
        "type": "rejected",
        "reason": "bad_request",
        "detail": "the message holds a lone surrogate (U+D800), which is not valid Unicode",
    }


def test_a_lone_surrogate_in_the_message_is_rejected_for_its_turn(panel):
    raw = '{"type": "start_turn", "turn_id": "t-sur", "thread_id": "th", "message": "hi \\udc00"}'

    answer = rejection(panel, panel.send_raw(raw))

    assert (answer["turn_id"], answer["reason"]) == ("t-sur", "bad_request")
    assert answer["detail"] == "the message holds a lone surrogate (U+DC00), which is not valid Unicode"


@pytest.mark.parametrize(
    ("fields", "detail", "answered"),
    [
        ({"thread_id": "t" * 257}, "thread_id is 257 characters long; at most 256 are allowed", True),
        ({"turn_id": "u" * 300}, "turn_id is 300 characters long; at most 256 are allowed", False),
    ],
)
def test_over_long_ids_are_rejected(panel, fields, detail, answered):
    data = start(**fields)

    answer = rejection(panel, panel.send(data))

    assert (answer["reason"], answer["detail"]) == ("bad_request", detail)
    assert ("turn_id" in answer) is answered  # an id the panel cannot have sent is not echoed


def test_decisions_that_are_not_objects_are_rejected_as_over_http(panel):
    data = {"type": "resume", "turn_id": uuid.uuid4().hex, "thread_id": "th", "decisions": [1, "x", None]}

    answer = rejection(panel, panel.send(data))

    assert answer["reason"] == "bad_request"
    assert answer["detail"] == "decisions[0] must be an object with a string 'type'"


def test_a_message_deeper_than_the_kernel_can_parse_leaves_the_comm_working(panel):
    # ipykernel's message layer drops it (it logs "Invalid message"); nothing reaches the
    # helper, so nothing can answer it. The panel never sends one (docs/protocol.md §7.3).
    dropped = panel.send_raw('{"type": "health", "x": ' + nested(100_000) + "}")
    hello = panel.send({"type": "health"})

    panel.kernel.wait_iopub(lambda m: panel.is_mine(m) and m["parent_header"].get("msg_id") == hello)
    assert [m for m in panel.kernel.iopub if panel.is_mine(m) and m["parent_header"].get("msg_id") == dropped] == []
