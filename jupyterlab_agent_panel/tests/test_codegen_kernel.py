"""The cell sources the panel writes for extracted data, run in a real kernel.

The sources are read from ``fixtures/codegen/`` (``cases.json`` and the gzipped
``large-cases.json.gz``), which ``src/__tests__/notebook/notebook-codegen.spec.ts``
generates with the TypeScript codegen and fails on when they drift, so this test
runs exactly the text the panel inserts. For every adversarial payload the
variable the source binds must hold the original data (compared as canonical
JSON), and running the source must bind that one name and display exactly the
output the inserted cell shows before it runs (``output``, from
``extractionOutput``): a run leaves the cell looking as it was inserted.
"""
from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest
from jupyter_client.manager import start_new_kernel

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "codegen"
TIMEOUT = 60


def load_cases() -> list[dict]:
    small = json.loads((FIXTURES / "cases.json").read_text("utf-8"))["cases"]
    large = json.loads(gzip.decompress((FIXTURES / "large-cases.json.gz").read_bytes()))["cases"]
    return small + large


CASES = load_cases()


def canonical_digest(value) -> str:
    """sha256 of sorted-key, ASCII JSON: lone surrogates and NUL survive encoding."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


DIGEST_OF = (
    "__import__('hashlib').sha256(__import__('json').dumps({name}, sort_keys=True,"
    " ensure_ascii=True).encode('ascii')).hexdigest()"
)
PUBLIC_NAMES = (
    "sorted(k for k in globals() if not k.startswith('_')"
    " and k not in ('In', 'Out', 'exit', 'quit', 'get_ipython'))"
)


@pytest.fixture(scope="module")
def kernel():
    manager, client = start_new_kernel(kernel_name="python3", startup_timeout=TIMEOUT)
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def execute(client, code: str, expressions: dict | None = None) -> tuple[dict, list[dict]]:
    """Run ``code``; returns the execute reply and the outputs it published."""
    msg_id = client.execute(code, user_expressions=expressions or {})
    outputs = []
    while True:
        msg = client.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind in ("stream", "display_data", "execute_result", "error"):
            outputs.append({"output_type": kind, **msg["content"]})
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            break
    while True:
        reply = client.get_shell_msg(timeout=TIMEOUT)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply, outputs


def evaluate(client, expression: str):
    """The value of a Python expression in the kernel (read back with ``eval`` of its repr)."""
    reply, _ = execute(client, "", {"value": expression})
    result = reply["content"]["user_expressions"]["value"]
    assert result["status"] == "ok", result
    return eval(result["data"]["text/plain"])  # a repr of str/list produced by the kernel


def test_the_fixtures_cover_the_adversarial_kinds():
    blob = json.dumps([case["data"] for case in CASES], ensure_ascii=False)
    strings = json.dumps([case["data"] for case in CASES])
    for needle in ("'''", '\\"\\"\\"', "\\\\", "\\n", "</script>", "😀"):
        assert needle in blob, needle
    for escaped in ("\\u0000", "\\ud800", "\\u2028"):
        assert escaped in strings, escaped
    assert max(len(case["source"]) for case in CASES) > 2**20


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_the_source_binds_the_original_data(kernel, case):
    name = case["variable"]
    before = evaluate(kernel, PUBLIC_NAMES)

    reply, outputs = execute(kernel, case["source"])

    assert reply["content"]["status"] == "ok", reply["content"]
    assert [output["output_type"] for output in outputs] == ["display_data"], outputs
    # As JupyterLab stores it: the transient part of the message is not kept.
    [shown] = [{key: output[key] for key in ("output_type", "data", "metadata")} for output in outputs]
    assert shown == case["output"]
    assert evaluate(kernel, DIGEST_OF.format(name=name)) == canonical_digest(case["data"])
    assert set(evaluate(kernel, PUBLIC_NAMES)) - set(before) <= {name, "json"}
    assert name in evaluate(kernel, PUBLIC_NAMES)
    execute(kernel, f"del {name}")
