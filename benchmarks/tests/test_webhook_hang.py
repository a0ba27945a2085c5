"""The hanging-receiver benchmark's arithmetic and its receiver (benchmarks/webhook_hang.py):
the ratio compares the pooled percentiles of the two conditions, its interval comes from
resampling whole pairs, and the receiver holds each request until it is released."""
from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request

import pytest

from benchmarks.webhook_hang import Blocks, Hang, ratio
from tests.repository.webhook_parts import Receiver

QUIET = [[0.001 * (n + 1) for n in range(100)], [0.002 * (n + 1) for n in range(100)],
         [0.003 * (n + 1) for n in range(100)]]


def test_the_same_latencies_in_both_conditions_are_a_ratio_of_one_whatever_the_resample() -> None:
    found = ratio(Blocks(QUIET, [list(block) for block in QUIET]), 99.0, 200, seed=1)
    assert (found.value, found.low, found.high) == (1.0, 1.0, 1.0)


def test_a_condition_twice_as_slow_in_every_pair_is_a_ratio_of_two() -> None:
    hung = [[2 * seconds for seconds in block] for block in QUIET]
    found = ratio(Blocks(QUIET, hung), 99.0, 200, seed=1)
    assert found.value == pytest.approx(2.0)
    assert found.low == pytest.approx(2.0) and found.high == pytest.approx(2.0)


def test_pairs_that_differ_give_an_interval_around_the_pooled_ratio() -> None:
    hung = [QUIET[0], [2 * seconds for seconds in QUIET[1]], QUIET[2]]
    found = ratio(Blocks(QUIET, hung), 90.0, 500, seed=1)
    assert found.low <= found.value <= found.high
    assert found.low < found.high


def test_the_receiver_holds_a_request_until_released_then_drops_it_unanswered() -> None:
    hang = Hang()
    outcome: list[BaseException | None] = []

    def post(url: str) -> None:
        try:
            urllib.request.urlopen(urllib.request.Request(url, data=b"{}"), timeout=60)
            outcome.append(None)
        except (urllib.error.URLError, ConnectionError) as error:
            outcome.append(error)
    with Receiver(hang) as receiver:
        before = 0.0
        sender = threading.Thread(target=post, args=(receiver.url,))
        sender.start()
        deadline = time.monotonic() + 60  # a guard for a stuck test, not a claim
        while not hang.holding_since(before):
            assert time.monotonic() < deadline and sender.is_alive(), outcome
            sender.join(0.01)
        assert not outcome, "held: no answer yet"
        hang.release()
        sender.join(60)
    assert len(outcome) == 1 and outcome[0] is not None  # the connection closed unanswered
    assert not hang.holding_since(before)
