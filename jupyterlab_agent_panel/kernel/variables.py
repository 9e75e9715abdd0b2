"""Summaries of the kernel's user variables for the panel and the agent (docs/protocol.md §7.6).

What the panel's "Variables" chip lists and what ``describe_variable`` tells an
agent: for each user variable its name, type, shape or length, a DataFrame's
dtypes and ``head()`` as a small table, and a short repr. Computed on demand
with strict caps and no side effects on the user's namespace:

* nothing is printed, imported into the namespace or assigned in it; pandas and
  numpy are read from ``sys.modules`` only when the user imported them already;
* each repr is cut to ``REPR_LIMIT`` characters (``reprlib`` bounds containers
  before they are rendered) and computed on a helper thread that is waited for
  at most ``per_variable_seconds``; a slower one is reported as such and left
  to finish on its own;
* the whole listing stops at ``total_seconds`` and at ``MAX_VARIABLES``, and
  says which variables it left out.
"""
from __future__ import annotations

import reprlib
import sys
import threading
import time
import types
from typing import Any, Callable, Iterable, Mapping, Optional

REPR_LIMIT = 300
HEAD_ROWS = 5
HEAD_LIMIT = 1500
MAX_COLUMNS = 30
MAX_VARIABLES = 100
PER_VARIABLE_SECONDS = 0.5
TOTAL_SECONDS = 2.0

# Names IPython and the kernel put in the user namespace.
_SYSTEM_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})
_NOT_DATA = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, types.MethodType)


def user_variable_names(namespace: Mapping[str, Any], hidden: Iterable[str] = ()) -> list:
    """The names of the user's data in ``namespace``: not private, not IPython's, not modules or functions."""
    hidden = set(hidden) | _SYSTEM_NAMES
    return sorted(
        name
        for name, value in list(namespace.items())
        if not name.startswith("_") and name not in hidden and not isinstance(value, _NOT_DATA)
    )


def summarise_variables(
    namespace: Mapping[str, Any],
    names: Optional[Iterable[str]] = None,
    *,
    hidden: Iterable[str] = (),
    per_variable_seconds: float = PER_VARIABLE_SECONDS,
    total_seconds: float = TOTAL_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> dict:
    """``{"variables": [...], "omitted": [...]}``: a summary per variable, and the names left out.

    ``names`` chooses the variables (all user variables when None); an unknown
    name is reported in ``omitted`` with the reason.
    """
    chosen = user_variable_names(namespace, hidden) if names is None else list(names)
    deadline = clock() + total_seconds
    variables, omitted = [], []
    for name in chosen:
        if len(variables) >= MAX_VARIABLES:
            omitted.append({"name": name, "reason": f"more than {MAX_VARIABLES} variables"})
        elif clock() >= deadline:
            omitted.append({"name": name, "reason": f"the listing took longer than {total_seconds:g} s"})
        elif name not in namespace:
            omitted.append({"name": name, "reason": "no such variable"})
        else:
            variables.append(describe_value(name, namespace[name], per_variable_seconds))
    return {"variables": variables, "omitted": omitted}


def describe_value(name: str, value: Any, seconds: float = PER_VARIABLE_SECONDS) -> dict:
    """One variable's summary: ``name``, ``type``, and what applies of ``shape``, ``length``,
    ``dtype``, ``dtypes``, ``head`` and ``repr``; ``timed_out`` when a part took too long."""
    summary: dict = {"name": name, "type": _type_name(value)}
    # The helper thread fills its own dict: one that outlives the wait writes into nothing we return.
    details: dict = {}
    if _bounded(lambda: _safe_details(value, details), seconds):
        summary.update(details)
    else:
        summary["timed_out"] = True
        summary["repr"] = f"(not shown: describing it took longer than {seconds:g} s)"
    return summary


def describe_text(summary: Mapping[str, Any]) -> str:
    """A summary as the agent reads it: a few labelled lines."""
    lines = [f"{summary['name']}: {summary['type']}"]
    for key, label in (("shape", "shape"), ("length", "length"), ("dtype", "dtype")):
        if key in summary:
            lines.append(f"  {label}: {summary[key]}")
    if "dtypes" in summary:
        dtypes = ", ".join(f"{column}: {dtype}" for column, dtype in summary["dtypes"].items())
        more = summary.get("more_columns", 0)
        lines.append(f"  dtypes: {dtypes}" + (f" (and {more} more columns)" if more else ""))
    if "head" in summary:
        lines.append("  head():")
        lines.extend("    " + line for line in summary["head"].splitlines())
    if "repr" in summary:
        lines.append(f"  repr: {summary['repr']}")
    return "\n".join(lines)


def _type_name(value: Any) -> str:
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def _safe_details(value: Any, summary: dict) -> None:
    try:
        _details(value, summary)
    except Exception as exc:  # a broken __len__ or dtype is the user's, not ours
        summary["repr"] = f"(could not describe it: {type(exc).__name__})"


def _details(value: Any, summary: dict) -> None:
    pandas = sys.modules.get("pandas")
    numpy = sys.modules.get("numpy")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        summary["shape"] = list(value.shape)
        dtypes = value.dtypes
        summary["dtypes"] = {str(column): str(dtype) for column, dtype in list(dtypes.items())[:MAX_COLUMNS]}
        summary["more_columns"] = max(0, len(dtypes) - MAX_COLUMNS)
        head = value.iloc[:HEAD_ROWS, :MAX_COLUMNS].to_string(max_colwidth=30)
        summary["head"] = _cut(head, HEAD_LIMIT)
        return
    if pandas is not None and isinstance(value, pandas.Series):
        summary["shape"] = list(value.shape)
        summary["dtype"] = str(value.dtype)
        summary["head"] = _cut(value.head(HEAD_ROWS).to_string(), HEAD_LIMIT)
        return
    if numpy is not None and isinstance(value, numpy.ndarray):
        summary["shape"] = list(value.shape)
        summary["dtype"] = str(value.dtype)
    elif isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        summary["length"] = len(value)
    summary["repr"] = _short_repr(value)


_REPR = reprlib.Repr()
_REPR.maxstring = REPR_LIMIT
_REPR.maxother = REPR_LIMIT
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdict = 10
_REPR.maxlevel = 3


def _short_repr(value: Any) -> str:
    try:
        return _cut(_REPR.repr(value), REPR_LIMIT)
    except Exception as exc:  # a broken __repr__ is the user's, not ours
        return f"(repr failed: {type(exc).__name__})"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded(work: Callable[[], None], seconds: float) -> bool:
    """Run ``work`` on a daemon thread; whether it finished within ``seconds``."""
    thread = threading.Thread(target=work, name="agent-panel-describe", daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


def describe_variable(name: str) -> str:
    """What the kernel's variable ``name`` holds: type, shape or length, dtypes and ``head()``
    for a DataFrame, and a short repr. Computed with time and size caps; never changes the variable."""
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        return "No IPython kernel is running here."
    namespace = shell.user_ns
    if name not in namespace:
        known = ", ".join(user_variable_names(namespace, shell.user_ns_hidden)[:30]) or "none"
        return f"No variable named {name!r}. User variables: {known}."
    return describe_text(describe_value(name, namespace[name]))
