#!/usr/bin/env bash
# Build a one-folder app in dist/suzent-desktop/ and smoke-test it: it must start offscreen,
# open the demo home, run for a few seconds and exit 0.
#   packaging/build.sh            build + smoke test
#   packaging/build.sh --no-test  build only
set -euo pipefail
cd "$(dirname "$0")/.."

if ! python -m PyInstaller --version >/dev/null 2>&1; then
    echo "PyInstaller is missing: pip install pyinstaller==6.22.3 (or pip install -e .[dev])" >&2
    exit 1
fi

export LITELLM_LOCAL_MODEL_COST_MAP=True  # litellm is imported during analysis: no price-table download
python -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller packaging/suzent-desktop.spec

app="dist/suzent-desktop/suzent-desktop"
echo "built: $app ($(du -sh dist/suzent-desktop | cut -f1))"

if [[ "${1:-}" != "--no-test" ]]; then
    demo="$(mktemp -d)/demo"
    QT_QPA_PLATFORM=offscreen SUZENT_QUIT_AFTER_START=15 "$app" demo "$demo"
    "$app" --home "$demo" status
    echo "smoke test passed: the app opened the demo home offscreen and exited cleanly"
fi

# Desktop integration (optional): install the entry and the icon for the current user.
if [[ "${INSTALL_DESKTOP_ENTRY:-0}" == "1" ]]; then
    apps="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
    icons="${XDG_DATA_HOME:-$HOME/.local/share}/icons/hicolor/scalable/apps"
    mkdir -p "$apps" "$icons"
    cp suzent_desktop/resources/icons/suzent.svg "$icons/suzent-desktop.svg"
    sed "s|^Exec=.*|Exec=$(pwd)/$app gui|" packaging/suzent-desktop.desktop > "$apps/suzent-desktop.desktop"
    echo "installed $apps/suzent-desktop.desktop"
fi
