#!/usr/bin/env bash
# Packs a one-folder build into the archive a person unpacks and runs on Linux:
#   NAME/suzent-desktop, NAME/_internal/   the app (run ./suzent-desktop, or ./suzent-desktop gui)
#   NAME/install.sh                        puts the desktop entry, the icon and a launcher in the user's XDG folders
#   NAME/suzent-desktop.desktop            the desktop entry (install.sh writes the app's path into it)
#   NAME/suzent-desktop.svg                the icon, from suzent_desktop/resources/icons
#   NAME/README.txt
# where NAME is the archive's file name without .tar.gz.
#   packaging/linux/make_archive.sh DIST_DIR ARCHIVE.tar.gz
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: packaging/linux/make_archive.sh DIST_DIR ARCHIVE.tar.gz" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dist="$(cd "$1" && pwd)"
archive="$2"
name="$(basename "$archive" .tar.gz)"
[[ -x "$dist/suzent-desktop" ]] || { echo "no app in $dist (build it with packaging/build.sh)" >&2; exit 1; }

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
cp -a "$dist" "$stage/$name"
install -m 755 "$here/install.sh" "$stage/$name/install.sh"
install -m 644 "$root/packaging/suzent-desktop.desktop" "$stage/$name/suzent-desktop.desktop"
install -m 644 "$root/suzent_desktop/resources/icons/suzent.svg" "$stage/$name/suzent-desktop.svg"
install -m 644 "$here/README.txt" "$stage/$name/README.txt"
# Owner and dates fixed, names sorted: the same build packs to the same archive.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@${SOURCE_DATE_EPOCH:-0}" \
    -C "$stage" -cf - "$name" | gzip -n -6 > "$archive"
echo "archive: $archive ($(du -h "$archive" | cut -f1); $(du -sh "$stage/$name" | cut -f1) unpacked)"
