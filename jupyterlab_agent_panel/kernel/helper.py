"""Serve a LangGraph graph to the panel over the kernel comm ``agent_panel`` (docs/protocol.md §7).

``%load_ext jupyterlab_agent_panel`` serves the default graph; ``serve(...)``
chooses (or switches) the graph. The panel opens the comm; this module answers
``start_turn`` / ``resume`` / ``cancel`` / ``health`` with ``hello`` / ``frame`` /
``turn_end`` / ``rejected``. Turns run on a :class:`~.worker_loop.WorkerLoop`'s
thread, never inside a comm handler, and what the agent prints during a turn is
kept out of the cells (:mod:`.kernel.output`); read it with
:meth:`AgentPanelServer.captured_output`.
"""
from __future__ import annotations

import contextvars
import logging
import sys
import threading
from collections import OrderedDict
from typing import Any, Callable, Optional

from ..context import CONTEXT_FIELDS, attachments_problem, message_with_context
from ..graph import LoadedAgent, load_agent
from ..json_limits import DEFAULT_MAX_BODY_BYTES, json_problem, length_problem
from ..memory.checkpoints import RESUME_AT_START, THREAD_START, fork_point
from ..turns.decisions import decision_shape_problem, interrupt_ids_problem
from ..turns.driver import TurnRequest
from ..turns.in_flight import TurnsInFlight
from ..worker_loop import WorkerLoop
from .comm_turn import Turn
from .output import OutputCapture, TurnOutput
from .variables import describe_text, summarise_variables

logger = logging.getLogger(__name__)

COMM_TARGET = "agent_panel"
PROTOCOL = 1
KEPT_TURN_OUTPUTS = 32
# The HTTP routes' default body limit applies to each comm message (docs/protocol.md §7.3).
MAX_MESSAGE_BYTES = DEFAULT_MAX_BODY_BYTES
NOT_SERVING = "No graph is served: run jupyterlab_agent_panel.serve(...) in this kernel."


class _Rejected(Exception):
    """A message the helper answers with ``rejected`` and nothing else."""

    def __init__(self, reason: str, detail: str):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


class _Connection:
    """One panel's comm. Holding it here keeps the comm alive (comms close on GC)."""

    def __init__(self, comm: Any):
        self.comm = comm
        self.closed = False
        self._context = contextvars.copy_context()  # made in the handler of the panel's comm_open

    def heard(self) -> None:
        """Note the panel's latest message; called in its handler (ipykernel's parent is a context variable)."""
        self._context = contextvars.copy_context()

    def send(self, data: dict) -> None:
        if not self.closed:
            self.comm.send(data)

    def send_unprompted(self, data: dict) -> None:
        """Send outside any panel request (the hello after ``serve()``), as a reply to its latest message.

        ipykernel 7 routes a comm's next incoming messages to the subshell of the
        last message the comm published; sent from a cell, on the main shell, this
        hello would route the panel's next messages behind the running cells.
        """
        self._context.copy().run(self.send, data)


class AgentPanelServer:
    """The ``agent_panel`` comm target of this kernel and the graph it serves."""

    def __init__(self, comm_manager: Any):
        # Comm handlers run on the shell thread and, with ipykernel 7 subshells,
        # concurrently on subshell threads; turns end on the loop thread.
        self._lock = threading.Lock()
        self._loaded: Optional[LoadedAgent] = None
        self._max_result_len = 500
        self._connections: dict[str, _Connection] = {}
        # The turns by thread, one per thread; used under the lock, cancelled on the loop thread.
        self._turns: TurnsInFlight[Turn] = TurnsInFlight(cancel=self._stop)
        self._outputs: OrderedDict[str, TurnOutput] = OrderedDict()
        self._capture = OutputCapture()
        self._loop = WorkerLoop("agent-panel-turns")
        self._comm_manager = comm_manager
        comm_manager.register_target(COMM_TARGET, self._on_open)

    # -- public -----------------------------------------------------------------

    @property
    def serving(self) -> bool:
        """Whether a graph was chosen (even one that failed to load)."""
        return self._loaded is not None

    def use(self, loaded: LoadedAgent, max_result_len: int = 500) -> None:
        """Serve ``loaded`` from the next turn on and tell every open panel."""
        with self._lock:
            self._loaded = loaded
            self._max_result_len = max_result_len
            connections = list(self._connections.values())
        hello = self._hello()
        for connection in connections:
            _send_safely(connection.send_unprompted, hello)

    def health(self) -> dict:
        """The ``hello`` / ``GET health`` fields (docs/protocol.md §6.1)."""
        loaded = self._loaded
        if loaded is None:
            return {"status": "agent_not_loaded", "agent_loaded": False, "ready": False,
                    "message": NOT_SERVING}
        return loaded.health()

    def captured_output(self, turn_id: Optional[str] = None) -> str:
        """What the agent printed during ``turn_id`` (default: the latest turn)."""
        with self._lock:
            if turn_id is None:
                turn_id = next(reversed(self._outputs), None)
            output = self._outputs.get(turn_id) if turn_id is not None else None
        return output.text() if output is not None else ""

    def dispose(self) -> None:
        """Stop serving: unregister the target, cancel turns, close comms, restore streams."""
        self._comm_manager.unregister_target(COMM_TARGET, self._on_open)
        with self._lock:
            self._turns.stop_all()
            connections = list(self._connections.values())
            self._connections.clear()
        self._loop.stop()
        for connection in connections:
            connection.closed = True
            connection.comm.close()
        self._capture.dispose()

    def __repr__(self) -> str:
        health = self.health()
        if health["ready"]:
            label = health.get("agent_name") or health.get("spec")
            return (f"agent_panel: serving {label!r} ({health.get('spec')}) "
                    f"on comm target {COMM_TARGET!r}")
        return f"agent_panel: no agent on comm target {COMM_TARGET!r}: {health['message']}"

    # -- comm handlers (shell or subshell thread: return at once) ---------------

    def _on_open(self, comm: Any, open_msg: dict) -> None:
        connection = _Connection(comm)
        comm.on_msg(lambda msg: self._on_msg(connection, msg))
        comm.on_close(lambda msg: self._on_close(connection))
        with self._lock:
            self._connections[comm.comm_id] = connection
        try:
            connection.send(self._hello())
        except Exception:
            # ipykernel closes a comm whose open handler raised; forget it too.
            with self._lock:
                self._connections.pop(comm.comm_id, None)
            raise

    def _on_close(self, connection: _Connection) -> None:
        with self._lock:
            connection.closed = True
            self._connections.pop(connection.comm.comm_id, None)
            orphans = [turn for turn in self._turns.values() if turn.owner is connection]
            # Free their threads now: the panel may reopen and resume them right away,
            # and the loop runs these cancels before any turn started after them.
            for turn in orphans:
                self._turns.finish(turn.thread_id, turn)
        for turn in orphans:
            self._stop(turn)

    def _on_msg(self, connection: _Connection, msg: dict) -> None:
        connection.heard()
        data = msg.get("content", {}).get("data")
        problem = json_problem(data, what="the message", max_bytes=MAX_MESSAGE_BYTES, unicode_only=True)
        turn_id = _answerable_turn_id(data)
        try:
            if problem is not None:
                raise _Rejected("too_large" if problem.too_large else "bad_request", problem.message)
            self._dispatch(connection, data)
        except _Rejected as rejection:
            reply = {"type": "rejected", "reason": rejection.reason, "detail": rejection.detail}
            if isinstance(turn_id, str):
                reply["turn_id"] = turn_id
            _send_safely(connection.send, reply)
        except Exception as exc:  # a helper bug must not take the kernel down
            logger.exception("agent_panel: could not handle a comm message")
            if isinstance(turn_id, str):  # end the panel's turn instead of leaving it waiting
                error = f"agent_panel kernel helper failed: {type(exc).__name__}: {exc}"
                frame = {"type": "frame", "turn_id": turn_id, "seq": 0,
                         "frame": {"status": "error", "error": error}}
                _send_safely(connection.send, frame)
                _send_safely(connection.send, {"type": "turn_end", "turn_id": turn_id, "outcome": "error"})

    def _dispatch(self, connection: _Connection, data: Any) -> None:
        if not isinstance(data, dict):
            raise _Rejected("bad_request", "a message must be a JSON object with a 'type'")
        kind = data.get("type")
        if not isinstance(kind, str) or not kind:
            raise _Rejected("bad_request", "missing field 'type' (a string)")
        if kind == "start_turn":
            turn_id, thread_id = _turn_ids(data)
            message = message_with_context(_required_string(data, "message"), _optional_context(data))
            self._launch(connection, turn_id, thread_id, message, resume=None, fork_from=_forked_at(data))
        elif kind == "resume":
            turn_id, thread_id = _turn_ids(data)
            self._launch(
                connection,
                turn_id,
                thread_id,
                "",
                resume=_resume_value(data),
                answers=_answers(data),
                fork_from=_forked_at(data, resume=True),
            )
        elif kind == "cancel":
            self._cancel(_id(data, "turn_id"))
        elif kind == "health":
            connection.send(self._hello())
        elif kind == "variables":
            self._variables(connection, _id(data, "request_id"), _optional_names(data))
        else:
            expected = "start_turn, resume, cancel, health or variables"
            raise _Rejected("unknown_type", f"unknown message type {kind!r}; expected {expected}")

    def _variables(self, connection: _Connection, request_id: str, names: Optional[list]) -> None:
        """Answer with the user variables' summaries (docs/protocol.md §7.6), computed on a thread
        of their own so the handler returns at once; the reply goes out in this message's context."""
        context = contextvars.copy_context()

        def answer() -> None:
            shell = _shell()
            namespace = shell.user_ns if shell is not None else {}
            hidden = shell.user_ns_hidden if shell is not None else ()
            result = summarise_variables(namespace, names, hidden=hidden)
            # What the agent reads of each, worded here once for every transport.
            for summary in result["variables"]:
                summary["text"] = describe_text(summary)
            _send_safely(connection.send, {"type": "variables", "request_id": request_id, **result})

        threading.Thread(target=context.run, args=(answer,), name="agent-panel-variables", daemon=True).start()

    # -- turns ------------------------------------------------------------------

    def _launch(
        self,
        connection: _Connection,
        turn_id: str,
        thread_id: str,
        message: str,
        resume: Any,
        answers: Optional[list] = None,
        fork_from: Any = None,
    ) -> None:
        with self._lock:
            loaded = self._loaded
            if loaded is None or not loaded.ready:
                raise _Rejected("no_agent", loaded.error if loaded is not None else NOT_SERVING)
            if self._turn_with_id(turn_id) is not None:
                raise _Rejected("bad_request", f"turn_id {turn_id!r} is already running")
            running = self._turns.get(thread_id)
            if running is not None:
                raise _Rejected(
                    "busy", f"a turn ({running.turn_id!r}) is already running on thread {thread_id!r}"
                )
            # A resume's pending interrupt is checked once the turn holds the thread:
            # two resumes of one review cannot both run (the second is ``nothing_pending``).
            turn = Turn(
                turn_id=turn_id,
                request=TurnRequest(
                    loaded, message, thread_id, resume, self._max_result_len, answers=answers, fork_from=fork_from
                ),
                send=connection.send,
                on_end=self._forget,
                output=self._keep_output(turn_id),
                owner=connection,
            )
            self._turns.claim(thread_id, turn)
            # Scheduled under the lock so a cancel found in _turns always runs after the start.
            self._loop.call(turn.start)

    def _cancel(self, turn_id: str) -> None:
        with self._lock:
            turn = self._turn_with_id(turn_id)
            if turn is not None:
                self._turns.stop(turn.thread_id)
        # An unknown or finished turn_id is ignored (docs/protocol.md §7.3).

    def _turn_with_id(self, turn_id: str) -> Optional[Turn]:
        return next((turn for turn in self._turns.values() if turn.turn_id == turn_id), None)

    def _stop(self, turn: Turn) -> None:
        self._loop.call(turn.cancel)

    def _forget(self, turn: Turn) -> None:
        with self._lock:
            self._turns.finish(turn.thread_id, turn)

    def _keep_output(self, turn_id: str) -> TurnOutput:
        output = TurnOutput()
        self._outputs[turn_id] = output
        while len(self._outputs) > KEPT_TURN_OUTPUTS:
            self._outputs.popitem(last=False)
        return output

    def _hello(self) -> dict:
        return {"type": "hello", "protocol": PROTOCOL, "agent_name": None, **self.health()}


def _send_safely(send: Callable[[dict], None], data: dict) -> None:
    try:
        send(data)
    except Exception:
        logger.exception("agent_panel: could not send %s", data.get("type"))


def _answerable_turn_id(data: Any) -> Optional[str]:
    """The message's ``turn_id`` if a reply can carry it (a string the panel could have sent)."""
    turn_id = data.get("turn_id") if isinstance(data, dict) else None
    if not isinstance(turn_id, str) or length_problem("turn_id", turn_id):
        return None
    # A lone surrogate cannot be encoded into a kernel message: the reply would never leave.
    return turn_id if json_problem(turn_id, what="turn_id", unicode_only=True) is None else None


def _turn_ids(data: dict) -> tuple[str, str]:
    return _id(data, "turn_id"), _id(data, "thread_id")


def _required_string(data: dict, field: str) -> str:
    value = data.get(field)
    if not isinstance(value, str) or not value:
        raise _Rejected("bad_request", f"missing field {field!r} (a non-empty string)")
    return value


def _id(data: dict, field: str) -> str:
    value = _required_string(data, field)
    problem = length_problem(field, value)
    if problem is not None:
        raise _Rejected("bad_request", problem)
    return value


def _optional_names(data: dict) -> Optional[list]:
    names = data.get("names")
    if names is not None and not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
        raise _Rejected("bad_request", "field 'names' must be a list of strings")
    return names


def _shell() -> Any:
    from IPython import get_ipython

    return get_ipython()


def _optional_context(data: dict) -> Optional[dict]:
    context = data.get("context")
    if context is None:
        return None
    if not isinstance(context, dict):
        raise _Rejected("bad_request", "field 'context' must be an object")
    for field in CONTEXT_FIELDS:
        if context.get(field) is not None and not isinstance(context[field], str):
            raise _Rejected("bad_request", f"field 'context.{field}' must be a string")
    problem = attachments_problem(context.get("attachments"))
    if problem is not None:
        raise _Rejected("bad_request", f"field 'context': {problem}")
    return context


def _resume_value(data: dict) -> Any:
    has_decisions = "decisions" in data
    has_raw = "resume" in data
    if has_decisions and has_raw:
        raise _Rejected("bad_request", "give either 'decisions' or 'resume', not both")
    if has_raw:
        return data["resume"]
    if not has_decisions:
        raise _Rejected("bad_request", "missing field 'decisions' (a list)")
    if not isinstance(data["decisions"], list):
        raise _Rejected("bad_request", "field 'decisions' must be a list")
    problem = decision_shape_problem(data["decisions"])
    if problem is not None:
        raise _Rejected("bad_request", problem)
    # The same envelope the HTTP resume route builds (docs/protocol.md §5.6).
    return {"decisions": data["decisions"]}


def _forked_at(data: dict, resume: bool = False) -> Any:
    """Where a ``start_turn`` or a ``resume`` forks its thread first (docs/protocol.md §5.10)."""
    try:
        point = fork_point(data)
    except ValueError as exc:
        raise _Rejected("bad_request", str(exc)) from None
    if resume and point is THREAD_START:
        raise _Rejected("bad_request", RESUME_AT_START)
    return point


def _answers(data: dict) -> Optional[list]:
    """The interrupt ids a resume says it answers (docs/protocol.md §5.9), None when it names none."""
    if "interrupt_ids" not in data:
        return None
    problem = interrupt_ids_problem(data["interrupt_ids"])
    if problem is not None:
        raise _Rejected("bad_request", problem)
    return data["interrupt_ids"]


# -- module-level entry points ---------------------------------------------------

_server: Optional[AgentPanelServer] = None
_server_lock = threading.Lock()


def _comm_manager(ipython: Any) -> Any:
    # The manager the kernel dispatches comm_open/comm_msg to. On ipykernel >= 6.18
    # it is also comm.get_comm_manager(); on older kernels only this one is right.
    manager = getattr(getattr(ipython, "kernel", None), "comm_manager", None)
    if manager is None:
        raise RuntimeError(
            "jupyterlab_agent_panel needs a Jupyter kernel (ipykernel): no comm manager found"
        )
    return manager


def _ensure_server(ipython: Any = None) -> AgentPanelServer:
    global _server
    with _server_lock:
        if _server is None:
            if ipython is None:
                from IPython import get_ipython

                ipython = get_ipython()
            _server = AgentPanelServer(_comm_manager(ipython))
        return _server


def serve(
    graph_or_spec: Any = None,
    *,
    extractors: Any = None,
    name: Optional[str] = None,
    max_result_len: int = 500,
) -> AgentPanelServer:
    """Serve a graph (object or ``module:attr`` / ``file.py:attr`` spec) to the panel.

    Call again to switch graphs; running turns finish on the graph they started
    with. Returns the server, whose repr says what is served.
    """
    server = _ensure_server()
    server.use(load_agent(graph_or_spec, extractors=extractors, name=name), max_result_len)
    return server


def load_ipython_extension(ipython: Any) -> None:
    """Register the comm target and, unless ``serve()`` already chose one, the default graph."""
    server = _ensure_server(ipython)
    if not server.serving:
        server.use(load_agent())
    if not server.health()["ready"]:
        print(repr(server), file=sys.stderr)


def unload_ipython_extension(ipython: Any) -> None:
    """Stop serving (``%unload_ext jupyterlab_agent_panel``)."""
    global _server
    with _server_lock:
        server, _server = _server, None
    if server is not None:
        server.dispose()
