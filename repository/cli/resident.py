"""The resident renderer: `elrepo render` served by a process that has the engine loaded.

A render of a 20-shape diagram takes some 0.05 s; loading what it needs (numpy for the
solver, fontTools for the embedded font, the engine) takes ten times that. Batch scripts
and make rules call `elrepo render` once per diagram, so a process that stays (like
Gradle's daemon, dmypy or nailgun) keeps them from paying it every time:

- The client (`render_resident`, run before argparse and the command modules are loaded,
  with standard-library modules only) connects to a Unix socket in a per-user directory
  that only its owner can enter. The socket's name carries the build identity (the
  interpreter, the installed distributions, every module of our packages by path, size
  and mtime), so a client never talks to a server of another build. It passes its
  standard streams (SCM_RIGHTS), arguments, working directory, umask and environment,
  and exits with the status the server reports.
- The server (`serve`) loads the engine once, renders a small diagram to warm its caches,
  and forks a child per connection. The child takes on the client's directory,
  environment, umask and streams and runs `repository.cli.run` on the arguments, the same
  code as an in-process render (same bytes, same error lines, same exit status). The
  server leaves after `ELREPO_RESIDENT_IDLE` seconds without requests (600), when the
  build changes or when its socket is removed or replaced.
- No server answering: the client renders in its own process, as without the resident
  renderer, and starts one (detached, its own session, streams on /dev/null) for the
  next call. Whatever fails before the client lets the server start the render (no server, a
  refused request, a server that died) also falls back to rendering here; after that
  the render is the server's, so a file is never written twice.

`ELREPO_RESIDENT=0` turns it off (it is off outside Linux); `ELREPO_RUNTIME_DIR` moves
the socket directory (default `$XDG_RUNTIME_DIR/elrepo`, else `~/.cache/elrepo/run`).
docs/cli.md has more.

Everything the client runs is imported at the top of this module, and nothing heavy is:
the server's imports are inside its functions.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import stat
import sys
import time
import zlib
from collections.abc import Sequence

RESIDENT_ENV = "ELREPO_RESIDENT"
RUNTIME_DIR_ENV = "ELREPO_RUNTIME_DIR"
IDLE_ENV = "ELREPO_RESIDENT_IDLE"
DEFAULT_IDLE_SECONDS = 600.0
#: The first field of every request; a server of another protocol refuses it.
PROTOCOL = b"elrepo-render-1"
#: Our packages, whose modules' paths, sizes and mtimes are part of the build identity.
PACKAGES = ("renderer", "layouts", "interchange", "repository")
#: How often an idle or busy server checks its build identity and its socket.
CHECK_SECONDS = 1.0
#: A client that connected gets this long to send its request and its "go".
REQUEST_TIMEOUT_SECONDS = 10.0
#: How long a client waits for the server to take its request (a server that has just
#: started warms up first) before it renders itself.
START_TIMEOUT_SECONDS = 30.0
#: A started render whose server went away before reporting its status.
LOST_RENDER = ("elrepo: the resident renderer stopped during the render; run again with "
               f"{RESIDENT_ENV}=0 to render in this process\n")

#: Linux's limit on a Unix socket's path (sun_path holds 108 bytes with the final NUL).
MAX_SOCKET_PATH = 107
_STANDARD_STREAMS = (0, 1, 2)
#: The server's entry point, run as `python -c SERVER_CODE ROOT IDENTITY`: ROOT first on
#: the path, so the server loads the very packages its client measured.
_SERVER_CODE = ("import sys; sys.path[0] = sys.argv[1]; "
                "from repository.cli.resident import serve; serve(sys.argv[2])")

# A small diagram the server renders once, so that the fonts, the subsetter and the
# solver are warm before the first request (the first render in a process takes 0.06 s,
# later ones a fraction of that).
_WARM_UP_BPMN = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="warm-up">
  <process id="process">
    <startEvent id="start"/>
    <task id="task" name="Warm up the resident renderer"/>
    <exclusiveGateway id="choice"/>
    <endEvent id="end"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <sequenceFlow id="f2" sourceRef="task" targetRef="choice"/>
    <sequenceFlow id="f3" sourceRef="choice" targetRef="end"/>
  </process>
</definitions>
"""


class UnsafeDirectory(OSError):
    """The socket directory is not a directory that only this user can enter."""


# --- client ----------------------------------------------------------------------------

def render_resident(arguments: Sequence[str]) -> int | None:
    """`elrepo render ARGUMENTS` done by the resident renderer: its exit status, or None
    when this process has to render (turned off, no server, or the request failed before
    the server started the render; a server is then started for the next call)."""
    if os.environ.get(RESIDENT_ENV, "1") == "0" or not sys.platform.startswith("linux"):
        return None  # off, or without the peer credentials the server checks
    try:
        directory = runtime_directory()
        identity = build_identity()
        request = _request(arguments)
    except (OSError, ValueError):
        return None
    address = socket_path(directory, identity)
    if len(os.fsencode(address)) > MAX_SOCKET_PATH:
        return None  # no server could listen there
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with connection:
        try:
            connection.connect(address)
        except OSError:
            _start_server(identity)
            return None
        return _exchange(connection, request)


def runtime_directory() -> str:
    """The directory of the sockets, created if missing; raises UnsafeDirectory unless it
    is a real directory owned by this user that no one else may enter or list."""
    directory = os.environ.get(RUNTIME_DIR_ENV)
    if not directory:
        runtime = os.environ.get("XDG_RUNTIME_DIR")
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        directory = os.path.join(runtime, "elrepo") if runtime else os.path.join(cache, "elrepo", "run")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise UnsafeDirectory(f"{directory} must be a directory of user {os.geteuid()} with mode 0700")
    return directory


def socket_path(directory: str, identity: str) -> str:
    return os.path.join(directory, f"render-{identity}.sock")


def pid_path(directory: str, identity: str) -> str:
    """The server's lock, holding its process id: one server per build identity."""
    return os.path.join(directory, f"render-{identity}.pid")


def build_identity() -> str:
    """Eight hex digits over what decides the server's code: the interpreter, the mtimes
    of the site-packages directories (pip changes them on every install), and the path,
    size and mtime of every module of our packages (an editable checkout changes there).
    A stat walk, no file read: about a millisecond."""
    root = package_root()
    # the interpreter behind its links: a venv's python and python3 share one server
    state = [os.path.realpath(sys.executable), sys.version, root]
    for entry in sys.path:
        if entry.endswith("-packages") and os.path.isdir(entry):
            state.append(f"{entry} {os.stat(entry).st_mtime_ns}")
    for package in PACKAGES:
        for directory, subdirectories, files in os.walk(os.path.join(root, package)):
            subdirectories[:] = sorted(name for name in subdirectories if name != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    info = os.stat(os.path.join(directory, name))
                    state.append(f"{directory}/{name} {info.st_size} {info.st_mtime_ns}")
    return f"{zlib.crc32(chr(0).join(state).encode('utf-8', 'surrogateescape')):08x}"


def package_root() -> str:
    """The directory holding our packages (a checkout, or site-packages)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(sys.modules["repository"].__file__ or "")))


def _request(arguments: Sequence[str]) -> bytes:
    """What the server needs to run `elrepo ARGUMENTS` as this process would, with a
    4-byte length in front: NUL-separated fields (none can hold a NUL)."""
    umask = os.umask(0o022)
    os.umask(umask)
    fields = [PROTOCOL, os.getcwdb(), b"%o" % umask]
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if stream is None:  # started with a closed standard stream
            raise ValueError("no standard stream")
        fields += [stream.encoding.encode(), stream.errors.encode() if stream.errors else b"strict",
                   b"1" if getattr(stream, "line_buffering", False) else b"0"]
    fields += [b"%d" % len(arguments), *map(os.fsencode, arguments)]
    fields += [key + b"=" + value for key, value in os.environb.items()]
    body = b"\0".join(fields)
    return len(body).to_bytes(4, "big") + body


def _exchange(connection: socket.socket, request: bytes) -> int | None:
    """Send the request with our standard streams; the exit status the server reports,
    or None if the render did not start there. The child says "ready" once it has taken
    on this process's state and renders only after our "go": past that point the render
    is the server's, before it this process may render instead without racing it."""
    replies = _Lines(connection)
    try:
        connection.settimeout(START_TIMEOUT_SECONDS)
        sent = socket.send_fds(connection, [request], list(_STANDARD_STREAMS))
        connection.sendall(request[sent:])
        child = int(replies.next().removeprefix(b"ready "))
        connection.settimeout(None)
        connection.sendall(b"go\n")
    except (OSError, ValueError):
        return None
    except KeyboardInterrupt:  # as in process: exit 1
        return _exit_failure()
    try:
        finished = replies.next()
    except KeyboardInterrupt:  # as in process: the render stops, exit 1
        try:
            os.kill(child, signal.SIGINT)
        except OSError:
            pass
        return _exit_failure()
    except OSError:
        finished = b""
    status = finished.removeprefix(b"exit ")
    if finished.startswith(b"exit ") and status.isdigit():
        return int(status)
    sys.stderr.write(LOST_RENDER)
    return _exit_failure()


def _exit_failure() -> int:
    from repository.cli.common import EXIT_FAILURE

    return EXIT_FAILURE


class _Lines:
    """The server's reply lines, read from the socket; b"" once it is closed."""

    def __init__(self, connection: socket.socket) -> None:
        self._connection = connection
        self._buffer = b""

    def next(self) -> bytes:
        while b"\n" not in self._buffer:
            chunk = self._connection.recv(256)
            if not chunk:
                return b""
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line


def _start_server(identity: str) -> None:
    """Start the resident renderer for the next call, detached from this process (its own
    session, standard streams on /dev/null, no inherited descriptors); quietly nothing
    if it cannot be started, as this call renders in its own process anyway."""
    import subprocess

    try:
        subprocess.Popen([sys.executable, "-c", _SERVER_CODE, package_root(), identity],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd="/", start_new_session=True)
    except OSError:
        pass


# --- server ----------------------------------------------------------------------------

def serve(identity: str) -> None:
    """Run the resident renderer of build `identity` until it is idle, its build or its
    socket changes, or SIGTERM. Leaves at once if another server has the identity or the
    build changed since the client measured it."""
    import fcntl

    directory = runtime_directory()
    if build_identity() != identity:
        return
    lock_path = pid_path(directory, identity)
    lock = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return  # another server of this build is running
    if os.fstat(lock).st_ino != _inode(lock_path):
        return  # the previous server removed the file as we opened it
    os.ftruncate(lock, 0)
    os.write(lock, b"%d\n" % os.getpid())
    address = socket_path(directory, identity)
    signal.signal(signal.SIGTERM, _leave)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bound: int | None = None
    try:
        # Holding the lock: a socket file here is a dead server's.
        _remove(address)
        # Listening before warming up: a client that comes meanwhile waits for the
        # warm-up (a fraction of what rendering itself would cost it).
        listener.bind(address)
        listener.listen(128)
        bound = os.stat(address).st_ino
        _warm_up()
        _accept(listener, lock, identity, address, bound)
    except SystemExit:
        pass
    finally:
        listener.close()
        if bound is not None and _inode(address) == bound:
            _remove(address)
        _remove(lock_path)
        os.close(lock)


def _leave(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _warm_up() -> None:
    """Load everything `elrepo render` loads, and render once, so children start warm;
    then move the loaded objects out of the garbage collector's sight, so that children
    do not copy the pages they are on by touching them."""
    import gc

    from interchange import bpmn_to_fixture
    from interchange.drawing import render_any
    from repository.cli import _parser

    _parser()  # loads the command modules and what they import
    render_any(bpmn_to_fixture(_WARM_UP_BPMN), "horizontal")
    gc.collect()
    gc.freeze()


def _accept(listener: socket.socket, lock: int, identity: str, address: str, bound: int) -> None:
    """Fork a child per connection until idle, rebuilt or displaced."""
    idle_seconds = _idle_seconds()
    children: set[int] = set()
    last_request = next_check = time.monotonic()
    while True:
        readable, _, _ = select.select([listener], [], [], CHECK_SECONDS)
        _reap(children)
        now = time.monotonic()
        if readable:
            connection, _ = listener.accept()
            child = os.fork()
            if child == 0:
                listener.close()
                os.close(lock)  # the lock stays the server's alone
                _serve_request(connection)
            connection.close()
            children.add(child)
            last_request = now
        if now >= next_check:
            next_check = now + CHECK_SECONDS
            if _inode(address) != bound or build_identity() != identity:
                return
        if not children and now - last_request > idle_seconds:
            return


def _idle_seconds() -> float:
    try:
        return float(os.environ.get(IDLE_ENV, DEFAULT_IDLE_SECONDS))
    except ValueError:
        return DEFAULT_IDLE_SECONDS


def _reap(children: set[int]) -> None:
    for child in list(children):
        try:
            finished, _ = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            finished = child
        if finished:
            children.discard(child)


def _serve_request(connection: socket.socket) -> None:
    """In the forked child: become the client's process (directory, environment, umask,
    standard streams), run its `elrepo render`, report the exit status. Never returns;
    anything going wrong before the client's "go" leaves the render to the client."""
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        arguments = _take_on(connection)
        connection.sendall(b"ready %d\n" % os.getpid())
        connection.settimeout(REQUEST_TIMEOUT_SECONDS)
        if _Lines(connection).next() != b"go":
            raise ValueError("the client went away")
        connection.settimeout(None)
    except BaseException:
        os._exit(1)
    status = _run(arguments)
    try:
        connection.sendall(b"exit %d\n" % status)
    finally:
        os._exit(0)


def _take_on(connection: socket.socket) -> list[str]:
    """Read the request and apply it to this process; the arguments to run. Raises on a
    request from another user, of another protocol, or for another command."""
    credentials = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    if int.from_bytes(credentials[4:8], sys.byteorder) != os.geteuid():
        raise PermissionError("request from another user")
    connection.settimeout(REQUEST_TIMEOUT_SECONDS)
    data, descriptors, _, _ = socket.recv_fds(connection, 65536, len(_STANDARD_STREAMS))
    if len(descriptors) != len(_STANDARD_STREAMS) or len(data) < 4:
        raise ValueError("request without standard streams")
    length = int.from_bytes(data[:4], "big")
    body = data[4:]
    while len(body) < length:
        chunk = connection.recv(length - len(body))
        if not chunk:
            raise ValueError("request cut short")
        body += chunk
    fields = body.split(b"\0")
    if fields[0] != PROTOCOL:
        raise ValueError("another protocol")
    cwd, umask, streams = fields[1], int(fields[2], 8), fields[3:12]
    argument_count = int(fields[12])
    arguments = [os.fsdecode(argument) for argument in fields[13:13 + argument_count]]
    if arguments[:1] != ["render"]:
        raise ValueError("the resident renderer runs `elrepo render` only")
    os.chdir(cwd)
    os.umask(umask)
    os.environ.clear()
    for entry in fields[13 + argument_count:]:
        key, _, value = entry.partition(b"=")
        if key:
            os.environb[key] = value
    for target, descriptor in zip(_STANDARD_STREAMS, descriptors, strict=True):
        os.dup2(descriptor, target)
        os.close(descriptor)
    sys.stdin, sys.stdout, sys.stderr = (
        open(target, "r" if target == 0 else "w", encoding=encoding.decode(), errors=errors.decode(),
             closefd=False, buffering=1 if line_buffering == b"1" else -1)
        for target, (encoding, errors, line_buffering)
        in zip(_STANDARD_STREAMS, (streams[0:3], streams[3:6], streams[6:9]), strict=True))
    return arguments


def _run(arguments: list[str]) -> int:
    """`elrepo ARGUMENTS` as the in-process command runs it, down to the exit status
    Python would give (argparse exits, a failed flush of standard output)."""
    from repository.cli import run

    try:
        status = run(arguments)
    except SystemExit as exit:
        status = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 1
    except BaseException:
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        return 120  # what Python exits with when flushing at exit fails
    return status


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
