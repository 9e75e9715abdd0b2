"""The kernel helper: a graph served over the kernel comm ``agent_panel`` (docs/protocol.md §7).

``helper.py`` is ``%load_ext``, ``serve()`` and the comm target, ``comm_turn.py``
one turn over the comm, ``output.py`` keeps what a graph prints out of the cells
and ``variables.py`` summarises the user's variables.
"""
