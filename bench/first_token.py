"""Time to first token through the panel: what the server adds over the model.

Starts the tests' scripted OpenAI-compatible server
(``jupyterlab_agent_panel/tests/scripted_openai.py``, the echo script) as a
process of its own on a free loopback port, paced as a model streams: the
first token ``--first-token-ms`` after the request, then ``--tokens-per-second``;
each answer is ``--tokens`` tokens. Then a real ``jupyter server`` with the
extension (``server_load.serving``), whose default agent is the built-in agent
(``docs/protocol.md`` §16) on ``openai:gpt-4.1-mini`` through
``langchain-openai`` (``OPENAI_BASE_URL`` at the scripted server, a dummy key).
Each run, at 1 turn (``--single-turns`` one after another) and at
``--concurrency`` turns (each slot starting its next turn when one ends, for
``--seconds``):

1. **direct**: the provider client alone, made as the built-in agent makes it
   (``jupyterlab_agent_panel/builtin/providers.py`` ``chat_model``), ``astream``
   from this process: the time to the first chunk with text;
2. **panel**: ``POST agent-panel/chat`` (``docs/protocol.md`` §6.1), the time
   from the request to the first frame with a ``chunk``.

The added first-token time is the panel's percentile less the direct one's;
the gap per frame is, per turn, the time from the first text to the last over
the text frames after the first, against the direct stream's gap between
chunks (the model's own). Meanwhile ``GET /api/status`` is timed from a
process of its own (``server_load.sample_status``): idle, then during the
concurrent panel turns. Prints a markdown table of the medians over ``--runs``
(min–max), each goal beside its figure. The concurrent slots start together
and, their turns being alike, go on in waves of ``--concurrency``.

    .venv/bin/python bench/first_token.py [--runs 3] [--concurrency 50] [--seconds 8] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable, Iterator

import httpx
from server_load import IDLE_REQUESTS, TOKEN, free_port, percentiles, sample_status, serving, wait_ready

from jupyterlab_agent_panel.builtin.credentials import Credentials
from jupyterlab_agent_panel.builtin.providers import ModelOptions, ModelRef, chat_model

REPO = Path(__file__).resolve().parents[1]
SCRIPTED = REPO / "jupyterlab_agent_panel" / "tests" / "scripted_openai.py"
MODEL = "openai:gpt-4.1-mini"  # one the scripted server serves
DUMMY_KEY = "sk-bench-dummy-key"
# Goals (issue 37): what the server may add to the first token with 50 turns running, and
# how long the Jupyter server may take to answer meanwhile.
GOAL_ADDED_P50_MS = 15.0
GOAL_ADDED_P95_MS = 50.0
GOAL_STATUS_P95_MS = 50.0
PHASES = ("direct_1", "panel_1", "direct_n", "panel_n")


@dataclass
class Turn:
    """One streamed answer: milliseconds to its first text, its mean gap between texts after the first."""

    first_ms: float
    gap_ms: float
    texts: int
    text: str


def timed(began: float, stamps: list[float], pieces: list[str]) -> Turn:
    if not stamps:
        raise RuntimeError("the answer had no text")
    gap = (stamps[-1] - stamps[0]) / (len(stamps) - 1) if len(stamps) > 1 else 0.0
    return Turn((stamps[0] - began) * 1000, gap * 1000, len(stamps), "".join(pieces))


async def direct_turn(model, message: str) -> Turn:
    """The provider client alone: ``astream`` to the scripted server."""
    stamps: list[float] = []
    pieces: list[str] = []
    began = time.perf_counter()
    async for chunk in model.astream(message):
        if isinstance(chunk.content, str) and chunk.content:
            stamps.append(time.perf_counter())
            pieces.append(chunk.content)
    return timed(began, stamps, pieces)


async def panel_turn(client: httpx.AsyncClient, message: str) -> Turn:
    """``POST agent-panel/chat`` on a new thread, read as the panel reads it (one frame per ``data:`` line)."""
    body = {"message": message, "thread_id": uuid.uuid4().hex}
    stamps: list[float] = []
    pieces: list[str] = []
    last: dict = {}
    began = time.perf_counter()
    async with client.stream("POST", "/agent-panel/chat", json=body, timeout=None) as response:
        if response.status_code != 200:
            raise RuntimeError(f"chat answered {response.status_code}: {(await response.aread())[:500]!r}")
        async for line in response.aiter_lines():
            if not line.startswith("data: "):
                continue
            now = time.perf_counter()
            last = json.loads(line[len("data: ") :])
            if last.get("chunk"):
                stamps.append(now)
                pieces.append(last["chunk"])
    if last.get("status") != "complete":
        raise RuntimeError(f"the turn ended with {last}")
    return timed(began, stamps, pieces)


async def single(turn: Callable[[], Awaitable[Turn]], count: int) -> list[Turn]:
    return [await turn() for _ in range(count)]


async def in_slots(turn: Callable[[], Awaitable[Turn]], slots: int, seconds: float) -> list[Turn]:
    """``slots`` turns at a time, each slot starting its next when one ends, until ``seconds`` are over."""
    stop_at = time.monotonic() + seconds
    turns: list[Turn] = []

    async def slot() -> None:
        while time.monotonic() < stop_at:
            turns.append(await turn())

    await asyncio.gather(*(slot() for _ in range(slots)))
    return turns


def phase(turns: list[Turn], expected: str) -> dict:
    firsts = percentiles([t.first_ms for t in turns])
    return {
        "turns": len(turns),
        "first_p50": firsts["p50"],
        "first_p95": firsts["p95"],
        "first_max": firsts["max"],
        "gap_mean": statistics.fmean(t.gap_ms for t in turns),
        "texts_mean": statistics.fmean(t.texts for t in turns),
        "wrong_text": sum(t.text != expected for t in turns),
    }


async def one_run(args, port: int, model, client: httpx.AsyncClient, sampler, message: str, expected: str) -> dict:
    loop = asyncio.get_running_loop()
    idle = await loop.run_in_executor(sampler, sample_status, port, IDLE_REQUESTS, time.time() + 60)

    def direct() -> Awaitable[Turn]:
        return direct_turn(model, message)

    def panel() -> Awaitable[Turn]:
        return panel_turn(client, message)

    run: dict = {"status_idle": percentiles(idle)}
    run["direct_1"] = phase(await single(direct, args.single_turns), expected)
    run["panel_1"] = phase(await single(panel, args.single_turns), expected)
    run["direct_n"] = phase(await in_slots(direct, args.concurrency, args.seconds), expected)
    under_load = loop.run_in_executor(sampler, sample_status, port, 10**9, time.time() + args.seconds)
    run["panel_n"] = phase(await in_slots(panel, args.concurrency, args.seconds), expected)
    run["status_load"] = percentiles(await under_load)
    for n in ("1", "n"):
        direct_n, panel_n = run[f"direct_{n}"], run[f"panel_{n}"]
        run[f"added_{n}"] = {
            "p50": panel_n["first_p50"] - direct_n["first_p50"],
            "p95": panel_n["first_p95"] - direct_n["first_p95"],
            "gap": panel_n["gap_mean"] - direct_n["gap_mean"],
        }
    return run


@contextlib.contextmanager
def scripted_model(args) -> Iterator[str]:
    """The scripted OpenAI-compatible server in a process of its own; yields its base URL."""
    port = free_port()
    command = [
        sys.executable, str(SCRIPTED), "--port", str(port), "--script", "echo",
        "--first-token-ms", str(args.first_token_ms), "--tokens-per-second", str(args.tokens_per_second),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1, trust_env=False).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("the scripted model did not start")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(30)


def summary(runs: list[dict], section: str, key: str) -> str:
    values = [run[section][key] for run in runs]
    return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"


def ratio(runs: list[dict], section: str, key: str, goal: float) -> str:
    return f"{statistics.median(run[section][key] for run in runs) / goal:.2f}×"


def table(args, runs: list[dict]) -> str:
    n = args.concurrency
    gap = 1000 / args.tokens_per_second if args.tokens_per_second else 0.0
    lines = [
        f"Time to first token, ms: median (min–max) of {args.runs} runs. Model: the scripted OpenAI-compatible "
        f"server, first token after {args.first_token_ms:g} ms, then {args.tokens_per_second:g} tokens/s "
        f"({gap:.1f} ms apart), {args.tokens} tokens per answer; {args.single_turns} turns one after another, "
        f"then {n} at a time for {args.seconds:g} s. Added = through the panel less direct, per percentile.",
        "",
        "| figure | direct (provider client) | through the panel | added by the server | goal | ÷ goal |",
        "| ------ | ------------------------ | ----------------- | ------------------- | ---- | ------ |",
    ]
    for c, label in (("1", "1 turn"), ("n", f"{n} turns")):
        for p in ("p50", "p95"):
            goal, over = "–", "–"
            if c == "n":
                limit = GOAL_ADDED_P50_MS if p == "p50" else GOAL_ADDED_P95_MS
                goal, over = f"≤ {limit:g} ms", ratio(runs, f"added_{c}", p, limit)
            lines.append(
                f"| first token, {label}, {p} | {summary(runs, f'direct_{c}', f'first_{p}')} | "
                f"{summary(runs, f'panel_{c}', f'first_{p}')} | {summary(runs, f'added_{c}', p)} | {goal} | {over} |"
            )
        lines.append(
            f"| gap per frame after the first, {label}, mean | {summary(runs, f'direct_{c}', 'gap_mean')} | "
            f"{summary(runs, f'panel_{c}', 'gap_mean')} | {summary(runs, f'added_{c}', 'gap')} | – | – |"
        )
    lines += [
        "",
        f"GET /api/status, ms, from a process of its own: idle, and while the panel ran {n} turns at a time.",
        "",
        "| phase | p50 | p95 | max | goal | ÷ goal |",
        "| ----- | --- | --- | --- | ---- | ------ |",
    ]
    for section, label in (("status_idle", "idle"), ("status_load", f"{n} turns through the panel")):
        figures = " | ".join(summary(runs, section, key) for key in ("p50", "p95", "max"))
        goal, over = "–", "–"
        if section == "status_load":
            goal, over = f"p95 < {GOAL_STATUS_P95_MS:g} ms", ratio(runs, section, "p95", GOAL_STATUS_P95_MS)
        lines.append(f"| {label} | {figures} | {goal} | {over} |")
    counts = ", ".join(f"{section} {statistics.median(run[section]['turns'] for run in runs):g}" for section in PHASES)
    texts = ", ".join(
        f"{section} {statistics.median(run[section]['texts_mean'] for run in runs):.1f}" for section in PHASES
    )
    wrong = sum(run[section]["wrong_text"] for run in runs for section in PHASES)
    lines += [
        "",
        f"Turns per run (median): {counts}. Text frames per turn: {texts}. Answers not the expected text: {wrong}.",
    ]
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=50, help="turns at a time in the concurrent phase")
    parser.add_argument("--seconds", type=float, default=8, help="length of each concurrent phase")
    parser.add_argument("--single-turns", type=int, default=10, help="turns one after another, per run and path")
    parser.add_argument("--tokens", type=int, default=40, help="tokens per answer (at least 3)")
    parser.add_argument("--first-token-ms", type=float, default=200)
    parser.add_argument("--tokens-per-second", type=float, default=50)
    parser.add_argument("--pythonpath", help="serve jupyterlab_agent_panel from this directory")
    parser.add_argument("--json", metavar="FILE", help="also write every run's figures to FILE")
    args = parser.parse_args()
    if args.tokens < 3:
        parser.error("--tokens must be at least 3")

    # The echo script answers "You said: <the message>": two tokens, then one per word.
    message = " ".join(["token"] * (args.tokens - 2))
    expected = f"You said: {message}"

    with tempfile.TemporaryDirectory(prefix="agent-panel-first-token-") as workdir, scripted_model(args) as base_url:
        environ = {"OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": DUMMY_KEY}
        for name in ("AGENT_PANEL_MODEL", "OPENAI_API_BASE", "ANTHROPIC_API_KEY"):
            os.environ.pop(name, None)
        os.environ.update(environ)  # the server's environment is this process's (server_load.start_server)
        model = chat_model(ModelRef.parse(MODEL), Credentials(None, environ), ModelOptions())
        with serving(Path(workdir), f"c.AgentPanel.model = {MODEL!r}\n", args.pythonpath) as (_, port):
            headers = {"Authorization": f"token {TOKEN}"}
            limits = httpx.Limits(max_connections=args.concurrency + 4)
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", headers=headers, limits=limits, trust_env=False, timeout=60
            ) as client:
                await wait_ready(client)
                for _ in range(2):  # the agent is built on its first turn; the clients warm up
                    await panel_turn(client, message)
                    await direct_turn(model, message)
                with concurrent.futures.ProcessPoolExecutor(max_workers=1) as sampler:
                    runs = [
                        await one_run(args, port, model, client, sampler, message, expected) for _ in range(args.runs)
                    ]

    print(table(args, runs))
    if args.json:
        Path(args.json).write_text(json.dumps({"options": vars(args), "runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
