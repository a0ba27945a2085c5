"""Every resource of the service, in one list: the application registers their
blueprints from it and the OpenAPI document describes their declarations from it, so a
route cannot exist without its description."""

from __future__ import annotations

from repository.api import (
    attributes,
    bpmn,
    caller,
    changes,
    compare,
    config,
    content,
    elements,
    info,
    maintenance,
    related,
    release,
    render,
    reporting,
    views,
    webhooks,
)
from repository.api.endpoint import Resource

RESOURCES: tuple[Resource, ...] = tuple(module.resource for module in (
    views, elements, attributes, related, info, config, content, reporting, release, render,
    bpmn, caller, compare, maintenance, changes, webhooks))
