"""The Flask application factory and the Socket.IO object (``from qalisball import create_app``)."""

from __future__ import annotations

import logging
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from flask import Flask
from flask_socketio import SocketIO

from qalisball.competitions import api as competition_api
from qalisball.competitions import slots as competition_slots
from qalisball.live.fanout import LocalManager, PreEncodedPacket, QueueManager
from qalisball.live.rooms import JoinGate
from qalisball.match import slots as match_slots
from qalisball.match.devices import DEVICES, DeviceRegistry
from qalisball.match.live import LIVE, MatchRoom
from qalisball.match.service import MatchService, match_reader, now_ms
from qalisball.rules.errors import N_
from qalisball.server import tables  # noqa: F401  (every feature's tables join the migrations before a Store opens)
from qalisball.storage.engine import DatabaseError
from qalisball.storage.integrity import Damage
from qalisball.storage.journal import Row
from qalisball.storage.store import DatabaseInUse, DatabaseUnavailable, Store
from qalisball.venue import slots as venue_slots
from qalisball.web import errors, services

ROOT = Path(__file__).resolve().parents[2]
log = logging.getLogger(__name__)
socketio = SocketIO()


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. ``test_config`` overrides the environment (tests pass DATABASE, CLOCK, …)."""
    app = Flask(
        __name__,
        instance_path=str(ROOT / "instance"),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.update(
        # QALISBALL_DATABASE_URL=postgresql://… puts every table on PostgreSQL (issue 32, D390); else the SQLite file.
        DATABASE=os.environ.get("QALISBALL_DATABASE_URL")
        or os.environ.get("QALISBALL_DB", str(ROOT / "instance" / "qalisball.db")),
        ADMIN_TOKEN=os.environ.get("QALISBALL_ADMIN_TOKEN") or None,
        MESSAGE_QUEUE=os.environ.get("QALISBALL_MESSAGE_QUEUE") or None,
        ASYNC_MODE=os.environ.get("QALISBALL_ASYNC_MODE", "threading"),
        # The address QR codes carry (e.g. http://192.168.1.20:5000); else the address the page was opened with.
        PUBLIC_URL=os.environ.get("QALISBALL_PUBLIC_URL") or None,
        # Behind a reverse proxy: how many proxies' X-Forwarded-For/-Proto to believe, so that throttling
        # (D50) sees the client's address, not the proxy's. 0: none (clients connect directly).
        PROXY_HOPS=int(os.environ.get("QALISBALL_PROXY_HOPS", "0")),
        # Live connections bounded (D52): Engine.IO pings every PING_INTERVAL s and drops a client that
        # has not answered PING_TIMEOUT s later; app.py closes a socket idle (or unable to take data)
        # for longer than both; at most MAX_CONNECTIONS_PER_ADDRESS connections per client address (0: no cap).
        PING_INTERVAL=float(os.environ.get("QALISBALL_PING_INTERVAL", "10")),
        PING_TIMEOUT=float(os.environ.get("QALISBALL_PING_TIMEOUT", "10")),
        MAX_CONNECTIONS_PER_ADDRESS=int(os.environ.get("QALISBALL_MAX_CONNECTIONS_PER_ADDRESS", "100")),
        CLOCK=now_ms,
        JSON_SORT_KEYS=False,
        # No request body is read past this (the API's own limits are smaller: strict_json.py); 413 above it.
        MAX_CONTENT_LENGTH=256 * 1024,
        # Reads served at once; none starts while a write is under way (D240, web/priority.py; 0: no bound).
        READERS_AT_ONCE=int(os.environ.get("QALISBALL_READERS_AT_ONCE", "2")),
        # How the journal's readers run (D300): "background" (each its own greenlet or thread: the writer never
        # waits for one), or "after_write" (in the writer's thread once its lock is let go). Default: background,
        # except in tests served in threading mode, whose test clients expect the broadcast before the answer.
        JOURNAL_READERS=os.environ.get("QALISBALL_JOURNAL_READERS") or None,
        # A league's venue (issue 31): the central's base URL and the venue key it issued; without them nothing is sent.
        UPSTREAM=os.environ.get("QALISBALL_UPSTREAM") or None,
        UPSTREAM_KEY=os.environ.get("QALISBALL_UPSTREAM_KEY") or None,
        UPSTREAM_RETRY_MAX=float(os.environ.get("QALISBALL_UPSTREAM_RETRY_MAX", "30")),
        # How often a venue fetches the fixtures its central gave it, while it reaches the central (D377).
        UPSTREAM_FETCH_EVERY=float(os.environ.get("QALISBALL_UPSTREAM_FETCH_EVERY", "15")),
    )
    if test_config:
        app.config.update(test_config)
    if not (test_config and "ADMIN_TOKEN" in test_config) and app.config["ADMIN_TOKEN"]:
        _check_admin_token(app.config["ADMIN_TOKEN"])  # from the environment: refused when weak
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    if not app.config["ADMIN_TOKEN"]:
        app.config["ADMIN_TOKEN"] = _instance_admin_token(Path(app.instance_path))
    app.json.sort_keys = False  # type: ignore[attr-defined]
    from qalisball.web import i18n

    i18n.init_app(app)  # Flask-Babel: zh-CN / English per device

    try:
        store = Store(app.config["DATABASE"])
    # Another server writes this database (D148, D391), or the PostgreSQL named cannot be reached: refuse to start, naming it.
    except (DatabaseInUse, DatabaseUnavailable) as exc:
        raise ConfigError(str(exc)) from exc
    if app.config["ASYNC_MODE"] == "gevent":
        store.run_writes_off_loop()  # a write waiting on SQLite never freezes reads and spectators
    svc = match_slots.MATCHES.install(app, MatchService(store, clock=app.config["CLOCK"]))
    services.OFFICIALS.install(app, svc)  # what the web kernel asks of the matches (web/services.Officials, D320)

    socketio.init_app(
        app,
        async_mode=app.config["ASYNC_MODE"],
        client_manager=client_manager(app.config["MESSAGE_QUEUE"], app.config["ASYNC_MODE"]),
        cors_allowed_origins=app.config.get("CORS_ORIGINS", []),
        ping_interval=app.config["PING_INTERVAL"],
        ping_timeout=app.config["PING_TIMEOUT"],
        serializer=PreEncodedPacket,  # broadcasts are encoded once for every socket (fanout.py)
    )
    devices = DEVICES.install(app, DeviceRegistry())  # the officials' consoles connected now (API.md "Match day")
    gate = JoinGate(socketio, svc.clock)  # joins bounded per connection, in every feature's room (D156)
    live = LIVE.install(app, MatchRoom(socketio, svc, gate, devices))
    errors.init_app(app)  # the API's error answers every feature shares (web/errors.py)

    from qalisball.match import api

    app.register_blueprint(api.bp)
    from qalisball.match import pages

    app.register_blueprint(pages.bp)
    from qalisball.reports import pages as report_pages

    app.register_blueprint(report_pages.bp)
    competition_api.init_app(app, socketio, gate)  # teams, officials, competitions: API, pages, live room
    # What one feature asks of another, handed here (D321): the officials' page's "←", the venue's competitions.
    comps = competition_slots.COMPETITIONS.of(app)
    match_slots.FIXTURE_HOME.install(app, competition_slots.fixture_home(comps))
    venue_slots.COMPETITIONS.install(app, comps)
    from qalisball.web import hardening

    hardening.init_app(app)  # integrity notices, security headers, throttling (issue 14)
    from qalisball.web import token_links

    token_links.init_app(app)  # a link's token becomes an HttpOnly cookie; cookie writes need CSRF (D53–D55)
    if app.config["PROXY_HOPS"]:
        from werkzeug.middleware.proxy_fix import ProxyFix

        hops = app.config["PROXY_HOPS"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    from qalisball.venue import api as venue_api

    venue_api.init_app(app, socketio, gate)  # venue screens, images, team logos: API, pages, live room
    from qalisball.server import api_docs

    api_docs.init_app(app)  # /api/catalogue, /api/openapi.json and its viewer /api/docs (issue 23)
    from qalisball.competitions import whatif_api, whatif_pages
    from qalisball.training import api as training_api

    whatif_api.init_app(app)  # the arbitration committee's what-if (issue 24)
    app.register_blueprint(whatif_pages.bp)  # its pages: the what-if page, the protest report (D322)
    training_api.init_app(app)  # referee training: API and pages (issue 24)
    from qalisball.feed import api as feed_api

    feed_api.init_app(app)  # the feed: /api/feed (SSE), /api/feed.json (issue 30)
    from qalisball.feed import webhooks_api

    webhooks_api.init_app(app, socketio)  # signed webhooks of the feed's messages, a worker each (issue 30 item 3)
    follow_the_journal(app, store, live)  # every reader of what was stored, in one place (D300)
    league(app, svc)  # the league (issue 31): a central's venues and ingest; a venue's sender to its central
    from qalisball.server import docs_site

    docs_site.init_app(app, ROOT / "instance" / "docs-site")  # the MkDocs site `make docs` builds, under /docs
    from qalisball.web import priority

    # Outermost: the officials' writes come first, reads are bounded (D240, issue 33).
    app.extensions["qalisball_readers"] = priority.install(app, app.config["READERS_AT_ONCE"])

    # What start-up loaded (every match replayed, the competitions) frozen out of the collector, so no full
    # collection walks it again in the middle of a POST (D260). Not in tests, which build many apps.
    if app.config.setdefault("GC_FREEZE", not app.testing):
        from qalisball.server import collector

        collector.install()
        collector.settle("start-up")
    return app


def follow_the_journal(app: Flask, store: Store, live: MatchRoom) -> None:
    """The journal's readers (D300, issue 28 item 3), each from its own cursor, outside every write lock, in order:
    the Socket.IO fan-out (which also relays to a cluster's spectator processes through Redis), the competitions'
    live views and caches; under gevent the feed's hub (D363), which writes every feed stream once it has caught up
    from its client's cursor (feed/api.py)."""
    journal = store.journal
    if journal is None:  # a database that cannot be read: nothing is written either
        return
    competitions = competition_slots.COMPETITIONS.of(app)

    def in_app(callback: Callable[[Row], None]) -> Callable[[Row], None]:
        def read(row: Row) -> None:
            with app.app_context():
                callback(row)

        return read

    journal.follow("socketio", in_app(match_reader(live.broadcast)))
    journal.follow("competitions", in_app(match_reader(competitions.on_match_event)))
    if store.shared:  # several server processes on one PostgreSQL database (D396–D398)
        svc = live.svc

        def before(row: Row) -> None:  # another process's row: the copies here take it before any reader does
            svc.on_stored(row)
            with app.app_context():
                competitions.on_stored_elsewhere(row.kind, row.subject)

        journal.listen_database(socketio.start_background_task, before, svc.on_notice)
    mode = app.config["JOURNAL_READERS"] or (
        "after_write" if app.testing and app.config["ASYNC_MODE"] == "threading" else "background"
    )
    if mode == "after_write":  # the writers' threads: a match event's right after the service's lock, others' after the request
        app.after_request(_followed(store))
    else:
        if app.config["ASYNC_MODE"] == "gevent":  # the feed's streams that have caught up: one writer (D363)
            from qalisball.feed import api as feed_api

            feed_api.go_live(app, journal, lambda deliver: journal.follow("feed", in_app(deliver)))
        journal.run_readers(socketio.start_background_task)


def league(app: Flask, svc: MatchService) -> None:
    """The league (issue 31): every server can be a central (venues, ingest, read-only copies: L1); with
    ``UPSTREAM`` it is also a venue, whose sender (a greenlet or thread, like the journal's readers) sends its feed."""
    from qalisball.league import api as league_api
    from qalisball.league.assignments import Assignments
    from qalisball.league.central import Central
    from qalisball.league.upstream import Upstream
    from qalisball.league.venue_fixtures import VenueFixtures

    store = svc.store
    # A league competition (L4) and a venue's own competitions held read-only (D379): the competitions' desk handed
    # to the league, and who plays a fixture elsewhere handed back (D321).
    comps = competition_slots.COMPETITIONS.of(app)
    central = Central(svc, comps.league)
    store.on_close(central.close)
    assignments = Assignments(store, central, comps.league)
    comps.played_elsewhere(assignments.venue_of)
    upstream = None
    at_start: list[Tables] = [central, assignments]
    url, key = app.config["UPSTREAM"], app.config["UPSTREAM_KEY"]
    if url and store.journal is not None:
        if not key or len(key) < 32:
            raise ConfigError("QALISBALL_UPSTREAM needs QALISBALL_UPSTREAM_KEY, the venue key the central issued")
        fixtures = VenueFixtures(store, svc, svc.clock)
        at_start.append(fixtures)
        upstream = Upstream(
            store,
            url,
            key,
            svc.clock,
            retry_max_s=app.config["UPSTREAM_RETRY_MAX"],
            fixtures=fixtures,
            fetch_every_s=app.config["UPSTREAM_FETCH_EVERY"],
            records_of=comps.league.records,
        )
        store.on_close(upstream.stop)
    read_at_start(svc, "the league's tables", at_start)  # before the sender starts: it works from what they hold
    league_api.init_app(app, central, upstream, assignments)
    match_slots.ORIGIN.install(app, league_api.origin)
    competition_slots.ORIGIN.install(app, league_api.competition_origin)
    if upstream is not None:
        socketio.start_background_task(upstream.run)


class Tables(Protocol):
    """A feature's tables read once at start-up into memory (``load``), or nothing of them (``forget``)."""

    def load(self) -> None: ...

    def forget(self) -> None: ...


def read_at_start(svc: MatchService, what: str, parts: Sequence[Tables]) -> None:
    """D42, once for the parts that read their tables at start-up: a database that cannot be read there leaves every
    part empty (never half-read) and the server read-only, saying why on every screen, as a damaged file does."""
    try:
        for part in parts:
            part.load()
    except DatabaseError as exc:
        for part in parts:
            part.forget()
        svc.problem = svc.problem or Damage(
            N_("the database file {path} cannot be read ({error}): nothing can be stored; restore the latest backup"),
            {"path": svc.store.path, "error": str(exc)},
        )
        log.error("%s cannot be read: %s", what, exc)


def _followed(store: Store) -> Callable[[Any], Any]:
    def after(response: Any) -> Any:
        store.followed()
        return response

    return after


# An organiser token from the environment shorter than this is refused at start-up (issue 14): it guards
# every match of the installation, and wrong guesses are only throttled, not impossible.
MIN_ADMIN_TOKEN = 24


class ConfigError(Exception):
    """The configuration cannot be served safely: ``app.py`` prints it and exits."""


def _check_admin_token(token: str) -> None:
    if len(token) < MIN_ADMIN_TOKEN:
        raise ConfigError(
            f"QALISBALL_ADMIN_TOKEN is {len(token)} characters long: use at least {MIN_ADMIN_TOKEN} "
            "(for example: python -c 'import secrets; print(secrets.token_urlsafe(24))'), or unset it to "
            "have one generated into instance/admin_token"
        )
    if not token.isascii() or not token.isprintable() or token != token.strip():
        raise ConfigError("QALISBALL_ADMIN_TOKEN must be printable ASCII without spaces around it")


def client_manager(message_queue: str | None, async_mode: str) -> LocalManager | QueueManager:
    """python-socketio's client manager: Redis between processes when ``message_queue`` is set (docs/deploy.md);
    under gevent, broadcasts bypass the per-socket queues (fastws.py)."""
    manager: LocalManager | QueueManager
    if message_queue:
        if not str(message_queue).startswith(("redis://", "rediss://", "unix://")):
            raise SystemExit("QALISBALL_MESSAGE_QUEUE must be a redis:// URL")
        manager = QueueManager(message_queue)
    else:
        manager = LocalManager()
    if async_mode == "gevent" and os.environ.get("QALISBALL_FASTWS", "1") != "0":
        from qalisball.live import fastws

        fastws.install()
        manager.fast = True
    return manager


def _instance_admin_token(instance: Path) -> str:
    """The organiser token, generated once into the instance folder when the environment has none.

    The file is created 0600 and complete before it has its name (written to a private temporary
    file, then linked into place), so no other user can ever read it and no process sees half a token;
    when two processes start at once, the first link wins and both use its token.
    """
    path = instance / "admin_token"
    if not path.exists():
        token = secrets.token_urlsafe(24)
        tmp = instance / f".admin_token.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, (token + "\n").encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process made it first: use that one
        finally:
            os.unlink(tmp)
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)  # made by an older version (0666, then chmod-ed): close it now
    return path.read_text().strip()
