"""The match: its HTTP API, pages (console, scoreboard, phone), service (the one write path), schemas, devices."""
