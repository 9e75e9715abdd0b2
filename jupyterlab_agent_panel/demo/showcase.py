"""The built-in agent's keyless demo: langstage-core's tool demo, and a turn for each part of the panel.

Served by the built-in agent while no model is configured or picked (docs/protocol.md §16).
langstage-core's tool demo answers every message as before, through its own
nodes under their own names ("hello" → "(demo agent) You said: hello", "use a
tool", "think about it", "ask me a question"), except these, which this demo's
own node answers on a ``ScriptedChatModel``:

* **"write a long answer"**: a Markdown answer streamed a word at a time for
  about seven seconds, long enough to press Stop;
* **"what did I attach?"**: what the panel sent with the message (the
  context block of docs/protocol.md §6.2): the selection and each attached
  output, error, file or cell quoted back, the directory and the file in focus;
* **"quiz me"**: a question the panel shows with an answer box (an interrupt
  whose only decision is ``respond``), then whether the answer was right;
* **"make a plan"**: three steps kept with ``write_todos`` (the plan pane
  follows the ``todos`` extractions), checked off one by one.

A message that also holds one of langstage-core's triggers goes to its demo.
``PROMPTS`` are what the empty conversation offers as buttons (health
``prompts``, docs/protocol.md §6.1).
"""
from __future__ import annotations

import re
from typing import Literal, Optional

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt
from langstage_core.demo import tools as tool_demo
from langstage_core.extractors import TodoExtractor
from typing_extensions import TypedDict

from ..context import fenced, user_text
from .scripted_model import ScriptedChatModel

PROMPTS = ("Write a long answer", "What did I attach?", "Quiz me", "Make a plan", "Think about it")

LONG_ANSWER = re.compile(r"\blong answer\b", re.IGNORECASE)
ATTACHED = re.compile(r"\bwhat\b.*\battach", re.IGNORECASE)
QUIZ = re.compile(r"\bquiz me\b", re.IGNORECASE)
PLAN = re.compile(r"\bmake a plan\b", re.IGNORECASE)
# langstage-core's triggers keep their answers, whatever else a message says.
TOOL_DEMO_TRIGGERS = (tool_demo.TOOL_TRIGGER, tool_demo.REASONING_TRIGGER, tool_demo.INTERRUPT_TRIGGER)

# About seven seconds: 222 words, one every 30 ms.
LONG_ANSWER_SECONDS_PER_WORD = 0.03
# About three seconds in all: slow enough to watch the plan pane check the steps off.
PLAN_SECONDS_PER_WORD = 0.06
QUOTE_LIMIT = 600

LONG_TEXT = """\
## A long answer, streamed a word at a time

This answer takes about seven seconds to arrive, so you can see how the panel \
streams: each word is a frame from the agent, rendered as Markdown as it comes. \
Press **Stop** (or Escape in the message box) while it is still writing: the turn \
ends at once as stopped, and what arrived so far stays in the conversation.

While an agent works you can keep typing. A message sent now waits in the queue \
and goes out when the turn ends, in order, with the context it was written with.

### What else to try

- **What did I attach?** Select a few lines in a notebook, or attach a cell's \
output with *Ask the agent about this*, then ask: the answer quotes what the panel sent.
- **Quiz me** asks you a question and waits for your answer in the conversation.
- **Make a plan** keeps a checklist in the plan pane above the conversation and \
checks it off step by step.
- **Think about it** shows the agent's reasoning apart from its answer.

Connect a model of your own to turn this demo into a notebook agent that reads, \
edits and runs your cells, each change shown for your review first. That is the \
end of this long answer."""

QUESTION = "What is 6 × 7?"
QUIZ_ANSWER = 42
# LangChain's human-in-the-loop shape with only an answer allowed: the panel shows a question
# with an answer box rather than an action to approve (docs/protocol.md §5.4).
QUIZ_REQUEST = {
    "action_requests": [{"name": "quiz", "description": QUESTION}],
    "review_configs": [{"action_name": "quiz", "allowed_decisions": ["respond"]}],
}

PLAN_STEPS = ("Load the data", "Plot the distributions", "Write up the findings")
PLAN_PROGRESS = (
    "Here is a plan for a small analysis. The plan pane above the conversation follows it "
    "(this demo only pretends to do the work).",
    "Step 1 done: the data is loaded.",
    "Step 2 done: the distributions are plotted.",
    "Step 3 done: the findings are written up.",
)
PLAN_DONE = (
    "All three steps are checked off. A real model plans the same way, with `write_todos`, "
    "and the plan pane shows its progress while it works."
)


class Todo(TypedDict):
    content: str
    status: Literal["pending", "in_progress", "completed"]


@tool
def write_todos(todos: list[Todo]) -> str:
    """Replace the plan: each step's content and status (pending, in_progress or completed)."""
    # As LangChain's TodoListMiddleware answers, which langstage-core's TodoExtractor reads.
    return f"Updated todo list to {todos}"


def demo_extractors() -> list:
    """The extractions of this demo's tools: langstage-core's ``demo_fact``, and the plan's ``todos``."""
    return [*tool_demo.demo_extractors(), TodoExtractor()]


def _last_request(messages: list[BaseMessage]) -> tuple[str, list[ToolMessage]]:
    """The last user message as sent (context block included), and the tool results since it."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            content = message.content if isinstance(message.content, str) else str(message.content)
            return content, list(reversed(results))
        if isinstance(message, ToolMessage):
            results.append(message)
    return "", list(reversed(results))


def _flow(typed: str) -> Optional[str]:
    """Which of this demo's turns a typed message asks for, or None."""
    lowered = typed.lower()
    if any(trigger in lowered for trigger in TOOL_DEMO_TRIGGERS):
        return None
    for name, pattern in (("long", LONG_ANSWER), ("attached", ATTACHED), ("quiz", QUIZ), ("plan", PLAN)):
        if pattern.search(typed):
            return name
    return None


def route(state: MessagesState) -> str:
    """This demo's node for its own requests, langstage-core's demo for the rest."""
    message, _ = _last_request(state["messages"])
    return "showcase" if _flow(user_text(message)) else "agent"


async def _say(messages: list[BaseMessage], reply: AIMessage, seconds_per_word: float = 0.0) -> AIMessage:
    """``reply`` streamed as a model streams it (text a word at a time, then its tool calls)."""
    model = ScriptedChatModel(script=lambda _: reply, seconds_per_token=seconds_per_word)
    return await model.ainvoke(messages)


async def showcase(state: MessagesState) -> dict:
    messages = state["messages"]
    message, results = _last_request(messages)
    flow = _flow(user_text(message))
    if flow == "quiz":
        # Nothing streams before the interrupt: the node runs again from the top when resumed.
        answer = _quiz_answer(interrupt(QUIZ_REQUEST))
        return {"messages": [await _say(messages, AIMessage(content=answer))]}
    if flow == "plan":
        reply, pace = _plan_step(len(results)), PLAN_SECONDS_PER_WORD
    elif flow == "attached":
        reply, pace = AIMessage(content=attached_answer(message)), 0.0
    else:  # "long", the only other request ``route`` sends here
        reply, pace = AIMessage(content=LONG_TEXT), LONG_ANSWER_SECONDS_PER_WORD
    return {"messages": [await _say(messages, reply, pace)]}


def _quiz_answer(resume: object) -> str:
    """What to say to the answer the resume carries (``{"decisions": [{"type": "respond", "message"}]}``)."""
    decisions = resume.get("decisions") if isinstance(resume, dict) else None
    decision = decisions[0] if isinstance(decisions, list) and decisions else None
    if not isinstance(decision, dict):
        decision = {}
    given = decision.get("message")
    if decision.get("type") != "respond" or not isinstance(given, str) or not given.strip():
        return f"You left the question unanswered. {QUESTION} It is {QUIZ_ANSWER}."
    number = re.search(r"-?\d+", given)
    if number and int(number.group()) == QUIZ_ANSWER:
        return f"Right: 6 × 7 = {QUIZ_ANSWER}. Your answer reached me through the question's answer box."
    return f"Not quite: you answered “{given.strip()}”, and 6 × 7 = {QUIZ_ANSWER}."


def _plan_step(done: int) -> AIMessage:
    """After ``done`` updates of the plan: the next update with a line on it, or the summary."""
    if done >= len(PLAN_PROGRESS):
        return AIMessage(content=PLAN_DONE)
    todos = [
        {"content": step, "status": "completed" if i < done else "in_progress" if i == done else "pending"}
        for i, step in enumerate(PLAN_STEPS)
    ]
    call = {"name": "write_todos", "args": {"todos": todos}, "id": f"call_write_todos_{done + 1}"}
    return AIMessage(content=PLAN_PROGRESS[done], tool_calls=[call])


# The context block's parts as context.message_with_context writes them.
_QUOTED = re.compile(
    r"^User has (?:selected the following text(?P<place>[^\n:]*)|attached (?P<what>[^\n]*)):\n"
    r"(?P<fence>`{3,})\n(?P<body>.*?)\n(?P=fence)$",
    re.MULTILINE | re.DOTALL,
)
_DIRECTORY = re.compile(r"^Current directory: (?P<value>.+)$", re.MULTILINE)
_FOCUSED = re.compile(r"^Currently focused(?: file)?: (?P<value>.+)$", re.MULTILINE)
NOTHING_ATTACHED = (
    "Nothing was selected or attached to this message. Select a few lines in a notebook or an "
    "editor, or attach a cell's output (its context menu: *Ask the agent about this*) or a file "
    "(type `@` in the message box), then ask me again."
)


def attached_answer(message: str) -> str:
    """What the panel sent with ``message``: each quoted part, then where the user was."""
    block = message[len(user_text(message)):]
    parts = []
    for quoted in _QUOTED.finditer(block):
        if quoted["what"] is None:
            heading = f"**The selection{quoted['place'].rstrip()}:**"
        else:
            heading = f"**{quoted['what'][0].upper()}{quoted['what'][1:]}:**"
        parts.append(f"{heading}\n\n{fenced(_shortened(quoted['body']))}")
    where = [f"the current directory `{m['value']}`" for m in _DIRECTORY.finditer(block)]
    where += [f"the focused document `{m['value']}`" for m in _FOCUSED.finditer(block)]
    if not parts:
        answer = NOTHING_ATTACHED
    else:
        count = "one thing" if len(parts) == 1 else f"{len(parts)} things"
        answer = f"You attached {count} to this message:\n\n" + "\n\n".join(parts)
    if where:
        answer += "\n\nThe panel also said where you were: " + " and ".join(where) + "."
    return answer


def _shortened(text: str) -> str:
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + " …"


def _tools_when_called(tools: str):
    """The edge after a node that may call tools: to ``tools`` when its message calls one, else the end."""
    return lambda state: tools if getattr(state["messages"][-1], "tool_calls", None) else END


def build_graph(name: str = tool_demo.DEFAULT_NAME):
    """langstage-core's demo nodes as they are, and this demo's node beside them, chosen by ``route``."""
    # The tool demo's own nodes, under their own names, so its frames are exactly its own.
    tool_demo_nodes = tool_demo.create_tool_demo_agent().builder.nodes
    builder = StateGraph(MessagesState)
    builder.add_node("agent", tool_demo_nodes["agent"].runnable)
    builder.add_node("tools", tool_demo_nodes["tools"].runnable)
    builder.add_node("showcase", showcase)
    builder.add_node("showcase_tools", ToolNode([write_todos]))
    builder.add_conditional_edges(START, route, ["agent", "showcase"])
    builder.add_conditional_edges("agent", _tools_when_called("tools"), ["tools", END])
    builder.add_edge("tools", "agent")
    builder.add_conditional_edges("showcase", _tools_when_called("showcase_tools"), ["showcase_tools", END])
    builder.add_edge("showcase_tools", "showcase")
    return builder.compile(name=name)


graph = build_graph()
