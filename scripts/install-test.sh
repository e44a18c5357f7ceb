#!/usr/bin/env bash
# The package as a person gets it: installs the built .deb into this machine with dpkg (so it
# needs root), checks what it put where, has the installed app open a countersign:// link
# given to xdg-open (the e2e scenario `installed`, under Xvfb with a private bus), then
# removes the package and checks it left nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "install-test: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || fail "needs root: it installs the package with dpkg"
deb=$(ls -t target/release/bundle/deb/*.deb 2>/dev/null | head -n1 || true)
[[ -n "$deb" ]] || fail "no .deb in target/release/bundle/deb: run make deb first"
pkg=$(dpkg-deb -f "$deb" Package)
if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
  fail "$pkg is already installed here; remove it first (dpkg -r $pkg)"
fi

size=$(stat -c %s "$deb")
echo "install-test: $deb, $((size / 1024)) KiB"
# 24 MiB since both programs carry the PostgreSQL driver of the team console (decision 0033).
((size <= 24 * 1024 * 1024)) || fail "the .deb is over 24 MiB"

# Whatever happens next, the machine is left without the package.
trap 'dpkg -r "$pkg" >/dev/null 2>&1 || true' EXIT
dpkg -i "$deb"
files=$(dpkg -L "$pkg")

desktop=/usr/share/applications/Countersign.desktop
for f in /usr/bin/countersign-desktop /usr/bin/countersign "$desktop" \
  /usr/share/icons/hicolor/128x128/apps/countersign-desktop.png; do
  grep -qx "$f" <<<"$files" || fail "the package does not install $f"
done
grep -qx 'MimeType=x-scheme-handler/countersign;' "$desktop" ||
  fail "$desktop does not declare the countersign:// handler"
grep -qx 'Exec=/usr/bin/countersign-desktop %u' "$desktop" || fail "$desktop does not start the installed window with the link"
desktop-file-validate "$desktop"
# dpkg's trigger rebuilt the handler cache.
grep -q '^x-scheme-handler/countersign=.*Countersign.desktop' /usr/share/applications/mimeinfo.cache ||
  fail "the handler cache does not name Countersign.desktop"
# The CLI is on PATH.
[[ $(command -v countersign) == /usr/bin/countersign ]] || fail "countersign is not on PATH"
countersign --version

COUNTERSIGN_E2E_BIN=/usr/bin/countersign-desktop COUNTERSIGN_CLI_BIN=/usr/bin/countersign \
  scripts/e2e.sh installed:: --ignored

dpkg -r "$pkg"
trap - EXIT
left=()
while read -r f; do
  [[ -e "$f" && ! -d "$f" ]] && left+=("$f")
done <<<"$files"
((${#left[@]} == 0)) || fail "removing $pkg left ${left[*]}"
! grep -q 'x-scheme-handler/countersign' /usr/share/applications/mimeinfo.cache ||
  fail "the handler cache still names countersign:// after removal"
echo "install-test: installed, opened a link through xdg-open, removed cleanly"
