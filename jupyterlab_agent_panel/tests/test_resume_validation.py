"""Resume decisions are checked against the pending interrupt (docs/protocol.md §5.8).

One decision per action request, each a verb that request allows, an ``edit``
with an object of arguments; otherwise a 400 (or a comm ``rejected``) naming the
problem, nothing runs and the review can still be answered. The pending
interrupt is read from the checkpoint, as the graph left it.
"""
from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from helpers import assert_one_terminal_last, text_of
from jupyterlab_agent_panel.turns.decisions import ReviewRow, review_rows
from kernel_comm_client import frames_of

HITL_SPEC = f"{Path(__file__).resolve().parents[2] / 'ui-tests' / 'graphs' / 'hitl.py'}:graph"
PREFIX = "The decisions do not answer the pending review: "
ASK = "action 1 (ask_user)"
DEFAULT_FOUR = ["reject", "edit", "respond", "approve"]


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


def refusal_of(response) -> str:
    assert response.code == 400, response.body
    answer = json.loads(response.body)
    assert answer["reason"] == "bad_request"
    assert answer["message"].startswith(PREFIX), answer
    return answer["message"][len(PREFIX):]


@pytest.mark.parametrize(
    ("decisions", "problem"),
    [
        ([], f"the agent waits for 1 decision ({ASK}), not 0"),
        ([{"type": "approve"}] * 3, f"the agent waits for 1 decision ({ASK}), not 3"),
        ([{"type": "bogus"}], f"decisions[0]: 'bogus' is not allowed for {ASK} (allowed: respond, approve)"),
        ([{"type": "reject"}], f"decisions[0]: 'reject' is not allowed for {ASK} (allowed: respond, approve)"),
        ([{"type": "respond"}], "decisions[0]: a respond decision needs a string 'message'"),
        ([{"type": "respond", "message": 7}], "decisions[0]: a respond decision needs a string 'message'"),
    ],
)
async def test_bad_decisions_are_400_and_the_review_stays_answerable(run_turn, post_json, decisions, problem):
    thread_id = new_thread()
    await run_turn("chat", {"message": "ask me a question", "thread_id": thread_id})

    refused = await post_json("resume", {"thread_id": thread_id, "decisions": decisions})
    assert refusal_of(refused) == problem

    answered = await run_turn("resume", {"thread_id": thread_id, "decisions": [{"type": "respond", "message": "Ada"}]})
    assert text_of(answered) == (
        "Resumed. Your decision was: {'decisions': [{'type': 'respond', 'message': 'Ada'}]}."
    )
    assert assert_one_terminal_last(answered) == {"status": "complete", "outcome": "complete"}


async def test_a_legacy_alias_is_accepted_and_reaches_the_graph_as_its_verb(run_turn):
    # langstage-core's normalize_decision allows 'accept' for 'approve', and core
    # rewrites it for an action_requests interrupt before the graph sees it.
    thread_id = new_thread()
    await run_turn("chat", {"message": "ask me a question", "thread_id": thread_id})

    answered = await run_turn("resume", {"thread_id": thread_id, "decisions": [{"type": "accept"}]})

    assert text_of(answered) == "Resumed. Your decision was: {'decisions': [{'type': 'approve'}]}."


class TestTwoActions:
    CHAT = {"message": "write notes and clean up"}

    @pytest.fixture
    def agent_panel_config(self):
        return {"agents": {"hitl": HITL_SPEC}}

    @pytest.mark.parametrize(
        ("decisions", "problem"),
        [
            (
                [{"type": "approve"}],
                "the agent waits for 2 decisions (action 1 (write_file); action 2 (execute)), not 1",
            ),
            (
                [{"type": "approve"}, {"type": "edit", "edited_action": {"name": "execute", "args": {}}}],
                "decisions[1]: 'edit' is not allowed for action 2 (execute) (allowed: approve, reject)",
            ),
            (
                [{"type": "edit", "edited_action": {"name": "write_file", "args": "x"}}, {"type": "approve"}],
                "decisions[0]: an edit needs 'edited_action' with the new arguments as an object 'args'",
            ),
            (
                [{"type": "edit"}, {"type": "approve"}],
                "decisions[0]: an edit needs 'edited_action' with the new arguments as an object 'args'",
            ),
            (
                [{"type": "reject", "message": ["no"]}, {"type": "approve"}],
                "decisions[0]: 'message' must be a string",
            ),
        ],
    )
    async def test_each_decision_is_checked_against_its_action(self, run_turn, post_json, decisions, problem):
        thread_id = new_thread()
        await run_turn("agents/hitl/chat", {**self.CHAT, "thread_id": thread_id})

        refused = await post_json("agents/hitl/resume", {"thread_id": thread_id, "decisions": decisions})
        assert refusal_of(refused) == problem

        right = [{"type": "approve"}, {"type": "reject", "message": "not now"}]
        answered = await run_turn("agents/hitl/resume", {"thread_id": thread_id, "decisions": right})
        assert text_of(answered) == (
            "Tool results:\n- write_file: wrote 11 chars to notes.md\n"
            "- execute: User rejected the tool call for `execute` with reason: not now"
        )


# -- the rows, from the shapes core normalises ---------------------------------------


@pytest.mark.parametrize(
    ("value", "rows"),
    [
        (None, [ReviewRow("the paused agent", DEFAULT_FOUR)]),
        ("Approve deleting X?", [ReviewRow("action 1", DEFAULT_FOUR)]),
        (
            [
                {
                    "action_request": {"action": "send", "args": {}},
                    "config": {"allow_accept": True, "allow_respond": True},
                }
            ],
            [ReviewRow("action 1 (send)", ["respond", "approve"])],
        ),
        (
            {
                "action_requests": [{"name": "a", "args": {}}, {"name": "b", "args": {}}],
                "review_configs": [{"action_name": "b", "allowed_decisions": ["approve"]}],
            },
            # a has no config of its own: the top-level verbs, derived from b's config
            [ReviewRow("action 1 (a)", ["approve"]), ReviewRow("action 2 (b)", ["approve"])],
        ),
        ({"tool": "search", "query": "q"}, [ReviewRow("action 1 (search)", DEFAULT_FOUR)]),
    ],
)
def test_review_rows_follow_the_panels_rules(value, rows):
    assert review_rows(value) == rows


# -- the kernel comm ---------------------------------------------------------------


def test_bad_decisions_over_the_comm_are_rejected_and_the_review_stays(panel):
    thread_id = new_thread()
    _, end = panel.run_turn("ask me a question", thread_id)
    assert end["outcome"] == "interrupted"

    refused = panel.resume([{"type": "bogus"}], thread_id)
    panel.wait(lambda d: d.get("turn_id") == refused and d.get("type") == "rejected")
    assert panel.turn(refused) == [
        {
            "type": "rejected",
            "turn_id": refused,
            "reason": "bad_request",
            "detail": PREFIX + f"decisions[0]: 'bogus' is not allowed for {ASK} (allowed: respond, approve)",
        }
    ]

    answered = panel.resume([{"type": "approve"}], thread_id)
    end = panel.wait_turn_end(answered)["content"]["data"]
    assert end["outcome"] == "complete"
    text = "".join(f.get("chunk", "") for f in frames_of(panel.turn(answered)))
    assert text == "Resumed. Your decision was: {'decisions': [{'type': 'approve'}]}."
