"""Chinese and English on every screen (Flask-Babel, gettext catalogs under ``translations/``).

The language is chosen per device: a ``?lang=`` on any page, then the ``lang`` cookie the switch sets,
then the browser's ``Accept-Language``; English when none of these names a language we have.
Catalogs are ``.po`` files kept in git; the ``.mo`` files Babel reads are compiled from them when the
app starts (into the instance folder), so a fresh clone needs no manual step.

Words the browser shows after the first render (a refusal, "offline, 3 queued", a timeline entry)
come from :func:`js_strings` and :func:`vocabulary`, translated here and handed to the page as JSON.
"""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from babel.messages import mofile, pofile
from babel.support import NullTranslations, Translations
from flask import Flask, Response, has_app_context, request
from flask_babel import Babel, force_locale, get_locale, pgettext
from flask_babel import gettext as flask_gettext
from flask_babel import lazy_gettext as _l

from qalisball.rules.book import BOOK_2_0, Book
from qalisball.rules.catalogue import CARD_COLORS, CATALOGUE, MATCH_DAY, VIOLATION_KINDS
from qalisball.rules.catalogue import CLOCK_ACTIONS as CATALOGUE_CLOCK
from qalisball.rules.state import BOOKS

LANGUAGES = ("zh", "en")
COOKIE = "lang"
COOKIE_MAX_AGE = 400 * 24 * 3600  # remembered on the device (browsers cap cookies at 400 days)
HTML_LANG = {"zh": "zh-CN", "en": "en"}
SOURCE = Path(__file__).resolve().parents[2] / "translations"


def init_app(app: Flask) -> None:
    """Compile the catalogs and install Flask-Babel with the per-device language choice."""
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(compile_catalogs(Path(app.instance_path))))
    Babel(app, locale_selector=select_language)
    app.after_request(_remember_query_language)
    app.jinja_env.globals.update(current_language=current_language, html_lang=html_lang)
    app.jinja_env.globals.update(rule_book=rule_book, rule_books=rule_books)  # the Books templates read


def Np_(context: str, message: str) -> str:
    """Mark ``message`` for extraction with a message context (``msgctxt``, as ``pgettext``); returns it unchanged.

    babel.cfg extracts it (``Np_:1c,2``). The context keeps words of one store apart from the same English
    elsewhere: the rule book's "Substitutions" or the report's "voided" may be translated differently there.
    """
    return message


def Npc_(context: str, message: str) -> tuple[str, str]:
    """As :func:`Np_`, but keeps the context with the message, for a table that translates it later
    (babel.cfg extracts it as ``Npc_:1c,2``)."""
    return context, message


# The folder compile_catalogs last wrote, for translations asked outside any app (a script, a bench).
_compiled: Path | None = None


@functools.cache
def _standalone(language: str) -> NullTranslations:
    folder = _compiled or compile_catalogs(Path(tempfile.gettempdir()) / "qalisball-catalogs")
    return Translations.load(str(folder), [language])


@functools.cache
def in_language(language: str, message: str, context: str | None = None) -> str:
    """``message`` (an English msgid) in ``language`` from the compiled catalogue, whatever the request's
    language: the report prints both languages at once, the rule book's titles are asked per language.

    Cached: the catalogue is compiled once, when the app starts.
    """
    if has_app_context():
        with force_locale(language):
            return str(pgettext(context, message) if context else flask_gettext(message))
    translations = _standalone(language)
    return translations.pgettext(context, message) if context else translations.gettext(message)


def zh(msgid: str, context: str | None = None) -> str:
    """The Chinese of a message id outside the request's language (reports print both languages at once)."""
    return in_language("zh", msgid, context)


def select_language() -> str:
    asked = request.args.get("lang") or request.cookies.get(COOKIE)
    if asked in LANGUAGES:
        return asked
    return request.accept_languages.best_match(LANGUAGES) or "en"


def current_language() -> str:
    locale = get_locale()
    return "zh" if locale is not None and locale.language == "zh" else "en"


def html_lang() -> str:
    return HTML_LANG[current_language()]


def remember(response: Response, language: str) -> Response:
    response.set_cookie(COOKIE, language, max_age=COOKIE_MAX_AGE, samesite="Lax")
    return response


def _remember_query_language(response: Response) -> Response:
    # A scoreboard PC without a keyboard can be set once with ?lang=zh in its URL.
    asked = request.args.get("lang")
    if asked in LANGUAGES and request.cookies.get(COOKIE) != asked:
        remember(response, asked)
    return response


def compile_catalogs(instance: Path) -> Path:
    """``translations/<lang>/LC_MESSAGES/*.po`` → ``.mo`` under the instance folder; returns that folder.

    Recompiled only when a ``.po`` is newer than its ``.mo``; written to a temporary file and renamed,
    so several server processes starting at once never read half a catalog.
    """
    global _compiled
    target = instance / "translations"
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        target = Path(tempfile.gettempdir()) / "qalisball-translations"
        target.mkdir(parents=True, exist_ok=True)
    for po in sorted(SOURCE.glob("*/LC_MESSAGES/*.po")):
        mo = target / po.relative_to(SOURCE).with_suffix(".mo")
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        mo.parent.mkdir(parents=True, exist_ok=True)
        with po.open("rb") as f:
            catalog = pofile.read_po(f, locale=po.parts[-3])
        fd, tmp = tempfile.mkstemp(dir=mo.parent, suffix=".mo.tmp")
        with os.fdopen(fd, "wb") as out:
            mofile.write_mo(out, catalog)
        os.replace(tmp, mo)
    _compiled = target
    return target


# ---------------------------------------------------------------------------------------------
# Words shared by the server-rendered pages and their scripts.

PHASES = {
    "scheduled": _l("Not started"),
    "first_half": _l("1st half"),
    "halftime": _l("Half-time"),
    "second_half": _l("2nd half"),
    "shootout": _l("Shootout"),
    "finished": _l("Full time"),
    "abandoned": _l("Abandoned"),
}
RESTARTS = {
    "kickoff": _l("Kickoff"),
    "end_line": _l("End-line ball"),
    "side_line": _l("Side-line ball"),
    "free_kick": _l("Free kick"),
    "penalty": _l("Penalty"),
    # Rule book 1.0's set pieces (V1-6, SPEC §11.2): a 2.0 state never has them.
    "corner": _l("Corner"),
    "short_corner": _l("Short corner"),
}
# Event types and their variants: labels from the event catalogue (qalisball/rules/catalogue.py).
EVENTS = {t.type: _l(t.label) for t in (*CATALOGUE, *MATCH_DAY)}
VIOLATIONS = {v.name: _l(v.label) for v in VIOLATION_KINDS}
ROLES = {
    "referee": _l("Referee"),
    "assistant1": _l("Assistant referee 1"),
    "assistant2": _l("Assistant referee 2"),
    "scorer": _l("Scorer"),
}
# Who logs events: the officials and the organiser (M6's reopen), so that no screen shows a raw "organiser".
AUTHORS = {**ROLES, "organiser": _l("Organiser")}
# Who signs the score sheet (SPEC M6): the officials and both captains.
SIGNERS = {**ROLES, "home_captain": _l("Home team captain"), "away_captain": _l("Away team captain")}
CLOCK_ACTIONS = {v.name: _l(v.label) for v in CATALOGUE_CLOCK}
CARDS = {v.name: _l(v.label) for v in CARD_COLORS}
FOUL_WHERE = {
    "field": _l("in the field"),
    "beyond_end_line": _l("beyond the end line"),
    "beyond_side_line": _l("beyond the side line"),
}


def rule_book(rule_set: str | None) -> Book:
    """The Book a template reads for a match's or competition's rule set (templates' ``rule_book``); a
    record stored without one is the default book's (SPEC §11.2)."""
    return BOOKS.get(rule_set or BOOK_2_0.id, BOOK_2_0)  # type: ignore[call-overload]


def rule_books() -> list[Book]:
    """Every registered rule book, the default first (templates' ``rule_books``: a form's choices)."""
    return list(BOOKS.values())


def vocabulary(rule_set: str = "2.0") -> dict[str, dict[str, str]]:
    """The enum labels of the public state and the event log, in the current language, with the calls
    worded as the match's rule book words them (V1-D16: 1.0's "Touched: over 2 steps / pass not backwards")."""
    book = rule_book(rule_set)
    groups = {
        "phase": PHASES,
        "restart": RESTARTS,
        "event": EVENTS,
        "violation": {k: _l(book.labels[k]) if k in book.labels else v for k, v in VIOLATIONS.items()},
        "role": AUTHORS,
        "signer": SIGNERS,
        "clock": CLOCK_ACTIONS,
        "card": CARDS,
        "where": FOUL_WHERE,
    }
    return {name: {k: str(v) for k, v in words.items()} for name, words in groups.items()}


# Placeholders are {name}, filled in by the page's script (static/js/common.js, fmt()).
_JS = {
    "sep": _l(", "),
    "colon": _l(": "),
    "undo_label": _l("Undo: {what}"),
    "possession_of": _l("Possession: {team}"),
    "attacking_paren": _l(" (attacking)"),
    "online": _l("Online"),
    "offline_queued": _l("Offline, {n} queued"),
    "sending": _l("Sending {n}…"),
    "offline": _l("Offline"),
    "reconnecting": _l("Reconnecting…"),
    # Every public screen when its data is stale (issue 13): the time is the last update's, hh:mm:ss.
    "connection_lost": _l("Connection lost — last update {time}"),
    "refused": _l("Refused"),
    "refused_rule": _l("Refused by rule {rule}"),
    "not_now_rule": _l("Not now: rule {rule}"),
    "rule_paren": _l("(rule {rule})"),
    "invalid": _l("Not accepted"),
    "forbidden": _l("Your role may not do this"),
    "unauthorized": _l("This link's token is not valid for this match"),
    "conflict": _l("Conflict with another official's call"),
    "queued_refused": _l("A call sent after reconnecting was refused"),
    "add_as_missed": _l("Add it as a missed call"),
    "ask_referee_missed": _l("Ask the referee to add it as a missed call (M3): the referee's console can."),
    "undo": _l("Undo"),
    "undo_nothing": _l("Nothing to undo"),
    "cancel_queued": _l("Take back the unsent call: {what}"),
    "queued": _l("queued"),
    "sending_one": _l("sending…"),
    "tap_again_undo": _l("Tap again to undo"),
    "undone": _l("Undone: {what}"),
    "reopened_notice": _l(
        "The organiser reopened the match: {reason}. Correct what is needed, then collect the signatures again."
    ),
    "voided": _l("voided"),
    "void": _l("Void"),
    "no_player": _l("No player"),
    "nobody": _l("Nobody (team short)"),
    "send_without_spot": _l("Send without a spot"),
    "cancel": _l("Cancel"),
    "tap_field": _l("Tap the field where it happened"),
    "tap_field_last_touch": _l("Tap the field where the ball was last touched"),
    "tap_field_entered": _l("Tap the field where the player entered the area"),
    "tap_field_landed": _l("Tap the field where the ball landed"),
    "tap_field_out": _l("Tap the field where the ball went out"),
    "tap_field_foul": _l("Tap the field: the free-kick origin (rule 10.7)"),
    "tap_field_caught": _l("Tap the field where the player was caught"),
    "tap_field_shot": _l("Tap where the shot was taken (needed only if the error is forgiven)"),
    "choose_player_first": _l("Choose the player first"),
    "choose_team": _l("Team"),
    # Whose action a call's team is (issue 13): the builder says it above the team buttons.
    "team_committed": _l("Committed by"),
    "team_last_touch": _l("Last touched by"),
    "team_scored": _l("Scored by"),
    "team_awarded": _l("Restart awarded to"),
    "team_shown": _l("Card shown to"),
    "team_injured": _l("Injured player of"),
    "team_substituting": _l("Substitution by"),
    "team_won": _l("Ball won by"),
    "team_caught_by": _l("Caught by"),
    "team_attacking": _l("Attack established by"),
    "team_shot": _l("Shot by"),
    # What to call next after a refusal because the ball is dead or in play (issue 13).
    "hint_end_line": _l("The ball is dead: log the end-line ball (Ball out: end line)"),
    "hint_stop_first": _l("The ball is in play: log what stopped play first"),
    "hint_take_restart": _l("The restart is still pending: log “Restart taken” first"),
    # D169: the same, to a role that may not log that call (an assistant has no "Restart taken").
    "hint_ask_end_line": _l("The ball is dead: the referee logs the end-line ball (Ball out: end line)"),
    "hint_ask_stop_first": _l("The ball is in play: ask the referee to log what stopped play"),
    "hint_ask_take_restart": _l("The restart is still pending: the referee logs “Restart taken”"),
    "choose_player": _l("Player"),
    "player_out": _l("Going off"),
    "player_in": _l("Coming on"),
    "caught": _l("Caught player"),
    "not_found": _l("Not found"),
    "direct": _l("Straight from the restart"),
    "on_official": _l("Foul on an official"),
    "no_card": _l("No card"),
    "low_side": _l("Low side (y < W/2)"),
    "high_side": _l("High side (y > W/2)"),
    "restart_pending": _l("{restart} · {team}"),
    "ball_live": _l("Ball in play"),
    "to_be_ruled": _l("Restart: to be ruled"),
    "next_kick_ruled": _l("Next kick: to be ruled"),
    "time_up": _l("Time up"),
    "possession": _l("Possession"),
    "multi_attack": _l("Attack chances"),
    "return_countdown": _l("Return to own half"),
    "kicks_off": _l("{team} kicks off"),
    "defends": _l("{team} defends {end}"),
    "toss_ends": _l("Ends, left and right as on the field diagram"),
    "end_x0": _l("the left end"),
    "end_xL": _l("the right end"),
    "half_started": _l("Half started"),
    "half_ended": _l("Half ended"),
    "scored": _l("Scored"),
    "missed": _l("Missed"),
    "next_kick": _l("Next: {team} #{player} {name}, {points} pt"),
    "points": _l("{n} pt"),
    "shootout_decided": _l("Shootout decided"),
    "winner": _l("Winner: {team}"),
    "sub_line": _l("#{out} off, #{in} on"),
    "sub_line_nobody": _l("#{in} on"),
    "by_role": _l("by {role}"),
    "may_substitute": _l("may substitute"),
    "may_not_substitute": _l("may not substitute"),
    "replacement_due": _l("replacement due"),
    "short": _l("{n} short"),
    "sent_off": _l("sent off"),
    "on_field": _l("On the field"),
    "bench": _l("Bench"),
    "clock_set_invalid": _l("Type the clock as minutes:seconds, e.g. 12:30"),
    "clock_set_too_long": _l("{typed} is past the end of the half ({length}): type a time up to {length}"),
    "came_on": _l("{players}: came on at this stoppage, may not take its restart (rule 11.2)"),
    "abandon_reason_needed": _l("Give a reason"),
    "form_errors_n": _l("Please correct the fields marked below ({n}):"),
    "err_required": _l("Required"),
    "err_line": _l("Line {n} “{line}”: write the shirt number, then the name"),
    "err_no_players": _l("List the players, one per line"),
    "err_dup_numbers": _l("Shirt numbers must be unique: {numbers} repeated"),
    "err_not_numbers": _l("Not shirt numbers: {items}"),
    "err_not_on_roster": _l("Not on the team's list: {numbers}"),
    "err_starter_twice": _l("A starter is named twice"),
    "err_starters_count": _l("Name exactly {n} starters, not {got}"),
    "err_too_few_players": _l("{got} players listed: at least {n} are needed to start"),
    "err_range": _l("Must be between {min} and {max}"),
    "err_min": _l("Must be at least {min}"),
    "err_length": _l("Must be {min} to {max} characters long"),
    "err_number": _l("Type a number"),
    "err_ma_teams": _l("Tick the team or teams that hold the opportunities"),
    "err_ma_players": _l("Name the designated players"),
    "organiser_token_rejected": _l("The organiser token was not accepted"),
    # The match day (SPEC §9): late calls, corrections, rosters, notes, the score sheet, devices.
    "already_logged": _l("Already logged by {role}"),
    "second_yellow": _l("Second yellow → sent off"),
    "second_yellow_warning": _l("{player} already has a yellow card: a second one sends the player off"),
    "fouls_n": _l("{n} fouls"),
    "fouls_n_one": _l("1 foul"),
    "fouls_warning": _l("{player} has {n} fouls"),
    "fouls_warning_one": _l("{player} has 1 foul"),
    "fouls_now": _l("{player}: {n} fouls in this match"),
    "fouls_now_one": _l("{player}: 1 foul in this match"),
    "card_reason": _l("Reason (optional)"),
    "card_reason_text": _l("In words (optional)"),
    "sheet_provisional": _l("Provisional"),
    "sheet_final": _l("Final · locked"),
    "fix_correct": _l("Correct"),
    "fix_add_after": _l("Add a missed call after this one"),
    "fix_disallow": _l("Disallow goal"),
    "fix_amend_title": _l("Correction: {what}"),
    "fix_insert_title": _l("Missed call: {what}"),
    "fix_replaces": _l("Replaces {what}"),
    "fix_after": _l("After {what}"),
    "fix_choose_amend": _l("Correcting {what}: choose the call it should have been"),
    "fix_choose_insert": _l("Missed call after {what}: choose the call"),
    "fix_choose_option": _l("Choose the options above"),
    "fix_choose_player": _l("Choose the player"),
    "fix_no_spot": _l("Without a spot"),
    "fix_incomplete": _l("Complete the call to see what the correction changes."),
    "fix_previewing": _l("Asking the server what would change…"),
    "fix_no_preview": _l("Offline: no preview. The correction can be saved; the server will rule on it when it is sent."),
    "fix_accepted": _l("The server would accept it:"),
    "fix_score": _l("Score: {before} → {after}"),
    "fix_score_same": _l("Score unchanged: {score}"),
    "fix_restart": _l("Restart now: {before} → {after}"),
    "fix_restart_same": _l("Restart unchanged: {restart}"),
    "fix_phase": _l("Phase: {before} → {after}"),
    "fix_sent_off": _l("Sent off: {player}"),
    "fix_not_sent_off": _l("No longer sent off: {player}"),
    "fix_first_refused": _l("First later event that would be refused: {what}"),
    "log_amend": _l("Corrected #{seq}: {what}"),
    "log_insert": _l("Added after #{seq}: {what}"),
    "log_confirm": _l("Score confirmed: {period}"),
    "log_sign": _l("Signed: {who}, {name}"),
    "captain_of": _l("Captain of {team}"),
    "roster_add": _l("{team} adds #{number} {name} (bench)"),
    "roster_number": _l("Shirt number"),
    "roster_name": _l("Name"),
    "roster_was": _l("was #{number}"),
    "roster_save": _l("Save"),
    "roster_bad_number": _l("Type a shirt number (0–999)"),
    "roster_bad_name": _l("Type the player's name"),
    "roster_unchanged": _l("Nothing changed"),
    "roster_sent": _l("Sending…"),
    "roster_saved": _l("Saved: every console shows it now"),
    "note_about": _l("Note"),
    "note_about_event": _l("About {what}"),
    "note_match": _l("The match"),
    "note_no_player": _l("No player"),
    "confirm_prompt": _l("The {period} has ended: confirm its score"),
    "confirm_prompt_score": _l("The {period} has ended: confirm the score {home}–{away}"),
    "sign": _l("Sign"),
    "sign_title": _l("Signature: {who}"),
    "sign_too_large": _l("The signature is too large: clear it and sign smaller"),
    "device_default": _l("Tablet {id}"),
    "device_queued": _l("{n} unsent"),
    "device_nothing_queued": _l("nothing waiting"),
    "device_seen": _l("seen {time}"),
    "device_none": _l("not connected"),
    "devices_shared": _l("{n} consoles are open as {role}: check which tablet is the right one."),
    # D168: the officials' page asks before a new code stops a console that is connected now.
    "new_code_online": _l(
        "{role} is connected now ({devices}): a new code stops that tablet at once, and it must scan the new one. "
        "Issue a new code anyway?"
    ),
    "token_revoked": _l(
        "A new link was issued for the {role}: this tablet's link no longer works and it sends nothing more. "
        "Open the new link (its QR code is on the organiser's page)."
    ),
    "token_revoked_queued": _l("{n} calls made here were not sent."),
    "token_revoked_queued_one": _l("1 call made here was not sent."),
    "reopened": _l("Reopened: the match is provisional again and must be signed again."),
}


# Sentences the public screens' scripts show after the first render (scoreboard, overlays, phone,
# line-ups, venue screens). Placeholders are {name}, filled in by common.js's fmt().
SCREEN_JS = {
    "why_rule": _l("{reason} ({rule})"),
    "why_sep": _l("; "),
    "moved_3m": _l("moved 3 m out of the area (10.8)"),
    "paused_at": _l("Clock paused at {time}"),
    "goal_popup": _l("Goal"),
    "sound_on": _l("Sound on"),
    "sound_off": _l("Sound off"),
    "sound_blocked": _l("Sound blocked: click to allow"),
    "half_begins": _l("{half} begins"),
    "half_ends": _l("{half} ends"),
}


# Rule book 1.0's wording of the same sentences (SPEC §11.6, V1-D16): the pages hand a 1.0 match's
# scripts these instead, so the scripts say "corner" and "2 m" without knowing the rule set.
SCREEN_JS_1_0 = {
    "moved_3m": _l("moved 2 m out of the area (V1-6)"),
}
_JS_1_0 = {
    "hint_end_line": _l("The ball is dead: log the corner (Ball out: end line)"),
    "hint_ask_end_line": _l("The ball is dead: the referee logs the corner (Ball out: end line)"),
    "tap_field_foul": _l("Tap the field where the foul happened (V1-D9)"),
    "tap_field_caught": _l("Tap the field where the player was touched"),
    "team_caught_by": _l("Touched by"),
    "caught": _l("Touched player"),
}
# Each rule book's own wording, by its id (a rule book without one says what 2.0 says).
SCREEN_JS_OF_BOOK = {"1.0": SCREEN_JS_1_0}
_JS_OF_BOOK = {"1.0": _JS_1_0}
# Both rule books: a finished match without a winner (only 1.0 has draws, V1-D2).
_JS["draw"] = _l("Draw")


def screen_strings(rule_set: str = "2.0") -> dict[str, str]:
    words = {**SCREEN_JS, **SCREEN_JS_OF_BOOK.get(rule_set, {})}
    return {k: str(v) for k, v in words.items()}


def js_strings(rule_set: str = "2.0") -> dict[str, str]:
    """The sentences the browser needs after the first render, in the current language and the words
    of the match's rule book (``rule_set``)."""
    words = {**_JS, **_JS_OF_BOOK.get(rule_set, {})}
    return {k: str(v) for k, v in words.items()}
