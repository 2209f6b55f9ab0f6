"""The league (issue 31, SPEC §12 L1–L4, API.md "The league"): venues send what they store to one central server."""
