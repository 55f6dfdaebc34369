"""One dream at a time across the devices that share a home.

Two devices dreaming at once would consolidate the same batch twice and race on the
watermark in ``log.md``. Before a batch the runner takes a *lease*: a small file in the vault,
``.state/dream-lease/DEVICE.json`` = ``{"device", "start", "expiry", "watermark", "released"}``
(times in seconds since the epoch, so device clocks must roughly agree, as any sync tool
needs). Each device writes only its own file, so the sync tool never has two sides of one.

* **Taking it**: a device that sees another device's live lease (not released, not expired)
  waits. So does one that sees another device released its lease with a watermark later
  than its own ``log.md`` shows: that ``log.md`` has not arrived yet. Otherwise it writes its
  lease, and, when other devices are registered, waits ``settle`` seconds for the sync tool to
  bring a rival's lease taken at the same moment. Ties are broken the same way on every
  device: of two live leases the earlier start (then the smaller id) wins, and only the
  device whose lease comes later backs off (a rival's later lease is not a reason to wait:
  that rival is backing off), so exactly one of two devices that start together dreams.
* **Registration cannot race**: every device writes its lease, even one that believes it is
  alone in the home. A device that joins by sync registers in its own copy first, and the
  others learn of it only when its registration arrives; until then the lone device's lease
  file is what the newcomer sees, and the newcomer's lease is what the lone device checks
  before it moves the watermark (the later of two live leases rolls its run back).
* **Holding it**: the runner renews it (a third of the lease time) while the batch runs, and
  checks it is still held before moving the watermark.
* **A dead device** (killed, switched off mid-run) leaves its lease unreleased; it expires
  after ``memory_consolidation_lease_seconds`` and the other devices go on.
* **Releasing it** writes ``released`` with the watermark the run left, which tells the other
  devices what their ``log.md`` must show before they may dream.

A home with one registered device takes the lease without the settle wait.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from suzent_desktop.core.engines.dream.model import DreamResult
from suzent_desktop.core.files.disk.atomic import atomic_write_text
from suzent_desktop.core.files.disk.text_hygiene import loads_json
from suzent_desktop.core.files.events import ChangeSet
from suzent_desktop.core.files.sync import devices
from suzent_desktop.core.files.sync.streams import parse_part

Now = Callable[[], float]
REPLAN = "re-planned:"  # a run's reason starting so was rolled back because the watermark moved under it
HINT_HOURS = 24  # a released lease's watermark is waited for this long; then the sync is presumed lost


@dataclass(frozen=True)
class Lease:
    device: str
    start: float
    expiry: float
    watermark: str | None = None
    released: bool = False

    def live(self, now: float) -> bool:
        return not self.released and self.expiry > now

    @property
    def order(self) -> tuple[float, str]:
        return self.start, self.device


def read_leases(folder: Path) -> dict[str, Lease]:
    """Every device's lease (a conflict copy of one counts too: the later expiry wins)."""
    found: dict[str, Lease] = {}
    if not folder.is_dir():
        return found
    for entry in folder.iterdir():
        part = parse_part(entry.name, ".json")
        if part is None or not entry.is_file():
            continue
        try:
            data = loads_json(entry.read_text(encoding="utf-8"))
            lease = Lease(str(data["device"]), float(data["start"]), float(data["expiry"]),
                          data.get("watermark") if isinstance(data.get("watermark"), str) else None,
                          bool(data.get("released")))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # half-synced or hand-broken: ignored, as an expired lease would be
        if lease.device != part.base:
            continue
        known = found.get(lease.device)
        if known is None or (lease.expiry, lease.start) > (known.expiry, known.start):
            found[lease.device] = lease
    return found


class DreamLease:
    """This device's side of the protocol, for one runner."""

    def __init__(self, folder: Path, device: str, *, seconds: float, settle: float, rivals_possible: Callable[[], bool],
                 now: Now = time.time) -> None:
        self.folder = folder
        self.device = device or "this-device"
        self.seconds = max(1.0, float(seconds))
        self.settle = max(0.0, float(settle))
        self.rivals_possible = rivals_possible
        self.now = now
        self.held: Lease | None = None
        self._renewer: asyncio.Task[None] | None = None

    @property
    def path(self) -> Path:
        return self.folder / f"{self.device}.json"

    def _write(self, lease: Lease) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, json.dumps(asdict(lease)) + "\n")

    def shared(self) -> bool:
        """Whether another device registered in this home (a new lease then waits ``settle`` seconds)."""
        return self.rivals_possible()

    def _others(self) -> list[Lease]:
        return [lease for device, lease in read_leases(self.folder).items() if device != self.device]

    def blocker(self, watermark: str | None, mine: Lease | None = None) -> str:
        """Why this device may not dream now ('' when it may). With ``mine`` (this device's lease,
        written), a rival's live lease that comes after it in the tie order does not count."""
        now = self.now()
        for lease in sorted(self._others(), key=lambda lease: lease.order):
            if lease.live(now) and (mine is None or lease.order < mine.order):
                return (f"device {lease.device} is consolidating (its lease runs until "
                        f"{time.strftime('%H:%M:%S', time.localtime(lease.expiry))}); this device waits")
            fresh = now - lease.expiry < HINT_HOURS * 3600
            if fresh and lease.watermark is not None and (watermark is None or lease.watermark > watermark):
                return (f"device {lease.device} consolidated up to {lease.watermark}, but this device's log.md "
                        f"shows {watermark or 'no watermark'}: waiting for the sync tool to bring it")
        return ""

    async def take(self, watermark: str | None) -> str:
        """Take the lease: '' when held, else why not (the caller reports it and waits)."""
        why = self.blocker(watermark)
        if why:
            return why
        now = self.now()
        mine = Lease(self.device, now, now + self.seconds, watermark)
        self.held = mine
        self._write(mine)  # always: a device whose registration has not reached us yet sees it
        if self.settle > 0 and self.rivals_possible():
            await asyncio.sleep(self.settle)
            why = self.blocker(watermark, mine)
            if why:
                self.release(None)
                return why
        self._stop_renewing()
        self._renewer = asyncio.ensure_future(self._renew_while_held())
        return ""

    async def _renew_while_held(self) -> None:
        while self.held is not None:
            await asyncio.sleep(self.seconds / 3)
            if self.held is not None:
                self.renew()

    def renew(self) -> None:
        """Push the expiry on (the run is still going)."""
        if self.held is not None:
            self.held = Lease(self.device, self.held.start, self.now() + self.seconds, self.held.watermark)
            self._write(self.held)

    def still_held(self) -> bool:
        """Held, not expired, and no other device holds an earlier live lease."""
        held = self.held
        if held is None:
            return False
        now = self.now()
        on_disk = read_leases(self.folder).get(self.device)
        if on_disk is None or on_disk.start != held.start or not on_disk.live(now):
            return False
        return not any(lease.live(now) and lease.order < held.order for lease in self._others())

    def release(self, watermark: str | None | Callable[[], str | None]) -> None:
        """Give the lease up, telling the other devices which watermark this device left
        (``watermark`` may be a function, read only when a lease is held)."""
        self._stop_renewing()
        if self.held is None:
            return
        mark = watermark() if callable(watermark) else watermark
        self._write(Lease(self.device, self.held.start, self.now(), mark, released=True))
        self.held = None

    def _stop_renewing(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            self._renewer = None


def moved_under(lease: DreamLease, planned: str | None, days: Callable[[], object]) -> str:
    """Why a finished run must not move the watermark ('' when it may): the lease was lost,
    or the watermark moved since the batch was planned (another device's ``log.md`` arrived)."""
    if lease.held is not None and not lease.still_held():
        return f"{REPLAN} this device's dream lease expired or was taken over during the run; its pages were rolled back"
    now = getattr(days(), "watermark", planned)
    if now != planned:
        return (f"{REPLAN} the watermark moved from {planned or 'none'} to {now or 'none'} during the run "
                "(another device's consolidation arrived); its pages were rolled back")
    return ""


async def replanned(tools: Any, root: Path, dates: list[str], watermark: str | None, why: str) -> DreamResult:
    """A run whose watermark moved under it: its pages rolled back, and a result that makes the
    runner plan again (``why`` starts with :data:`REPLAN`)."""
    restored = await asyncio.to_thread(tools.rollback)
    return DreamResult("gated", batch=dates, watermark=watermark, reason=why,
                       changes=ChangeSet(pages={root / r for r in restored}))


def for_home(layout, settings) -> DreamLease:
    """The lease of the device ``layout`` names; rivals are possible once another device registered,
    or once another device's lease arrived (its registration may come later)."""
    def rivals() -> bool:
        return (any(d.id != layout.device for d in devices.registry(layout.state_dir))
                or any(device != layout.device for device in read_leases(layout.lease_dir)))

    return DreamLease(layout.lease_dir, layout.device, seconds=settings.memory_consolidation_lease_seconds,
                      settle=settings.memory_consolidation_lease_settle_seconds, rivals_possible=rivals)
