"""Frames per second over the ``agent_panel`` comm vs. ``iter_chunk_frames`` in-process.

Starts a real kernel, serves a graph that streams N text deltas
(``jupyterlab_agent_panel/tests/graphs/kernel_deltas.py``), and times whole turns
as a jupyter_client sees them: from sending ``start_turn`` to receiving
``turn_end``. The baseline runs the same graph's ``iter_chunk_frames`` in this
process. Prints the median (min–max) of each and their ratio.

    PYTHONPATH=. .venv/bin/python bench/comm_throughput.py [--deltas 20000] [--runs 3]
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parents[1] / "jupyterlab_agent_panel" / "tests"
sys.path[:0] = [str(TESTS_DIR), str(TESTS_DIR / "graphs")]

from kernel_comm_client import GRAPHS_DIR, KernelUnderTest, PanelComm, frames_of  # noqa: E402


def comm_rates(deltas: int, runs: int) -> list[float]:
    kernel = KernelUnderTest()
    try:
        setup = kernel.execute(
            "%load_ext jupyterlab_agent_panel\n"
            f"import sys\nsys.path.insert(0, {str(GRAPHS_DIR)!r})\n"
            "import jupyterlab_agent_panel, kernel_deltas\n"
            f"jupyterlab_agent_panel.serve(kernel_deltas.build_graph({deltas}))"
        )
        assert setup.ok, setup.reply["content"]
        panel = PanelComm(kernel)
        panel.open()
        panel.wait(lambda d: d.get("type") == "hello" and d.get("ready"))
        rates = []
        for _ in range(runs):
            kernel.iopub.clear()
            started = time.perf_counter()
            turn_id = panel.start_turn("go", uuid.uuid4().hex)
            panel.wait_turn_end(turn_id, timeout=600)
            elapsed = time.perf_counter() - started
            frames = frames_of(panel.turn(turn_id))  # also checks seq 0..n-1
            assert len(frames) == deltas + 1, len(frames)
            rates.append(len(frames) / elapsed)
        return rates
    finally:
        kernel.shutdown()


def in_process_rates(deltas: int, runs: int) -> list[float]:
    import kernel_deltas
    from langstage_core.agui import build_agent, iter_chunk_frames

    agent = build_agent(kernel_deltas.build_graph(deltas))

    async def one_run() -> float:
        count = 0
        started = time.perf_counter()
        async for _ in iter_chunk_frames(agent, "go", uuid.uuid4().hex):
            count += 1
        elapsed = time.perf_counter() - started
        assert count == deltas + 1, count
        return count / elapsed

    return [asyncio.run(one_run()) for _ in range(runs)]


def describe(label: str, rates: list[float]) -> str:
    median = statistics.median(rates)
    return f"{label:<22} median {median:8.0f} frames/s  (min {min(rates):.0f}, max {max(rates):.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20000, help="text deltas per turn")
    parser.add_argument("--runs", type=int, default=3, help="turns timed per path")
    args = parser.parse_args()

    comm = comm_rates(args.deltas, args.runs)
    baseline = in_process_rates(args.deltas, args.runs)
    print(f"{args.deltas} deltas per turn, {args.runs} runs each")
    print(describe("comm (jupyter_client)", comm))
    print(describe("in-process", baseline))
    print(f"ratio comm / in-process: {statistics.median(comm) / statistics.median(baseline):.2f}")


if __name__ == "__main__":
    main()
