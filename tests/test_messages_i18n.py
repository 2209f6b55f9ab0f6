"""Refusals (409 ``rule``) in the official's language: the engine's explanation, not only the rule number.

The rule core raises English templates marked with ``N_`` (qalisball/rules/errors.py); the API renders
them in Chinese (Flask-Babel, translations/zh) when the request's language is Chinese — ``?lang=``, the
``lang`` cookie, then Accept-Language, as the pages choose — naming the teams by their names.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import string
from pathlib import Path
from typing import Any

from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from flask.testing import FlaskClient

from qalisball.match.engine_messages import ENGINE_MESSAGES
from qalisball.server.demo import demo_request

from .conftest import ADMIN, FakeClock, MatchDriver, auth

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "translations" / "zh" / "LC_MESSAGES" / "messages.po"
SOURCES = [
    *sorted((ROOT / "qalisball" / "rules").glob("*.py")),
    ROOT / "qalisball" / "match" / "service.py",
    ROOT / "qalisball" / "match" / "api.py",
    ROOT / "qalisball" / "match" / "schemas.py",  # the validation messages the pages show (issue 21)
    ROOT / "qalisball" / "match" / "validation_words.py",
]

HOME, AWAY = "红星 Red Star", "Blue Wave 蓝浪"


def named_match(client: FlaskClient, clock: FakeClock) -> MatchDriver:
    body = demo_request()
    body["home"]["name"], body["away"]["name"] = HOME, AWAY
    return MatchDriver(client, clock, body)


def post(match: MatchDriver, event: dict[str, Any], query: str = "", headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = match.client.post(
        f"/api/matches/{match.id}/events{query}", json=event, headers={**auth(match.tokens["referee"]), **(headers or {})}
    )
    assert r.status_code == 409, r.get_json()
    body: dict[str, Any] = r.get_json()
    assert body["error"] == "rule"
    return body


WRONG_TEAM_KICKOFF = {"type": "restart_taken", "team": "away", "player": 1}
ENGLISH = "the kickoff is home's, not away's"
CHINESE = f"这个中圈开球应由{HOME}发，不是{AWAY}"


def wired(body: dict[str, Any]) -> dict[str, Any]:
    return {k: body[k] for k in ("template", "params") if k in body}


def test_5_2_a_refusal_asked_with_lang_zh_explains_in_chinese_with_the_team_names(client: FlaskClient, clock: FakeClock) -> None:
    match = named_match(client, clock)
    match.kickoff("home")
    body = post(match, WRONG_TEAM_KICKOFF, "?lang=zh")
    assert body["rule"] == "5.2"
    assert body["message"] == CHINESE
    assert body["message_en"] == ENGLISH


def test_5_2_the_lang_cookie_and_accept_language_choose_chinese_too(client: FlaskClient, clock: FakeClock) -> None:
    match = named_match(client, clock)
    match.kickoff("home")
    assert post(match, WRONG_TEAM_KICKOFF, headers={"Accept-Language": "zh-CN,zh;q=0.9"})["message"] == CHINESE
    client.set_cookie("lang", "zh")
    assert post(match, WRONG_TEAM_KICKOFF)["message"] == CHINESE
    # ?lang=en wins over the cookie: English exactly as API.md, without message_en
    body = post(match, WRONG_TEAM_KICKOFF, "?lang=en")
    assert body["message"] == ENGLISH and "message_en" not in body


def test_5_2_english_refusals_are_unchanged(client: FlaskClient, clock: FakeClock) -> None:
    match = named_match(client, clock)
    match.kickoff("home")
    body = post(match, WRONG_TEAM_KICKOFF)
    # D200: besides API.md's fields, the template and its params the console renders in its own language.
    assert body == {"error": "rule", "rule": "5.2", "message": ENGLISH, **wired(body)}
    assert wired(body) == {
        "template": "the {what} is {restarting}'s, not {team}'s",
        "params": {"what": "kickoff", "restarting": "home", "team": "away"},
    }


def test_3_1_phrases_inside_a_refusal_are_translated(client: FlaskClient, clock: FakeClock) -> None:
    match = named_match(client, clock)
    body = post(match, {"type": "period_end"}, "?lang=zh")
    assert body["rule"] == "3.1"
    assert body["message"] == "当前没有进行中的半场（赛前）"
    assert body["message_en"] == "no half is being played (the time before the match)"


def test_11_1_the_initiative_refusal_names_both_teams_in_chinese(client: FlaskClient, clock: FakeClock) -> None:
    match = named_match(client, clock)
    match.kickoff("home")
    match.take()
    # home grounds the ball: away has a free kick and the initiative at this stoppage (11.1)
    match.post({"type": "violation", "kind": "ball_grounded", "team": "home", "spot": {"x": 20.0, "y": 5.0}})
    body = post(match, {"type": "substitution", "team": "home", "out": 1, "in": 7}, "?lang=zh")
    assert body["rule"] == "11.1"
    assert body["message"] == (f"本次停球不由{HOME}发球，且{AWAY}尚未换人：{AWAY}在本次停球换人之后，{HOME}才能换人")
    assert body["message_en"].endswith("home may substitute after away has substituted at this stoppage")


def test_d8_a_void_refused_by_the_replay_explains_the_inner_refusal_in_chinese(client: FlaskClient, clock: FakeClock) -> None:
    match = named_match(client, clock)
    match.kickoff("home")  # events 1 (coin toss) and 2 (period start)
    body = post(match, {"type": "void", "target": 1}, "?lang=zh")
    assert body["rule"] == "D8" and body["first_refused"] == 2  # API.md "Match day": refused corrections cite D8
    assert body["message"] == (
        "撤销第 1 条记录（猜硬币）会使第 2 条记录（开始半场）不合规则："
        "请先猜硬币：它决定由谁开球以及双方的进攻方向（规则 5.1）；请先撤销第 2 条记录"
    )
    assert body["message_en"] == (
        "voiding event 1 (coin_toss) would make event 2 (period_start) illegal: "
        "toss the coin first: it decides who kicks off and the ends (rule 5.1); void event 2 first"
    )


# -- a 400's fields in the organiser's language (issue 21: the create-match page parses no English) --


def _create_refused(client: FlaskClient, body: dict[str, Any], query: str = "") -> dict[str, Any]:
    r = client.post(f"/api/matches{query}", json=body, headers=auth(ADMIN))
    assert r.status_code == 400, r.get_json()
    answer: dict[str, Any] = r.get_json()
    assert answer["error"] == "invalid"
    return answer


def test_issue_21_a_refused_match_says_each_field_in_the_organisers_language_with_the_english_beside(
    client: FlaskClient,
) -> None:
    """The create-match page shows the server's 400 ``fields`` as they come: the server words them in the
    request's language (``fields_en`` keeps API.md's English, as a 409's ``message_en``)."""
    body = demo_request()
    body["home"]["players"].append({"number": 3, "name": "张三"})  # #3 twice
    body["field"] = {"length": 40, "width": 250, "side_lines": False}  # 20–200 m
    del body["away"]["name"]
    english = _create_refused(client, body)
    assert english["fields"] == {
        "home": {"players": ["shirt numbers must be unique: [3] repeated"]},
        "away": {"name": ["Missing data for required field."]},
        "field": {"width": ["Must be greater than or equal to 20 and less than or equal to 200."]},
    }
    assert "fields_en" not in english
    chinese = _create_refused(client, body, "?lang=zh")
    assert chinese["fields"] == {
        "home": {"players": ["号码不能重复：#3 重复"]},
        "away": {"name": ["必填"]},
        "field": {"width": ["须在 20 到 200 之间"]},
    }
    assert chinese["fields_en"] == english["fields"]


def test_issue_21_D10_the_starters_and_multiple_attack_checks_are_said_in_chinese(client: FlaskClient) -> None:
    body = demo_request()
    body["away"]["starting"] = body["away"]["starting"][:-1]
    body["rules"] = {"multi_attack": {"mode": "players", "players": {"home": [77]}}}
    answer = _create_refused(client, body, "?lang=zh")
    assert answer["fields"]["away.starting"] == ["首发须为 6 人，现为 5 人"]
    assert answer["fields"]["rules.multi_attack.players.home"] == ["不在本队名单中：#77"]
    assert answer["fields_en"]["away.starting"] == ["must name exactly 6 starters, not 5"]


# -- every template has its Chinese ------------------------------------------------------------


def _templates() -> set[str]:
    """Every string marked ``N_("…")`` in the rule core, the service and the API."""
    found: set[str] = set()
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "N_":
                arg = node.args[0]
                assert isinstance(arg, ast.Constant) and isinstance(arg.value, str), f"{path.name}:{node.lineno}"
                found.add(arg.value)
    return found


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_every_refusal_template_has_a_chinese_translation_with_the_same_fields() -> None:
    templates = _templates()
    assert len(templates) > 60
    with PO.open("rb") as f:
        catalog = read_po(f, locale="zh")
    missing, broken = [], []
    for t in sorted(templates):
        msg = catalog.get(t)
        if msg is None or not msg.string:
            missing.append(t)
        elif _fields(str(msg.string)) != _fields(t) or not re.search(r"[\u4e00-\u9fff]", str(msg.string)):
            broken.append((t, msg.string))
    assert not missing, f"no Chinese for: {missing}"
    assert not broken, f"a translation lost or added a {{field}}, or is not Chinese: {broken}"


def test_every_rule_violation_is_raised_with_a_marked_template() -> None:
    """No f-string explanations: each RuleViolation's message is N_("…") (or a choice of two)."""
    unmarked = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "RuleViolation":
                arg = node.args[1]
                choices = [arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else [arg]
                if not all(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "N_" for c in choices):
                    unmarked.append(f"{path.name}:{node.lineno}")
    assert not unmarked, unmarked


# -- words as data (issue 21): extracted at build time, translated in one catalogue -----------------


def _marked_messages() -> dict[tuple[str | None, str], str]:
    """Every (context, message) babel.cfg's keywords mark in qalisball/ (N_, Np_, Npc_, _l), as `make messages`
    extracts them, with where the first one is."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    python = [(pattern, method) for pattern, method in method_map if method == "python"]
    found: dict[tuple[str | None, str], str] = {}
    for filename, line, message, _comments, context in extract_from_dir(str(ROOT), python, options_map, keywords={}):
        if isinstance(message, str):
            found.setdefault((context, message), f"{filename}:{line}")
    return found


def test_issue21_every_marked_message_of_the_code_has_its_chinese_in_the_one_catalogue() -> None:
    """Refusal templates (N_), the rule book's titles (Np_), the report's labels (Npc_) and the screens' words
    (_l): each has a Chinese translation in translations/zh with the same {fields}."""
    marked = _marked_messages()
    contexts = {context for context, _ in marked}
    assert {None, "rule book", "report"} <= contexts and len(marked) > 600
    with PO.open("rb") as f:
        catalog = read_po(f, locale="zh")
    missing, broken = [], []
    for (context, message), where in sorted(marked.items(), key=lambda m: m[1]):
        entry = catalog.get(message, context=context)
        if entry is None or not entry.string:
            missing.append(f"{where}: {context or ''} {message!r}")
        elif _fields(str(entry.string)) != _fields(message):
            broken.append((where, message, entry.string))
    assert not missing, f"no Chinese for: {missing}"
    assert not broken, f"a translation lost or added a {{field}}: {broken}"


def test_issue21_the_consoles_engine_messages_are_extracted_at_build_time_and_up_to_date() -> None:
    """qalisball/match/engine_messages.py is what Babel's extractor finds in the rule core (`make messages`);
    the console's templates come from it, not from parsing rules/*.py when a page is served."""
    spec = importlib.util.spec_from_file_location("extract_engine_messages", ROOT / "scripts" / "extract_engine_messages.py")
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    module = ROOT / "qalisball" / "match" / "engine_messages.py"
    assert module.read_text(encoding="utf-8") == script.render(), "run `make messages`"
    assert len(ENGINE_MESSAGES) > 60 and set(ENGINE_MESSAGES) <= _templates()


def test_one_vocabulary_no_word_has_two_chinese_translations_in_the_catalogue() -> None:
    """A message defined twice (the same msgctxt and msgid) is a fatal error for gettext's msgfmt, and Babel keeps
    one of the two silently: a screen then shows a word the translator did not choose for it ("The match")."""
    text = (Path(__file__).resolve().parent.parent / "translations/zh/LC_MESSAGES/messages.po").read_text(encoding="utf-8")
    seen: dict[tuple[str, str], int] = {}
    dup = []
    for block in re.split(r"\n\s*\n", text):
        ctxt = re.search(r'^msgctxt "(.*)"$', block, re.M)
        msgid = re.search(r'^msgid "(.*)"\n((?:".*"\n)*)', block + "\n", re.M)  # with its continued lines
        if msgid is None:
            continue
        whole = msgid.group(1) + "".join(re.findall(r'^"(.*)"$', msgid.group(2), re.M))
        if whole == "":
            continue  # the header
        key = (ctxt.group(1) if ctxt else "", whole)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            dup.append(key)
    assert not dup, dup
