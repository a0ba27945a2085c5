"""The real demo tenant loaded through the store (repository.demo.load_demo), as
`elrepo serve` does on an empty database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from repository import catalog
from repository.app import create_app
from repository.demo import create_role_tokens, load_demo
from repository.demo_data import demo_id

BASE = "/demo/default/_api/rest/facets"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[FlaskClient, dict[str, str]]]:
    path: Path = tmp_path_factory.mktemp("demo") / "demo.db"
    app = create_app({"DATABASE_URL": f"sqlite:///{path}"})
    with app.extensions["elrepo.sessions"]() as session:
        tokens = create_role_tokens(session, load_demo(session))
        session.commit()
    yield app.test_client(), {"Authorization": f"Bearer {tokens['administrator']}"}
    app.extensions["elrepo.engine"].dispose()


def get(demo: tuple[FlaskClient, dict[str, str]], path: str, **params: Any) -> Any:
    client, headers = demo
    response = client.get(path, headers=headers, query_string=params)
    assert response.status_code == 200, response.data[:300]
    return response.get_json()


def test_demo_has_diagrams_of_8_to_40_shapes_with_gateways(demo: Any) -> None:
    diagrams = get(demo, BASE + "/processes/views/diagram/elements")["elements"]
    sizes = [len(d["content"]) for d in diagrams]
    assert len([s for s in sizes if 8 <= s <= 40]) >= 5
    shape_types = {c["type"] for d in diagrams for c in d["content"]}
    assert {"ruleXor", "ruleAnd", "evStart", "evEnd", "task"} <= shape_types


def test_demo_has_released_elements_with_a_version_history(demo: Any) -> None:
    released = get(demo, BASE + "/processes/views/list/elements",
                   **{"$filter": "state eq 'released'"})["elements"]
    assert released
    histories = [get(demo, f"{BASE}/processes/views/detail/elements/{e['id']}/versions")
                 for e in get(demo, BASE + "/processes/views/list/elements",
                              **{"$filter": "type in ('mainProcess', 'subProcess')"})["elements"]]
    assert any(h["count"] >= 2 for h in histories)
    assert any("expired" in {v["state"] for v in h["elements"]} for h in histories)


def test_demo_has_users_with_every_role_and_two_languages(demo: Any) -> None:
    users = get(demo, BASE + "/users/views/list/elements")["elements"]
    for flag in ("roleViewer", "roleEditor", "roleApprover", "roleAdministrator"):
        assert any(u["attributes"].get(flag, {}).get("127") is True for u in users), flag
    house = get(demo, BASE + "/processes/views/tree/elements")["elements"][0]
    assert set(house["attributes"]["name"]) >= {"1031", "1033"}


@pytest.mark.parametrize("layout", catalog.LAYOUT_KEYS)
def test_every_layout_key_of_the_largest_diagram_draws_svg(
        demo: Any, layout: str) -> None:
    client, headers = demo
    order_to_cash = demo_id("process:order-to-cash")
    response = client.get(f"/demo/default/_api/rest/diagram/{order_to_cash}/render/1031/{layout}",
                          headers=headers)
    assert response.status_code == 200, response.data[:300]
    assert response.mimetype == "image/svg+xml"
    assert f'data-layout="{layout}"'.encode() in response.data
