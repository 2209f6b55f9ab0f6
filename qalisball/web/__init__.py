"""The web kernel every feature's blueprints stand on: guards (the service accessor, the organiser check), credentials and
token links (cookies, CSRF), hardening (headers, throttling), the strict JSON reader, languages (i18n), the rule titles
(rulebook) and the field's SVG.
"""
