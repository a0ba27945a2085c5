"""Renders in separate processes with a deadline, so that a runaway layout cannot take a
request worker down (docs/contract.md, "Limits and robustness"). BPMN exports (a BPMN
layout written as XML, `interchange.diagram_to_bpmn`) run the same way, in the same
processes, under the same deadline and refusals: a render in all but its output.

Each app has one `RenderPool` of a few render processes (repository/app.py makes it and
stops its processes when the app goes, or at exit), and each request worker (a gunicorn
worker) makes its app after gunicorn's fork; the processes start on first use: render
processes are never shared between workers. One deadline covers a render request from end to end: waiting
for a free render process, for its start-up if it is still loading the engine, and for
the SVG. Past it the answer is a 503 with `Retry-After` (`RenderBusy` when the render
never began, `RenderTimedOut` when it ran too long) and no request thread waits longer.
A render that ran too long has its process killed (the request worker lives on) and a
replacement started at once; every render of the same content (`RenderJob.content`: the
diagram's shapes and links, whatever the culture or layout) is then refused at once for
a while unless given a longer deadline, by every worker of the server
(repository/render_refusals.py), so a client repeating a hostile render costs nothing.
Requests for a render already under way (same `RenderJob.key`) wait for its answer,
within their own deadline, instead of rendering it again: a burst on a cold cache
renders each picture once.

Render processes are shared fairly between tenants (`_FairShare`): one tenant holds at
most half of a worker's render processes at once and has at most a few renders waiting;
when a process frees, the waiting tenant served least recently gets it. A tenant past
its share waits within its own deadline, or is refused at once with 503 and
`Retry-After` when too many of its renders wait already: a tenant asking for slow
renders delays its own renders, never another tenant's.

Persistent render processes, each a fresh `python -m repository.render_pool`, chosen by
measurement on the 2-core build machine (20-shape flow, medians of 60 to 100 renders):
~12 ms in process, 0 to 3 ms more through a persistent render process (pickling and the
socket), 33 ms more as a fresh fork per render from a forkserver preloaded with the
engine (the fork of an 85 MB interpreter, and each child warms the font and solver
again). A fresh interpreter rather than a multiprocessing fork: it copies none of the
worker's threads, sockets or `__main__`, and all of its start-up (0.6 s of CPU loading
the engine) already runs at the render processes' lower priority. That start-up is paid
once per process: by a worker's first renders (or at its boot, when the server calls
`start`), and in the background after a kill.

Render processes run at a lower CPU priority, so request handling wins the cores while
long renders run: with two renders busy on two cores, small requests are still answered
in milliseconds. They ignore SIGINT (Ctrl-C reaches the whole process group; the request
worker stops them), are stopped at the worker's exit, and leave by themselves as soon as
their worker's end of the socket closes, should the worker be killed.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Literal

from repository.errors import InvalidInput, ServiceUnavailable
from repository.render_refusals import REFUSAL_SECONDS, MemoryTimedOutRenders, TimedOutRenders
from repository.settings import DEFAULT_RENDER_TIMEOUT_SECONDS

__all__ = [
    "PROCESSES_PER_WORKER",
    "RenderBusy",
    "RenderJob",
    "RenderPool",
    "RenderTimedOut",
    "Work",
    "refuse_if_timed_out",
    "render_timeout",
]

#: Concurrent renders per request worker: with the default two gunicorn workers, at most
#: four render processes on the machine, all at lower priority than request handling.
PROCESSES_PER_WORKER = 2
#: The time a render had in its process is less than its deadline: it waited for a
#: process, maybe for its start-up (a killed one's replacement loads for a second), and
#: its request was sent. One that had at least this share of its deadline shows that
#: deadline too short, and a repeat under a deadline no longer is refused; one that had
#: less tells little (it mostly waited), and a repeat runs.
_TELLING_SHARE = 0.5
_NICENESS = 10
#: What a render process makes, as the refusals name it: an SVG, BPMN 2.0 XML with DI, or
#: the compare drawing of two versions (renderer/compare_svg.py).
Work = Literal["render", "BPMN export", "compare"]


class RenderTimedOut(ServiceUnavailable):
    """The render ran past its deadline (now, or shortly before with the same key)."""


class RenderBusy(ServiceUnavailable):
    """Every render process of this worker stayed busy for the whole deadline."""


def render_timeout(config: Mapping[str, Any]) -> float:
    """The deadline in seconds: `RENDER_TIMEOUT` of the app config (`create_app` sets it
    from the settings), else the default. ValueError unless a positive number."""
    configured = config.get("RENDER_TIMEOUT", DEFAULT_RENDER_TIMEOUT_SECONDS)
    try:
        seconds = float(configured)
    except (TypeError, ValueError):
        raise ValueError(f"render timeout {configured!r}: give a number of seconds") from None
    if not (seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"render timeout {configured!r}: must be a positive number of seconds")
    return seconds


class _Starting(Exception):
    """The render process was still loading the engine at the deadline."""


class _PastDeadline(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"no answer within {seconds:.2f} s")
        self.seconds = seconds  # how long the render had


class _RenderProcess:
    """One slot of the pool: a render process and the worker's end of its socket, started
    on first use and again as soon as the process was killed or died."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._connection: Connection | None = None
        self._ready = False

    def render(self, request: tuple[Any, ...], deadline: float) -> tuple[str, Any]:
        """The render process's answer by `deadline` (a `time.monotonic()` instant).
        Raises _Starting when the process was still loading the engine then (it goes on
        loading), _PastDeadline when the render ran past it, EOFError when the process
        died; in the last two cases a fresh process replaces it."""
        try:
            connection = self._ready_connection(deadline)
            connection.send(request)
            sent = time.monotonic()
            if not connection.poll(max(0.0, deadline - sent)):
                self.restart()
                raise _PastDeadline(deadline - sent)
            answer: tuple[str, Any] = connection.recv()
        except (EOFError, OSError) as error:
            self.restart()
            raise EOFError("the render process stopped") from error
        return answer

    def _ready_connection(self, deadline: float) -> Connection:
        self.ensure_running()
        assert self._connection is not None
        if not self._ready:
            if not self._connection.poll(max(0.0, deadline - time.monotonic())):
                raise _Starting
            self._connection.recv()  # its "ready"; EOFError if it could not start
            self._ready = True
        return self._connection

    def ready(self) -> bool:
        """Whether the process has loaded the engine, asked without waiting."""
        if not self._ready and self._connection is not None:
            with contextlib.suppress(EOFError, OSError):  # dead: `render` restarts it
                if self._connection.poll(0):
                    self._connection.recv()  # its "ready"
                    self._ready = True
        return self._ready

    def ensure_running(self) -> None:
        if self._process is None or self._process.poll() is not None:
            self.restart()

    def restart(self) -> None:
        """Stops the process there is (if any) and starts a fresh one, without waiting
        for it: it loads the engine while the caller goes on."""
        self.stop()
        ours, theirs = socket.socketpair()
        with theirs:
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(theirs.fileno())],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                # It imports what this process imports, wherever that was found.
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
        self._connection = Connection(ours.detach())

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
        if self._connection is not None:
            self._connection.close()
        self._process = self._connection = None
        self._ready = False


@dataclass(frozen=True, slots=True)
class RenderJob:
    """What the pool's rules know a render by. `key` names the picture (its render cache
    key): requests for one under way share its answer. `content` names what it costs
    (`render_cache.content_key`): one that ran past its deadline refuses every render of
    that content for a while. `tenant` is whose share of the render processes it takes."""

    key: str
    content: str
    tenant: str


class RenderPool:
    """At most `processes` concurrent renders in separate processes, each bounded by a
    deadline and shared fairly between tenants (`_FairShare`: `tenant_share` processes
    and `tenant_waiting` waiting renders at most per tenant); safe to share between the
    threads of one request worker."""

    def __init__(self, processes: int = PROCESSES_PER_WORKER, *,
                 tenant_share: int | None = None, tenant_waiting: int | None = None) -> None:
        self._slots = [_RenderProcess() for _ in range(processes)]
        self._share = _FairShare(self._slots,
                                 max(1, processes // 2) if tenant_share is None else tenant_share,
                                 2 * processes if tenant_waiting is None else tenant_waiting)
        self._processes = processes
        #: Timed-out renders for callers that name no memory of their own (tests, CLI).
        self.timed_out: TimedOutRenders = MemoryTimedOutRenders()
        # Renders under way by key: a request for one of them waits for its answer
        # instead of rendering it again (a burst on a cold cache renders once).
        self._under_way: dict[str, Future[Any]] = {}
        self._lock = threading.Lock()

    def render(self, job: RenderJob, fixture: Any, layout_key: str, culture: int,
               timeout: float, *, default_culture: int,
               timed_out: TimedOutRenders | None = None, sketch: str = "") -> str:
        """The engine's SVG of `fixture`, laid out from `sketch` (a previous drawing's
        `layouts.sketch.Sketch` as JSON; "" for a fresh layout). A repeat of a render that
        timed out is refused by `timed_out` (the server's memory; else this pool's).
        Raises InvalidInput for the engine's input errors, RenderTimedOut, RenderBusy,
        ServiceUnavailable if the render process died, and RuntimeError for a bug in the
        engine."""
        svg = self._run("render", job, (fixture, layout_key, culture, default_culture, sketch),
                        timeout, timed_out)
        assert isinstance(svg, str)
        return svg

    def export_bpmn(self, job: RenderJob, fixture: Any, layout_key: str, culture: int,
                    timeout: float, *, default_culture: int,
                    timed_out: TimedOutRenders | None = None) -> bytes:
        """`interchange.diagram_to_bpmn` of `fixture` in the BPMN layout `layout_key`, as
        `render` draws: same deadline, refusals and errors (InvalidInput for what cannot
        be written as BPMN). The job's keys must differ from every render's."""
        xml = self._run("BPMN export", job, (fixture, layout_key, culture, default_culture),
                        timeout, timed_out)
        assert isinstance(xml, bytes)
        return xml

    def compare(self, job: RenderJob, fixtures: tuple[Any, Any], written_since: frozenset[str],
                layout_key: str, culture: int, timeout: float, *, default_culture: int,
                timed_out: TimedOutRenders | None = None) -> str:
        """The compare drawing of two versions' fixtures (older, newer; `written_since` as
        `renderer.compare.compare_diagrams` takes it), as `render` draws one: same
        deadline, refusals and errors. The job's keys must differ from every render's."""
        svg = self._run("compare", job, ((*fixtures, written_since), layout_key, culture, default_culture),
                        timeout, timed_out)
        assert isinstance(svg, str)
        return svg

    def _run(self, work: Work, job: RenderJob, arguments: tuple[Any, ...], timeout: float,
             timed_out: TimedOutRenders | None) -> Any:
        """The answer of the render `job.key` names: of a render under way with that key,
        if there is one (its refusal too), else of one started now."""
        memory = self.timed_out if timed_out is None else timed_out
        refuse_if_timed_out(work, memory, job.content, timeout)
        with self._lock:
            shared = self._under_way.get(job.key)
            leading = shared is None
            if shared is None:
                shared = self._under_way[job.key] = Future()
        if not leading:
            return self._wait_for(work, shared, timeout)
        try:
            output = self._run_in_a_process(work, job, arguments, timeout, memory)
        except BaseException as error:
            shared.set_exception(error)
            raise
        else:
            shared.set_result(output)
            return output
        finally:
            with self._lock:
                del self._under_way[job.key]

    @staticmethod
    def _wait_for(work: Work, shared: Future[Any], timeout: float) -> Any:
        try:
            return shared.result(timeout=timeout)
        except FutureTimeout:
            retry = math.ceil(timeout)
            raise RenderBusy(f"The same {work} for another request did not finish within "
                             f"{timeout:g} s; try again after {retry} s", retry) from None

    def _run_in_a_process(self, work: Work, job: RenderJob, arguments: tuple[Any, ...],
                          timeout: float, timed_out: TimedOutRenders) -> Any:
        deadline = time.monotonic() + timeout
        retry = math.ceil(timeout)  # by then every render under way has ended
        slot = self._share.acquire(job.tenant, deadline, timeout)
        try:
            outcome, output = slot.render((work, *arguments), deadline)
        except _Starting:
            raise RenderBusy(f"The render processes are still starting; try again after "
                             f"{retry} s", retry) from None
        except _PastDeadline as past:
            timed_out.remember(job.content, past.seconds, timeout)
            raise RenderTimedOut(f"The {work} took longer than the {timeout:g} s deadline "
                                 f"and was stopped; this {work} is refused for "
                                 f"{REFUSAL_SECONDS} s", REFUSAL_SECONDS) from None
        except EOFError:
            raise ServiceUnavailable("The render process stopped unexpectedly; try again",
                                     1) from None
        finally:
            self._share.release(job.tenant, slot)
        if outcome == "input":
            raise InvalidInput(output)
        if outcome == "error":
            raise RuntimeError(f"the render process failed: {output}")
        return output

    def start(self) -> None:
        """Starts the idle slots' processes that are not running, without waiting: they
        load the engine meanwhile (for a server worker as it boots, so that its first
        renders do not wait for that)."""
        self._share.on_idle(lambda slot: slot.ensure_running())

    def close(self) -> None:
        """Stops every render process (a render under way answers 503); the pool starts
        them again when used."""
        for slot in self._slots:
            slot.stop()


def refuse_if_timed_out(work: Work, timed_out: TimedOutRenders, content: str,
                        timeout: float) -> None:
    """Refuses a render of content whose render was stopped shortly before, after having
    most of a deadline at least as long as this one (so this one would be stopped too)."""
    remembered = timed_out.recall(content)
    if (remembered is None or timeout > remembered.deadline
            or remembered.ran < _TELLING_SHARE * remembered.deadline):
        return
    retry = max(1, math.ceil(remembered.seconds_left()))
    raise RenderTimedOut(f"This {work} was stopped after {remembered.ran:.1f} s shortly "
                         f"before; try again after {retry} s", retry)


@dataclass(eq=False, slots=True)
class _Waiter:
    tenant: str
    arrival: int


class _FairShare:
    """Hands the render processes out fairly: one tenant holds at most `share` of them at
    once; when a process frees, it goes to the waiting tenant served least recently (then
    to the earliest request). At most `waiting` renders of one tenant wait: a further one
    is refused at once, since each waits on a request thread other tenants' requests
    need. Idle processes are handed out last in, first out (under light load the same
    warm process serves every render), those that have loaded the engine first."""

    def __init__(self, slots: Sequence[_RenderProcess], share: int, waiting: int) -> None:
        self._idle = list(slots)
        self._processes = len(slots)
        self._limit, self._waiting_limit = share, waiting
        self._running: Counter[str] = Counter()
        self._waiters: list[_Waiter] = []
        self._served: dict[str, int] = {}  # tenant → the turn it was last given a process
        self._turns = itertools.count()
        self._condition = threading.Condition()

    def acquire(self, tenant: str, deadline: float, timeout: float) -> _RenderProcess:
        """A process for `tenant` by `deadline`, else RenderBusy (`timeout`: the whole
        deadline's length, what the refusal names)."""
        retry = math.ceil(timeout)
        with self._condition:
            if sum(waiter.tenant == tenant for waiter in self._waiters) >= self._waiting_limit:
                raise RenderBusy(f"{self._waiting_limit} renders of this tenant are waiting "
                                 f"for a render process already; try again after {retry} s",
                                 retry)
            waiter = _Waiter(tenant, next(self._turns))
            self._waiters.append(waiter)
            try:
                while not self._granted(waiter):
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise self._busy(tenant, timeout)
                    self._condition.wait(remaining)
            finally:
                self._waiters.remove(waiter)
            self._running[tenant] += 1
            self._served[tenant] = next(self._turns)
            self._condition.notify_all()  # the order of those still waiting changed
            return self._idle.pop(self._warmest())

    def release(self, tenant: str, slot: _RenderProcess) -> None:
        with self._condition:
            self._running[tenant] -= 1
            if self._running[tenant] <= 0:
                del self._running[tenant]
                if not any(waiter.tenant == tenant for waiter in self._waiters):
                    self._served.pop(tenant, None)  # bounded by the tenants now rendering
            self._idle.append(slot)
            self._condition.notify_all()

    def on_idle(self, action: Callable[[_RenderProcess], None]) -> None:
        """Calls `action` on each idle process, holding them meanwhile."""
        with self._condition:
            for slot in self._idle:
                action(slot)

    def _granted(self, waiter: _Waiter) -> bool:
        """Whether `waiter` is among those the idle processes go to now."""
        free = len(self._idle)
        running = Counter(self._running)
        for candidate in sorted(self._waiters, key=self._turn):
            if free == 0:
                return False
            if running[candidate.tenant] >= self._limit:
                continue
            if candidate is waiter:
                return True
            running[candidate.tenant] += 1
            free -= 1
        return False

    def _warmest(self) -> int:
        """The index of the idle process to hand out: the last one that has loaded the
        engine, else the last one (a replacement of a killed process may still be
        starting: a small render should not wait for that while another is ready)."""
        return next((index for index in range(len(self._idle) - 1, -1, -1)
                     if self._idle[index].ready()), len(self._idle) - 1)

    def _turn(self, waiter: _Waiter) -> tuple[int, int]:
        return self._served.get(waiter.tenant, -1), waiter.arrival

    def _busy(self, tenant: str, timeout: float) -> RenderBusy:
        retry = math.ceil(timeout)  # by then every render under way has ended
        if self._running[tenant] >= self._limit:
            return RenderBusy(f"This tenant's renders held its share of the render processes "
                              f"({self._limit} of {self._processes}) for {timeout:g} s; try "
                              f"again after {retry} s", retry)
        return RenderBusy(f"All {self._processes} render processes stayed busy for "
                          f"{timeout:g} s; try again after {retry} s", retry)


def _serve(connection: Connection) -> None:
    """A render process: announces itself once the engine is loaded, then renders request
    after request until the worker's end closes."""
    os.nice(_NICENESS)  # first, so that loading the engine already yields to requests
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from renderer.text import load_font

    load_font()
    try:
        connection.send("ready")
        while True:
            connection.send(_answer(*connection.recv()))
    except (EOFError, OSError):  # the request worker is gone
        return


def _answer(work: Work, fixture: Any, layout_key: str, culture: int,
            default_culture: int, sketch: str = "") -> tuple[str, Any]:
    from interchange.drawing import render_any
    from layouts.base import LayoutOptions
    from layouts.sketch import Sketch
    from renderer.api import RenderInputError

    try:
        if work == "BPMN export":
            return _bpmn_answer(fixture, layout_key, culture, default_culture)
        if work == "compare":
            return _compare_answer(fixture, layout_key, culture, default_culture)
        options = LayoutOptions(sketch=Sketch.from_json(sketch)) if sketch else None
        return ("output", render_any(fixture, layout_key, culture, options, default_culture=default_culture))
    except RenderInputError as error:
        return ("input", str(error))
    except Exception as error:  # an engine bug: the worker logs it, as in process
        return ("error", f"{type(error).__name__}: {error}")


def _bpmn_answer(fixture: Any, layout_key: str, culture: int,
                 default_culture: int) -> tuple[str, Any]:
    # Imported by the first export: a render process that only renders never pays for it.
    from interchange import BpmnError, diagram_to_bpmn

    try:
        return ("output", diagram_to_bpmn(fixture, layout_key, culture, default_culture))
    except BpmnError as error:
        return ("input", str(error))


def _compare_answer(versions: tuple[Any, Any, frozenset[str]], layout_key: str, culture: int,
                    default_culture: int) -> tuple[str, Any]:
    # Imported by the first compare, as the BPMN export is.
    from renderer.compare_svg import render_comparison

    old, new, written_since = versions
    return ("output", render_comparison(old, new, layout_key, culture, default_culture=default_culture,
                                        written_since=written_since).svg)


if __name__ == "__main__":
    _serve(Connection(int(sys.argv[1])))
