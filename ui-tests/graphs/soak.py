"""UI-test graph: many notebook changes in one turn, for the soak (soak-helpers.ts).

"soak N" inserts N code cells at the end of the active notebook, one
``insert_cell`` call at a time (``agent_1 = 1``, ``agent_2 = 2``, …), then
answers "Inserted N cells". A result other than ``applied`` ends the turn with
an answer that quotes it.
"""
import re

from langchain.agents import create_agent
from langchain_core.messages import AIMessage

from jupyterlab_agent_panel.demo.notebook_agent import _call, _not_done, _parsed, _request
from jupyterlab_agent_panel.demo.scripted_model import ScriptedChatModel
from jupyterlab_agent_panel.tools.notebook import notebook_tools

SOAK = re.compile(r"\bsoak (\d+)\b")


def _script(messages) -> AIMessage:
    request, results = _request(messages)
    asked = SOAK.search(request)
    if asked is None:
        return AIMessage(content='Say "soak N" for N cells.')
    if results:
        stopped = _not_done(results[-1].name, _parsed(results[-1]))
        if stopped is not None:
            return stopped
    done, wanted = len(results), int(asked.group(1))
    if done == wanted:
        return AIMessage(content=f"Inserted {wanted} cells")
    return _call("insert_cell", cell_type="code", source=f"agent_{done + 1} = {done + 1}")


graph = create_agent(ScriptedChatModel(script=_script), tools=notebook_tools(), name="Soak Test Agent")
