"""The kernel's variable summaries (docs/protocol.md §7.6): what each type says, the caps,
the timeouts, and that the user's namespace is left exactly as it was."""
from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid

from jupyterlab_agent_panel.kernel.variables import (
    MAX_VARIABLES,
    REPR_LIMIT,
    describe_text,
    describe_value,
    summarise_variables,
    user_variable_names,
)
from kernel_comm_client import PanelComm


class SlowRepr:
    def __repr__(self):
        time.sleep(2)
        return "finally"


class BrokenRepr:
    def __repr__(self):
        raise RuntimeError("no")


def test_user_variables_leave_out_modules_functions_private_and_hidden_names():
    namespace = {"json": json, "f": lambda: 1, "_private": 1, "In": [], "Klass": SlowRepr, "x": 1, "hidden": 2}

    assert user_variable_names(namespace, hidden={"hidden"}) == ["x"]


def test_builtins_say_type_length_and_a_short_repr():
    summary = summarise_variables({"numbers": list(range(1000)), "name": "ada", "n": 3})

    assert summary["omitted"] == []
    by_name = {v["name"]: v for v in summary["variables"]}
    assert by_name["numbers"] == {
        "name": "numbers",
        "type": "list",
        "length": 1000,
        "repr": "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...]",
    }
    assert by_name["name"] == {"name": "name", "type": "str", "length": 3, "repr": "'ada'"}
    assert by_name["n"] == {"name": "n", "type": "int", "repr": "3"}


def test_a_huge_string_is_capped():
    summary = describe_value("text", "x" * 10_000_000)

    assert summary["length"] == 10_000_000
    assert len(summary["repr"]) <= REPR_LIMIT


def test_a_dataframe_gives_shape_dtypes_and_a_small_head():
    import pandas
    frame = pandas.DataFrame({"a": range(100), "b": ["x"] * 100, "c": [1.5] * 100})

    summary = describe_value("df", frame)

    assert summary["type"] == "pandas.DataFrame"
    assert summary["shape"] == [100, 3]
    # pandas 3 reads strings as its own "str" dtype, pandas 2 as "object".
    text_dtype = str(pandas.Series(["x"]).dtype)
    assert summary["dtypes"] == {"a": "int64", "b": text_dtype, "c": "float64"}
    assert summary["head"].splitlines()[0].split() == ["a", "b", "c"]
    assert len(summary["head"].splitlines()) == 6  # the header and five rows
    text = describe_text(summary)
    assert "shape: [100, 3]" in text
    assert f"dtypes: a: int64, b: {text_dtype}, c: float64" in text
    json.dumps(summary)  # it travels over the comm as JSON


def test_a_wide_dataframe_lists_some_columns_and_counts_the_rest():
    import pandas
    frame = pandas.DataFrame({f"c{i}": [i] for i in range(100)})

    summary = describe_value("wide", frame)

    assert len(summary["dtypes"]) == 30
    assert summary["more_columns"] == 70
    assert "(and 70 more columns)" in describe_text(summary)


def test_a_slow_repr_is_cut_off_at_the_time_cap():
    started = time.monotonic()
    summary = describe_value("slow", SlowRepr(), seconds=0.2)

    assert time.monotonic() - started < 1
    assert summary["timed_out"] is True
    assert "longer than 0.2 s" in summary["repr"]


def test_a_broken_repr_is_said_not_raised():
    # reprlib falls back to naming the instance.
    assert describe_value("b", BrokenRepr())["repr"].startswith("<BrokenRepr instance at 0x")


def test_the_listing_stops_at_its_total_time_and_says_what_it_left_out():
    ticks = iter(range(100))
    namespace = {f"v{i}": i for i in range(5)}

    summary = summarise_variables(namespace, total_seconds=2.5, clock=lambda: next(ticks))

    assert [v["name"] for v in summary["variables"]] == ["v0", "v1"]
    assert summary["omitted"] == [
        {"name": name, "reason": "the listing took longer than 2.5 s"} for name in ("v2", "v3", "v4")
    ]


def test_at_most_max_variables_and_unknown_names_are_omitted():
    namespace = {f"v{i:03}": i for i in range(MAX_VARIABLES + 2)}

    summary = summarise_variables(namespace)
    assert len(summary["variables"]) == MAX_VARIABLES
    assert len(summary["omitted"]) == 2

    chosen = summarise_variables(namespace, ["v001", "nope"])
    assert [v["name"] for v in chosen["variables"]] == ["v001"]
    assert chosen["omitted"] == [{"name": "nope", "reason": "no such variable"}]


def test_pandas_is_not_imported_by_the_summary():
    # A fresh interpreter: this one imported pandas for the tests above.
    code = (
        "import sys\nfrom jupyterlab_agent_panel.kernel.variables import summarise_variables\n"
        "summarise_variables({'x': [1, 2]})\nprint('pandas' in sys.modules, 'numpy' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert result.stdout.split() == ["False", "False"]


# -- in a real kernel, over the comm ---------------------------------------------


def ask(panel: PanelComm, names=None) -> dict:
    request_id = uuid.uuid4().hex
    message = {"type": "variables", "request_id": request_id}
    if names is not None:
        message["names"] = names
    panel.send(message)
    return panel.wait(lambda d: d.get("type") == "variables" and d.get("request_id") == request_id)[
        "content"
    ]["data"]


NAMESPACE_NAMES = "sorted(k for k in get_ipython().user_ns if not k.startswith('_'))"


def test_the_kernel_answers_with_a_dataframe_summary_and_leaves_the_namespace_alone(kernel):
    setup = kernel.execute(
        "import pandas as pd\ndf = pd.DataFrame({'city': ['Oslo', 'Rome'], 'people': [0.7, 2.8]})\nn = 5"
    )
    assert setup.ok, setup.reply["content"]
    # Modules the user never imported stay unimported: numpy comes with pandas, reprlib not into user_ns.
    before = kernel.execute(NAMESPACE_NAMES).result
    panel = PanelComm(kernel)
    panel.open()
    panel.wait(lambda d: d.get("type") == "hello")

    answer = ask(panel)

    by_name = {v["name"]: v for v in answer["variables"]}
    assert sorted(by_name) == ["df", "n"]
    assert by_name["df"]["shape"] == [2, 2]
    assert by_name["df"]["dtypes"]["people"] == "float64"
    assert by_name["df"]["dtypes"]["city"] in ("str", "object")  # pandas 3 or 2
    assert "Oslo" in by_name["df"]["head"]
    assert by_name["n"] == {"name": "n", "type": "int", "repr": "5", "text": "n: int\n  repr: 5"}
    assert "  shape: [2, 2]" in by_name["df"]["text"].splitlines()
    assert ask(panel, ["n"])["variables"] == [by_name["n"]]
    after = kernel.execute(NAMESPACE_NAMES)
    assert after.result == before
    # Nothing was printed into a cell by the summaries.
    assert [m for m in after.outputs if m["msg_type"] == "stream"] == []
    panel.close()


def test_bad_names_are_rejected(kernel):
    panel = PanelComm(kernel)
    panel.open()
    panel.wait(lambda d: d.get("type") == "hello")
    panel.send({"type": "variables", "request_id": "r", "names": "df"})

    rejected = panel.wait(lambda d: d.get("type") == "rejected")["content"]["data"]
    assert rejected["reason"] == "bad_request"
    assert "'names'" in rejected["detail"]
    panel.close()


def test_describe_variable_tool_in_the_kernel(kernel):
    assert kernel.execute("big = list(range(10**6))").ok
    result = kernel.execute(
        "from jupyterlab_agent_panel import describe_variable\nprint(describe_variable('big'))\n"
        "print(describe_variable('nope'))"
    )
    printed = "".join(m["content"]["text"] for m in result.outputs if m["msg_type"] == "stream")
    assert printed.startswith("big: list\n  length: 1000000\n  repr: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...]\n")
    assert "No variable named 'nope'. User variables:" in printed
    assert "big" in printed.split("User variables:")[1]
