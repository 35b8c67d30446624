"""The mask a policy samples from under TorchRL's ``PettingZooWrapper`` (``use_mask=True``).

The wrapper marks every action legal for a seat that is not to act (the env's own mask for
it is all zeros) and plays only the acting seat's action; its ``(group, "mask")`` says who
acts. A policy that sampled from the wrapper's mask as it stands would train on a made-up
move for every waiting seat. The TorchRL and BenchMARL examples both sample from
:func:`legal_or_wait`.
"""

from __future__ import annotations

import torch


def legal_or_wait(action_mask: torch.Tensor, to_act: torch.Tensor) -> torch.Tensor:
    """The seat's legal moves if it is to act (``to_act``, the wrapper's ``mask``), else
    action 0 alone: the env ignores it, and its log-probability is 0, so the seat's row adds
    nothing to a policy's gradient or its entropy."""
    only_first = torch.zeros_like(action_mask)
    only_first[..., 0] = True
    return torch.where(to_act.unsqueeze(-1), action_mask, only_first)
