"""A live service with the viewer, for the browser tests and by hand.

`python -m tests.viewer.live [PORT]` serves a fresh demo database (a temporary SQLite
file) with the viewer at http://127.0.0.1:PORT/ui/ and prints one token per role, until
interrupted. The tests use `serve()` the same way, in a thread.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from werkzeug.serving import make_server

from repository.app import create_app
from repository.demo import create_role_tokens, load_demo


@dataclass(frozen=True)
class LiveService:
    base_url: str
    tokens: dict[str, str]  # role -> bearer token of demo/default

    @property
    def viewer_url(self) -> str:
        return f"{self.base_url}/ui/"


@contextmanager
def serve(database_path: Path, port: int = 0) -> Iterator[LiveService]:
    """The app (the viewer included) on 127.0.0.1 (a free port unless given), the demo loaded."""
    app = create_app({"DATABASE_URL": f"sqlite:///{database_path}"})
    with app.extensions["elrepo.sessions"]() as session:
        tokens = create_role_tokens(session, load_demo(session))
        session.commit()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield LiveService(f"http://127.0.0.1:{server.server_port}", tokens)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        app.extensions["elrepo.engine"].dispose()


def main(argv: list[str]) -> int:
    port = int(argv[0]) if argv else 8081
    with tempfile.TemporaryDirectory() as folder, serve(Path(folder) / "viewer.db", port) as live:
        print(f"viewer: {live.viewer_url}")
        for role, token in live.tokens.items():
            print(f"{role}: {token}")
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
