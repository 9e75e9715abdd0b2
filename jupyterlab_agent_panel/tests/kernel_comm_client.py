"""A real ipykernel subprocess driven like the panel drives it: comm messages on the shell
channel in, ``comm_msg`` on IOPub out. Used by ``test_kernel_comm.py`` and ``bench/``.
"""
from __future__ import annotations

import os
import time
import uuid
from pathlib import Path
from queue import Empty
from typing import Callable, Optional

from jupyter_client.manager import KernelManager

from helpers import without_end_checkpoint

REPO_ROOT = Path(__file__).resolve().parents[2]
GRAPHS_DIR = Path(__file__).resolve().parent / "graphs"


class KernelUnderTest:
    """A kernel with ``PYTHONPATH`` pointing at this source tree; records every IOPub message."""

    def __init__(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        env.pop("LANGSTAGE_AGENT_SPEC", None)  # the default graph must be the demo
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(env=env)
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        self.iopub: list[dict] = []
        self._shell_replies: dict[str, dict] = {}  # replies read while waiting for another one

    def shutdown(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)

    # -- sending ---------------------------------------------------------------

    def send_shell(self, msg_type: str, content: dict, subshell_id: Optional[str] = None) -> str:
        msg = self.client.session.msg(msg_type, content)
        if subshell_id is not None:
            msg["header"]["subshell_id"] = subshell_id
        self.client.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def create_subshell(self) -> str:
        msg = self.client.session.msg("create_subshell_request", {})
        self.client.control_channel.send(msg)
        reply = self.client.control_channel.get_msg(timeout=10)
        assert reply["content"]["status"] == "ok", reply["content"]
        return reply["content"]["subshell_id"]

    def execute(self, code: str, timeout: float = 60, subshell_id: Optional[str] = None) -> Execution:
        """Run a cell and wait for its reply and for the kernel to go idle on it."""
        msg_id = self.start_execute(code, subshell_id)
        return self.finish_execute(msg_id, timeout)

    def start_execute(self, code: str, subshell_id: Optional[str] = None) -> str:
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                   "allow_stdin": False, "stop_on_error": True}
        return self.send_shell("execute_request", content, subshell_id)

    def finish_execute(self, msg_id: str, timeout: float = 60) -> Execution:
        deadline = time.monotonic() + timeout
        while msg_id not in self._shell_replies:
            reply = self.client.shell_channel.get_msg(timeout=max(0.01, deadline - time.monotonic()))
            self._shell_replies[reply["parent_header"].get("msg_id")] = reply
        reply = self._shell_replies.pop(msg_id)
        self.wait_iopub(
            lambda m: m["msg_type"] == "status"
            and m["parent_header"].get("msg_id") == msg_id
            and m["content"]["execution_state"] == "idle",
            timeout=max(1, deadline - time.monotonic()),
        )
        outputs = [m for m in self.iopub if m["parent_header"].get("msg_id") == msg_id]
        return Execution(reply, outputs)

    # -- receiving -------------------------------------------------------------

    def wait_iopub(self, predicate: Callable[[dict], bool], timeout: float = 30) -> dict:
        """The first recorded IOPub message matching ``predicate``, reading more as needed."""
        for msg in self.iopub:
            if predicate(msg):
                return msg
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no matching IOPub message within {timeout} s")
            try:
                msg = self.client.iopub_channel.get_msg(timeout=remaining)
            except Empty:
                continue
            self.iopub.append(msg)
            if predicate(msg):
                return msg

    def wait_iopub_count(
        self, predicate: Callable[[dict], bool], count: int, timeout: float = 30
    ) -> None:
        """Wait until ``count`` recorded IOPub messages match ``predicate``."""
        matched = 0

        def counted(msg: dict) -> bool:
            nonlocal matched
            matched += bool(predicate(msg))
            return matched >= count

        self.wait_iopub(counted, timeout)

    def drain(self, quiet_seconds: float = 0.5) -> None:
        """Record IOPub messages until none arrives for ``quiet_seconds``."""
        while True:
            try:
                self.iopub.append(self.client.iopub_channel.get_msg(timeout=quiet_seconds))
            except Empty:
                return


class Execution:
    def __init__(self, reply: dict, outputs: list[dict]):
        self.reply = reply
        self.outputs = outputs

    @property
    def ok(self) -> bool:
        return self.reply["content"]["status"] == "ok"

    @property
    def stream_text(self) -> str:
        return "".join(m["content"]["text"] for m in self.outputs if m["msg_type"] == "stream")

    @property
    def result(self) -> Optional[str]:
        for m in self.outputs:
            if m["msg_type"] == "execute_result":
                return m["content"]["data"]["text/plain"]
        return None


class PanelComm:
    """The panel's side of one ``agent_panel`` comm."""

    def __init__(self, kernel: KernelUnderTest, subshell_id: Optional[str] = None):
        self.kernel = kernel
        self.subshell_id = subshell_id
        self.comm_id = uuid.uuid4().hex
        self.closed = False

    def open(self, target: str = "agent_panel") -> str:
        data = {"protocol": 1, "client": "kernel-comm-tests"}
        return self._send("comm_open", {"comm_id": self.comm_id, "target_name": target, "data": data})

    def send(self, data: dict) -> str:
        """Send one panel message; returns the msg_id of the ``comm_msg`` carrying it."""
        return self._send("comm_msg", {"comm_id": self.comm_id, "data": data})

    def send_raw(self, data_json: str) -> str:
        """Send a ``comm_msg`` whose ``data`` is this JSON text, exactly as written.

        What a client's JSON encoder would refuse to write (a lone surrogate, a
        nesting deeper than Python's recursion limit) reaches the kernel this way.
        """
        msg = self.kernel.client.session.msg("comm_msg", {})
        msg["content"] = f'{{"comm_id": "{self.comm_id}", "data": {data_json}}}'.encode()
        if self.subshell_id is not None:
            msg["header"]["subshell_id"] = self.subshell_id
        self.kernel.client.shell_channel.send(msg)
        return msg["header"]["msg_id"]

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._send("comm_close", {"comm_id": self.comm_id, "data": {}})

    def _send(self, msg_type: str, content: dict) -> str:
        return self.kernel.send_shell(msg_type, content, self.subshell_id)

    # -- receiving -------------------------------------------------------------

    def is_mine(self, msg: dict) -> bool:
        return msg["msg_type"].startswith("comm_") and msg["content"].get("comm_id") == self.comm_id

    def _carrying(self, predicate: Callable[[dict], bool]) -> Callable[[dict], bool]:
        """An IOPub-message test: a ``comm_msg`` of this comm whose data matches ``predicate``."""
        return lambda m: self.is_mine(m) and m["msg_type"] == "comm_msg" and predicate(m["content"]["data"])

    def wait(self, predicate: Callable[[dict], bool], timeout: float = 30) -> dict:
        """The first ``comm_msg`` of this comm whose data matches ``predicate``."""
        try:
            return self.kernel.wait_iopub(self._carrying(predicate), timeout)
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}; this comm received {self.data()}") from None

    def wait_count(self, predicate: Callable[[dict], bool], count: int, timeout: float = 30) -> None:
        """Wait until ``count`` messages of this comm have data matching ``predicate``."""
        self.kernel.wait_iopub_count(self._carrying(predicate), count, timeout)

    def messages(self, predicate: Callable[[dict], bool] = lambda data: True) -> list[dict]:
        """The ``comm_msg`` of this comm received so far whose data matches, in arrival order."""
        matches = self._carrying(predicate)
        return [m for m in self.kernel.iopub if matches(m)]

    def data(self) -> list[dict]:
        return [m["content"]["data"] for m in self.messages()]

    # -- turns -----------------------------------------------------------------

    def start_turn(self, message: str, thread_id: str, **extra) -> str:
        turn_id = uuid.uuid4().hex
        data = {"type": "start_turn", "turn_id": turn_id, "thread_id": thread_id, "message": message}
        self.send({**data, **extra})
        return turn_id

    def resume(self, decisions: list, thread_id: str, **extra) -> str:
        turn_id = uuid.uuid4().hex
        self.send({"type": "resume", "turn_id": turn_id, "thread_id": thread_id, "decisions": decisions, **extra})
        return turn_id

    def cancel(self, turn_id: str) -> None:
        self.send({"type": "cancel", "turn_id": turn_id})

    def wait_turn_end(self, turn_id: str, timeout: float = 30) -> dict:
        return self.wait(lambda d: d.get("type") == "turn_end" and d.get("turn_id") == turn_id, timeout)

    def turn(self, turn_id: str) -> list[dict]:
        """Data of every message of one turn received so far (frames, turn_end, rejected)."""
        return [m["content"]["data"] for m in self.messages(lambda d: d.get("turn_id") == turn_id)]

    def run_turn(self, message: str, thread_id: str, timeout: float = 30) -> tuple[list[dict], dict]:
        turn_id = self.start_turn(message, thread_id)
        end = self.wait_turn_end(turn_id, timeout)["content"]["data"]
        return frames_of(self.turn(turn_id)), end


def frames_of(messages: list[dict], end_checkpoint: bool = False) -> list[dict]:
    """The ``frame`` messages of a turn, checked to arrive in ``seq`` order 0..n-1; the terminal
    frame's ``end_checkpoint_id`` is checked and left out unless ``end_checkpoint``."""
    frames = [d for d in messages if d.get("type") == "frame"]
    assert [d["seq"] for d in frames] == list(range(len(frames)))
    return [d["frame"] if end_checkpoint else without_end_checkpoint(d["frame"]) for d in frames]
