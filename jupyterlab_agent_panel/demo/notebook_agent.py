"""A keyless agent that works in the notebook through the notebook tools (docs/protocol.md §12).

A scripted chat model in LangChain's ``create_agent`` with ``notebook_tools()``,
so every call pauses the graph and the panel runs it in the live notebook. The
model reads the results the panel sends back and picks its next step from them.
It understands two requests (matched on the first line of the message):

* **"add a cell that prints hello"**: ``insert_cell`` with ``print('hello')``
  at the end of the active notebook (or of the one named: "... prints hello
  in other.ipynb"), then ``run_cell`` on the new cell, then an answer quoting
  what the cell printed;
* **"fix the error in the active cell"**: ``get_active_cell``, ``read_cell``,
  and when the cell's output is a ``NameError`` for a misspelt built-in name
  (``prnt("hi")``), ``edit_cell`` with the name corrected; then an answer
  saying what changed (or why nothing did).

Anything else gets a short help text. A rejection, an error or a refusal of the
panel ends the request with an answer that says so and quotes the reason.

Served by the server extension as the built-in agent ``notebook-demo``
(``agent-panel/agents/notebook-demo/``) and in a kernel with
``jupyterlab_agent_panel.serve("jupyterlab_agent_panel.demo.notebook_agent:graph")``.
"""
from __future__ import annotations

import builtins
import difflib
import json
import re
import uuid
from pathlib import PurePosixPath
from typing import Any, Optional

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from ..tools.notebook import notebook_tools
from .scripted_model import ScriptedChatModel

NAME = "Notebook Demo Agent"
ADD_CELL = re.compile(
    r"\badd a cell that prints\s+(?P<text>.+?)(?:\s+(?:in|to)\s+(?P<path>\S+\.ipynb))?\s*$", re.IGNORECASE
)
FIX_ERROR = re.compile(r"\bfix\b.*\berror\b", re.IGNORECASE)
UNDEFINED_NAME = re.compile(r"name '(?P<name>\w+)' is not defined")
HELP = (
    "I am a scripted demo of the notebook tools, with no model behind me. Try "
    '"add a cell that prints hello" or, with a cell that failed on a misspelt name '
    '(e.g. `prnt("hi")`) active, "fix the error in the active cell".'
)


def _call(name: str, **args: Any) -> AIMessage:
    # A path or id missing from a result is left out: the tool then says what is missing.
    given = {key: value for key, value in args.items() if value is not None}
    return AIMessage(content="", tool_calls=[{"name": name, "args": given, "id": f"call_{uuid.uuid4().hex[:12]}"}])


def _answer(text: str) -> AIMessage:
    return AIMessage(content=text)


def _request(messages: list[BaseMessage]) -> tuple[str, list[ToolMessage]]:
    """The first line of the last user message, and the tool results since it."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            text = message.content if isinstance(message.content, str) else str(message.content)
            # The panel's workspace context follows the user's own words after a blank line.
            first_line = text.strip().splitlines()[0] if text.strip() else ""
            return first_line, list(reversed(results))
        if isinstance(message, ToolMessage):
            results.append(message)
    return "", list(reversed(results))


def _parsed(result: ToolMessage) -> dict:
    """A result as JSON; a client unaware of docs/protocol.md §12 may answer with plain text."""
    try:
        value = json.loads(result.content)
    except (TypeError, ValueError):
        value = None
    return value if isinstance(value, dict) else {"status": "text", "text": str(result.content)}


def _not_done(tool: str, result: dict) -> Optional[AIMessage]:
    """The answer when ``tool`` did not do its job (rejected, failed, answered with text), else None."""
    status = result.get("status")
    if status == "rejected":
        reason = result.get("reason")
        because = f" ({reason})" if reason else ""
        return _answer(f"You rejected {tool}{because}, so I left the notebook as it is.")
    if status == "error":
        return _answer(f"{tool} did not work: {result.get('error', 'no reason given')}")
    if status == "text":
        return _answer(f"The client answered {tool} with text instead of a result: {result['text']}")
    return None


def _outputs(result: dict, output_type: str) -> list[dict]:
    outputs = result.get("outputs")
    return [o for o in outputs if isinstance(o, dict) and o.get("output_type") == output_type] if isinstance(
        outputs, list
    ) else []


def _errors(result: dict) -> list[dict]:
    return _outputs(result, "error")


def _printed(result: dict) -> str:
    return "".join(str(o.get("text", "")) for o in _outputs(result, "stream"))


def add_cell_step(tool: str, result: dict) -> AIMessage:
    """After insert_cell, run_cell on the new cell; after run_cell, what it printed."""
    if tool == "insert_cell":
        return _call("run_cell", path=result.get("path"), cell_id=result.get("cell_id"))
    outcome = result.get("execution_status")
    if outcome == "error":
        error = next(iter(_errors(result)), {})
        return _answer(f"The new cell raised {error.get('ename')}: {error.get('evalue')}")
    if outcome == "timeout":
        return _answer("The new cell did not finish in time; it may still be running.")
    printed = _printed(result).strip()
    if not printed:
        return _answer("I added a cell and ran it; it printed nothing.")
    return _answer(f"I added a cell and ran it. It printed: {printed}")


def fix_error_step(tool: str, result: dict) -> AIMessage:
    """After get_active_cell, read_cell; after read_cell, edit_cell with the name corrected; then the fix."""
    if tool == "get_active_cell":
        return _call("read_cell", path=result.get("path"), cell_id=result.get("cell_id"))
    if tool == "read_cell":
        return _fix(result)
    source = f"```python\n{result.get('source')}\n```"
    cell = _cell_name(result)
    if result.get("edited_by_user"):
        return _answer(f"You changed my fix before applying it; {cell} now reads:\n\n{source}")
    return _answer(f"I fixed {cell}:\n\n{source}")


def _cell_name(result: dict) -> str:
    """A cell as JupyterLab shows it: numbered from 1, in its notebook ("cell 2 of analysis.ipynb")."""
    index, path = result.get("index"), result.get("path")
    name = f"cell {index + 1}" if isinstance(index, int) else "the cell"
    return f"{name} of {PurePosixPath(path).name}" if isinstance(path, str) and path else name


def _first_upper(text: str) -> str:
    """``text`` starting a sentence (the notebook's name left as it is)."""
    return text[:1].upper() + text[1:]


def _fix(cell: dict) -> AIMessage:
    errors = _errors(cell)
    if not errors:
        return _answer(f"{_first_upper(_cell_name(cell))} shows no error. Run it, and ask me again if it fails.")
    ename, evalue = errors[0].get("ename"), str(errors[0].get("evalue", ""))
    undefined = UNDEFINED_NAME.search(evalue) if ename == "NameError" else None
    matches = difflib.get_close_matches(undefined["name"], dir(builtins), n=1) if undefined else []
    if not matches:
        where = _first_upper(_cell_name(cell))
        return _answer(f"{where} raised {ename}: {evalue}. I can only fix a misspelt built-in name.")
    wrong, right = undefined["name"], matches[0]
    source = re.sub(rf"\b{re.escape(wrong)}\b", right, str(cell.get("source", "")))
    return _call(
        "edit_cell",
        path=cell.get("path"),
        cell_id=cell.get("cell_id"),
        fingerprint=cell.get("fingerprint"),
        source=source,
    )


def script(messages: list[BaseMessage]) -> AIMessage:
    """The model's next message: a request's first call, the next one after a result, or the answer."""
    request, results = _request(messages)
    add = ADD_CELL.search(request)
    if add:
        text = add["text"].strip().strip("\"'`").rstrip(".!") or "hello"
        first = _call("insert_cell", path=add["path"], cell_type="code", source=f"print({text!r})")
        step = add_cell_step
    elif FIX_ERROR.search(request):
        first, step = _call("get_active_cell"), fix_error_step
    else:
        return _answer(HELP)
    if not results:
        return first
    last = results[-1]
    result = _parsed(last)
    return _not_done(last.name, result) or step(last.name, result)


graph = create_agent(ScriptedChatModel(script=script), tools=notebook_tools(), name=NAME)
