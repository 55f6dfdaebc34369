"""Vault tools for the consolidation engines, confined to one vault folder.

Both engines (the LLM agent and the offline consolidator) touch the vault only through
:class:`VaultTools`. Every path is vault-relative and checked: ``..``, absolute paths and
symlinks that resolve outside the vault are refused. A write is checked twice, as spelled
and where it resolves, so no link can reach the root navigation files (``log.md`` holds the
watermark and belongs to the runner; ``index.md`` has its own entry point; ``schema.md``),
hidden folders such as ``.state/`` or ``4_Assets/``. Writes are atomic. Once the runner
:meth:`close`\\ s the tools (timeout, cancel) no further write can land, so a rollback
cannot race a worker thread that is still running.

A model changes existing pages only through the edits of :mod:`page_edits` (add, supersede,
merge, create, rename), which never erase a line a person wrote; every line a write takes off
a page is logged with the operation that took it (:attr:`VaultTools.removed_lines`).
"""

from __future__ import annotations

import builtins  # VaultTools.list hides the built-in list inside the class
import json
import re
import threading
import unicodedata
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from suzent_desktop.core.engines.dream.guards import bullet_dates, lookalikes, page_edits
from suzent_desktop.core.engines.dream.guards.authorship import line_digest
from suzent_desktop.core.engines.forgetting import find_forgotten
from suzent_desktop.core.files.disk.atomic import atomic_write_bytes, atomic_write_text
from suzent_desktop.core.files.disk.confine import Confinement
from suzent_desktop.core.files.disk.faults import crash_point
from suzent_desktop.core.files.disk.regular import read_regular
from suzent_desktop.core.files.disk.text_hygiene import clean, loads_json
from suzent_desktop.core.files.paths.layout import (
    ASSETS_ZONE,
    INDEX_MD,
    PERSONAL_ZONE,
    ROOT_NAV_FILES,
    SCHEMA_MD,
)
from suzent_desktop.core.vault.forgotten import Forgotten
from suzent_desktop.core.vault.links import VaultIndex, vault_files
from suzent_desktop.core.vault.model import Vault
from suzent_desktop.core.vault.vault_ops import depth_fault, shorten

READ_LIMIT_CHARS = 60_000
# File systems allow 255 bytes per name, and an atomic write's temp file adds about 20.
MAX_NAME_BYTES = 200
SEARCH_LIMIT = 8
MAX_CALL_KB = 256  # default size limit of one tool call's arguments (memory_consolidation_max_write_kb)
ACCOUNT_HOWS = ("merged", "superseded", "dropped")
MIN_REASON_LETTERS = 8  # a dropped fact's reason: at least two words and this many letters


def readable_reason(reason: str, fact: str = "") -> bool:
    """A reason a person can read in the run's history: words, not a mark or the fact said again."""
    words = [w for w in reason.split() if any(c.isalpha() for c in w)]
    letters = sum(c.isalpha() for c in reason)
    return len(words) >= 2 and letters >= MIN_REASON_LETTERS and " ".join(reason.lower().split()) != " ".join(
        fact.lower().split())


class VaultAccessError(PermissionError):
    """A tool call tried to leave the vault or write where engines may not write."""


class UnreadablePage(ValueError):
    """A page that is not valid UTF-8: engines neither read a guess of it nor overwrite it."""


def decode_page(relative: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadablePage(
            f"{relative}: not valid UTF-8 (byte {exc.start}); left untouched, fix its encoding to let engines edit it"
        ) from exc


class PageChangedError(ValueError):
    """A page changed on disk since the engine read it: it is not overwritten."""


class ToolsClosed(RuntimeError):
    """The run was stopped; the tools accept no more writes."""


@dataclass(frozen=True)
class Accounting:
    """What an engine says it did with a fact that it did not write onto a page as such."""

    fact: str
    how: str  # one of ACCOUNT_HOWS
    page: str = ""  # vault-relative page (merged, superseded)
    bullet: str = ""  # the bullet the fact went into (merged) or its struck-through line under History (superseded)
    reason: str = ""  # why (required for dropped)


class VaultTools:
    def __init__(
        self,
        root: Path,
        *,
        memory_search: Callable[[str], Awaitable[list[dict[str, Any]]]] | None = None,
        max_call_kb: int = MAX_CALL_KB,
        index_name: str = INDEX_MD,
        schema_name: str = SCHEMA_MD,
        reserved: frozenset[str] = ROOT_NAV_FILES,
        confinement: Confinement | None = None,
        forgotten: Iterable[str] = (),
        authored: Mapping[str, frozenset[str]] | None = None,
        app_prefix: str = "",
        vault: Vault | None = None,
    ) -> None:
        """``index_name``/``schema_name`` are the program's own files, vault-relative (Layout
        resolves them: a user's own index.md moves the program's to another name); ``reserved``
        vault-relative paths are never written through :meth:`write`; ``authored`` is the record
        of the lines earlier runs wrote (:mod:`~suzent_desktop.core.engines.dream.guards.authorship`).
        ``app_prefix`` is the app's folder in a vault that held notes before (``"Memory/"``):
        writes stay inside it. ``vault``: the home's model when ``root`` is its vault (names are
        asked of it and every write is told to it); a scratch copy walks for its names."""
        self.root = Path(root)
        self._vault = vault
        self.max_call_bytes = max(1, int(max_call_kb)) * 1024
        # Facts the engine accounted for without writing them as such (see dream/guards/coverage.py).
        self.accounted: list[Accounting] = []
        self.index_name = index_name
        self.schema_name = schema_name
        self.reserved = frozenset(name.lower() for name in reserved)
        self.app_prefix = app_prefix
        self.personal_zone = app_prefix + PERSONAL_ZONE
        self._real_root = self.root.resolve()
        # What may be read or listed (core/files/disk/confine.py): by resolved path, never a program folder.
        self.confinement = confinement or Confinement.of(self.root)
        # Tombstones: text the model is never shown and never lands on a page (core/files/records/tombstones.py).
        self.forgotten = Forgotten.of(forgotten)
        self.forgotten_taken_out = 0  # lines of forgotten text taken out of writes, for the run's record
        self._memory_search = memory_search
        self._lock = threading.Lock()
        self._closed = False
        self.written: set[str] = set()
        # Bytes of each file before this run first wrote it (None: the run created it). This
        # journal is what a rollback restores and what "did a page change?" is judged by.
        self.originals: dict[str, bytes | None] = {}
        self.authored = dict(authored or {})
        self.removed_lines: list[page_edits.RemovedLine] = []
        self._original_lines: dict[str, frozenset[str] | None] = {}  # lines of originals, for owns()
        # The bytes of each page as this run last read or wrote it: a page whose bytes differ
        # by the next write (a sync tool brought another device's edit) is never overwritten.
        self._known: dict[str, bytes] = {}
        self.left_alone: list[str] = []  # files a rollback did not restore (changed by someone else since)
        self.made_folders: list[Path] = []  # folders this run's writes made: a rollback removes them again
        # (first, last): the dates a bullet may newly carry (the batch's facts' days up to today);
        # None: any (:mod:`~suzent_desktop.core.engines.dream.guards.bullet_dates`). The runner sets it.
        self.dates: tuple[str, str] | None = None


    # -- path checks -------------------------------------------------------------------
    def resolve(self, relative: str, *, write: bool = False) -> Path:
        """The absolute path of a vault-relative path, or VaultAccessError.

        A write is judged by where the path *resolves*, not by how it is spelled: a folder
        link ``3_Personal/root -> ..`` makes ``3_Personal/root/log.md`` the vault's own
        ``log.md``, and a link into ``.state`` makes any name under it a program file. For a
        write the resolved path is returned, so the journal and the rollback name the file
        that really changed.
        """
        if not isinstance(relative, str) or not relative.strip():
            raise VaultAccessError("a vault-relative path is required")
        text = relative.strip().replace("\\", "/")
        pure = PurePosixPath(text)
        if pure.is_absolute() or re.match(r"^[A-Za-z]:", text):
            raise VaultAccessError(f"{relative}: absolute paths are not allowed; use a path inside the vault")
        if any(part == ".." for part in pure.parts):
            raise VaultAccessError(f"{relative}: '..' is not allowed; paths stay inside the vault")
        parts = [p for p in pure.parts if p not in ("", ".")]
        fault = depth_fault(parts)
        if fault is not None:  # before any library call that recurses per level (mkdir, resolve)
            raise VaultAccessError(f"{shorten(text)}: {fault}")
        parts = self._composed(parts)
        candidate = self.root.joinpath(*parts) if parts else self.root
        if not write:
            reason = self.confinement.refusal(candidate)
            if reason is not None:
                raise VaultAccessError(f"{relative}: {reason}")
            return candidate
        real = self._real(candidate, relative)
        if write:
            self._check_writable(parts, relative)
            self._check_writable(list(real.relative_to(self._real_root).parts), relative, resolved=True)
            return real
        return candidate

    def _composed(self, parts: list[str]) -> list[str]:
        """``parts`` in composed Unicode form (NFC), unless the disk holds them as spelled: a name in
        decomposed form reaches the page ``Café``, not a second page that looks the same."""
        composed = [unicodedata.normalize("NFC", part) for part in parts]
        if composed == parts:
            return parts
        try:
            return parts if self.root.joinpath(*parts).exists() else composed
        except OSError:  # a name too long to look up: the checks that follow name it
            return composed

    def _real(self, candidate: Path, relative: str) -> Path:
        """Where ``candidate`` resolves; VaultAccessError when outside the vault or unresolvable."""
        try:
            real = candidate.resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop, an unreadable folder
            raise VaultAccessError(f"{relative}: cannot be resolved ({exc})") from exc
        if real != self._real_root and self._real_root not in real.parents:
            raise VaultAccessError(f"{relative}: resolves outside the vault")
        return real

    def _check_writable(self, parts: list[str], relative: str, *, resolved: bool = False) -> None:
        via = " (through a link)" if resolved else ""
        if not parts:
            raise VaultAccessError(f"{relative}: not a file")
        if any(p.startswith(".") for p in parts):
            raise VaultAccessError(f"{relative}: hidden folders such as .state/ belong to the program{via}")
        rel = "/".join(parts)
        if rel.lower() in self.reserved:
            raise VaultAccessError(f"{relative}: {parts[-1]} is kept by the program and cannot be written{via}")
        if self.app_prefix and not rel.startswith(self.app_prefix):
            raise VaultAccessError(f"{relative}: in a vault of your own notes the app writes only under "
                                   f"{self.app_prefix}{via}")
        if rel.startswith(self.app_prefix + ASSETS_ZONE + "/"):
            raise VaultAccessError(f"{relative}: {ASSETS_ZONE}/ holds attachments and is never edited{via}")
        if not parts[-1].lower().endswith(".md"):
            raise VaultAccessError(f"{relative}: only markdown pages (.md) can be written{via}")
        long = next((p for p in parts if len(p.encode("utf-8")) > MAX_NAME_BYTES), None)
        if long is not None:
            raise VaultAccessError(
                f"{relative}: the name {long[:40]}… is {len(long.encode('utf-8'))} bytes; "
                f"file and folder names may have at most {MAX_NAME_BYTES}"
            )

    def relative(self, path: Path) -> str:
        """Vault-relative name of a resolved path (journal keys) or of a path as spelled."""
        try:
            return path.relative_to(self._real_root).as_posix()
        except ValueError:
            return path.relative_to(self.root).as_posix()

    # -- lifecycle ---------------------------------------------------------------------
    def close(self) -> None:
        """Refuse all further writes; waits for a write in progress to finish."""
        with self._lock:
            self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    # -- file operations (blocking; engines call them from a worker thread) -------------
    def list(self, folder: str = "") -> list[str]:
        """Markdown pages and the folders holding them under ``folder``, as the confinement rule
        allows: links out of the vault, into program folders and loops are not listed."""
        base = self.resolve(folder) if folder.strip() else self.root
        if not base.is_dir():
            raise FileNotFoundError(f"{folder}: no such folder in the vault")
        found: set[str] = set()
        for path in self._files_under(base):
            if path.suffix.lower() != ".md":
                continue
            rel = path.relative_to(self.root)
            found.add(rel.as_posix())
            found.update(parent.as_posix() + "/" for parent in rel.parents
                         if parent != Path(".") and self.root / parent != base and base in (self.root / parent).parents)
        return sorted(found)

    def _files_under(self, base: Path) -> Iterable[Path]:
        """The files under ``base``: from the vault model when the tools have one that follows the same
        links out of the vault as they do (it lists what its confinement rule allows, and hears of every
        write), else from the disk (a dry run's copy, or tools stricter than the home's rule)."""
        vault = self._vault
        if vault is not None and base.is_relative_to(self.root) and self._same_rule(vault):
            return vault.snapshot(parsed=False, names=False).files_under(base)
        return vault_files(base, self.confinement)

    def _same_rule(self, vault: Vault) -> bool:
        return tuple(self.confinement.outside) == tuple(vault.layout.confinement.outside)

    def read(self, relative: str) -> str:
        path = self.resolve(relative)
        if not path.is_file():
            raise FileNotFoundError(f"{relative}: no such page")
        data = read_regular(path)
        text = decode_page(relative, data)
        try:
            self._known[self.relative(path.resolve())] = data
        except (OSError, ValueError):
            pass
        return text

    def read_for_model(self, relative: str) -> str:
        """A page as a model may see it: without lines holding forgotten text."""
        return self.forgotten.take_out(self.read(relative))[0]

    def exists(self, relative: str) -> bool:
        return self.resolve(relative).is_file()

    def write(self, relative: str, text: str, *, operation: str = "write") -> None:
        """Write a whole page (the engines' one way to change a page); ``operation`` names what
        the lines it takes off are logged under."""
        # The resolved target: a link to another page of the vault writes the page it points to
        # (keeping the link itself intact), and the journal names the file that changes.
        path = self.resolve(relative, write=True)
        before = ""
        if path.is_file():
            before = decode_page(relative, read_regular(path))  # never replace a page nobody could read
        elif not path.exists():
            self._check_new_name(relative, path)
        else:  # a folder, a FIFO, a socket: never replaced by a page
            raise VaultAccessError(f"{relative}: there is something here that is not a page; it is left as it is")
        # Forgotten text inside a longer line goes now; a whole forgotten item or paragraph is left
        # for the runner's clean-up, which records it so undo forget can put it back.
        exact = find_forgotten(text, self.forgotten, whole=True)
        text, taken = self.forgotten.take_out(text, keep=exact)
        text = clean(text)
        if self.dates:  # judged without the forgotten lines the runner's clean-up takes off anyway
            read = (data.decode("utf-8", "replace") for data in self._known.values())
            kept = self.forgotten.take_out(text)[0] if exact else text
            wrong = bullet_dates.refusal(relative, [before, *read], kept, *self.dates)
            if wrong:
                raise ValueError(wrong)
        with self._lock:
            if self._closed:
                raise ToolsClosed("the run was stopped; no more writes")
            self._check_unchanged(relative, path)
            self._journal(path)
            self._note_new_folders(path.parent)
            atomic_write_text(path, text)
            rel = self.relative(path)
            self._known[rel] = read_regular(path)
            self.written.add(rel)
            self.forgotten_taken_out += taken
            self.removed_lines += [page_edits.RemovedLine(rel, line, operation)
                                   for line in page_edits.removed_lines(before, text)]
            self._tell_vault(rel)
        crash_point("dream.after_page_write")

    def owns(self, relative: str, line: str) -> bool:
        """Whether the program wrote this line of the page: this run added it, or an earlier run's
        record holds it (:mod:`~suzent_desktop.core.engines.dream.guards.authorship`). Any other line is a person's."""
        rel = self.relative(self.resolve(relative))
        if line_digest(line) in self.authored.get(rel, frozenset()):
            return True
        if rel not in self.originals:
            return False
        if rel not in self._original_lines:
            old = self.originals[rel]
            self._original_lines[rel] = None if old is None else frozenset(
                x.rstrip() for x in old.decode("utf-8-sig", "replace").splitlines())
        before = self._original_lines[rel]
        return before is None or line.rstrip() not in before

    def note_own_write(self, path: Path) -> None:
        """The run itself rewrote ``path`` outside :meth:`write` (the forgotten-text scrub): its new
        bytes are the run's own, so a rollback still restores the page."""
        rel = self.relative(path)
        if rel in self._known and path.is_file():
            self._known[rel] = read_regular(path)

    def _check_unchanged(self, relative: str, path: Path) -> None:
        """Refuse to overwrite a page whose bytes changed since this run read or wrote it."""
        known = self._known.get(self.relative(path))
        if known is None:
            return
        current = read_regular(path) if path.is_file() else None
        if current != known:
            raise PageChangedError(
                f"{relative}: changed on disk since it was read (another device's edit arrived, or an editor "
                "saved it); it is left as it is: read it again before writing"
            )

    def _check_new_name(self, relative: str, path: Path) -> None:
        """A new page may not take a name a file elsewhere answers to: the user's ``[[Work]]``
        must keep opening their own ``Work`` page, not the engine's new one; nor a name a reader
        cannot tell from another (:mod:`~suzent_desktop.core.engines.dream.guards.lookalikes`)."""
        parts = PurePosixPath(self.relative(path)).parts
        new = "/".join(p for i, p in enumerate(parts) if not self._real_root.joinpath(*parts[: i + 1]).exists())
        why = lookalikes.refusal(new)
        if why is not None:
            raise VaultAccessError(f"{relative}: {why}")
        index = self.names()
        twin = lookalikes.twin(path.stem, index.by_name)
        if twin is not None:
            where = ", ".join(index.rel(p) for p in index.by_name[twin])
            raise VaultAccessError(f"{relative}: {where} has a name that reads the same; write to it, or choose "
                                   "a name that differs in its letters, not only in how they are encoded")
        if index.name_taken(path.stem):
            other = index.resolve(path.stem, path)
            where = index.rel(other) if other is not None else path.stem
            raise VaultAccessError(
                f"{relative}: {where} already answers to [[{path.stem}]]; a new page with that name would "
                f"change where existing links lead. Write to {where} or choose a more specific name, "
                f"such as '{path.stem} ({path.parent.name.split('_', 1)[-1]})'"
            )

    def write_index(self, text: str) -> None:
        """index.md is a root navigation file that engines keep; it has its own entry point.

        Only the vault's own index.md: a link named index.md that resolves anywhere else is refused.
        """
        name = self.index_name
        path = self._real(self.root / name, name)
        if path != self._real_root / name:
            raise VaultAccessError(f"{name}: is a link to {self.relative(path)}; it is left as it is")
        with self._lock:
            if self._closed:
                raise ToolsClosed("the run was stopped; no more writes")
            self._journal(path)
            atomic_write_text(path, clean(text))
            self.written.add(name)
            self._tell_vault(name)

    def names(self) -> VaultIndex:
        """Every file's name and path, for resolving links and checking a new page's name (read-only)."""
        if self._vault is not None:
            return self._vault.snapshot(parsed=False).index
        return VaultIndex.scan(self.root, self.confinement)

    def _tell_vault(self, *relatives: str) -> None:
        if self._vault is not None:
            self._vault.apply([self.root / rel for rel in relatives])

    def _journal(self, path: Path) -> None:
        rel = self.relative(path)
        if rel not in self.originals:
            self.originals[rel] = read_regular(path) if path.is_file() else None

    def _note_new_folders(self, folder: Path) -> None:
        """Record the folders a write is about to make (deepest first), so a rollback removes them."""
        made: list[Path] = []
        while folder != self._real_root and not folder.exists() and self._real_root in folder.parents:
            made.append(folder)
            folder = folder.parent
        self.made_folders += [f for f in made if f not in self.made_folders]

    def _remove_made_folders(self) -> None:
        """The folders this run made, once the rollback left them empty (a folder with anything in it stays)."""
        for folder in sorted(self.made_folders, key=lambda f: len(f.parts), reverse=True):
            try:
                folder.rmdir()
            except OSError:  # not empty (someone's file arrived meanwhile), or gone already
                continue

    def changed_files(self) -> builtins.list[str]:
        """Files this run wrote whose bytes now differ from before the run."""
        changed: builtins.list[str] = []
        for rel, old in sorted(self.originals.items()):
            path = self._real_root / rel
            current = read_regular(path) if path.is_file() else None
            if current != old:
                changed.append(rel)
        return changed

    def rollback(self) -> builtins.list[str]:
        """Put every file this run wrote back to its bytes before the run; returns what was restored.

        A file whose bytes are no longer what the run wrote (another device's edit arrived) is
        left as it is: restoring it would overwrite that edit.
        """
        self.close()
        restored: builtins.list[str] = []
        for rel in self.changed_files():
            old = self.originals[rel]
            path = self._real_root / rel
            current = read_regular(path) if path.is_file() else None
            if rel in self._known and current != self._known[rel]:
                self.left_alone.append(rel)
                continue
            if old is None:
                path.unlink(missing_ok=True)
            else:
                atomic_write_bytes(path, old)
            restored.append(rel)
        self._remove_made_folders()
        self._tell_vault(*restored)
        return restored

    def account(self, account: Accounting) -> str:
        """Record what became of a fact that is not on a page as written; the runner checks it."""
        if account.how not in ACCOUNT_HOWS:
            raise ValueError(f"how must be one of {', '.join(ACCOUNT_HOWS)}, not {account.how!r}")
        if not account.fact.strip():
            raise ValueError("fact is required: the fact's text as listed in the batch")
        if account.how == "dropped" and not readable_reason(account.reason, account.fact):
            raise ValueError("a dropped fact needs a reason a person can read in the run's history (a few words "
                             "saying why it is not worth keeping); it stays in search until the person agrees")
        if account.how != "dropped" and not account.page.strip():
            raise ValueError(f"a {account.how} fact needs the page that holds it")
        if account.how == "merged" and not account.bullet.strip():
            raise ValueError("a merged fact needs the bullet it was merged into")
        self.accounted.append(account)
        return f"ok: {account.how}"

    def search_notebook(self, query: str, limit: int = SEARCH_LIMIT) -> builtins.list[dict[str, Any]]:
        """Pages whose lines share the most words with the query (plain text; no index needed)."""
        words = {w for w in re.findall(r"\w+", query.lower()) if len(w) > 2}
        if not words:
            return []
        scored: list[tuple[int, str, int, str]] = []
        for rel in self.list(""):
            if rel.endswith("/"):
                continue
            try:
                text = self.read_for_model(rel)
            except (UnreadablePage, OSError):  # one bad file never ends a search of the others
                continue
            for number, line in enumerate(text.splitlines(), start=1):
                score = len(words & set(re.findall(r"\w+", line.lower())))
                if score:
                    scored.append((score, rel, number, line.strip()))
        scored.sort(key=lambda item: (-item[0], item[1], item[2]))
        return [{"path": rel, "line": number, "text": line} for _score, rel, number, line in scored[:limit]]

    def _taken_note(self, before: int) -> str:
        taken = self.forgotten_taken_out - before
        return f"; {taken} line(s) holding text the user asked to forget were left out" if taken else ""

    # -- tool-calling surface -------------------------------------------------------------
    def size_error(self, arguments: str | dict[str, Any]) -> str:
        """The error a call over memory_consolidation_max_write_kb gets ('' when it fits): such a
        call is never run, and its bytes are not worth parsing."""
        size = len(arguments.encode("utf-8", errors="replace")) if isinstance(arguments, str) else len(
            json.dumps(arguments or {}, ensure_ascii=False).encode("utf-8", errors="replace"))
        if size <= self.max_call_bytes:
            return ""
        return (f"error: this call's arguments are {size // 1024} KB; a tool call may carry at most "
                f"{self.max_call_bytes // 1024} KB (memory_consolidation_max_write_kb). Write smaller "
                "pages, or change a page with several edits")

    async def dispatch(self, name: str, arguments: str | dict[str, Any]) -> str:
        """Run one tool call from the model; failures come back as text the model can act on."""
        import asyncio

        refusal = self.size_error(arguments)
        if refusal:
            return refusal
        try:
            args = loads_json(arguments) if isinstance(arguments, str) else dict(arguments or {})
            if not isinstance(args, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            return f"error: arguments are not valid JSON: {exc}"
        try:
            if name == "list":
                return "\n".join(await asyncio.to_thread(self.list, str(args.get("folder", "")))) or "(empty)"
            if name == "read":
                text = await asyncio.to_thread(self.read_for_model, str(args["path"]))
                return text[:READ_LIMIT_CHARS]
            if name in page_edits.EDIT_TOOLS:
                before = self.forgotten_taken_out
                answer = await asyncio.to_thread(page_edits.run, self, name, args)
                return answer + self._taken_note(before)
            if name == "search_notebook":
                hits = await asyncio.to_thread(self.search_notebook, str(args["query"]))
                return json.dumps(hits, ensure_ascii=False) if hits else "no matches"
            if name == "account_for_fact":
                return self.account(Accounting(
                    str(args["fact"]), str(args["how"]).strip().lower(), str(args.get("page", "")),
                    str(args.get("bullet", "")), str(args.get("reason", "")),
                ))
            if name == "search_memory":
                if self._memory_search is None:
                    return "error: memory search is not available in this run"
                hits = await self._memory_search(str(args["query"]))
                return json.dumps(hits, ensure_ascii=False) if hits else "no matches"
        except KeyError as exc:
            return f"error: missing argument {exc}"
        except ToolsClosed:
            raise
        except (OSError, ValueError) as exc:
            return f"error: {exc}"
        return f"error: unknown tool {name!r}"


TOOL_SPECS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "list",
            "description": "List markdown pages and folders under a vault folder ('' for the whole vault).",
            "parameters": {"type": "object", "properties": {"folder": {"type": "string"}}, "required": []},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read one page by its vault-relative path, e.g. 3_Personal/Work.md.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write",
            "description": (
                "Create a page, or replace a whole page the program wrote, keeping its bullets. Pages with "
                "lines a person wrote are changed with add_bullet / supersede_bullet instead. Not allowed: "
                "log.md, schema.md, .state/, 4_Assets/."
            ),
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "edit",
            "description": (
                "Replace one exact, unique piece of text in a page; it may not remove or reword a line a "
                "person wrote or a fact bullet."
            ),
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "old": {"type": "string"}, "new": {"type": "string"}},
                "required": ["path", "old", "new"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_notebook",
            "description": "Find lines in notebook pages sharing words with the query.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "account_for_fact",
            "description": (
                "Say what became of a batch fact that you did not write onto a page as it is: merged into an "
                "existing bullet that says the same and more (give page and that bullet), superseded by a newer "
                "value and standing struck through under the page's History (give page and the struck-through "
                "bullet), or dropped as trivial (give a reason the user can read; it stays searchable until the "
                "user agrees). Each account is checked against the page. A fact that is neither on a page nor "
                "accounted for stays pending and is offered again."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "fact": {"type": "string", "description": "the fact's text as listed in the batch"},
                    "how": {"type": "string", "enum": list(ACCOUNT_HOWS)},
                    "page": {"type": "string"},
                    "bullet": {"type": "string"},
                    "reason": {"type": "string"},
                },
                "required": ["fact", "how"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_memory",
            "description": "Search the memory index (notebook, core files, unconsolidated daily logs).",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        },
    },
    *page_edits.EDIT_TOOL_SPECS,
]
