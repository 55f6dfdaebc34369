#!/bin/sh
# Adds Suzent to the current user's application menu, from the folder this script is in:
#   $XDG_DATA_HOME/applications/suzent-desktop.desktop           the desktop entry, pointing at this folder
#   $XDG_DATA_HOME/icons/hicolor/scalable/apps/suzent-desktop.svg the icon
#   ~/.local/bin/suzent-desktop                                  a launcher for the terminal
# ($XDG_DATA_HOME is ~/.local/share when unset.) The app stays where it was unpacked: after moving
# this folder, run ./install.sh again. Nothing needs root.
#   ./install.sh               install (again)
#   ./install.sh --uninstall   remove those three files; your notes and settings are kept
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data="${XDG_DATA_HOME:-$HOME/.local/share}"
entry="$data/applications/suzent-desktop.desktop"
icon="$data/icons/hicolor/scalable/apps/suzent-desktop.svg"
launcher="$HOME/.local/bin/suzent-desktop"

refresh_menus() {  # desktops that keep caches pick the change up at once; others read the folders
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data/applications" || true
    command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
}

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$entry" "$icon" "$launcher"
    refresh_menus
    echo "Removed the desktop entry, the icon and the launcher. Your notes are where they were"
    echo "(by default ~/.local/share/suzent-desktop); delete this folder to remove the app itself."
    exit 0
fi
if [ $# -gt 0 ]; then
    echo "usage: ./install.sh [--uninstall]" >&2
    exit 2
fi
case "$here" in
    *[\"\`\$\\]*) echo "install.sh: move this folder to a path without \" \` \$ or \\ in it, then run it again" >&2; exit 1 ;;
esac
[ -x "$here/suzent-desktop" ] || { echo "install.sh: $here/suzent-desktop is missing" >&2; exit 1; }

mkdir -p "$(dirname "$entry")" "$(dirname "$icon")" "$(dirname "$launcher")"
cp "$here/suzent-desktop.svg" "$icon"
sed -e "s|^Exec=.*|Exec=\"$here/suzent-desktop\" gui|" -e "/^Exec=/a TryExec=$here/suzent-desktop" \
    "$here/suzent-desktop.desktop" > "$entry.tmp"
mv "$entry.tmp" "$entry"
printf '#!/bin/sh\nexec "%s/suzent-desktop" "$@"\n' "$here" > "$launcher.tmp"
chmod 755 "$launcher.tmp"
mv "$launcher.tmp" "$launcher"
refresh_menus

echo "Installed for $(id -un):"
echo "  $entry"
echo "  $icon"
echo "  $launcher"
case ":$PATH:" in
    *":$HOME/.local/bin:"*) ;;
    *) echo "Add ~/.local/bin to your PATH to type suzent-desktop in a terminal." ;;
esac
echo "Open Suzent from your application menu, or run: suzent-desktop demo"
