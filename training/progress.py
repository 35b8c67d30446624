"""What a trainer shows while it runs: a tqdm bar and TensorBoard scalars, in one object.

``Progress(total, start, log_dir, enabled)``: ``update(n)`` moves the bar (steps, steps per
second and the time left are tqdm's own), ``scalars(step, **values)`` writes TensorBoard
scalars under their names (``"loss/q"``...) and shows the latest few on the bar,
``evaluation(text)`` keeps the last evaluation's figure on the bar until the next one,
``close()`` flushes. TensorBoard files go to ``log_dir`` (read them with
``tensorboard --logdir <run-dir>/tb``); without the ``tensorboard`` package only the bar is
shown.

The bar is drawn only on a terminal: with ``enabled=False`` (a ``--quiet`` flag) or when
standard error is not a terminal (a log file, CI, a test's captured output) it is off and
:meth:`Progress.write` prints plain lines, so a log holds lines rather than bar redraws.

:func:`sb3_callback` is the same bar for a stable-baselines3 ``learn()`` (``callback=``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

__all__ = ["Progress", "bar_wanted", "sb3_callback"]


def bar_wanted(enabled: bool = True, stream: TextIO | None = None) -> bool:
    """Whether to draw a bar: ``enabled`` (not ``--quiet``) and ``stream`` (standard error,
    where tqdm draws) a terminal."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    return bool(enabled and isatty is not None and isatty())


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
            disable=not bar_wanted(enabled),
            desc=desc,
            unit=unit,
            unit_scale=True,
            dynamic_ncols=True,
            mininterval=1.0,
        )
        self.writer: Any = None
        if log_dir is not None:
            self.log_to(log_dir)
        self._shown: dict[str, str] = {}

    def log_to(self, log_dir: str | Path) -> None:
        """Write the scalars to TensorBoard in ``log_dir`` from now on (when tensorboard is
        installed; the bar alone otherwise): for a run whose folder is known only once its
        library has made it."""
        try:
            from torch.utils.tensorboard import SummaryWriter  # train extra: tensorboard
        except ImportError:  # tensorboard not installed: the bar alone
            return
        self.writer = SummaryWriter(str(log_dir))

    @property
    def drawn(self) -> bool:
        """Whether the bar is drawn (a terminal, not ``--quiet``)."""
        return not self.bar.disable

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

    def evaluation(self, text: str) -> None:
        """Show ``text`` (the last evaluation's figure, e.g. ``"simple -12.3"``) on the bar
        until the next evaluation."""
        self._shown["eval"] = text
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


def sb3_callback(progress: Progress) -> Any:
    """A stable-baselines3 callback that moves ``progress`` by the timesteps of each
    ``learn()`` step (SB3 writes its own TensorBoard scalars, ``tensorboard_log=``). Needs
    the ``train`` extra."""
    from stable_baselines3.common.callbacks import BaseCallback  # train extra

    class _ProgressCallback(BaseCallback):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.last = 0

        def _on_training_start(self) -> None:
            self.last = self.model.num_timesteps

        def _on_step(self) -> bool:
            n = self.model.num_timesteps
            progress.update(n - self.last)
            self.last = n
            return True

    return _ProgressCallback()
