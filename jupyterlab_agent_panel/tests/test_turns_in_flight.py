"""``TurnsInFlight``: one turn per thread, the registry of the server's agents and of the kernel helper."""
from jupyterlab_agent_panel.turns.in_flight import TurnsInFlight


class FakeTurn:
    def __init__(self):
        self.cancels = 0

    def cancel(self):
        self.cancels += 1


def test_a_thread_has_one_turn_until_that_turn_finishes():
    turns = TurnsInFlight()
    first, second = FakeTurn(), FakeTurn()
    assert turns == {} and not turns
    assert turns.claim("t", first) is None
    assert turns.claim("t", second) is first  # refused: the first keeps the thread
    assert turns == {"t": first}
    turns.finish("t", second)  # not the thread's turn: nothing changes
    assert turns["t"] is first
    turns.finish("t", first)
    assert "t" not in turns
    assert turns.claim("t", second) is None


def test_ending_is_known_only_while_the_turn_holds_its_thread():
    turns = TurnsInFlight()
    turn = FakeTurn()
    turns.ending("t")  # no turn on it: nothing to wait for
    assert not turns.is_ending("t")
    turns.claim("t", turn)
    turns.ending("t")
    assert turns.is_ending("t")
    turns.finish("t", turn)
    assert not turns.is_ending("t")


def test_stop_cancels_through_the_given_function_and_keeps_the_turn_until_it_finishes():
    stopped = []
    turns = TurnsInFlight(cancel=stopped.append)
    one, two = FakeTurn(), FakeTurn()
    turns.claim("a", one)
    turns.claim("b", two)
    assert turns.stop("a") is one and stopped == [one]
    assert turns.stop("nowhere") is None
    assert turns["a"] is one
    turns.stop_all()
    assert stopped == [one, one, two]
    assert TurnsInFlight().stop("x") is None
    default = TurnsInFlight()
    default.claim("a", one)
    default.stop("a")
    assert one.cancels == 1
