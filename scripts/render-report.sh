#!/usr/bin/env bash
# Renders a report.html the way a person sees it: headless Chromium (Debian's `chromium`, installed
# here when missing) takes a full-page screenshot next to the report.
#   scripts/render-report.sh runs/<run>/report.html   ->  runs/<run>/report.png
set -euo pipefail
html=${1:?usage: scripts/render-report.sh REPORT.html [WIDTHxHEIGHT]}
size=${2:-1200x3000}
[[ -f $html ]] || { echo "render-report.sh: $html: no such file" >&2; exit 2; }
if ! command -v chromium >/dev/null; then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
png=${html%.html}.png
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# The flags keep Chromium off the network and out of any profile but a throwaway one.
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
  --window-size="${size/x/,}" --screenshot="$(realpath -m "$png")" "file://$(realpath "$html")" >/dev/null 2>&1
[[ -s $png ]] || { echo "render-report.sh: Chromium wrote no screenshot" >&2; exit 1; }
echo "$png"
