"""Content stored before the write limits held (an update's content list had no cap, and
`elrepo import` skipped them) is refused by a render or a BPMN export before any work
that grows with it: the fixture of 100,000 shapes took 7.5 s to build before the
engine's 400 (issue 18, item 5)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import insert, select

import repository.api.bpmn
import repository.api.render
from renderer.contract import MAX_SHAPES
from repository.store.models import Element, Shape
from tests.repository.conftest import Prepared, assert_error, sqlite_only
from tests.repository.standin import ORDER
from tests.repository.test_bpmn_export_deadline import BPMN
from tests.repository.test_render_cache import RENDER, make_api

OVERSIZE_SHAPES = 100_000


def store_oversize_content(prepared: Prepared, diagram_id: str) -> None:
    """Appends shapes to the diagram's newest version behind the service's back, each
    showing the diagram's first shape's element and following the one before."""
    api = make_api(prepared)
    with api.app.extensions["elrepo.sessions"]() as session:
        diagram = session.scalars(select(Element).where(Element.id == diagram_id)).one()
        first = session.scalars(select(Shape).where(
            Shape.version_pk == diagram.current_version_pk).order_by(Shape.position)).first()
        assert first is not None
        session.execute(insert(Shape), [
            {"shape_id": f"bulk{index}", "version_pk": diagram.current_version_pk,
             "diagram_pk": diagram.pk, "element_pk": first.element_pk,
             "position": 1000 + index,
             "predecessors": json.dumps([f"bulk{index - 1}"] if index else [])}
            for index in range(OVERSIZE_SHAPES)])
        session.commit()
    api.app.extensions["elrepo.engine"].dispose()


@sqlite_only
def test_a_render_of_stored_content_past_the_shape_limit_is_refused_before_its_fixture(
        prepared: Prepared, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a count of the shapes: the fixture, whose building grows with them (7.5 s for
    100,000), is never built. Checked by structure, not by time."""
    store_oversize_content(prepared, ORDER)
    api = make_api(prepared, RENDER_TIMEOUT=60)

    def never(*_: Any) -> dict[str, Any]:
        raise AssertionError("the fixture of an oversize diagram was built")

    monkeypatch.setattr(repository.api.render, "diagram_fixture", never)
    monkeypatch.setattr(repository.api.bpmn, "nested_fixture", never)
    for path in (RENDER.format(ORDER, 1033, "horizontal"), BPMN.format(ORDER, 1033, "vertical")):
        body = assert_error(api.get(path), 413, render=True)
        assert f"at most {MAX_SHAPES:,}" in body["message"], body
