"""Competitions (SPEC §10): kept teams, officials, fixtures, standings; API, pages, service, schemas, storage, CSV."""
