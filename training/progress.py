"""What a trainer shows while it runs: a tqdm bar and TensorBoard scalars, in one object.

``Progress(total, start, log_dir, enabled)``: ``update(n)`` moves the bar, ``scalars(step,
**values)`` writes TensorBoard scalars under their names (``"loss/q"``...) and shows the
latest few on the bar, ``close()`` flushes. TensorBoard files go to ``log_dir`` (read them
with ``tensorboard --logdir <run-dir>/tb``); without the ``tensorboard`` package only the
bar is shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tqdm import tqdm

__all__ = ["Progress"]


class Progress:
    def __init__(
        self,
        total: int,
        start: int = 0,
        log_dir: str | Path | None = None,
        enabled: bool = True,
        desc: str = "train",
        unit: str = "dec",
    ) -> None:

        self.bar = tqdm(
            total=total,
            initial=start,
            disable=not enabled,
            desc=desc,
            unit=unit,
            unit_scale=True,
            dynamic_ncols=True,
            mininterval=1.0,
        )
        self.writer: Any = None
        if log_dir is not None:
            try:
                from torch.utils.tensorboard import SummaryWriter  # train extra: tensorboard
            except ImportError:  # tensorboard not installed: the bar alone
                self.writer = None
            else:
                self.writer = SummaryWriter(str(log_dir))
        self._shown: dict[str, str] = {}

    def update(self, n: int) -> None:
        self.bar.update(n)

    def scalars(self, step: int, show: bool = True, **values: float) -> None:
        """Write ``values`` (tag -> number; ``__`` in a keyword becomes ``/``)."""
        for key, value in values.items():
            tag = key.replace("__", "/")
            if self.writer is not None:
                self.writer.add_scalar(tag, float(value), step)
            if show:
                self._shown[tag.split("/")[-1]] = f"{float(value):.4g}"
        if show and self._shown:
            self.bar.set_postfix(self._shown, refresh=False)

    def write(self, text: str) -> None:
        """A line above the bar (or on stdout when the bar is off)."""
        if self.bar.disable:
            print(text, flush=True)
        else:
            self.bar.write(text)

    def close(self) -> None:
        self.bar.close()
        if self.writer is not None:
            self.writer.flush()
            self.writer.close()
