"""Changes leaving the service: the change feed (`feed`) and its readers
(docs/events.md)."""
