"""Issue 18, item 7 (control characters): text XML 1.0 cannot carry (C0 controls but tab,
line feed and carriage return; U+FFFE, U+FFFF) is refused with 400 on every path that
stores text (repository/input_rules.py), and every writer drops it where an older
database already holds it, so no export fails on it: the BPMN export over HTTP and by
`elrepo export --format bpmn`, the SVG render."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lxml import etree
from sqlalchemy import update

from repository.cli import main
from repository.errors import InvalidInput
from repository.input_rules import check_text, load_json
from repository.store.models import AttributeValue
from repository.store.values import encoded
from tests.repository.conftest import FACETS, TENANT, Api, assert_error, sqlite_only
from tests.repository.standin import ORDER
from tests.repository.test_cli import Server
from tests.repository.test_release_protected import every_row

# Every character the rule refuses but NUL and lone surrogates, refused before it.
CONTROLS = [chr(c) for c in range(0x20) if chr(c) not in "\x00\t\n\r"] + ["\ufffe", "\uffff"]
ALLOWED = ["\t", "\n", "\r", "\x7f", "\x85", "\ufdd0", "\ufffd", "\U0001fffe", "\U0001F600"]
UPDATE = FACETS + "/processes/views/list/elements"
CONTENT = FACETS + "/processes/views/diagram/elements/{}/content"
OLD_NAME = "Order\x01 to\x1f cash\ufffe"  # as an older database may hold it
BPMN = f"{TENANT}/_api/rest/diagram/{ORDER}/bpmn/1033/horizontal"
SVG = f"{TENANT}/_api/rest/diagram/{ORDER}/render/1033/horizontal"


def bodies(text: str) -> Iterator[tuple[str, bytes]]:
    """Update and content create bodies holding `text` as a value and as a key, written
    both ways JSON can: escaped, and as UTF-8 where JSON allows it raw."""
    update_body = {"count": 1, "elements": [{"id": ORDER, "attributes": {
        "name": {"1033": f"a{text}b"}, f"k{text}": {"127": 1}}}]}
    content_body = {"values": [{"shapeInfo": {"index": 0, "predecessors": []},
                                "element": {"type": "task",
                                            "attributes": {"name": {"1033": text}}}}]}
    for path, body in ((UPDATE, update_body), (CONTENT.format(ORDER), content_body)):
        for ascii_only in (True, False):
            yield path, json.dumps(body, ensure_ascii=ascii_only).encode()


@pytest.mark.parametrize("text", CONTROLS, ids=[f"U+{ord(c):04X}" for c in CONTROLS])
def test_text_xml_cannot_carry_is_refused_on_update_and_content_create(api: Api,
                                                                      text: str) -> None:
    before = every_row(api)
    for path, raw in bodies(text):
        body = assert_error(api.post_raw(path, raw, role="editor"), 400)
        assert "control characters" in body["message"], body
    assert every_row(api) == before


@pytest.mark.parametrize("text", ALLOWED, ids=[f"U+{ord(c):04X}" for c in ALLOWED])
def test_tab_newlines_and_other_characters_xml_carries_are_stored(api: Api, text: str) -> None:
    response = api.post(UPDATE, {"count": 1, "elements": [
        {"id": ORDER, "attributes": {"name": {"1033": f"a{text}b"}}}]}, role="editor")
    assert response.status_code == 200, response.get_json()
    assert api.element(ORDER)["attributes"]["name"]["1033"] == f"a{text}b"


@sqlite_only
def test_a_control_character_in_a_query_path_or_header_is_400(api: Api) -> None:
    list_path = FACETS + "/processes/views/list/elements"
    for path, params, headers in [
        (list_path, {"$filter": "name eq 'a\x01b'"}, {}),
        (list_path, {"$filter": "\x1c"}, {}),
        (f"{FACETS}/processes/views/list/elements/a%01b", {}, {}),
        (list_path, {}, {"X-Note": "a\x0bb"}),
    ]:
        response = api.client.get(path, query_string=params, headers={
            **api.headers("viewer", None), **headers})
        assert "control characters" in assert_error(response, 400)["message"], path


def test_the_raw_body_screen_misses_no_refused_character() -> None:
    """load_json walks a body only when its raw bytes may hold what the rules refuse:
    every refused character, every spelling JSON has for it, must trip that screen."""
    spellings = 0
    for text in CONTROLS:
        with pytest.raises(InvalidInput):
            check_text(text, "text")
        for document in ([text], {text: 1}, {"a": {"b": [f"x{text}y"]}}):
            for ascii_only in (True, False):
                spellings += 1
                with pytest.raises(InvalidInput):
                    load_json(json.dumps(document, ensure_ascii=ascii_only).encode())
    assert spellings == len(CONTROLS) * 6
    for text in ALLOWED:
        check_text(text, "text")
        assert load_json(json.dumps([text], ensure_ascii=False).encode()) == [text]


def store_old_names(api: Api) -> None:
    """Old data: the diagram's names and one shape's English name with characters XML
    cannot carry, written past the input rules as a database from before them holds it."""
    with api.store() as store:
        diagram = store.reads.element(ORDER)
        store.session.execute(update(AttributeValue).where(
            AttributeValue.version_pk == diagram.current_version_pk,
            AttributeValue.name == "name").values(**encoded(OLD_NAME)))
        store.session.execute(update(AttributeValue).where(
            AttributeValue.name == "name", AttributeValue.value_text == "Check order")
            .values(**encoded("Check\x02 order\uffff")))
        store.session.commit()
    assert api.element(ORDER)["attributes"]["name"]["1033"] == OLD_NAME


def parsed(document: bytes) -> Any:
    return etree.fromstring(document, etree.XMLParser(resolve_entities=False))


def test_bpmn_export_and_svg_render_of_old_text_answer_200(api: Api) -> None:
    store_old_names(api)
    bpmn = api.get(BPMN)
    assert bpmn.status_code == 200, bpmn.data[:300]
    names = {e.get("name") for e in parsed(bpmn.data).iter() if e.get("name")}
    assert "Check order" in names and "\x02" not in "".join(names)
    svg = api.get(SVG)
    assert svg.status_code == 200, svg.data[:300]
    assert "Check order" in "".join(parsed(svg.data).itertext())


@sqlite_only
def test_elrepo_export_bpmn_writes_every_diagram_of_a_tenant_holding_old_text(
        api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with api.store() as store:
        diagrams = len(store.reads.diagrams())
    store_old_names(api)
    out = tmp_path / "bpmn"
    assert main(["export", "--db", api.app.config["DATABASE_URL"], "demo", "default",
                 "-o", str(out), "--format", "bpmn", "--layout", "horizontal"]) == 0
    files = sorted(out.iterdir())
    assert len(files) == diagrams and f"Wrote {diagrams} file(s)" in capsys.readouterr().err
    for file in files:
        parsed(file.read_bytes())


@pytest.mark.slow  # starts elrepo serve in its own processes
def test_a_live_server_exports_old_text_as_bpmn(tmp_path: Path) -> None:
    """The issue's reproduction on a real `elrepo serve`: a name holding U+0001 and U+FFFE
    (stored directly, as old data) made the BPMN export a 500."""
    database = tmp_path / "live.db"
    server = Server(f"sqlite:///{database}", tmp_path)
    try:
        diagrams = "/demo/default/_api/rest/facets/processes/views/diagram/elements"
        _, _, listed = server.request(diagrams)
        diagram = json.loads(listed)["elements"][0]["id"]
        with sqlite3.connect(database) as connection:
            connection.execute(
                "UPDATE attribute_values SET value_json = ?, value_text = ? WHERE name = 'name' "
                "AND version_pk = (SELECT current_version_pk FROM elements WHERE id = ?)",
                (json.dumps(OLD_NAME, ensure_ascii=False), OLD_NAME, diagram))
        status, _, element = server.request(f"{diagrams}/{diagram}")
        assert status == 200 and OLD_NAME in json.loads(element)["elements"][0]["attributes"][
            "name"].values()
        for layout in ("horizontal", "vertical"):
            status, content_type, document = server.request(
                f"/demo/default/_api/rest/diagram/{diagram}/bpmn/1033/{layout}")
            assert status == 200 and content_type.startswith("application/xml"), document[:300]
            parsed(document)
    finally:
        server.stop()
