#!/usr/bin/env bash
# The full check of the packaged app, from a checkout with `pip install -e '.[dev]'` done:
#   1. packaging/build.sh builds the one-folder app and, on Linux, the archive;
#   2. on Linux the archive is unpacked into a fresh folder, its install.sh is run against a scratch
#      home (entry, icon and launcher must appear, the launcher must run, --uninstall must remove them);
#   3. packaging/smoke.py runs the unpacked app: the window offscreen on the demo, status, search,
#      `mcp` over stdio and `mcp --http`.
#   packaging/build_and_smoke.sh [--out DIR] [--no-build] [--launch-time]
# DIR defaults to dist/ in the checkout; the build log is DIR/build.log. --no-build checks the build
# already in DIR. --launch-time also times the window to screen on Xvfb. Each phase prints its time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/dist"
smoke_args=()
build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --launch-time) smoke_args+=(--launch-time); shift ;;
        *) echo "usage: packaging/build_and_smoke.sh [--out DIR] [--no-build] [--launch-time]" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
python="${PYTHON:-}"
if [[ -z "$python" ]]; then
    if [[ -x "$root/.venv/bin/python" ]]; then python="$root/.venv/bin/python"; else python=python3; fi
fi
export PYTHON="$python"
phase() { echo "== $1 ($((SECONDS - phase_start)) s)"; phase_start=$SECONDS; }
phase_start=$SECONDS
total_start=$SECONDS

if [[ $build == 1 ]]; then
    if ! bash "$root/packaging/build.sh" --out "$out" > "$out/build.log" 2>&1; then
        tail -n 40 "$out/build.log"
        echo "BUILD FAILED: the whole log is $out/build.log" >&2
        exit 1
    fi
    tail -n 5 "$out/build.log"
    phase "build"
fi

app="$out/suzent-desktop"
if [[ "$(uname -s)" == "Linux" ]]; then
    archive="$(ls -t "$out"/suzent-desktop-*-linux-*.tar.gz | head -n 1)"
    rm -rf "$out/unpacked"
    mkdir -p "$out/unpacked"
    tar -xzf "$archive" -C "$out/unpacked"
    app="$(echo "$out"/unpacked/*/)"
    app="${app%/}"
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    HOME="$scratch" XDG_DATA_HOME="$scratch/share" "$app/install.sh"
    installed=(share/applications/suzent-desktop.desktop share/icons/hicolor/scalable/apps/suzent-desktop.svg
               .local/bin/suzent-desktop)
    for file in "${installed[@]}"; do
        [[ -s "$scratch/$file" ]] || { echo "install.sh did not write $file" >&2; exit 1; }
    done
    grep -q "^Exec=\"$app/suzent-desktop\" gui$" "$scratch/share/applications/suzent-desktop.desktop" \
        || { echo "the installed desktop entry does not start $app" >&2; exit 1; }
    if command -v desktop-file-validate >/dev/null; then
        desktop-file-validate "$scratch/share/applications/suzent-desktop.desktop"
    fi
    HOME="$scratch" "$scratch/.local/bin/suzent-desktop" --help > /dev/null
    HOME="$scratch" XDG_DATA_HOME="$scratch/share" "$app/install.sh" --uninstall > /dev/null
    for file in "${installed[@]}"; do
        [[ ! -e "$scratch/$file" ]] || { echo "install.sh --uninstall left $file behind" >&2; exit 1; }
    done
    echo "ok  install.sh put the entry, the icon and the launcher in place and --uninstall removed them"
    phase "unpack and install"
fi

"$python" "$root/packaging/smoke.py" "$app" "${smoke_args[@]}"
phase "smoke test"
echo "build and smoke test passed in $((SECONDS - total_start)) s"
