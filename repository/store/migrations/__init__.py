"""The schema's history as Alembic revisions (`versions/`), run by `repository.store.db`.

Each revision is written out in full and never edited once released: `r0001_baseline`
is the first schema as it was, every later change is a revision of its own. The models
(`repository/store/models.py`) are the current schema; a test checks that replaying every
revision on an empty database gives exactly what `create_all` of the models gives.
"""
