"""The venue's screens: what each big screen shows, slides and team logos (API, pages, live room, storage)."""
