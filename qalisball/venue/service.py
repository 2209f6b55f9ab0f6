"""The venue's screens, uploaded images and team logos (issue 13): kept in memory, written through
``ScreenStore``. An upload is checked by decoding it and stored encoded again without its metadata (D152).

The service also answers the teams' logos to match pages and reports (``web.services.Logos``): they ask
the kernel, never this feature's code.
"""

from __future__ import annotations

import hashlib
import io
import warnings
from collections.abc import Callable
from typing import Any

from flask import url_for
from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError

from qalisball.match.service import MatchService
from qalisball.storage.engine import DatabaseError
from qalisball.storage.store import Store
from qalisball.venue.schemas import FORMATS, MAX_BYTES, MAX_FRAMES, MAX_PIXELS, MAX_SIDE
from qalisball.venue.store import ScreenStore, utc_now
from qalisball.web.errors import ApiError, invalid


def team_key(name: str) -> str:
    """A team's name as D72 compares names: case and surrounding spaces ignored."""
    return " ".join(name.split()).casefold()


class ScreenService:
    """Screens, images and logos: kept in memory (small), written through ``ScreenStore``."""

    def __init__(self, store: Store, matches: MatchService) -> None:
        self.db = ScreenStore(store)
        self.matches = matches
        self.images: dict[str, dict[str, Any]] = {}
        self.logos: dict[str, dict[str, Any]] = {}
        self.screens: dict[str, dict[str, Any]] = {}
        try:
            self.images = {row["id"]: row for row in self.db.images()}
            self.logos = {row["team_key"]: row for row in self.db.logos()}
            self.screens = {row["name"]: row for row in self.db.screens()}
        except DatabaseError:
            pass  # a damaged database (D42): the match service says so on every screen; no screens to show
        self._listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._logo_listeners: list[Callable[[str], None]] = []

    def listen(self, fn: Callable[[str, dict[str, Any]], None]) -> None:
        self._listeners.append(fn)

    def listen_logos(self, fn: Callable[[str], None]) -> None:
        """``fn(team)`` once a team's logo was set or removed (the screens showing its matches redraw)."""
        self._logo_listeners.append(fn)

    # -- images --------------------------------------------------------------------------------

    def add_image(self, data: bytes, kind: str, title: str = "") -> dict[str, Any]:
        """Check and store an image; the same bytes uploaded again give the image already stored."""
        content_type, width, height, data = check_image(data, kind)  # the clean bytes are stored (D152)
        image_id = hashlib.sha256(data).hexdigest()[:20]
        if image_id in self.images:
            return self.images[image_id]
        row = {
            "id": image_id,
            "kind": kind,
            "title": title,
            "content_type": content_type,
            "width": width,
            "height": height,
            "bytes": len(data),
            "created_at": utc_now(),
        }
        self.db.add_image({**row, "data": data})
        self.images[image_id] = row
        return row

    def delete_image(self, image_id: str) -> None:
        users = [f"the logo of {r['team']}" for r in self.logos.values() if r["image_id"] == image_id]
        users += [f"screen {n}" for n, s in self.screens.items() if s.get("image") == image_id]
        if users:
            raise ApiError(409, "conflict", f"image {image_id} is in use: {', '.join(users)}")
        self.db.delete_image(image_id)
        self.images.pop(image_id, None)

    # -- logos ---------------------------------------------------------------------------------

    def set_logo(self, team: str, image_id: str) -> dict[str, Any]:
        team = " ".join(team.split())
        self.db.set_logo(team_key(team), team, image_id)
        row = {"team_key": team_key(team), "team": team, "image_id": image_id, "updated_at": utc_now()}
        self.logos[row["team_key"]] = row
        for fn in self._logo_listeners:
            fn(team)
        return row

    def delete_logo(self, team: str) -> bool:
        key = team_key(team)
        if key not in self.logos:
            return False
        self.db.delete_logo(key)
        del self.logos[key]
        for fn in self._logo_listeners:
            fn(team)
        return True

    def logo_url(self, team: str) -> str | None:
        row = self.logos.get(team_key(team))
        return image_url(row["image_id"]) if row else None

    # -- screens -------------------------------------------------------------------------------

    def set_screen(self, name: str, content: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        created = name not in self.screens
        now = utc_now()
        self.db.set_screen(name, content, now)
        screen = {"name": name, **content, "updated_at": now}
        self.screens[name] = screen
        self._publish(name)
        return screen, created

    def delete_screen(self, name: str) -> None:
        self.db.delete_screen(name)
        del self.screens[name]
        self._publish(name)

    def screen(self, name: str) -> dict[str, Any]:
        """What screen ``name`` shows now (a screen nobody has set up yet shows nothing)."""
        return self.screens.get(name) or {"name": name, "show": "blank", "caption": "", "updated_at": None}

    def _publish(self, name: str) -> None:
        for fn in self._listeners:
            fn(name, self.screen(name))


def check_image(data: bytes, kind: str) -> tuple[str, int, int, bytes]:
    """The image's content type, size and clean bytes: its header checked before any pixel is decoded
    (format, sides, frames), then decoded and encoded again without its metadata (D152). 400 if not."""
    limit = MAX_BYTES[kind]
    if not data:
        raise invalid("file", "the file is empty")
    if len(data) > limit:
        raise invalid("file", f"the file has {len(data)} bytes: a {kind} may have at most {limit // 1_000_000} MB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                fmt, (width, height) = im.format, im.size
                _check_header(fmt, width, height, getattr(im, "n_frames", 1))
                im.verify()
            with Image.open(io.BytesIO(data)) as im:
                clean, (width, height) = reencode(im, fmt)
    # A header that declares a bomb (DecompressionBombError/Warning), or data that does not decode.
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError) as exc:
        raise invalid("file", "not a PNG, JPEG, WebP or GIF image") from exc
    except Image.DecompressionBombWarning as exc:
        raise invalid("file", "the image declares more pixels than it may have") from exc
    return FORMATS[fmt], width, height, clean


def _check_header(fmt: str | None, width: int, height: int, frames: int) -> None:
    """What the header declares, refused before a pixel is decoded (a 69-byte PNG may declare 20000×20000)."""
    if fmt not in FORMATS:
        raise invalid("file", f"a {fmt} image: upload PNG, JPEG, WebP or GIF")
    if width > MAX_SIDE or height > MAX_SIDE:
        raise invalid("file", f"the image is {width}×{height} pixels: at most {MAX_SIDE} on each side")
    if frames > MAX_FRAMES or frames * width * height > MAX_PIXELS:
        raise invalid("file", f"the animation has {frames} frames of {width}×{height}: at most {MAX_PIXELS:,} pixels in all")


def reencode(im: Image.Image, fmt: str) -> tuple[bytes, tuple[int, int]]:
    """The picture alone, in its own format: EXIF (a phone photo's GPS position), comments and text chunks
    are left behind (D152). A photo is turned upright by its EXIF orientation first, as browsers show it."""
    if getattr(im, "n_frames", 1) == 1:
        frames = [_bare(ImageOps.exif_transpose(im))]  # read the orientation before the EXIF is dropped
    else:
        frames = [_bare(frame) for frame in ImageSequence.Iterator(im)]
    first = frames[0]
    out = io.BytesIO()
    options: dict[str, Any] = {"format": fmt}
    if fmt == "JPEG":
        first = first.convert("RGB") if first.mode not in ("RGB", "L", "CMYK") else first
    if fmt in ("JPEG", "WEBP"):
        options.update(quality=90)  # lossy formats: close to what was uploaded
    if len(frames) > 1:  # an animated GIF or WebP stays animated
        durations = [f.info.get("duration", 100) for f in ImageSequence.Iterator(im)]
        options.update(save_all=True, append_images=frames[1:], duration=durations, loop=im.info.get("loop", 0))
    first.save(out, **options)
    return out.getvalue(), first.size


def _bare(frame: Image.Image) -> Image.Image:
    """A frame's pixels with none of the file's metadata (only the transparency a picture needs)."""
    copy = frame.copy()
    copy.info = {k: v for k, v in frame.info.items() if k == "transparency"}
    return copy


def image_url(image_id: str) -> str:
    return url_for("screens.image", image_id=image_id)


def describe(screen: dict[str, Any]) -> dict[str, Any]:
    """A screen as its page needs it: what it shows and the address of the page that shows it."""
    show = screen.get("show", "blank")
    src = None
    if show == "scoreboard":
        src = url_for("pages.scoreboard", match_id=screen["match"])
    elif show == "lineups":
        src = url_for("pages.lineups", match_id=screen["match"])
    elif show == "competition":
        src = url_for("competition_pages.screen", comp_id=screen["competition"])
    image = image_url(screen["image"]) if show == "slide" and screen.get("image") else None
    return {**screen, "src": src, "image_url": image}
