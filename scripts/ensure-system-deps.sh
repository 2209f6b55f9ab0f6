#!/usr/bin/env bash
# Installs the Debian packages the tests need when they are missing: Chromium (browser tests),
# Noto CJK fonts (Chinese names in screenshots and PDFs), poppler (pdftotext), pango (WeasyPrint),
# Node.js (the console's offline forecast is tested against the server in Node), and for the cluster
# (`make run-cluster`, tests/test_cluster.py) Redis and HAProxy. `ensure-system-deps.sh cluster`: those two only.
# PostgreSQL (Debian's `postgresql`: the tests start a throw-away cluster of it, tests/pg.py; issue 32).
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
if [ "${1:-}" != "cluster" ]; then
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || missing+=(fonts-noto-cjk)
  command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
  command -v node >/dev/null 2>&1 || missing+=(nodejs)  # runs the console's offline forecast in tests
  ldconfig -p 2>/dev/null | grep -q "libpangoft2-1.0" || missing+=(libpango-1.0-0 libpangoft2-1.0-0)
  command -v pg_ctl >/dev/null 2>&1 || compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || missing+=(postgresql)
fi
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "Installing Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" fontconfig >/dev/null
