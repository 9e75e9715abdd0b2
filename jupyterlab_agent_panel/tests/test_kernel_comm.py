"""The kernel comm helper (docs/protocol.md §7) against a real ipykernel, driven like the panel.

Comm messages go in on the shell channel, ``comm_msg`` come back on IOPub. Graphs
used: the demo tools agent (default), ``graphs/kernel_*.py`` and ``graphs/echo_all.py``.
"""
from __future__ import annotations

import json
import time
import uuid
from datetime import datetime

import pytest

from helpers import PANEL_CONTEXT_FORMS
from jupyterlab_agent_panel.memory.checkpoints import RESUME_AT_START
from kernel_comm_client import GRAPHS_DIR, KernelUnderTest, PanelComm, frames_of

CANCELLED_FRAME = {"status": "cancelled", "message": "Execution cancelled by user"}
PRINT_MARKER = "AGENT-PRINTED"  # graphs/kernel_printing.py


def kernel_time(msg: dict) -> datetime:
    return msg["header"]["date"]


def new_thread() -> str:
    return f"thread-{uuid.uuid4().hex[:8]}"


def serve(kernel: KernelUnderTest, argument_code: str = ""):
    """Run ``serve(<argument_code>)`` in a cell; its value is kept as ``server``."""
    execution = kernel.execute(
        f"import jupyterlab_agent_panel\nserver = jupyterlab_agent_panel.serve({argument_code})\nserver"
    )
    assert execution.ok, execution.reply["content"]
    return execution


def graph_spec(attr_path: str) -> str:
    module, attr = attr_path.split(":")
    return json.dumps(f"{GRAPHS_DIR / module}.py:{attr}")


def open_panel(kernel: KernelUnderTest, subshell_id=None) -> tuple[PanelComm, dict]:
    panel = PanelComm(kernel, subshell_id)
    panel.open()
    hello = panel.wait(lambda d: d.get("type") == "hello")["content"]["data"]
    return panel, hello


def wait_first_frame(panel: PanelComm, turn_id: str) -> dict:
    return panel.wait(lambda d: d.get("turn_id") == turn_id and d.get("type") == "frame")


def parents_of_turn(panel: PanelComm, turn_id: str) -> set[str]:
    """The msg_id of the request each message of the turn was published as a child of."""
    return {m["parent_header"]["msg_id"] for m in panel.messages(lambda d: d.get("turn_id") == turn_id)}


def only_terminal_last(frames: list[dict]) -> None:
    statuses = [f["status"] for f in frames]
    assert statuses[-1] in ("complete", "error", "cancelled")
    assert not {"complete", "error", "cancelled"} & set(statuses[:-1])


def test_serve_outside_a_kernel_says_so():
    from jupyterlab_agent_panel.kernel import helper as kernel_helper

    with pytest.raises(RuntimeError, match="needs a Jupyter kernel"):
        kernel_helper.serve()


# -- a kernel of its own: before and after %load_ext ------------------------------


def test_target_missing_then_load_ext_then_unload():
    kernel = KernelUnderTest()
    try:
        early = PanelComm(kernel)
        open_id = early.open()
        kernel.wait_iopub(
            lambda m: m["parent_header"].get("msg_id") == open_id
            and m["msg_type"] == "status"
            and m["content"]["execution_state"] == "idle"
        )
        # ipykernel answers a comm_open to an unknown target with an empty comm_close
        # and logs the reason on stderr; no comm_msg at all.
        answer = {m["msg_type"]: m["content"] for m in kernel.iopub if m["parent_header"].get("msg_id") == open_id}
        assert sorted(answer) == ["comm_close", "status", "stream"]
        assert answer["comm_close"] == {"comm_id": early.comm_id, "data": {}}
        assert answer["stream"] == {"name": "stderr", "text": "No such comm target registered: agent_panel\n"}

        assert kernel.execute("%load_ext jupyterlab_agent_panel").ok
        same_manager = "import comm\ncomm.get_comm_manager() is get_ipython().kernel.comm_manager"
        assert kernel.execute(same_manager).result == "True"  # ipykernel 7: one manager, two ways

        panel, hello = open_panel(kernel)
        assert hello["protocol"] == 1
        assert hello["ready"] is True and hello["status"] == "healthy"
        assert hello["agent_name"] == "Tool Demo Agent"
        assert isinstance(hello["message"], str)

        assert kernel.execute("%unload_ext jupyterlab_agent_panel").ok
        assert kernel.execute("import sys\ntype(sys.stdout).__name__").result == "'OutStream'"
        after_unload = PanelComm(kernel)
        after_unload.open()
        kernel.wait_iopub(lambda m: after_unload.is_mine(m) and m["msg_type"] == "comm_close")

        assert kernel.execute("%load_ext jupyterlab_agent_panel").ok
        _, hello_again = open_panel(kernel)
        assert hello_again["ready"] is True
    finally:
        kernel.shutdown()


# -- one kernel with the extension loaded (conftest.py), shared by the tests below ---


@pytest.fixture
def panel(kernel):
    """A fresh comm on the demo graph; closing it at teardown cancels what is left running."""
    serve(kernel)
    panel, hello = open_panel(kernel)
    assert hello["agent_name"] == "Tool Demo Agent"
    yield panel
    panel.close()


def test_tool_turn_streams_frames_in_seq_order(panel):
    turn_id = uuid.uuid4().hex
    start_msg_id = panel.send(
        {"type": "start_turn", "turn_id": turn_id, "thread_id": new_thread(), "message": "use a tool"}
    )
    end = panel.wait_turn_end(turn_id)
    frames = frames_of(panel.turn(turn_id))

    assert end["content"]["data"] == {"type": "turn_end", "turn_id": turn_id, "outcome": "complete"}
    assert frames[0]["tool_calls"][0]["name"] == "demo_lookup"
    demo_fact = {"query": "use a tool", "answer": "42", "source": "demo-kb"}
    assert json.loads(frames[1]["tool_result"]) == demo_fact
    assert frames[2]["extraction"]["extracted_type"] == "demo_fact"
    text = "".join(f["chunk"] for f in frames[3:-1])
    assert text.startswith("The demo tool returned ") and text.endswith("extraction flow.")
    assert frames[-1] == {"status": "complete", "outcome": "complete"}
    assert parents_of_turn(panel, turn_id) == {start_msg_id}


def test_serve_passes_extractors_and_max_result_len(kernel, panel):
    serve(kernel, "extractors=[], max_result_len=10")
    frames, end = panel.run_turn("use a tool", new_thread())
    assert frames[1]["tool_result"] == '{"query": \u2026(truncated)'
    assert not any("extraction" in f for f in frames)
    assert end["outcome"] == "complete"


def test_interrupt_then_resume_with_a_respond_decision(panel):
    thread_id = new_thread()
    frames, end = panel.run_turn("ask me a question", thread_id)
    assert [f["status"] for f in frames] == ["interrupt", "complete"]
    assert frames[0]["interrupt"]["allowed_decisions"] == ["respond", "approve"]
    assert end["outcome"] == "interrupted"

    turn_id = panel.resume([{"type": "respond", "message": "Ada"}], thread_id)
    end = panel.wait_turn_end(turn_id)["content"]["data"]
    frames = frames_of(panel.turn(turn_id))
    assert "Ada" in "".join(f.get("chunk", "") for f in frames)
    assert frames[-1] == {"status": "complete", "outcome": "complete"}
    assert end["outcome"] == "complete"


def test_a_turn_reports_where_it_starts_and_a_fork_there_forgets_the_later_turns(kernel, panel):
    serve(kernel, graph_spec("remembering:graph"))
    thread_id = new_thread()

    def say(message: str, **fields) -> tuple:
        turn_id = panel.start_turn(message, thread_id, **fields)
        end = panel.wait_turn_end(turn_id)["content"]["data"]
        frames = frames_of(panel.turn(turn_id))
        assert end["outcome"] == "complete"
        return frames[0]["checkpoint_id"], "".join(f.get("chunk", "") for f in frames)

    first, _ = say("one")
    second, _ = say("two")
    _, forked = say("TWO", checkpoint_id=second)
    refused = panel.start_turn("x", thread_id, checkpoint_id="no-such-checkpoint")
    rejection = panel.wait(lambda d: d.get("type") == "rejected")["content"]["data"]

    assert first is None and isinstance(second, str)
    assert forked == "I remember: one | TWO"
    assert rejection == {
        "type": "rejected",
        "turn_id": refused,
        "reason": "unknown_checkpoint",
        "detail": f"Thread {thread_id!r} has no checkpoint 'no-such-checkpoint'",
    }


def test_a_review_left_on_its_branch_is_answered_by_a_resume_at_its_end(panel):
    thread_id = new_thread()
    asked = panel.start_turn("ask me a question", thread_id)
    assert panel.wait_turn_end(asked)["content"]["data"]["outcome"] == "interrupted"
    paused = frames_of(panel.turn(asked), end_checkpoint=True)[-1]["end_checkpoint_id"]
    elsewhere = panel.start_turn("hello", thread_id, checkpoint_id=None)  # before the first turn
    assert panel.wait_turn_end(elsewhere)["content"]["data"]["outcome"] == "complete"

    at_start = panel.resume([], thread_id, checkpoint_id=None)
    rejection = panel.wait(lambda d: d.get("type") == "rejected")["content"]["data"]
    answered = panel.resume([{"type": "respond", "message": "Ada"}], thread_id, checkpoint_id=paused)
    end = panel.wait_turn_end(answered)["content"]["data"]

    assert isinstance(paused, str)
    assert rejection == {"type": "rejected", "turn_id": at_start, "reason": "bad_request", "detail": RESUME_AT_START}
    assert end["outcome"] == "complete"
    assert "Ada" in "".join(f.get("chunk", "") for f in frames_of(panel.turn(answered)))


def test_context_is_appended_as_the_http_server_does(kernel, panel):
    context = {
        "current_directory": "work/notes",
        "focused_widget": "work/notes/a.ipynb",
        "selected_text": "x = 1",
        "selection_metadata": "cell_2",
    }
    thread_id = new_thread()
    turn_id = panel.start_turn("use a tool", thread_id, context=context)
    panel.wait_turn_end(turn_id)
    # The demo strips the trailing block before using the text as the tool query.
    assert frames_of(panel.turn(turn_id))[0]["tool_calls"][0]["args"] == {"query": "use a tool"}

    serve(kernel, graph_spec("echo_all:graph"))
    turn_id = panel.start_turn("hi", new_thread(), context=context)
    panel.wait_turn_end(turn_id)
    echoed = "".join(f.get("chunk", "") for f in frames_of(panel.turn(turn_id)))
    assert echoed == (
        "echo: hi\n\nCurrent directory: work/notes\nCurrently focused file: work/notes/a.ipynb\n"
        "User has selected the following text from cell index 2:\n```\nx = 1\n```"
    )

    # The other forms the panel sends arrive the same way as over HTTP (test_context.py).
    for form, block in PANEL_CONTEXT_FORMS:
        turn_id = panel.start_turn("hi", new_thread(), context=form)
        panel.wait_turn_end(turn_id)
        assert "".join(f.get("chunk", "") for f in frames_of(panel.turn(turn_id))) == "echo: hi" + block


def test_a_cell_completes_while_a_turn_streams(kernel, panel):
    serve(kernel, graph_spec("kernel_slow:graph"))
    turn_id = uuid.uuid4().hex
    start = {"type": "start_turn", "turn_id": turn_id, "thread_id": new_thread(), "message": "go"}
    start_msg_id = panel.send(start)
    first = wait_first_frame(panel, turn_id)
    assert first["content"]["data"]["frame"]["chunk"] == "started"

    cell = kernel.execute("sum(range(10))")
    end = panel.wait_turn_end(turn_id)

    assert cell.result == "45"
    assert kernel_time(first) < kernel_time(cell.reply) < kernel_time(end)
    frames = frames_of(panel.turn(turn_id))
    assert [f.get("chunk") for f in frames[:-1]] == ["started", "finished"]
    assert end["content"]["data"]["outcome"] == "complete"
    # Even the frames sent after the cell ran are children of start_turn, not of the cell.
    assert parents_of_turn(panel, turn_id) == {start_msg_id}


@pytest.mark.parametrize("graph", ["kernel_slow:silent_graph", "kernel_slow:blocking_graph"])
def test_cancel_ends_a_silent_turn_within_a_second(kernel, panel, graph):
    serve(kernel, graph_spec(graph))
    thread_id = new_thread()
    turn_id = panel.start_turn("go", thread_id)
    wait_first_frame(panel, turn_id)
    time.sleep(0.3)  # the graph is now silent in its waiting node

    cancelled_at = time.monotonic()
    panel.cancel(turn_id)
    end = panel.wait_turn_end(turn_id, timeout=5)
    elapsed = time.monotonic() - cancelled_at

    assert elapsed < 1.0, f"cancel took {elapsed:.3f} s"
    frames = frames_of(panel.turn(turn_id))
    assert frames[-1] == CANCELLED_FRAME
    only_terminal_last(frames)
    assert end["content"]["data"]["outcome"] == "cancelled"

    # The thread is free again: a new turn on it starts instead of being rejected.
    next_turn = panel.start_turn("go", thread_id)
    assert wait_first_frame(panel, next_turn)["content"]["data"]["type"] == "frame"
    panel.cancel(next_turn)
    panel.wait_turn_end(next_turn, timeout=5)


def test_second_turn_on_a_busy_thread_is_rejected(kernel, panel):
    serve(kernel, graph_spec("kernel_slow:silent_graph"))
    thread_id = new_thread()
    running = panel.start_turn("go", thread_id)
    wait_first_frame(panel, running)

    refused = panel.start_turn("again", thread_id)
    rejection = panel.wait(lambda d: d.get("type") == "rejected")["content"]["data"]
    assert rejection["turn_id"] == refused and rejection["reason"] == "busy"
    assert thread_id in rejection["detail"]

    other = panel.start_turn("go", new_thread())  # another thread is not busy
    wait_first_frame(panel, other)
    for turn_id in (running, other):
        panel.cancel(turn_id)
        panel.wait_turn_end(turn_id, timeout=5)
    assert panel.turn(refused) == [rejection]


@pytest.mark.parametrize(
    "data, reason, detail_names",
    [
        ({"type": "start_turn", "turn_id": "t-1", "thread_id": "th"}, "bad_request", "'message'"),
        ({"type": "start_turn", "turn_id": "t-1", "message": "hi"}, "bad_request", "'thread_id'"),
        ({"type": "start_turn", "thread_id": "th", "message": "hi"}, "bad_request", "'turn_id'"),
        ({"type": "start_turn", "turn_id": "t-1", "thread_id": "th", "message": "hi", "context": "cwd"},
         "bad_request", "'context'"),
        ({"type": "start_turn", "turn_id": "t-1", "thread_id": "th", "message": "hi",
          "context": {"attachments": [{"kind": "error", "source": "cell 1", "text": 3}]}},
         "bad_request", "attachments[0].text must be a string"),
        ({"type": "resume", "turn_id": "t-1", "thread_id": "th"}, "bad_request", "'decisions'"),
        ({"type": "resume", "turn_id": "t-1", "thread_id": "th", "decisions": {"type": "approve"}},
         "bad_request", "'decisions'"),
        ({"type": "cancel"}, "bad_request", "'turn_id'"),
        ({"turn_id": "t-1"}, "bad_request", "'type'"),
        ({"type": "explode", "turn_id": "t-1"}, "unknown_type", "'explode'"),
    ],
)
def test_bad_messages_are_rejected_by_name(panel, data, reason, detail_names):
    panel.send(data)
    rejection = panel.wait(lambda d: d.get("type") == "rejected")["content"]["data"]
    assert rejection["reason"] == reason
    assert detail_names in rejection["detail"]
    if "turn_id" in data:
        assert rejection["turn_id"] == data["turn_id"]
    else:
        assert "turn_id" not in rejection
    # Nothing else follows: a health round trip comes back with no frame in between.
    panel.send({"type": "health"})
    panel.wait_count(lambda d: d.get("type") == "hello", 2)
    assert [d["type"] for d in panel.data()] == ["hello", "rejected", "hello"]


def test_serve_a_spec_string_tells_open_panels(kernel, panel):
    execution = serve(kernel, graph_spec("kernel_slow:graph"))
    assert "serving 'Kernel Slow'" in execution.result
    hello = panel.wait(lambda d: d.get("type") == "hello" and d.get("agent_name") == "Kernel Slow")
    assert hello["content"]["data"]["ready"] is True


def test_serve_a_graph_object(kernel, panel):
    setup = kernel.execute(f"import sys\nsys.path.insert(0, {str(GRAPHS_DIR)!r})\nimport kernel_slow")
    assert setup.ok
    execution = serve(kernel, "kernel_slow.graph, name='Slow object'")
    assert "serving 'Slow object'" in execution.result
    panel.wait(lambda d: d.get("type") == "hello" and d.get("agent_name") == "Slow object")
    frames, end = panel.run_turn("go", new_thread())
    assert [f.get("chunk") for f in frames] == ["started", "finished", None]
    assert end["outcome"] == "complete"


def test_bad_spec_means_no_agent(kernel, panel):
    execution = serve(kernel, "'no_such_module_for_agent_panel:graph'")
    assert "no agent" in execution.result
    hello = panel.wait(lambda d: d.get("type") == "hello" and d.get("ready") is False)["content"]["data"]
    assert hello["status"] == "agent_not_loaded"

    turn_id = panel.start_turn("hi", new_thread())
    rejection = panel.wait(lambda d: d.get("type") == "rejected")["content"]["data"]
    assert rejection["reason"] == "no_agent" and rejection["turn_id"] == turn_id
    assert "no_such_module_for_agent_panel" in rejection["detail"]
    assert rejection["detail"] == hello["message"]


def test_a_helper_failure_ends_the_turn_and_spares_the_kernel(kernel, panel):
    break_it = "import jupyterlab_agent_panel.kernel.helper as helper\n"
    break_it += "working = helper.message_with_context\nhelper.message_with_context = lambda *a: 1 / 0"
    assert kernel.execute(break_it).ok
    try:
        turn_id = panel.start_turn("hi", new_thread())
        end = panel.wait_turn_end(turn_id)["content"]["data"]
    finally:
        assert kernel.execute("helper.message_with_context = working").ok
    [frame] = frames_of(panel.turn(turn_id))
    assert frame["status"] == "error" and "ZeroDivisionError" in frame["error"]
    assert end["outcome"] == "error"

    _, end = panel.run_turn("hello there", new_thread())
    assert end["outcome"] == "complete"


def test_closing_the_comm_cancels_its_turns(kernel, panel):
    serve(kernel, graph_spec("kernel_slow:silent_graph"))
    thread_id = new_thread()
    wait_first_frame(panel, panel.start_turn("go", thread_id))
    panel.close()

    reopened, _ = open_panel(kernel)
    turn_id = reopened.start_turn("go", thread_id)
    assert wait_first_frame(reopened, turn_id)["content"]["data"]["type"] == "frame"
    reopened.close()


def test_what_the_agent_prints_stays_out_of_cells(kernel, panel):
    before = kernel.execute("print('cell A says hi')")
    serve(kernel, graph_spec("kernel_printing:graph"))
    turn_id = panel.start_turn("go", new_thread())
    time.sleep(0.6)  # the sync node prints every 0.2 s for 2 s
    during = kernel.execute(f"print('cell B says hi')\n{PRINT_MARKER!r} in server.captured_output()")
    end = panel.wait_turn_end(turn_id)
    kernel.drain()

    streams = [m["content"]["text"] for m in kernel.iopub if m["msg_type"] == "stream"]
    assert [text for text in streams if PRINT_MARKER in text] == []
    assert before.stream_text == "cell A says hi\n"
    assert during.stream_text == "cell B says hi\n"
    assert during.result == "True", "cell B must run while the graph is printing"
    assert kernel_time(during.reply) < kernel_time(end)
    assert end["content"]["data"]["outcome"] == "complete"
    kept = kernel.execute(f"server.captured_output({turn_id!r}).count({PRINT_MARKER!r})")
    assert kept.result == "21"  # 10 stdout + 10 stderr lines from the sync node, 1 from the async one


def test_many_frames_arrive_in_order_while_other_threads_send(kernel, panel):
    count = 3000
    serve(kernel, graph_spec("kernel_deltas:graph"))
    turn_id = panel.start_turn("go", new_thread())
    wait_first_frame(panel, turn_id)
    for _ in range(25):  # hello replies are sent from the shell thread, frames from the loop thread
        panel.send({"type": "health"})
    cell = kernel.execute("for i in range(300): print(f'line {i}')")
    end = panel.wait_turn_end(turn_id, timeout=120)

    frames = frames_of(panel.turn(turn_id))  # asserts seq 0..n-1 in arrival order
    assert len(frames) == count + 1
    assert "".join(f["chunk"] for f in frames[:-1]) == "".join(f"d{i} " for i in range(count))
    assert end["content"]["data"]["outcome"] == "complete"
    assert cell.stream_text == "".join(f"line {i}\n" for i in range(300))
    panel.wait_count(lambda d: d.get("type") == "hello", 1 + 25)


def test_chat_and_cancel_over_a_subshell_while_a_cell_runs(kernel):
    serve(kernel, graph_spec("kernel_slow:silent_graph"))
    subshell_id = kernel.create_subshell()
    long_cell = kernel.start_execute("import time\ntime.sleep(5)")

    panel, hello = open_panel(kernel, subshell_id)
    assert hello["agent_name"] == "Kernel Silent"
    turn_id = panel.start_turn("go", new_thread())
    wait_first_frame(panel, turn_id)
    cancelled_at = time.monotonic()
    panel.cancel(turn_id)
    end = panel.wait_turn_end(turn_id, timeout=5)
    elapsed = time.monotonic() - cancelled_at
    cell = kernel.finish_execute(long_cell)

    assert elapsed < 1.0
    assert end["content"]["data"]["outcome"] == "cancelled"
    assert kernel_time(end) < kernel_time(cell.reply)
    panel.close()


def test_a_graph_served_after_the_comm_opened_still_answers_on_the_subshell(kernel):
    # The user guide's order (docs/users/notebook-kernel.md): the panel's comm is open (on its subshell) before the
    # notebook runs serve(...). serve()'s hello to the open comms is sent from the
    # cell, on the main shell; ipykernel 7 routes a comm's next incoming messages
    # to the subshell of the last message it published, so that hello must not
    # pull the panel's messages back behind the running cells.
    subshell_id = kernel.create_subshell()
    panel, _ = open_panel(kernel, subshell_id)
    serve(kernel, graph_spec("kernel_slow:silent_graph"))
    panel.wait(lambda d: d.get("type") == "hello" and d.get("agent_name") == "Kernel Silent")
    long_cell = kernel.start_execute("import time\ntime.sleep(5)")
    time.sleep(0.3)  # the cell is sleeping

    started_at = time.monotonic()
    turn_id = panel.start_turn("go", new_thread())
    first = wait_first_frame(panel, turn_id)
    first_frame_s = time.monotonic() - started_at
    cancelled_at = time.monotonic()
    panel.cancel(turn_id)
    end = panel.wait_turn_end(turn_id, timeout=10)
    cancel_s = time.monotonic() - cancelled_at
    cell = kernel.finish_execute(long_cell)

    assert first_frame_s < 1.0, f"the first frame took {first_frame_s:.2f} s"
    assert cancel_s < 1.0, f"cancel took {cancel_s:.2f} s"
    assert kernel_time(first) < kernel_time(end) < kernel_time(cell.reply)
    assert end["content"]["data"]["outcome"] == "cancelled"
    panel.close()
