"""The notebook tools: LangChain tools whose calls the panel runs in the live notebook.

``notebook_tools()`` returns eight tools (``list_notebooks``, ``read_notebook``,
``read_cell``, ``get_active_cell``, ``insert_cell``, ``edit_cell``,
``delete_cell``, ``run_cell``) to add to any LangGraph graph that runs its tools
in a ``ToolNode`` (``langchain.agents.create_agent``, or a ``StateGraph`` with
``langgraph.prebuilt.ToolNode``). The Python side never touches a notebook: each
call checks its arguments, pauses the graph with LangGraph's ``interrupt()`` and
an action request the panel recognises, and returns what the panel resumes it
with. The convention (the action request, the resume, each tool's result) is
``docs/protocol.md §12``.
"""
from __future__ import annotations

import json
from typing import Annotated, Any, Callable, Literal, Optional, Union

from langchain_core.messages import ToolMessage
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt import ToolRuntime
from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.json_schema import SkipJsonSchema

from ..context import MAX_IMAGES, image_problem

NOTEBOOK_TOOL_VERSION = 1
# The key of the action request that marks a notebook tool call (docs/protocol.md §12.2).
MARKER_KEY = "jupyterlab_agent_panel"
ALLOWED_DECISIONS = ["respond", "reject"]


# -- arguments -----------------------------------------------------------------


def _leave_out_default(schema: dict) -> None:
    # An optional argument is simply left out: a "default": null beside
    # "type": "string" would contradict the type.
    schema.pop("default", None)


def _optional(description: str) -> Any:
    return Field(None, description=description, json_schema_extra=_leave_out_default)


# Optional in Python (None means absent), but a plain string / integer in the
# JSON Schema: models and the panel's validator never see a null branch.
OptionalText = Union[Annotated[str, Field(min_length=1)], SkipJsonSchema[None]]
OptionalIndex = Union[Annotated[int, Field(ge=0)], SkipJsonSchema[None]]

PATH = _optional(
    "The notebook's path relative to the Jupyter root, as list_notebooks shows it "
    "(e.g. 'analysis.ipynb'). Leave it out for the active notebook."
)
CELL_ID = Field(min_length=1, description="The cell's id, as the read tools and insert_cell return it.")
FINGERPRINT = Field(
    min_length=1,
    description="The cell's fingerprint from your last read of it (read_notebook, read_cell or insert_cell). "
    "If the cell changed since, the call is refused: read it again.",
)


# What ToolNode adds to a call's arguments before LangChain validates them.
INJECTED = "runtime"


class _Arguments(BaseModel):
    # Strict, like the JSON Schema the panel validates against: "3" is not an
    # integer and an unknown argument is an error, on every transport alike.
    model_config = ConfigDict(strict=True, json_schema_extra={"additionalProperties": False})

    @model_validator(mode="before")
    @classmethod
    def _known_arguments(cls, data: Any) -> Any:
        # Not extra="forbid": the injected runtime arrives among the arguments.
        if isinstance(data, dict):
            unknown = sorted(str(key) for key in data if key not in cls.model_fields and key != INJECTED)
            if unknown:
                known = ", ".join(cls.model_fields) or "none"
                raise ValueError(f"unknown argument {', '.join(map(repr, unknown))} (the arguments are: {known})")
        return data


class ListNotebooksArguments(_Arguments):
    pass


class GetActiveCellArguments(_Arguments):
    pass


class ReadNotebookArguments(_Arguments):
    path: OptionalText = PATH
    start_index: int = Field(0, ge=0, description="The index of the first cell to read.")
    max_cells: int = Field(50, ge=1, le=200, description="How many cells to read at most.")
    include_outputs: bool = Field(True, description="Whether to summarise each code cell's outputs.")


class ReadCellArguments(_Arguments):
    path: OptionalText = PATH
    cell_id: OptionalText = _optional("The cell's id. Give cell_id or index, not both.")
    index: OptionalIndex = _optional("The cell's 0-based index. Give cell_id or index, not both.")

    @model_validator(mode="after")
    def _one_cell(self) -> ReadCellArguments:
        if (self.cell_id is None) == (self.index is None):
            raise ValueError("give exactly one of cell_id and index")
        return self


class InsertCellArguments(_Arguments):
    path: OptionalText = PATH
    source: str = Field(description="The new cell's whole source.")
    cell_type: Literal["code", "markdown"] = Field("code", description="The new cell's type.")
    index: OptionalIndex = _optional(
        "Where the new cell goes: the index it will have (the number of cells appends it). "
        "Give index or after_cell_id, not both; with neither it goes at the end."
    )
    after_cell_id: OptionalText = _optional("Insert the new cell right after the cell with this id.")

    @model_validator(mode="after")
    def _one_position(self) -> InsertCellArguments:
        if self.index is not None and self.after_cell_id is not None:
            raise ValueError("give index or after_cell_id, not both")
        return self


class EditCellArguments(_Arguments):
    path: OptionalText = PATH
    cell_id: str = CELL_ID
    fingerprint: str = FINGERPRINT
    source: str = Field(description="The cell's new whole source (it replaces the current one).")


class DeleteCellArguments(_Arguments):
    path: OptionalText = PATH
    cell_id: str = CELL_ID
    fingerprint: str = FINGERPRINT


class RunCellArguments(_Arguments):
    path: OptionalText = PATH
    cell_id: str = CELL_ID
    timeout_seconds: float = Field(
        60, ge=1, le=600, description="How long to wait for the cell to finish, in seconds."
    )


# -- the eight tools -----------------------------------------------------------


class _Spec:
    """One notebook tool: its name, arguments, whether it changes the notebook, how to describe a call."""

    def __init__(
        self,
        name: str,
        arguments: type[_Arguments],
        mutates: bool,
        description: str,
        describe: Callable[[Any], str],
    ):
        self.name = name
        self.arguments = arguments
        self.mutates = mutates
        self.description = description
        self.describe = describe


def _where(args: Any) -> str:
    path = getattr(args, "path", None)
    return path if path is not None else "the active notebook"


def _which_cell(args: ReadCellArguments) -> str:
    return f"cell {args.cell_id}" if args.cell_id is not None else f"the cell at index {args.index}"


def _insert_position(args: InsertCellArguments) -> str:
    if args.after_cell_id is not None:
        return f"after cell {args.after_cell_id}"
    if args.index is not None:
        return f"at index {args.index}"
    return "at the end"


ONE_CALL_PER_STEP = "Call one notebook tool at a time: wait for its result before the next call."

SPECS = [
    _Spec(
        "list_notebooks",
        ListNotebooksArguments,
        False,
        "List the notebooks open in JupyterLab: each one's path, whether it is the active one, "
        "whether it has unsaved changes, its number of cells and its kernel. "
        "Use a path from here as the path of the other notebook tools. " + ONE_CALL_PER_STEP,
        lambda args: "List the open notebooks",
    ),
    _Spec(
        "read_notebook",
        ReadNotebookArguments,
        False,
        "Read the cells of a notebook: each cell's index, id, type, source, fingerprint, execution count "
        "and a summary of its outputs (text, streams, errors; images are left out). Long sources and "
        "outputs are cut, with their full length given. Quote a cell's id and fingerprint to edit_cell "
        "or delete_cell. " + ONE_CALL_PER_STEP,
        lambda args: f"Read cells {args.start_index} to {args.start_index + args.max_cells - 1} of {_where(args)}",
    ),
    _Spec(
        "read_cell",
        ReadCellArguments,
        False,
        "Read one cell in full, by cell_id or by index: its id, type, source, fingerprint, execution "
        "count and outputs (long outputs are cut). " + ONE_CALL_PER_STEP,
        lambda args: f"Read {_which_cell(args)} of {_where(args)}",
    ),
    _Spec(
        "get_active_cell",
        GetActiveCellArguments,
        False,
        "Find the cell the user is on: the active notebook's path, the active cell's id, index and type, "
        "and the text selected in it (empty when nothing is selected). " + ONE_CALL_PER_STEP,
        lambda args: "Read which cell is active",
    ),
    _Spec(
        "insert_cell",
        InsertCellArguments,
        True,
        "Propose a new cell; the user reviews it before it is added. Give its source and type, and where it "
        "goes: index (the position it will have) or after_cell_id; with neither it goes at the end. "
        "Returns the new cell's id, index and fingerprint, or that the user rejected it and why. "
        + ONE_CALL_PER_STEP,
        lambda args: f"Insert a {args.cell_type} cell {_insert_position(args)} of {_where(args)}",
    ),
    _Spec(
        "edit_cell",
        EditCellArguments,
        True,
        "Propose to replace a cell's whole source; the user reviews the change as a diff and may edit it. "
        "Quote the fingerprint from your last read of the cell: if the cell changed since, the edit is "
        "refused and you should read the cell again. Returns the source that was applied, or that the "
        "user rejected the edit and why. " + ONE_CALL_PER_STEP,
        lambda args: f"Replace the source of cell {args.cell_id} in {_where(args)}",
    ),
    _Spec(
        "delete_cell",
        DeleteCellArguments,
        True,
        "Propose to delete a cell; the user reviews it first. Quote the fingerprint from your last read of "
        "the cell: a cell changed since is not deleted. Returns the source that was removed, or that the "
        "user rejected it and why. " + ONE_CALL_PER_STEP,
        lambda args: f"Delete cell {args.cell_id} from {_where(args)}",
    ),
    _Spec(
        "run_cell",
        RunCellArguments,
        True,
        "Run a code cell in its notebook's kernel once the user agrees, wait up to timeout_seconds and "
        "return its execution count, its outputs and whether it finished, raised an error or timed out. "
        + ONE_CALL_PER_STEP,
        lambda args: f"Run cell {args.cell_id} of {_where(args)} (waiting at most {args.timeout_seconds:g} s)",
    ),
]
NOTEBOOK_TOOL_NAMES = frozenset(spec.name for spec in SPECS)


class NotebookTool(StructuredTool):
    """A notebook tool. Models are offered its own argument schema, unchanged by LangChain's subset copy."""

    @property
    def tool_call_schema(self) -> type[BaseModel]:
        # The arguments model has no injected field (the runtime comes through
        # the function's signature), so it is exactly what the model may send;
        # LangChain's copy of it would drop additionalProperties and add
        # "default": null to the optional arguments.
        return self.args_schema

    def _to_args_and_kwargs(self, tool_input: Any, tool_call_id: Optional[str]) -> tuple[tuple, dict]:
        # LangChain passes nothing to a tool whose schema has no field: neither
        # the injected runtime, nor a check that no argument was given.
        if isinstance(tool_input, dict):
            return (), dict(self._parse_input(tool_input, tool_call_id))
        return super()._to_args_and_kwargs(tool_input, tool_call_id)


def notebook_tools() -> list[NotebookTool]:
    """The eight notebook tools, to add to a graph's tools (docs/protocol.md §12)."""
    return [_tool(spec) for spec in SPECS]


def _tool(spec: _Spec) -> NotebookTool:
    def call(runtime: ToolRuntime, **arguments: Any) -> ToolMessage:
        # LangChain passes only the arguments the model gave: validating again
        # fills in the defaults, so the panel sees every argument.
        args = spec.arguments.model_validate(arguments)
        first = _first_notebook_call(runtime)
        if first is not None:
            return _result(runtime, spec, _not_run_after(spec.name, first))
        request = {
            "name": spec.name,
            "args": args.model_dump(exclude_none=True),
            "description": spec.describe(args),
            MARKER_KEY: {
                "notebook_tool": NOTEBOOK_TOOL_VERSION,
                "mutates": spec.mutates,
                "tool_call_id": runtime.tool_call_id,
            },
        }
        resume = interrupt(
            {
                "action_requests": [request],
                "review_configs": [{"action_name": spec.name, "allowed_decisions": list(ALLOWED_DECISIONS)}],
            }
        )
        return _result(runtime, spec, result_from_resume(spec.name, resume))

    async def acall(runtime: ToolRuntime, **arguments: Any) -> ToolMessage:
        return call(runtime, **arguments)

    return NotebookTool.from_function(
        func=call,
        coroutine=acall,
        name=spec.name,
        description=spec.description,
        args_schema=spec.arguments,
        handle_validation_error=lambda error: bad_arguments(spec.name, error),
    )


# -- results -------------------------------------------------------------------


def error_result(code: str, message: str) -> str:
    """The result text of a call that did not happen (docs/protocol.md §12.5)."""
    return json.dumps({"status": "error", "code": code, "error": message})


def bad_arguments(name: str, error: ValidationError) -> str:
    """One line per wrong argument, e.g. ``cell_type: Input should be 'code' or 'markdown' (got 'sql')``."""
    problems = {}
    for item in error.errors():
        message = item["msg"].removeprefix("Value error, ")
        if not item["loc"]:  # a rule about several arguments
            problems.setdefault(message, message)
            continue
        field = str(item["loc"][0])
        if item["type"] != "missing":
            message += f" (got {item['input']!r})"
        problems.setdefault(field, f"{field}: {message}")  # a union reports each branch: keep the first
    wrong = "; ".join(problems.values())
    return error_result("bad_arguments", f"{name} was not called, its arguments are wrong: {wrong}")


def result_from_resume(name: str, resume: Any) -> str:
    """The tool's result text from the value ``interrupt()`` returned (docs/protocol.md §12.4)."""
    decisions = resume.get("decisions") if isinstance(resume, dict) else None
    if not isinstance(decisions, list) or len(decisions) != 1 or not isinstance(decisions[0], dict):
        return error_result(
            "unsupported",
            f"{name} did not run: the client answered with {_shape(resume)} instead of one decision, "
            "so it cannot run notebook tools. Tell the user to use the JupyterLab agent panel.",
        )
    decision = decisions[0]
    kind = decision.get("type")
    message = decision.get("message")
    if kind == "respond" and isinstance(message, str):
        return message  # the panel's result, passed on as it is
    if kind == "reject":
        reason = message.strip() if isinstance(message, str) and message.strip() else None
        return json.dumps({"status": "rejected", "reason": reason})
    return error_result(
        "unsupported",
        f"{name} did not run: the client answered with the decision {kind!r}, so it cannot run notebook tools. "
        "Tell the user to use the JupyterLab agent panel.",
    )


def _shape(value: Any) -> str:
    if isinstance(value, dict) and isinstance(value.get("decisions"), list):
        return f"{len(value['decisions'])} decisions"
    return f"a {type(value).__name__}"


def _not_run_after(name: str, first: dict) -> str:
    return error_result(
        "one_call_per_step",
        f"{name} did not run: notebook tools run one call at a time, and {first.get('name')} "
        f"(call {first.get('id')}) of the same step goes first. Call {name} again once you have its result.",
    )


def _first_notebook_call(runtime: ToolRuntime) -> Optional[dict]:
    """The first notebook tool call of this call's model message, when that is another call.

    The panel answers one interrupt per resume, and LangGraph refuses a resume
    that does not name the interrupt when several are pending (or, with one
    ToolNode task, hands it to whichever call asks first). So only the first
    notebook call of a step pauses; the others return at once, asking the model
    to call again (docs/protocol.md §12.6).
    """
    state = runtime.state
    messages = state.get("messages") if isinstance(state, dict) else getattr(state, "messages", None)
    for message in reversed(messages or []):
        calls = getattr(message, "tool_calls", None) or []
        if any(call.get("id") == runtime.tool_call_id for call in calls):
            first = next(call for call in calls if call.get("name") in NOTEBOOK_TOOL_NAMES)
            return None if first.get("id") == runtime.tool_call_id else first
    return None


def _result(runtime: ToolRuntime, spec: _Spec, text: str) -> ToolMessage:
    """The result as the call's ToolMessage; a refused or failed call has the ``error`` status.

    A result's images (docs/protocol.md §16.7) are its ``artifact``, which no model is sent: a graph
    whose model reads images moves them into what it sends (the built-in agent does).
    """
    try:
        result = json.loads(text)
    except ValueError:
        result = None  # not JSON: a person typed it (a client unaware of docs/protocol.md §12)
    if not isinstance(result, dict):
        result = {}
    failed = result.get("status") in ("error", "rejected")
    artifact = None
    if "images" in result:
        images = result.pop("images")
        kept = [image for image in images if image_problem(image) is None] if isinstance(images, list) else []
        artifact = {"images": kept[:MAX_IMAGES]}
        text = json.dumps(result, ensure_ascii=False)
    return ToolMessage(
        content=text,
        artifact=artifact,
        tool_call_id=runtime.tool_call_id,
        name=spec.name,
        status="error" if failed else "success",
    )


# -- declarations for other clients --------------------------------------------

# Where the browser finds them, relative to the repository root.
DECLARATIONS_FILE = "src/contracts/notebook-tools.json"


def tool_declarations() -> dict:
    """What the tools declare to a model, for clients that offer them themselves (AG-UI client tools)."""
    return {
        "comment": (
            "Generated by scripts/notebook-tools-schema.py from jupyterlab_agent_panel/tools/notebook.py; "
            "jupyterlab_agent_panel/tests/test_notebook_tools.py fails when it differs. See docs/protocol.md §12."
        ),
        "version": NOTEBOOK_TOOL_VERSION,
        "tools": [
            {**convert_to_openai_tool(tool)["function"], "mutates": spec.mutates}
            for spec, tool in zip(SPECS, notebook_tools(), strict=True)
        ],
    }


def tool_declarations_text() -> str:
    """``tool_declarations()`` as the committed file holds it."""
    return json.dumps(tool_declarations(), indent=2, ensure_ascii=False) + "\n"
