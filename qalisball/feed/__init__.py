"""The feed (issue 30, API.md "The feed"): every public change for other people's software, read from the journal."""
