#!/usr/bin/env bash
# Builds the one-folder app with PyInstaller from packaging/suzent-desktop.spec, and on Linux the
# archive a person unpacks and installs (see packaging/linux/).
#   packaging/build.sh [--out DIR]
# DIR (default: dist/ in the checkout) receives:
#   suzent-desktop/                                    the one-folder app (run suzent-desktop/suzent-desktop)
#   suzent-desktop-VERSION-linux-ARCH.tar.gz           Linux only: the app, the desktop entry, the icon, install.sh
#   work/                                              PyInstaller's working files
# The Python that builds is $PYTHON, else .venv/bin/python, else python3; it needs `pip install -e '.[dev]'`.
# packaging/build_and_smoke.sh builds and then smoke-tests the result.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/dist"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        *) echo "usage: packaging/build.sh [--out DIR]" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"

python="${PYTHON:-}"
if [[ -z "$python" ]]; then
    if [[ -x "$root/.venv/bin/python" ]]; then python="$root/.venv/bin/python"; else python=python3; fi
fi
if ! "$python" -m PyInstaller --version >/dev/null 2>&1; then
    echo "PyInstaller is missing from $python: pip install -e '.[dev]'" >&2
    exit 1
fi

cd "$root"
export LITELLM_LOCAL_MODEL_COST_MAP=True  # litellm is imported during analysis: no price-table download
"$python" -m PyInstaller --noconfirm --clean --distpath "$out" --workpath "$out/work" packaging/suzent-desktop.spec
echo "built: $out/suzent-desktop ($(du -sh "$out/suzent-desktop" | cut -f1))"

if [[ "$(uname -s)" == "Linux" ]]; then
    version="$("$python" -c 'import suzent_desktop; print(suzent_desktop.__version__)')"
    bash packaging/linux/make_archive.sh "$out/suzent-desktop" "$out/suzent-desktop-$version-linux-$(uname -m).tar.gz"
fi
