"""Renders in separate processes with a deadline, so that a runaway layout cannot take a
request worker down (CONTRACT section 9).

Each request worker (a gunicorn worker, or a test process) has one `RenderPool`, made on
its first render, so after gunicorn's fork: render processes are never shared between
workers. A render waits for a free render process within its deadline, sends the fixture
over a pipe and waits for the SVG within the deadline again. Past it the render process
is killed (the request worker lives on), the slot starts a fresh one on its next use, and
the caller gets `RenderTimedOut`, a 503 with `Retry-After`. The same render (same cache
key, so the same data, request and engine) is then refused at once for a while: a client
repeating a hostile render costs nothing.

Persistent processes rather than a fresh fork per render, by measurement on the 2-core
build machine (20-shape flow, median of 30): ~7 ms in process, ~12 ms through a
persistent render process (pickling and the pipe), ~37 ms as a fresh fork of a
forkserver preloaded with the engine (each child warms the font and solver again). Render
processes are forked by a forkserver preloaded with the engine, never by the request
worker itself, which may run threads; a replacement after a kill costs one fork.

Render processes run at a lower CPU priority, so request handling wins the cores while
long renders run: with two renders busy on two cores, small requests are still answered
in milliseconds. They ignore SIGINT (Ctrl-C reaches the whole process group; the request
worker stops them), and leave when their request worker's end of the pipe closes; at exit
multiprocessing terminates them (they are daemonic).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from typing import Any

from repository.errors import InvalidInput, ServiceUnavailable

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "PROCESSES_PER_WORKER",
    "REFUSAL_SECONDS",
    "RENDER_TIMEOUT_ENV",
    "RenderBusy",
    "RenderPool",
    "RenderTimedOut",
    "render_timeout",
    "shared_pool",
]

RENDER_TIMEOUT_ENV = "ELREPO_RENDER_TIMEOUT"
DEFAULT_TIMEOUT_SECONDS = 10.0
#: Concurrent renders per request worker: with the default two gunicorn workers, at most
#: four render processes on the machine, all at lower priority than request handling.
PROCESSES_PER_WORKER = 2
#: How long a render that ran past its deadline is refused without trying again.
REFUSAL_SECONDS = 60
#: Timed-out render keys remembered at most (oldest forgotten first).
_REMEMBERED_KEYS = 1024
_NICENESS = 10
_ENGINE_MODULES = ["renderer.api"]


class RenderTimedOut(ServiceUnavailable):
    """The render ran past its deadline (now, or shortly before with the same key)."""


class RenderBusy(ServiceUnavailable):
    """Every render process of this worker stayed busy for the whole deadline."""


def render_timeout(config: Mapping[str, Any]) -> float:
    """The deadline in seconds: `RENDER_TIMEOUT` of the app config, else the environment
    variable ELREPO_RENDER_TIMEOUT, else 10. ValueError unless a positive number."""
    configured = config.get("RENDER_TIMEOUT")
    if configured is None:
        configured = os.environ.get(RENDER_TIMEOUT_ENV) or DEFAULT_TIMEOUT_SECONDS
    try:
        seconds = float(configured)
    except (TypeError, ValueError):
        raise ValueError(f"render timeout {configured!r}: give a number of seconds") from None
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"render timeout {configured!r}: must be a positive number of seconds")
    return seconds


class _RenderProcess:
    """One slot of the pool: a render process and the worker's end of its pipe, started
    on first use and again after the process was killed or died."""

    def __init__(self, context: ForkServerContext) -> None:
        self._context = context
        self._process: BaseProcess | None = None
        self._connection: Connection | None = None

    def render(self, request: tuple[Any, ...], timeout: float) -> tuple[str, str] | None:
        """The render process's answer, or None when it did not answer within `timeout`
        (it is killed then). EOFError when it died while rendering."""
        connection = self._ensure_started()
        connection.send(request)
        if not connection.poll(timeout):
            self.stop()
            return None
        try:
            answer: tuple[str, str] = connection.recv()
        except EOFError:
            self.stop()
            raise
        return answer

    def _ensure_started(self) -> Connection:
        if self._process is not None and self._process.is_alive() and self._connection:
            return self._connection
        self.stop()
        ours, theirs = self._context.Pipe()
        process = self._context.Process(target=_serve, args=(theirs,), daemon=True,
                                        name="elrepo-render")
        process.start()
        theirs.close()
        self._process, self._connection = process, ours
        return ours

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.join()
            self._process.close()
        if self._connection is not None:
            self._connection.close()
        self._process = self._connection = None


class RenderPool:
    """At most `processes` concurrent renders in separate processes, each bounded by a
    deadline; safe to share between the threads of one request worker."""

    def __init__(self, processes: int = PROCESSES_PER_WORKER) -> None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_ENGINE_MODULES)
        # LIFO: under light load the same warm process serves every render.
        self._idle: queue.LifoQueue[_RenderProcess] = queue.LifoQueue()
        for _ in range(processes):
            self._idle.put(_RenderProcess(context))
        self._processes = processes
        self._timed_out: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def render(self, key: str, fixture: Any, layout_key: str, culture: int,
               timeout: float) -> str:
        """The engine's SVG of `fixture`. `key` names the render (its cache key) to
        refuse a repeat of one that timed out. Raises InvalidInput for the engine's
        input errors, RenderTimedOut, RenderBusy, ServiceUnavailable if the render
        process died, and RuntimeError for a bug in the engine."""
        self._refuse_if_timed_out(key, timeout)
        try:
            slot = self._idle.get(timeout=timeout)
        except queue.Empty:
            retry = math.ceil(timeout)
            raise RenderBusy(f"All {self._processes} render processes stayed busy for "
                             f"{timeout:g} s; try again after {retry} s", retry) from None
        try:
            answer = slot.render((fixture, layout_key, culture), timeout)
        except EOFError:
            raise ServiceUnavailable("The render process stopped unexpectedly; try again",
                                     1) from None
        finally:
            self._idle.put(slot)
        if answer is None:
            self._remember_timed_out(key, timeout)
            raise RenderTimedOut(f"Rendering took longer than the {timeout:g} s deadline "
                                 f"and was stopped; this render is refused for "
                                 f"{REFUSAL_SECONDS} s", REFUSAL_SECONDS)
        outcome, text = answer
        if outcome == "input":
            raise InvalidInput(text)
        if outcome == "error":
            raise RuntimeError(f"the render process failed: {text}")
        return text

    def close(self) -> None:
        """Stops the render processes that are idle now (all of them when none renders)."""
        while True:
            try:
                slot = self._idle.get_nowait()
            except queue.Empty:
                return
            slot.stop()

    def _refuse_if_timed_out(self, key: str, timeout: float) -> None:
        """A render that timed out with at least this deadline, shortly before."""
        with self._lock:
            remembered = self._timed_out.get(key)
            if remembered is None:
                return
            until, deadline = remembered
            remaining = until - time.monotonic()
            if remaining <= 0:
                del self._timed_out[key]
                return
        if timeout <= deadline:
            raise RenderTimedOut(f"This render took longer than the {deadline:g} s deadline "
                                 f"shortly before; try again after {math.ceil(remaining)} s",
                                 math.ceil(remaining))

    def _remember_timed_out(self, key: str, timeout: float) -> None:
        with self._lock:
            self._timed_out[key] = (time.monotonic() + REFUSAL_SECONDS, timeout)
            self._timed_out.move_to_end(key)
            while len(self._timed_out) > _REMEMBERED_KEYS:
                self._timed_out.popitem(last=False)


def _serve(connection: Connection) -> None:
    """A render process: renders request after request until the worker's end closes."""
    from renderer.api import RenderInputError, render

    os.nice(_NICENESS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            fixture, layout_key, culture = connection.recv()
        except EOFError:
            return
        try:
            answer = ("svg", render(fixture, layout_key, culture))
        except RenderInputError as error:
            answer = ("input", str(error))
        except Exception as error:  # an engine bug: the worker logs it, as in process
            answer = ("error", f"{type(error).__name__}: {error}")
        connection.send(answer)


_pools: dict[int, RenderPool] = {}
_pools_lock = threading.Lock()


def shared_pool() -> RenderPool:
    """This process's pool, made on first use. Keyed by process id: a process forked from
    one that rendered (gunicorn's workers from a preloading master, say) makes its own
    instead of using render processes that are not its children."""
    pid = os.getpid()
    with _pools_lock:
        pool = _pools.get(pid)
        if pool is None:
            _pools.clear()
            pool = _pools[pid] = RenderPool()
        return pool
