"""Torch MLPs that are played in numpy: :func:`relu_mlp` builds one for fitting and
:func:`numpy_layers` exports it in the form :func:`agents.trained.mlp_forward` runs
(``activation="relu"``), so a fitted model needs no torch to be used.

Imported only where a model is fitted (torch is loaded with this module)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

__all__ = ["relu_mlp", "numpy_layers"]


def relu_mlp(sizes: Sequence[int]) -> nn.Sequential:
    """Linear layers ``sizes[0] -> sizes[1] -> ... -> sizes[-1]`` with ReLU between them
    (none after the last): the network :func:`agents.trained.mlp_forward` computes."""
    mods: list[nn.Module] = []
    for k in range(len(sizes) - 1):
        mods.append(nn.Linear(sizes[k], sizes[k + 1]))
        if k < len(sizes) - 2:
            mods.append(nn.ReLU())
    return nn.Sequential(*mods)


def numpy_layers(net: nn.Sequential) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``(weight, bias)`` of each linear layer of ``net`` (torch-shaped, copied)."""
    with torch.no_grad():
        return [
            (m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy())
            for m in net
            if isinstance(m, nn.Linear)
        ]
