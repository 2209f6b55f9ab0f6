"""The titles of the rule book's sections and of the product's decisions, in Chinese and English.

A refusal names its rule by number (API.md, error ``rule``); the console shows the title beside it in
the official's language, so "11.1" reads "换人的基本原则" or "Substitutions: the basic principle".
Section titles are those of the Qalisball rule book 2.0 (rules/qalisball-v2.0.zh.txt); the book
numbers two sections 10.8 and two 12.2, and each number here carries both titles. Decisions are
SPEC.md §8's D1–D11 and docs/decisions.md's D12 on; a decision added there later shows its English
title (read from the doc) until this table gives it a Chinese one.
"""

from __future__ import annotations

import re
from pathlib import Path

# number -> (zh, en)
SECTIONS: dict[str, tuple[str, str]] = {
    "1": ("比赛定义", "Definition of the game"),
    "1.1": ("比赛", "The match"),
    "1.2": ("比赛用球", "The ball"),
    "1.3": ("比赛胜负", "Winning the match"),
    "2": ("球场", "The field"),
    "2.1": ("球场规格", "Field dimensions"),
    "2.2": ("球瓶", "The bottle"),
    "2.3": ("场地（场地标线）", "Field markings"),
    "3": ("比赛时间", "Duration of the match"),
    "3.1": ("常规时间", "Regular time"),
    "3.2": ("罚球大战时间", "Time for the penalty shootout"),
    "4": ("裁判", "The officials"),
    "4.1": ("裁判构成", "The officiating team"),
    "4.2": ("主裁判职责和权力", "Duties and powers of the main referee"),
    "4.3": ("助理裁判职责", "Duties of the assistant referees"),
    "5": ("比赛开始", "Start of play"),
    "5.1": ("开始方式（猜硬币）", "How the match starts (coin toss)"),
    "5.2": ("开球", "The kickoff"),
    "5.3": ("再次开球", "Kicking off again"),
    "6": ("比赛攻防方式", "Attack and defence"),
    "6.1": ("进攻方式", "Ways of attacking"),
    "6.2": ("防守方式（捕捉、抢断、阻截）", "Ways of defending (catch, steal, block)"),
    "7": ("得分", "Scoring"),
    "7.1": ("得分方式", "How a goal is scored"),
    "7.2": ("得分后的处理", "After a goal"),
    "8": ("违例", "Violations"),
    "8.1": ("违例的定义", "Violations: definition"),
    "8.2": ("球出界", "Ball out of play"),
    "8.3": ("球落地", "Ball grounded"),
    "8.4": ("球落在禁区内", "Ball landing in the restricted area"),
    "8.5": ("球员进入禁区", "Player entering the restricted area"),
    "8.6": ("被捕违例", "Caught-player violation"),
    "8.7": ("发球违例", "Restart violation"),
    "9": ("犯规", "Fouls"),
    "9.1": ("犯规的定义", "Fouls: definition"),
    "9.2": ("犯规种类", "Kinds of foul"),
    "9.3": ("红黄牌的判罚", "Yellow and red cards"),
    "10": ("发球", "Restarts"),
    "10.1": ("发球的定义", "Restarts: definition"),
    "10.2": ("死球", "Dead ball"),
    "10.3": ("开球", "Kickoff"),
    "10.4": ("底线球", "End-line ball"),
    "10.5": ("边线球", "Side-line ball"),
    "10.6": ("任意球", "Free kick"),
    "10.7": ("任意球的产生位置", "Where a free kick originates"),
    "10.8": ("任意球的发球位置；罚球", "Free-kick position; penalties"),
    "11": ("换人", "Substitutions"),
    "11.1": ("换人的基本原则", "Substitutions: the basic principle"),
    "11.2": ("换人的特殊说明", "Substitutions: special cases"),
    "11.3": ("受伤换人", "Substitution for injury"),
    "12": ("罚球大战", "Penalty shootout"),
    "12.1": ("罚球大战的定义", "Penalty shootout: definition"),
    "12.2": ("罚球大战流程；罚球大战球员选择", "Shootout procedure; shootout takers"),
    "13": ("多次进攻机会", "Multiple attack opportunities"),
    "13.1": ("多次进攻机会的定义", "Multiple attack opportunities: definition"),
    "13.2": ("多次进攻机会的使用", "Using multiple attack opportunities"),
}

DECISIONS: dict[str, tuple[str, str]] = {
    "D1": ("进入对方禁区：禁区所属方获得底线球", "Entering the opponents' area: end-line ball for the area's team"),
    "D2": (
        "发球违例：对方原地发同类球；罚球改为防守方底线球",
        "Restart violation: the same restart for the other team; a penalty becomes an end-line ball",
    ),
    "D3": ("三米规则：发球点位于横线上时垂直移入场内", "3 m rule on the area's segment: move straight into the field"),
    "D4": ("阻截致球落地或出界：投射方获得发球", "A block that grounds the ball or puts it out: the shooting team restarts"),
    "D5": ("被罚下的球员不得发球，也不参加罚球大战", "A sent-off player takes no restart and no shootout kick"),
    "D6": ("换人次数不限，换下的球员可再上场", "Substitutions are unlimited and rolling"),
    "D7": (
        "多次进攻机会不豁免进入禁区和红牌犯规",
        "Multiple attack opportunities never forgive entering an area or a red-card foul",
    ),
    "D8": (
        "事件时间与只增不改的记录（撤销即新事件）",
        "Event times and the append-only log (a correction voids an earlier event)",
    ),
    "D9": ("进入本方禁区：无论哪方控球，均判对方罚球", "Entering one's own area: a penalty, whichever team had the ball"),
    "D10": ("每队首发4至8人", "Teams field 4 to 8 starters"),
    "D11": ("位于中轴线上的事件按低侧处理", "An event on the long axis uses the low side"),
    # docs/decisions.md
    "D12": (
        "即将发中圈球、任意球或罚球的一方犯规：对方获得该发球",
        "A foul by the team about to restart gives the other team that restart",
    ),
    "D13": ("时间到后、半场结束前双方均可换人", "Once time is up both teams may substitute freely"),
    "D14": (
        "罚球大战中被罚下的罚球手保留顺序，其射门只能记为未中",
        "A shootout taker sent off keeps the turn; those kicks count as missed",
    ),
    "D15": ("被罚下球员的补人在该次死球时进行", "A sent-off player's replacement is made at that dead ball"),
    "D16": ("发球违例：在发球前或刚发球后判罚", "A restart violation: while the restart is pending or just taken"),
    "D17": ("多次进攻机会：仅发球失误时重发", "Multiple attack opportunities: a retake only after an error in taking a restart"),
    "D18": (
        "控球方犯规或对裁判犯规：在最后触球处发任意球",
        "A foul by the team with the ball, or on an official: free kick where last touched",
    ),
    "D19": ("对裁判犯规不被多次进攻机会豁免", "Fouls on officials are never forgiven"),
    "D20": ("平板点选位置的容差", "Spots tapped on a tablet: tolerances"),
    "D21": ("无比赛可恢复时的犯规只出牌", "A foul with no play to restart only shows its card"),
    "D22": ("得分可不指定球员", "A goal's scorer may be left out"),
    "D23": ("受伤球员可通过换人重新上场", "An injured player may come back by substitution"),
    "D24": ("猜硬币只记录一次", "The coin toss is recorded once"),
    "D25": ("抢断、捕捉、进攻与投射须由相应的一方", "Steals, catches, attacks and missed shots by the right team"),
    "D26": ("比赛计时的更正", "Correcting the clock"),
    "D27": ("任何阶段均可出牌；撤销不可再撤销", "Cards in every phase; a void cannot be voided"),
    "D28": ("第二张黄牌", "A second yellow card"),
    "D29": ("死球时也可记录受伤，发球不变", "An injury may be logged at any dead ball; the restart stays"),
    "D30": ("得分后的30秒回场倒计时在开球后结束", "The 30-second return after a goal ends at the kickoff"),
    "D31": (
        "球出对方底线或落入对方禁区：推定为进攻状态",
        "Ball over the opponents' end line or into their area: attacking state inferred",
    ),
    # The match day and one engine (SPEC §9, issues 10–11): docs/decisions.md D32–D39.
    "D32": ("迟报判罚的时间可比服务器计时晚0.5秒以内", "A call may be stamped up to 0.5 s after the server's clock"),
    "D33": (
        "结束半场、设置计时和记分表事件按收到时裁定",
        "Ending a half, setting the clock and the sheet's events are judged when received",
    ),
    "D34": ("更正事件在被更正事件的位置和时间裁定", "A correction is judged at the place and time of what it corrects"),
    "D35": ("重复判罚的认定忽略备注", "A duplicate call ignores notes in between"),
    "D36": ("每人签字一次，主裁判最后签字并锁定", "Each signs once; the referee signs last and locks the match"),
    "D37": ("改号后的球员在所有记录中使用新号码", "A renumbered player carries the new number everywhere"),
    "D38": ("只有罚球须指定发球队员", "Only a penalty needs its taker named"),
    "D39": ("可判项目以代表性事件向规则引擎询问", "What may be called is asked of the engine with a representative event"),
    # Reliability and security (issue 14): not rules of the game, but cited by 503/429 answers and the docs.
    "D40": ("事件记录的哈希链", "The event log's hash chain"),
    "D41": ("确认日志：发现丢失的已确认事件", "The acknowledgement journal: lost acknowledged events are noticed"),
    "D42": ("损坏的比赛只读显示并说明原因", "A damaged match is served read-only, with the reason"),
    "D43": ("校验、备份与恢复命令", "Verify, backup and restore commands"),
    "D44": ("严格的 UTF-8 JSON，大小与嵌套有上限", "Strict UTF-8 JSON, bounded in size and depth"),
    "D45": ("文本字段拒绝控制字符和空白名称", "Text fields refuse control characters and blank names"),
    "D46": ("非 ASCII 令牌无效；幂等键按角色区分", "Non-ASCII tokens are no tokens; idempotency keys are per role"),
    "D47": ("角色令牌只存哈希；组织者可随时签发新令牌", "Role tokens stored hashed; the organiser issues new ones"),
    "D48": ("组织者令牌至少24个字符；令牌不写入日志", "Organiser token of 24 characters at least; no token in a log file"),
    "D49": (
        "页面安全标头：内容安全策略，禁止被嵌入（叠加层除外）",
        "Security headers: a content policy, no framing but the overlay",
    ),
    "D50": ("按地址限制错误令牌的尝试次数", "Wrong tokens throttled per client address"),
    "D51": ("CSV 中以公式字符开头的单元格加以转义", "CSV cells that start a formula are escaped"),
    "D52": (
        "实时连接有上限：心跳超时、发送队列、每地址连接数",
        "Live connections bounded: ping timeouts, send queues, per-address cap",
    ),
    "D53": (
        "链接中的令牌立即换成 HttpOnly Cookie，并从地址栏移除",
        "A token in a link becomes an HttpOnly cookie and leaves the address bar",
    ),
    "D54": ("凭 Cookie 的写入须附该 Cookie 的 CSRF 令牌", "A cookie writes only with its CSRF token"),
    "D55": ("“在本设备上忘记组织者令牌”删除其 Cookie", "Forgetting the organiser token deletes its cookie"),
    # Live updates (issue 15): not rules, but decisions all the same.
    "D90": ("观众的实时状态不含 legal，只有裁判员获得", "Spectators' live states carry no `legal`; officials get it"),
    "D91": ("选择 updates 的客户端每次变化只收一条消息", "One `update` message per change for clients that opt in"),
    "D92": ("集群：只有一个进程写入，观众进程只转发", "A cluster: one process writes, spectator processes only relay"),
    # Reports (issue 11): docs/decisions.md D80–D83.
    "D80": ("比赛报告按球员本人统计，改号后新旧号码并列", "Reports count players, not shirts: both numbers after a renumbering"),
    "D81": (
        "报告的进程列出更正后的事件，审计列出每次更正及原因",
        "The report shows corrected events in place and audits every correction",
    ),
    "D82": ("报告CSV每行带比赛编号、日期、双方与比分", "The report CSV carries the match, date, teams and score on every row"),
    "D83": ("报告时间采用比赛所在时区，否则采用服务器本地时区", "Report times in the match's time zone, else the server's"),
    # The console at the field (issue 13).
    "D130": ("只有规则需要时才须指定发球队员", "The restart taker is asked for only where a rule needs the taker"),
    "D131": ("计分台喇叭与振动，可静音", "The console's horn and vibration, with a mute"),
    # The match day's seams (issue 19).
    "D140": ("集群的每地址连接上限由 HAProxy 按观众自己的地址计数", "In a cluster HAProxy caps connections per client address"),
    "D141": ("健康检查从不因连接上限被拒绝", "A health check is never refused by the connection cap"),
    "D142": ("观众进程按配置发送心跳并按同一时限断开", "Spectator processes ping as configured and close by the same bound"),
    "D143": ("集群的 Redis 有密码，进程间消息均签名", "The cluster's Redis has a password and every message is signed"),
    "D145": ("赛事记录与令牌都加封校验", "Competition records and tokens are sealed and checked"),
    "D146": ("重复请求的存储答复与请求摘要加封", "Stored answers and body hashes are sealed"),
    "D147": ("旧数据库首次启动时补封", "A database older than the seals is sealed at its first start"),
    "D148": ("一个数据库只有一个写入进程", "One writer process per database"),
    "D149": ("共享内存文件不可写时答复 503，服务器不崩溃", "An unwritable shared-memory file answers 503; the server lives"),
    "D155": ("赛事视图按变更缓存", "A competition's view is cached per change"),
    "D156": ("每个连接的加入请求限速", "Joins are rate-limited per connection"),
    "D157": ("Socket.IO 加入时猜令牌同样限速", "Token guesses in Socket.IO joins are throttled too"),
    "D158": ("发放新码即断开旧码的所有连接", "A new code revokes every connection of the old one"),
    "D159": ("赛事页每页 50 支球队，名单展开时加载", "Kept teams 50 a page; a roster loads when its card opens"),
    "D160": ("平板上控制台占满屏幕，框架不移动", "The console fills a tablet's screen and its frame never moves"),
    "D161": ("面板占用本阶段不用的位置", "A panel takes the place of what its phase does not use"),
    "D162": ("场地图按剩余高度绘制，位置不变", "The field is drawn as large as the height allows, in one place"),
    "D167": ("进球后 10 秒内其他裁判仍可记同一进球", "For 10 s after a goal the other officials may log it too"),
    "D168": ("重启后裁判页仍列出各角色在线的设备", "After a restart the officials' page lists each role's consoles"),
    "D169": ("拒绝说明下一步该记什么，只对能记的角色点名", "A refusal names the call to log first, to a role that may log it"),
    "D170": ("裁判页的返回链接回到所属赛事", "The officials' page goes back to its competition"),
    "D171": ("首次打开的控制台即可离线重新加载", "A console opened once reloads offline"),
    "D172": ("文字中不用性别代词", "No gendered pronouns in the app's words"),
    "D173": ("报告用控制台的说法写底线与位置", "The report names ends and spots in the console's words"),
    "D132": (
        "记分表只能向前更正，不能撤销；组织者的事件只有组织者能撤销",
        "The score sheet is corrected forwards, never undone; the organiser's events are the organiser's",
    ),
    # Competitions (SPEC §10): docs/decisions.md D60–D73.
    "D60": ("相互间胜负只在积分相同的全部球队之间比较一次", "Head-to-head is computed once, among all the teams level on points"),
    "D61": ("仍并列的球队名次相同；小组赛结束后才能抽签", "Level teams share their rank; lots only once the group is over"),
    "D62": ("未登记单位的球队以队名为其单位", "A team without a club is its own club"),
    "D63": ("中止的比赛在组委会裁定前不计成绩", "An abandoned match counts only once the organiser decides"),
    "D64": ("黄牌累计停赛", "Yellow card accumulation"),
    "D65": (
        "停赛按赛程顺序执行；对方弃权的比赛计为已停赛",
        "Suspensions are served in schedule order; an opponents' forfeit serves",
    ),
    "D66": ("裁判员不能同时执裁两场比赛", "An official cannot be on two fields at once"),
    "D67": ("成绩被改判或重赛时，牌照常有效", "Cards stand when a result is replaced"),
    "D68": ("CSV导入支持UTF-8与GB18030", "CSV imports read UTF-8 or GB18030"),
    "D69": ("弃权须在开球前判定", "A forfeit is declared before kick-off"),
    "D70": ("停赛队员不列入比赛名单", "Suspended players are left off the match's roster"),
    "D71": ("赛程编排", "How fixtures are scheduled"),
    "D72": ("队名不能重复", "Team names are unique"),
    "D73": ("一场赛程只对应一场比赛，除非中止或判定重赛", "One match per fixture, unless abandoned or replayed"),
    "D74": ("停赛跟随球员本人：按建队名单号码，改号后按姓名", "A suspension follows the player through renumberings"),
    "D75": ("赛程可改时间或场地，但不得与同场地、同队或同一裁判的比赛重叠", "A fixture moves to a free time and field"),
    "D76": ("季军赛：半决赛负者在决赛前一个时段比赛", "A third-place match of the semi-finals' losers, before the final"),
    # Spectators told of corrections (issue 19): docs/decisions.md D163–D166.
    "D163": ("改变进球的更正在进球处和大屏上说明", "A correction of a goal is told where the goal was and on the screens"),
    "D164": ("被撤销的进球留在时间线上并划掉", "A voided goal stays on the timeline, struck out"),
    "D165": ("大屏弹出进球与进球队员", "The big screen pops up each goal and its scorer"),
    "D166": ("赛场大屏轮播最新赛果", "The venue screen shows the latest results"),
    # Hardening, round two (issue 20): docs/decisions.md D150–D154.
    "D150": ("所有CSV导出经同一写入器，公式被转义", "Every CSV export goes through one writer that escapes formulas"),
    "D151": ("所有接口用同一JSON读取器与同一文字校验", "Every route reads JSON and text through the same strict checks"),
    "D152": (
        "上传图片与签名先查尺寸，再解码并去除元数据重新编码",
        "Uploads and signatures are bounded, decoded and re-encoded without metadata",
    ),
    "D153": ("CSV导入中仅大小写不同的队名视为同一队", "A CSV import's team names that differ only in case are one team"),
    "D154": ("任何页面都会把令牌从地址中去掉", "Every page takes the token out of its address"),
}

# SPEC §10's competition decisions, cited by the competitions' refusals ("C4").
COMPETITION: dict[str, tuple[str, str]] = {
    "C1": ("球队与名单随赛事保存", "Teams are kept"),
    "C2": ("赛制与赛程", "Formats and schedules"),
    "C3": ("积分与排名", "Standings"),
    "C4": ("停赛", "Suspensions"),
    "C5": ("裁判员回避本单位的比赛", "Officials stand aside"),
    "C6": ("弃权", "Forfeits"),
    "C7": ("申诉与仲裁", "Protests"),
}

_DECISIONS_MD = Path(__file__).resolve().parents[2] / "docs" / "decisions.md"


def _later_decisions(path: Path = _DECISIONS_MD) -> dict[str, tuple[str, str]]:
    """Decisions in docs/decisions.md that the table above does not name yet (a table row
    ``| **D29** | Text... |``, a heading ``## D29 — Text`` or an item ``- **D29** Text``).

    Their English title is the doc's first sentence; the Chinese falls back to it until the table above
    gives one.
    """
    if not path.exists():
        return {}
    found: dict[str, tuple[str, str]] = {}
    row = re.compile(r"^\|\s*\**(D\d+)\**\s*\|\s*([^|]+)\|")
    line_item = re.compile(r"^(?:#+\s*|[-*]\s*)?\**(D\d+)\**[\s.:—–-]+(.+)$")
    for line in path.read_text(encoding="utf-8").splitlines():
        m = row.match(line.strip()) or line_item.match(line.strip())
        if m and m.group(1) not in DECISIONS and m.group(1) not in found:
            text = m.group(2).strip().strip("*")
            title = re.split(r"(?<=[.;:])\s", text, maxsplit=1)[0].rstrip(".;:")
            found[m.group(1)] = (title, title)
    return found


# SPEC §9 (the match day).
MATCH_DAY: dict[str, tuple[str, str]] = {
    "M1": ("迟报的判罚按发生时的比赛时间裁定", "Late calls are judged when they happened"),
    "M2": ("名单变更：迟到球员、改名、改号", "Roster changes: a late player, a name, a shirt number"),
    "M3": ("更正过去的事件：替换与补记", "Correcting the past: amend and insert"),
    "M4": ("两名裁判记录同一判罚", "One call seen by two officials"),
    "M5": (
        "受伤暂停时红牌的补人权保留到下一次死球",
        "A replacement right earned at an injury stoppage waits for the next dead ball",
    ),
    "M6": ("记分表确认与签字，主裁判签字后锁定", "The score sheet is confirmed and signed; the referee's signature locks it"),
    "M7": ("裁判报告：备注与出牌原因", "The referee's report: notes and card reasons"),
    "M8": ("判罚辅助：个人犯规次数，第二张黄牌即罚下", "Judgement aids: fouls per player; a second yellow is a send-off"),
}

RULES: dict[str, tuple[str, str]] = {**SECTIONS, **DECISIONS, **MATCH_DAY, **COMPETITION, **_later_decisions()}


def title(rule: str, language: str) -> str | None:
    """The title of section or decision ``rule`` in ``language`` ("zh" or "en"), or None if unknown."""
    pair = RULES.get(rule) or RULES.get(rule.split(".")[0] if rule[:1].isdigit() else rule)
    if pair is None:
        return None
    return pair[0] if language == "zh" else pair[1]


def titles(language: str) -> dict[str, str]:
    """Every known rule number with its title in ``language``: handed to the console's script."""
    return {rule: pair[0] if language == "zh" else pair[1] for rule, pair in RULES.items()}
