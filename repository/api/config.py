"""Seed endpoint 11: the element types of a view (all, or one by case-insensitive key)."""

from __future__ import annotations

from typing import Any

from renderer.culture import german_english, text_keyed
from repository import catalog
from repository.api.common import TenantRequest, values_envelope
from repository.api.endpoint import Resource
from repository.api.routes import VIEW
from repository.errors import NotFound

resource = Resource("config", __name__)


@resource.endpoint("GET", VIEW + "/config", summary="All element types of the view",
                   api_version="1.0", answer="ElementTypes")
def all_element_types(_req: TenantRequest, facet: catalog.Facet,
                      view: str) -> dict[str, Any]:
    return values_envelope([describe(catalog.TYPES[t]) for t in facet.types])


@resource.endpoint("GET", VIEW + "/config/<type_key>", summary="One element type",
                   api_version="1.0", answer="ElementTypes")
def one_element_type(_req: TenantRequest, facet: catalog.Facet, view: str,
                     type_key: str) -> dict[str, Any]:
    found = catalog.find_type(type_key)
    if found is None or found.key not in facet.types:
        raise NotFound(f"Facet {facet.name!r} has no element type {type_key!r}")
    return values_envelope([describe(found)])


def describe(element_type: catalog.ElementType) -> dict[str, Any]:
    """The seed's ElementType: display names, properties (attributes, related), layouts."""
    properties: list[dict[str, Any]] = [
        _attribute_property(key, data_type, german, english, invariant)
        for key, data_type, german, english, invariant in catalog.COMMON_ATTRIBUTES
    ]
    properties += [
        _attribute_property(key, "SelectionValue", *_german_english(catalog.ATTRIBUTE_NAMES.get(key), key),
                            True, options)
        for key, options in element_type.selections.items()
    ]
    properties += [
        {
            "key": context,
            "displayNames": text_keyed(catalog.relation_display_names(context)),
            "descriptions": {},
            "tooltips": {},
            "related": {"relatedTypes": list(catalog.RELATED_TARGETS[context][1]),
                        "canAddNew": False, "maxOccurrence": -1, "readOnly": False,
                        "facet": catalog.RELATED_TARGETS[context][0]},
        }
        for context in element_type.related
    ]
    return {
        "key": element_type.key,
        "displayNames": text_keyed(element_type.display_names),
        "descriptions": {},
        "properties": properties,
        "layouts": [{"key": key, "displayNames": _names(*_german_english(catalog.LAYOUT_NAMES.get(key), key))}
                    for key in ("detailed", "graphic")],
    }


def _attribute_property(key: str, data_type: str, german: str, english: str,
                        invariant: bool, options: tuple[str, ...] = ()) -> dict[str, Any]:
    attribute: dict[str, Any] = {"type": "System.String", "dataType": data_type,
                                 "isInvariantCulture": invariant}
    if data_type == "SelectionValue":
        attribute["selectableValues"] = [
            {"key": option,
             "displayNames": _names(*_german_english(catalog.SELECTION_VALUE_NAMES.get(key, {}).get(option), option)),
             "descriptions": {},
             "tooltips": {}}
            for option in options
        ]
    return {"key": key, "displayNames": _names(german, english), "descriptions": {},
            "tooltips": {}, "attribute": attribute}


def _names(german: str, english: str) -> dict[str, str]:
    return text_keyed(german_english(german, english))


def _german_english(names: dict[int, str] | None, key: str) -> tuple[str, str]:
    """A catalog entry's German and English names, else the key in both."""
    names = names or {}
    return names.get(catalog.GERMAN, key), names.get(catalog.ENGLISH, key)
