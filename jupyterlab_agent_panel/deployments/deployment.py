"""A LangGraph Agent Server deployment served under ``agent-panel/agents/<name>/`` (docs/protocol.md §15).

The server extension talks to the deployment with ``langgraph-sdk``: a turn is
a streamed run on the thread, a resume a run with ``Command(resume=...)``, a
Stop cancels the run on the deployment. A run outlives its client: a page
reload or a Jupyter restart leaves it going, and ``POST join`` streams it again,
from its start. Its key stays in the server's config (``AgentPanel.deployments``);
the browser only ever talks to this server.
"""
from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import os
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterator, Optional

from ..agent_host import AgentHost, ExtractorUnavailable
from ..graph import LoadedAgent
from .checkpoints import AFTER_START, fork_problem, run_start, run_started_at, with_checkpoints
from .frames import RunFrames, paused_calls
from .threads import history_turns, started_by, thread_summary, title_of

DEPLOYMENT_KEYS = {"url", "assistant_id", "api_key", "api_key_env", "extractors"}
STREAM_MODES = ["messages-tuple", "updates"]
CHECK_SECONDS = 10.0
# How long a deployment's answer to GET /ok stands for its health; a request that fails to
# reach it has health ask again at once.
RECHECK_SECONDS = 15.0
READ_SECONDS = 300.0  # langgraph-sdk's own read timeout
PANEL_CLIENT = "jupyterlab-agent-panel"
IN_FLIGHT = ("running", "pending")
REPLAY_FROM_START = "-1"  # a Last-Event-ID before every event of a resumable run
LISTED_THREADS = 200  # the newest of an owner's threads the conversation list shows
HISTORY_PAGE = 20  # checkpoints asked at a time, looking for the state before the run in flight


@dataclass(frozen=True)
class DeploymentSpec:
    """Where the deployment is, which assistant (or graph id) to run, and its key."""

    url: str
    assistant_id: str
    api_key: Optional[str] = None
    api_key_env: Optional[str] = None

    @property
    def label(self) -> str:
        return f"{self.assistant_id} at {self.url}"

    def key(self) -> Optional[str]:
        """The API key: given, else read from the named environment variable (None: no key)."""
        if self.api_key:
            return self.api_key
        return os.environ.get(self.api_key_env) if self.api_key_env else None


def deployment_entry(entry: Any) -> dict:
    """``entry`` checked: ``{"spec": DeploymentSpec, "extractors": [...]}``; ValueError says what is wrong."""
    if not isinstance(entry, dict):
        raise ValueError(f"expected {{'url': ..., 'assistant_id': ...}}, not {type(entry).__name__}")
    unknown = sorted(map(str, entry.keys() - DEPLOYMENT_KEYS))
    if unknown:
        raise ValueError(f"unknown keys {unknown}; expected {sorted(DEPLOYMENT_KEYS)}")
    url, assistant_id = entry.get("url"), entry.get("assistant_id")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValueError("'url' must be the deployment's http:// or https:// URL")
    if not isinstance(assistant_id, str) or not assistant_id.strip():
        raise ValueError("'assistant_id' must be an assistant id or a graph id of the deployment")
    for key in ("api_key", "api_key_env"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            raise ValueError(f"'{key}' must be a string")
    extractors = entry.get("extractors", [])
    if not isinstance(extractors, list) or not all(isinstance(e, str) and e.strip() for e in extractors):
        raise ValueError("'extractors' must be a list of 'module:attr' / 'file.py:attr' strings")
    spec = DeploymentSpec(url.rstrip("/"), assistant_id, entry.get("api_key"), entry.get("api_key_env"))
    return {"spec": spec, "extractors": extractors}


class DeploymentAgent:
    """The deployment's client, used on its host's worker loop only."""

    def __init__(self, spec: DeploymentSpec, client: Any, assistant_name: Optional[str]):
        from langgraph.pregel.remote import RemoteGraph

        self.spec = spec
        self.client = client
        self.assistant_name = assistant_name
        # What the resume check reads (graph.pending_interrupts): the thread's state on the deployment.
        self.graph = RemoteGraph(spec.assistant_id, client=client)
        self.kind = f"Agent Server at {spec.url}"
        # Threads whose turn Stop ended: their run is cancelled on the deployment too. Added on
        # tornado's loop before the turn's task is cancelled, read here; a set's add is atomic.
        self.stopped: set = set()
        # Why GET /ok failed when last asked (None: it answered), and when that was.
        self._problem: Optional[str] = None
        self._checked_at = time.monotonic()

    def suspect(self) -> None:
        """A request failed to reach the deployment: the next :meth:`problem` asks it again."""
        self._checked_at = -math.inf

    @contextlib.contextmanager
    def failures_noted(self) -> Iterator[None]:
        """A failure of the requests inside (refused, timed out, 5xx...) makes the deployment suspect."""
        try:
            yield
        except Exception:
            self.suspect()
            raise

    async def problem(self) -> Optional[str]:
        """Why the deployment cannot serve now, or ``None``: its last answer to ``GET /ok``,
        asked again while it fails, once older than RECHECK_SECONDS, or after a request failed."""
        if self._problem is not None or time.monotonic() - self._checked_at >= RECHECK_SECONDS:
            self._problem = await ok_problem(self.client, self.spec)
            self._checked_at = time.monotonic()
        return self._problem

    async def run_in_flight(self, thread_id: str) -> Optional[str]:
        """The id of the run still going on the thread (left by a reload or a restart), or ``None``."""
        from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError

        for status in IN_FLIGHT:
            try:
                runs = await self.client.runs.list(thread_id, status=status, limit=1)
            except (NotFoundError, UnprocessableEntityError):  # no such thread, or no UUID
                return None
            if runs:
                return runs[0]["run_id"]
        return None

    async def fork_problem(self, thread_id: str, checkpoint_id: str) -> Optional[tuple]:
        """Why a turn cannot start at ``checkpoint_id`` of the thread (deployments/checkpoints.py), or None."""
        with self.failures_noted():
            return await fork_problem(self.client, thread_id, checkpoint_id)

    async def known(self, thread_id: str) -> bool:
        """Whether the deployment has the thread (the thread routes, server/thread_handler.py)."""
        from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError

        try:
            await self.client.threads.get(thread_id)
        except (NotFoundError, UnprocessableEntityError):  # unknown, or no UUID (so never one of its threads)
            return False
        return True

    async def forget(self, thread_id: str) -> None:
        from langgraph_sdk.errors import NotFoundError

        try:
            await self.client.threads.delete(thread_id)
        except NotFoundError:
            pass  # deleted already

    async def listed(self, owner: str) -> list:
        """``owner``'s threads of this assistant that the panel made, newest activity first."""
        metadata = self.panel_metadata(owner)
        threads = await self.client.threads.search(
            metadata=metadata, limit=LISTED_THREADS, sort_by="updated_at", sort_order="desc"
        )
        return [thread_summary(thread) for thread in threads]

    async def history(self, owner: str, thread_id: str, extractors: list, max_result_len: int) -> Optional[dict]:
        """The thread's turns as chunk-wire frames (deployments/threads.py), or ``None`` when
        the deployment has no such thread of ``owner``'s."""
        thread = await self._owned(owner, thread_id)
        if thread is None:
            return None
        state = await self.client.threads.get_state(thread_id)
        running = await self.run_in_flight(thread_id) if thread.get("status") == "busy" else None
        if running is not None and _run_of(state) == running:
            # What the run in flight wrote comes from joining it (joined_frames), from its start.
            before = await self._state_before(thread_id, running)
            turns = history_turns(before, extractors=extractors, max_result_len=max_result_len, pending=False)
            asked = started_by(state, before)
            turns += [{"message": asked, "frames": []}] if asked is not None else []
        else:
            turns = history_turns(state, extractors=extractors, max_result_len=max_result_len)
        return {**thread_summary(thread), "turns": turns}

    async def retitle(self, owner: str, thread_id: str, title: str) -> bool:
        """Set the thread's title; False when the deployment has no such thread of ``owner``'s."""
        if await self._owned(owner, thread_id) is None:
            return False
        await self.client.threads.update(thread_id, metadata={"title": title})
        return True

    async def _state_before(self, thread_id: str, run_id: str) -> Optional[dict]:
        """The thread's state as the run ``run_id`` found it (``None``: the run made the thread)."""
        before = None
        while True:
            page = await self.client.threads.get_history(thread_id, limit=HISTORY_PAGE, before=before)
            earlier = next((state for state in page if _run_of(state) != run_id), None)
            if earlier is not None or len(page) < HISTORY_PAGE:
                return earlier
            before = page[-1]["checkpoint"]

    def panel_metadata(self, owner: str) -> dict:
        return {"client": PANEL_CLIENT, "assistant": self.spec.assistant_id, "owner": owner}

    async def _owned(self, owner: str, thread_id: str) -> Optional[dict]:
        from langgraph_sdk.errors import NotFoundError, UnprocessableEntityError

        try:
            thread = await self.client.threads.get(thread_id)
        except (NotFoundError, UnprocessableEntityError):
            return None
        metadata = thread.get("metadata") or {}
        wanted = self.panel_metadata(owner)
        return thread if all(metadata.get(key) == value for key, value in wanted.items()) else None


class DeploymentHost(AgentHost):
    """A deployment served like a local agent: the same routes, its own loop and running turns.

    "Loading" it is checking it (:func:`connect`), retried like a failed load.
    """

    def __init__(self, name: str, spec: DeploymentSpec, extractor_specs: list, **kwargs: Any):
        super().__init__(name, None, extractor_specs, None, **kwargs)
        self.deployment = spec
        self._connected: Optional[DeploymentAgent] = None

    def label(self) -> str:
        return self.deployment.label

    def _graph_file(self) -> None:
        return None

    async def health(self) -> dict:
        """The check of :func:`connect`, and then whether the deployment still answers
        (:meth:`DeploymentAgent.problem`): a deployment that went away is not ready."""
        loaded = await self.loaded_agent()
        agent = self._connected
        problem = await self.on_loop(agent.problem()) if loaded.ready and agent is not None else None
        if problem is None:
            return loaded.health()
        return {**loaded.health(), "status": "unreachable", "ready": False, "message": problem}

    def stop_requested(self, thread_id: str) -> None:
        if self._connected is not None:
            self._connected.stopped.add(thread_id)

    def _load(self) -> LoadedAgent:
        try:
            extractors = self._load_extractors() or []
        except ExtractorUnavailable as exc:
            return self._failed(str(exc))
        loaded = self.worker.submit(connect(self.deployment, extractors)).result()
        self._connected = loaded.agent
        return loaded

    async def _close_resources(self) -> None:
        if self._connected is not None:
            await self._connected.client.aclose()


def _run_of(state: Any) -> Optional[str]:
    """The run that wrote the checkpoint of ``state``."""
    metadata = state.get("metadata") if isinstance(state, dict) else None
    return metadata.get("run_id") if isinstance(metadata, dict) else None


async def connect(spec: DeploymentSpec, extractors: list) -> LoadedAgent:
    """The deployment checked (``GET /ok``, the assistant exists) and ready, or why it is not."""
    import httpx
    from langgraph_sdk import get_client

    # Connecting gives up after CHECK_SECONDS; a reply (a large thread's state) may take longer.
    timeout = httpx.Timeout(connect=CHECK_SECONDS, read=READ_SECONDS, write=CHECK_SECONDS, pool=CHECK_SECONDS)
    client = get_client(url=spec.url, api_key=spec.key(), timeout=timeout)
    name = None
    problem = await ok_problem(client, spec)
    if problem is None:
        try:
            name = await _assistant_name(client, spec.assistant_id)
            if name is None:
                problem = f"The Agent Server at {spec.url} has no assistant or graph {spec.assistant_id!r}"
        except Exception as exc:  # as for GET /ok
            problem = _request_problem(spec, exc)
    if problem is not None:
        await client.aclose()
        return LoadedAgent(spec=spec.label, status="agent_not_loaded", error=problem)
    return LoadedAgent(
        spec=spec.label,
        agent=DeploymentAgent(spec, client, name),
        extractors=extractors,
        name=name,
        stream=deployment_frames,
        join=joined_frames,
    )


async def ok_problem(client: Any, spec: DeploymentSpec) -> Optional[str]:
    """Why the deployment's ``GET /ok`` does not say it is an Agent Server that serves, or ``None``."""
    try:
        ok = await client.http.get("/ok")
    except Exception as exc:  # connection refused, DNS, timeout, not JSON, 4xx/5xx...
        return _request_problem(spec, exc)
    if not isinstance(ok, dict) or ok.get("ok") is not True:
        return f"{spec.url}/ok did not answer {{\"ok\": true}}: it is not a LangGraph Agent Server"
    return None


def _request_problem(spec: DeploymentSpec, exc: Exception) -> str:
    """What a failed request to the deployment says of it."""
    from langgraph_sdk.errors import APIStatusError

    if isinstance(exc, APIStatusError):
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if status in (401, 403):
            return f"The Agent Server at {spec.url} refused the key ({status}): check api_key / api_key_env"
        return f"{spec.url} answered {status}: it is not a LangGraph Agent Server ({exc})"
    return f"The Agent Server at {spec.url} is unreachable: {type(exc).__name__}: {exc}"


async def _assistant_name(client: Any, assistant_id: str) -> Optional[str]:
    """The assistant's name, found by id or by graph id; ``None`` if the deployment has neither."""
    from langgraph_sdk.errors import APIStatusError

    try:
        return (await client.assistants.get(assistant_id)).get("name") or assistant_id
    except APIStatusError:
        pass  # not an assistant id: maybe a graph id
    try:
        found = await client.assistants.search(graph_id=assistant_id, limit=1)
    except APIStatusError as exc:
        if getattr(exc.response, "status_code", None) == 404:  # "Graph 'x' not found"
            return None
        raise
    return (found[0].get("name") or assistant_id) if found else None


async def deployment_frames(
    agent: DeploymentAgent,
    message: str,
    thread_id: str,
    *,
    resume: Any = None,
    extractors: Any = (),
    max_result_len: int = 500,
    owner: str = "",
    fork_from: Optional[str] = None,
) -> AsyncIterator[dict]:
    """One turn as a streamed run on the deployment's thread (the panel's thread id); a new
    thread is ``owner``'s, titled by its first message (docs/protocol.md §15.5). ``fork_from``:
    the checkpoint it starts at (docs/protocol.md §15.6)."""
    client, spec = agent.client, agent.spec
    agent.stopped.discard(thread_id)  # a Stop that came when no turn ran
    metadata = {**agent.panel_metadata(owner), "title": title_of(message)}
    if resume is None:
        run_input = {"input": {"messages": [{"role": "user", "content": message}]}}
    else:
        run_input = {"command": {"resume": resume}}
    with agent.failures_noted():
        thread = await client.threads.create(thread_id=thread_id, if_exists="do_nothing", metadata=metadata)
        resumed, busy = resume is not None, isinstance(thread, dict) and thread.get("status") == "busy"
        run_from, before = await run_start(client, thread_id, fork_from, resumed, busy)
        frames = await _run_frames(agent, thread_id, extractors, max_result_len, resumed=resumed, at=run_from)
        if before is AFTER_START:  # read when the run's first frame comes: it has started then
            before = functools.partial(run_started_at, client, thread_id, frames)
        # Resumable and kept on a lost client, so that a reload can join it (joined_frames).
        parts = client.runs.stream(
            thread_id,
            spec.assistant_id,
            **run_input,
            stream_mode=STREAM_MODES,
            stream_resumable=True,
            on_disconnect="continue",
            checkpoint_id=run_from,
        )
        streamed = _streamed(agent, thread_id, parts, frames)
        async for frame in with_checkpoints(streamed, agent, thread_id, before):
            yield frame


async def joined_frames(
    agent: DeploymentAgent, thread_id: str, run_id: str, *, extractors: Any = (), max_result_len: int = 500
) -> AsyncIterator[dict]:
    """The run still going on the thread, replayed from its start, then followed to its end."""
    agent.stopped.discard(thread_id)
    with agent.failures_noted():
        frames = await _run_frames(agent, thread_id, extractors, max_result_len, resumed=True)
        frames.run_id = run_id
        parts = agent.client.runs.join_stream(thread_id, run_id, last_event_id=REPLAY_FROM_START)
        async for frame in with_checkpoints(_streamed(agent, thread_id, parts, frames), agent, thread_id):
            yield frame


async def _run_frames(
    agent: DeploymentAgent, thread_id: str, extractors: Any, max_result_len: int, *, resumed: bool, at: Any = None
) -> RunFrames:
    paused = {}
    if resumed:  # results may answer calls an earlier run made (paused_calls), at the checkpoint resumed
        checkpoint = {"checkpoint": {"checkpoint_id": at}} if at else {}
        state = await agent.client.threads.get_state(thread_id, **checkpoint)
        paused = paused_calls((state.get("values") or {}).get("messages") if isinstance(state, dict) else None)
    return RunFrames(extractors=list(extractors or ()), max_result_len=max_result_len, paused_calls=paused)


async def _streamed(agent: DeploymentAgent, thread_id: str, parts: Any, frames: RunFrames) -> AsyncIterator[dict]:
    """The frames of a run's stream parts. Stop, or a failure here, cancels the run on the
    deployment; a lost client (a reload) or a closing server leaves it going."""
    finished, failed = False, False
    try:
        async for part in parts:
            if part.event == "error":
                yield {"status": "error", "error": _error_text(part.data)}
                finished = True
                return
            for frame in frames.feed(part.event, part.data):
                yield frame
        finished = True
        yield frames.terminal()
    except Exception:
        failed = True
        raise
    finally:
        stopped = thread_id in agent.stopped
        agent.stopped.discard(thread_id)
        if not finished and frames.run_id is not None and (failed or stopped):
            await asyncio.shield(_cancel(agent.client, thread_id, frames.run_id))


async def _cancel(client: Any, thread_id: str, run_id: str) -> None:
    try:
        await client.runs.cancel(thread_id, run_id, action="interrupt")
    except Exception:  # already ended, or the deployment went away
        pass


def _error_text(data: Any) -> str:
    if isinstance(data, dict):
        return f"{data.get('error', 'Error')}: {data.get('message', '')}".rstrip(": ")
    return str(data)
