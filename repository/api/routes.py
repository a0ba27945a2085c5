"""URL prefixes shared by the blueprints (docs/contract.md, "Endpoints")."""

TENANT = "/<collection_id>/<storage_id>"
FACET = TENANT + "/_api/rest/facets/<facet>"
VIEW = FACET + "/views/<view>"
ELEMENT = VIEW + "/elements/<element_id>"
# Both `/_api/release/...` and `/_api/rest/release/...` reach the release endpoints.
RELEASE_PREFIXES = (TENANT + "/_api/release", TENANT + "/_api/rest/release")
