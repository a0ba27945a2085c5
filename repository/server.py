"""Running the app under gunicorn, a multi-process production WSGI server.

Each worker builds its own app (and so its own database engine and render cache client)
after the fork, so no connection is ever shared between processes.
"""

from __future__ import annotations

from typing import Any

from gunicorn.app.base import BaseApplication

from repository.app import create_app


class _Server(BaseApplication):  # type: ignore[misc]
    def __init__(self, database_url: str, redis_url: str | None,
                 options: dict[str, Any]) -> None:
        self.database_url = database_url
        self.redis_url = redis_url
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return create_app({"DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url})


def run(database_url: str, host: str, port: int, workers: int,
        redis_url: str | None = None) -> None:
    """Serve until interrupted; access log to standard error. Without `redis_url` each
    worker caches renders in its own memory."""
    _Server(database_url, redis_url, {
        "bind": f"{host}:{port}",
        "workers": max(1, workers),
        "accesslog": "-",
        "timeout": 120,
    }).run()
