"""Seed endpoints 14-15 and docs/contract.md, "Elements, versions and release workflow": the release workflow."""

from __future__ import annotations

from typing import Any

import pytest

from repository import release
from repository.auth import ROLE_PERMISSIONS
from tests.repository.conftest import FACETS, TENANT, Api, assert_error
from tests.repository.standin import DRAFT, HIRE, HOUSE, ORDER

VERSIONS = FACETS + "/processes/views/detail/elements/{}/versions"


def run(api: Api, element_id: str, transition: str, role: str = "administrator",
        prefix: str = "/_api/release", **params: Any) -> Any:
    return api.post(f"{TENANT}{prefix}/{element_id}/transitions/{transition}", role=role,
                    **params)


def transitions(api: Api, element_id: str, role: str = "administrator") -> list[str]:
    response = api.get(f"{TENANT}/_api/release/{element_id}/transitions", role=role)
    assert response.status_code == 200, response.get_json()
    return [t["transitionId"] for t in response.get_json()["values"]]


@pytest.mark.parametrize("prefix", ["/_api/release", "/_api/rest/release"])
def test_transitions_list_by_get_and_post_with_and_without_rest(api: Api, prefix: str) -> None:
    path = f"{TENANT}{prefix}/{DRAFT}/transitions"
    by_get = api.get(path, **{"api-version": "1.0"}).get_json()
    by_post = api.post(path).get_json()
    assert by_get["count"] == 6 and by_get["values"][0] == {
        "transitionId": "InProcessToInReview", "sourceState": "inProcess",
        "targetState": "inReview"}
    assert by_post == {"count": 6, "transitions": by_get["values"]}


def test_transitions_are_filtered_by_permission(api: Api) -> None:
    assert transitions(api, DRAFT, "editor") == [
        "InProcessToInReview", "InProcessToReadyForQA", "InProcessToReadyForRelease"]
    assert transitions(api, DRAFT, "approver") == [
        "InProcessToReleased", "InProcessToReleasedQA", "InProcessToReleasedExternal"]
    assert transitions(api, DRAFT, "viewer") == []
    assert transitions(api, HOUSE) == []


def test_release_numbers_versions_and_records_history(api: Api) -> None:
    response = run(api, DRAFT, "InProcessToReleased", role="approver",
                   **{"api-version": "4.0", "ignoreWarnings": "true"})
    assert response.status_code == 200, response.get_json()
    element = response.get_json()["elements"][0]
    assert response.get_json()["count"] == 1
    attributes = element["attributes"]
    assert element["state"] == "released" and attributes["state1"] == {"127": "released"}
    assert attributes["version"] == {"127": "1.0"} and attributes["isReleased"] == {"127": True}
    assert attributes["validUntil"] == {"127": "9999-12-31T23:59:59"}
    assert attributes["relOn"]["127"] == attributes["validFrom"]["127"]
    assert element["related"]["relBy"][0]["type"] == "authToken"
    assert [h["versionId"] for h in element["related"]["releaseHistory"]] == [
        element["versionId"]]


def test_full_cycle_revision_review_release_expires_the_previous_version(api: Api) -> None:
    first = run(api, DRAFT, "InProcessToReleased").get_json()["elements"][0]
    update = {"count": 1, "elements": [{"id": DRAFT, "attributes": {"authorNote": {"1033": "v2"}}}]}
    assert api.post(FACETS + "/processes/views/detail/elements", update).status_code == 200
    for step in ("InProcessToInReview", "InReviewToReadyForQA", "ReadyForQAToReadyForRelease",
                 "ReadyForReleaseToReleased"):
        assert run(api, DRAFT, step).status_code == 200, step
    versions = api.get(VERSIONS.format(DRAFT)).get_json()["elements"]
    assert [(v["state"], v["attributes"]["version"]["127"]) for v in versions] == [
        ("expired", "1.0"), ("released", "2.0")]
    assert versions[0]["versionId"] == first["versionId"]
    assert versions[0]["attributes"]["validUntil"]["127"] != "9999-12-31T23:59:59"
    assert len(versions[1]["related"]["releaseHistory"]) == 2


def test_expiry_request_creates_an_approve_expiry_task_and_approval_expires(api: Api) -> None:
    assert run(api, ORDER, "ReleasedToRequestToExpire", role="editor").status_code == 200
    tasks = api.get(FACETS + "/automation/views/list/elements",
                    **{"$filter": "type eq 'task'"}).get_json()["elements"]
    assert len(tasks) == 1
    task = tasks[0]
    assert task["attributes"]["name"]["1033"].startswith("Approve expiry")
    assert task["attributes"]["taskStatus"] == {"127": "open"}
    assert [r["id"] for r in task["related"]["subject"]] == [ORDER]
    assert [r["id"] for r in task["related"]["assignedTo"]] == ["u-approver"]
    assert transitions(api, ORDER, "approver") == ["RequestToExpireToExpired",
                                                   "RequestToExpireToReleased"]
    expired = run(api, ORDER, "RequestToExpireToExpired", role="approver").get_json()["elements"][0]
    assert expired["state"] == "expired" and expired["attributes"]["isReleased"]["127"] is False
    closed = api.element(task["id"], facet="automation")
    assert closed["attributes"]["taskStatus"] == {"127": "accepted"}


def test_rejecting_the_expiry_keeps_the_release(api: Api) -> None:
    run(api, ORDER, "ReleasedToRequestToExpire")
    element = run(api, ORDER, "RequestToExpireToReleased").get_json()["elements"][0]
    assert element["state"] == "released" and element["attributes"]["version"]["127"] == "1.0"


def test_transition_not_allowed_now_is_409_and_changes_nothing(api: Api) -> None:
    before = api.element(DRAFT)
    body = assert_error(run(api, DRAFT, "ReleasedToRequestToExpire"), 409)
    assert "inProcess" in body["message"]
    assert api.element(DRAFT) == before
    assert_error(run(api, HOUSE, "InProcessToReleased"), 409)


def test_unknown_transition_and_element_are_404(api: Api) -> None:
    assert_error(run(api, DRAFT, "Fly"), 404)
    assert_error(run(api, "ghost", "InProcessToReleased"), 404)
    assert_error(api.get(f"{TENANT}/_api/release/ghost/transitions"), 404)


def test_bad_ignore_warnings_and_api_version_are_400(api: Api) -> None:
    assert_error(run(api, DRAFT, "InProcessToInReview", ignoreWarnings="maybe"), 400)
    assert_error(run(api, DRAFT, "InProcessToInReview", **{"api-version": "1.0"}), 400)
    assert api.element(DRAFT)["state"] == "inProcess"


@pytest.mark.parametrize("role", sorted(ROLE_PERMISSIONS))
def test_transition_permissions_per_role(api: Api, role: str) -> None:
    permissions = ROLE_PERMISSIONS[role]
    review = run(api, DRAFT, "InProcessToInReview", role=role)
    assert review.status_code == (200 if "EditElement" in permissions else 403)
    release_response = run(api, HIRE, "InProcessToReleased", role=role)
    assert release_response.status_code == (200 if "ApproveElement" in permissions else 403)


def test_state_machine_is_pure_and_complete() -> None:
    states = {t.source for t in release.TRANSITIONS} | {t.target for t in release.TRANSITIONS}
    assert states == {"inProcess", "inReview", "readyForQa", "readyForRelease", "released",
                      "requestToExpire", "expired"}
    assert release.find("inprocesstoreleased").target == "released"
    with pytest.raises(release.TransitionNotAllowed):
        release.check(release.find("InReviewToInProcess"), "inProcess")
    assert release.released_version("0.1") == "1.0"
    assert release.released_version("1.1") == "2.0"
    assert release.revision_version("2.0") == "2.1"
    assert all(t.permission == "ApproveElement" for t in release.TRANSITIONS
               if t.target in ("released", "expired"))


def test_a_release_keeps_its_comment_on_the_released_version_only(api: Api) -> None:
    response = run(api, DRAFT, "InProcessToReleased", role="approver", comment="  Audit passed  ")
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["elements"][0]["attributes"]["releaseComment"] == {"127": "Audit passed"}
    update = {"count": 1, "elements": [{"id": DRAFT, "attributes": {"authorNote": {"1033": "v2"}}}]}
    assert api.post(FACETS + "/processes/views/detail/elements", update).status_code == 200
    versions = api.get(VERSIONS.format(DRAFT), **{"$resources": "attributes"}).get_json()["elements"]
    assert [v["attributes"].get("releaseComment") for v in versions] == [{"127": "Audit passed"}, None]


def test_a_comment_without_a_release_or_too_long_is_400_and_changes_nothing(api: Api) -> None:
    assert_error(run(api, DRAFT, "InProcessToInReview", role="editor", comment="why"), 400)
    assert_error(run(api, DRAFT, "InProcessToReleased", role="approver", comment="x" * 2001), 400)
    assert transitions(api, DRAFT, "editor")[0] == "InProcessToInReview"  # still in process


def test_the_caller_reads_its_own_token(api: Api) -> None:
    for role in ("editor", "approver"):
        response = api.get(f"{TENANT}/_api/rest/token", role=role)
        assert response.status_code == 200, response.get_json()
        own = response.get_json()["values"][0]
        assert own["role"] == role and own["permissions"] == [
            p for p in ("NewElement", "EditElement", "DeleteElement", "ShowElement", "ApproveElement",
                        "OpenElement") if p in ROLE_PERMISSIONS[role]]
        assert own["name"] and own["id"]
    assert_error(api.get(f"{TENANT}/_api/token", role=None), 401)
