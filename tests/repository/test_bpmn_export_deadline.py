"""The HTTP BPMN export runs as a render does (docs/reliability.md, "Deadlines and timeouts"):
in a render process of the request worker, under the render deadline; past it 503 with
`Retry-After` in the render envelope, the same export refused at once for a while, and
the worker answering on."""

from __future__ import annotations

from typing import Any

import pytest

from interchange import diagram_to_bpmn
from repository.errors import InvalidInput
from repository.render_pool import RenderPool
from tests.repository.conftest import TENANT, Prepared, sqlite_only
from tests.repository.standin import ORDER
from tests.repository.test_render_cache import ORDER_SVG, make_api
from tests.repository.test_render_deadline import assert_past_deadline, create_dense_diagram, dense_values, job

BPMN = TENANT + "/_api/rest/diagram/{}/bpmn/{}/{}"


def assert_bpmn(response: Any) -> None:
    assert response.status_code == 200, response.data[:300]
    assert response.mimetype == "application/xml" and b"<bpmndi:BPMNDiagram" in response.data


@sqlite_only
def test_an_export_past_its_deadline_is_503_refused_at_once_and_the_worker_answers_on(
        prepared: Prepared) -> None:
    # A first export loads a render process (and the BPMN writer in it) on a deadline
    # that allows for start-up on a busy machine; the dense export takes that process next.
    api = make_api(prepared, RENDER_TIMEOUT=60)
    assert_bpmn(api.get(BPMN.format(ORDER, 1033, "horizontal")))
    dense = BPMN.format(create_dense_diagram(api), 1033, "horizontalSwimlane")
    api.app.config["RENDER_TIMEOUT"] = 0.2
    body = assert_past_deadline(api.get(dense))
    assert body["message"].startswith("The BPMN export took longer than the 0.2 s deadline")
    api.app.config["RENDER_TIMEOUT"] = 0.1
    body = assert_past_deadline(api.get(dense))
    assert body["message"].startswith("This BPMN export was stopped after")
    api.app.config["RENDER_TIMEOUT"] = 60
    assert_bpmn(api.get(BPMN.format(ORDER, 1031, "vertical")))
    # A render of the same diagram is another key: the export's refusal does not hold it.
    assert api.get(ORDER_SVG).status_code == 200


ORDER_LIKE = {"diagram": {"id": "d1", "type": "mainProcess", "attributes": {}}, "elements": [],
              "values": [{**value, "element": {**value["element"], "id": f"e{index}"}}
                         for index, value in enumerate(dense_values(3))]}


def test_the_pool_answers_the_writers_bytes_and_its_input_errors_as_400(
        render_pool: RenderPool) -> None:
    pool = render_pool
    assert pool.export_bpmn(job("bpmn:small"), ORDER_LIKE, "vertical", 1033, 60,
                            default_culture=1033) == diagram_to_bpmn(ORDER_LIKE, "vertical", 1033, 1033)
    with pytest.raises(InvalidInput, match="unknown BPMN layout 'spiral'") as refused:
        pool.export_bpmn(job("bpmn:spiral"), ORDER_LIKE, "spiral", 1033, 60, default_culture=1033)
    assert refused.value.status == 400
