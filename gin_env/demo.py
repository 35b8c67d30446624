"""``make demo``: a whole three-handed match between random players, printed hand by hand.

Run ``python -m gin_env.demo [--seed N] [--verbose]``; ``--verbose`` also prints every table.
"""

from __future__ import annotations

import argparse

import numpy as np

from gin_env import three_handed_gin_v0


def play(seed: int = 0, verbose: bool = False) -> list[int]:
    env = three_handed_gin_v0.env(render_mode="ansi")
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    print(f"Three-handed gin, seed {seed}. {raw.match.describe_roles()}")
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if verbose:
            print(env.render())
        if raw.infos[agent]["hand_over"]:
            rec = raw.match.history[-1] if raw.match.is_over else raw.match.history[-2]
            names = [raw.possible_agents[p] for p in rec.players]
            roles = ", ".join(f"{raw.possible_agents[p]} {raw.role_names[r]}"
                              for p, r in enumerate(rec.roles))  # fmt: skip
            assert rec.result is not None
            print(f"hand {rec.index + 1:3} [{roles}] {rec.result.describe(names)}")
            print(f"          scores {list(rec.scores_after)}")
    winner = raw.match.winner
    print(f"player_{winner} wins the match after {len(raw.match.history)} hands: "
          f"scores {raw.match.scores}")  # fmt: skip
    return raw.match.scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    play(args.seed, args.verbose)


if __name__ == "__main__":
    main()
