"""Alembic revision files (loaded by path; Alembic skips this file)."""
