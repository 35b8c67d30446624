"""Write the tutorial notebooks from the cells below, without outputs.

    python notebooks/build_notebooks.py

The notebooks are generated so they stay reviewable as code and are committed clean;
``tests/test_notebooks.py`` executes each one so they cannot rot. Budgets are tiny (each
notebook runs in well under a minute on two CPU cores); the text says how to scale them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

__all__ = ["NOTEBOOKS", "build"]

HERE = Path(__file__).resolve().parent

SETUP = """\
# Make the repository importable when the package is not pip-installed.
import sys
from pathlib import Path

root = Path.cwd().resolve()
root = root.parent if root.name == "notebooks" else root
if str(root) not in sys.path:
    sys.path.insert(0, str(root))"""

QUICKSTART = [
    new_markdown_cell(
        "# Quickstart: three-handed gin rummy as a PettingZoo environment\n\n"
        "Make the env, step it, read observations and action masks, and draw the table.\n"
        "The rules are in `docs/RULES.md`; the env's documentation page is the docstring of\n"
        "`gin_env.three_handed_gin_v0`."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "import numpy as np\n\n"
        "from gin_env import actions as A\n"
        "from gin_env import three_handed_gin_v0\n"
        "from gin_env.encoding import views\n\n"
        "env = three_handed_gin_v0.env()  # raw_env plus PettingZoo's standard wrappers\n"
        "env.reset(seed=0)\n"
        "print(env.possible_agents)\n"
        "print(env.observation_space('player_0'))\n"
        "print(env.action_space('player_0'))"
    ),
    new_markdown_cell(
        "## Observations and masks\n\n"
        "Every agent observes a dict: a flat `observation` vector from its own seat and an\n"
        "`action_mask` of the 109 action ids (all zeros for an agent that is not to act).\n"
        "`views()` names the parts of the vector."
    ),
    new_code_cell(
        "agent = env.agent_selection\n"
        "obs, reward, terminated, truncated, info = env.last()\n"
        "legal = np.flatnonzero(obs['action_mask'])\n"
        "print(agent, 'is', info['role'], '- legal:', [A.action_str(a) for a in legal])\n"
        "for name, part in views(obs['observation']).items():\n"
        "    print(f'{name:20} size {part.size:3}  sum {part.sum():.2f}')"
    ),
    new_markdown_cell(
        "## Step through a hand\n\n"
        "The AEC loop: `agent_iter()` yields the agent to act; a finished agent steps `None`.\n"
        "Here every player picks uniformly among its legal actions; the episode is one hand\n"
        "(`episode='hand'`)."
    ),
    new_code_cell(
        "env = three_handed_gin_v0.env(episode='hand', render_mode='ansi')\n"
        "env.reset(seed=1)\n"
        "rng = np.random.default_rng(1)\n"
        "steps = 0\n"
        "for _agent in env.agent_iter():\n"
        "    obs, reward, terminated, truncated, info = env.last()\n"
        "    if terminated or truncated:\n"
        "        result = info['hand_result']  # every agent's info carries the hand's result\n"
        "        env.step(None)\n"
        "        continue\n"
        "    env.step(int(rng.choice(np.flatnonzero(obs['action_mask']))))\n"
        "    steps += 1\n"
        "print(steps, 'steps')\n"
        "print(result)\n"
        "print(env.unwrapped.table_text(show_all=True))"
    ),
    new_markdown_cell(
        "## A picture of the table\n\n"
        "`gin_env.render_image.table_image(env)` draws the table (Pillow, imported only\n"
        "when drawing) as an `(H, W, 3)` `uint8` array; `show_all=True` turns the hidden\n"
        "hands face up. It is what `render_mode='rgb_array'` returns."
    ),
    new_code_cell(
        "import matplotlib.pyplot as plt\n\n"
        "from gin_env.render_image import table_image\n\n"
        "raw = three_handed_gin_v0.raw_env()\n"
        "raw.reset(seed=3)\n"
        "for _ in range(8):  # a few moves, so there is a discard pile and a last action\n"
        "    raw.step(int(rng.choice(raw.legal_actions())))\n"
        "image = table_image(raw, show_all=True)\n"
        "print(image.shape, image.dtype)\n"
        "plt.figure(figsize=(10, 6.2))\n"
        "plt.imshow(image)\n"
        "plt.axis('off');"
    ),
    new_markdown_cell(
        "## One learner in Gymnasium\n\n"
        "`gin_env.make_three_handed()` / `gin_env.make_gin()` wrap the AEC env for a single\n"
        "learner (the other seats are played by policies) and expose `action_masks()` for\n"
        "sb3-contrib's `MaskablePPO`."
    ),
    new_code_cell(
        "import gin_env\n"
        "from gin_env.wrappers import RandomPolicy\n\n"
        "single = gin_env.make_gin(learner='random', opponents=RandomPolicy(), episode='hand')\n"
        "obs, info = single.reset(seed=0)\n"
        "total, done = 0.0, False\n"
        "while not done:\n"
        "    action = int(rng.choice(np.flatnonzero(single.action_masks())))\n"
        "    obs, reward, terminated, truncated, info = single.step(action)\n"
        "    total += reward\n"
        "    done = terminated or truncated\n"
        "print(obs.shape, 'learner', single.learner, 'reward', total, info.get('hand_result'))"
    ),
]

AGENT_HELPERS = """\
def make_agent(name):
    \"\"\"A baseline by name: the agents registry when it is there, else the classes.\"\"\"
    import agents

    if hasattr(agents, "make"):
        return agents.make(name)
    from agents.heuristic import HeuristicAgent
    from agents.simple import SimpleAgent
    from gin_env.wrappers import RandomPolicy

    return {"random": RandomPolicy, "simple": SimpleAgent, "heuristic": HeuristicAgent}[name]()


def ci95(values):
    \"\"\"Mean and half-width of a normal 95% confidence interval.\"\"\"
    v = np.asarray(values, dtype=float)
    return v.mean(), 1.96 * v.std(ddof=1) / np.sqrt(len(v))"""

TRAIN = [
    new_markdown_cell(
        "# Train a small MaskablePPO agent and evaluate it against the baselines\n\n"
        "Two-player gin (`gin_v0`), one hand per episode, the learner in a random seat\n"
        "against uniform-random opponents. The budget here is **tiny** (about 8k steps, a\n"
        "few seconds per thousand steps on a laptop CPU) so the notebook runs in the test\n"
        "suite: expect an agent that has barely started learning. For a real run use the\n"
        "training script with a self-play league and checkpoints:\n"
        "`gin-rummy train --env gin --total-steps 2000000 --run-dir runs/gin`."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "import numpy as np\n"
        "import torch\n"
        "from sb3_contrib import MaskablePPO\n"
        "from stable_baselines3.common.monitor import Monitor\n\n"
        "import gin_env\n"
        "from gin_env import gin_v0\n"
        "from gin_env.wrappers import RandomPolicy\n\n"
        "torch.set_num_threads(1)\n"
        "TOTAL_STEPS = 8_192  # raise this for a real agent\n"
        "EVAL_HANDS = 60  # hands per opponent in the evaluation"
    ),
    new_code_cell(AGENT_HELPERS),
    new_markdown_cell("## Train"),
    new_code_cell(
        "env = Monitor(gin_env.make_gin(learner='random', opponents=RandomPolicy(),\n"
        "                               episode='hand', reward_scale=0.01))\n"
        "model = MaskablePPO('MlpPolicy', env, n_steps=1024, batch_size=256, n_epochs=4,\n"
        "                    learning_rate=1e-3, gamma=0.99, ent_coef=0.01, seed=0,\n"
        "                    policy_kwargs={'net_arch': [128, 128]}, verbose=0)\n"
        "model.learn(TOTAL_STEPS)\n"
        "episode_points = np.array(env.get_episode_rewards()) / 0.01  # back to game points\n"
        "print(len(episode_points), 'training hands')"
    ),
    new_markdown_cell(
        "## Learning curve\n\n"
        "Points per training hand (positive: the learner scored), smoothed over 25 hands."
    ),
    new_code_cell(
        "import matplotlib.pyplot as plt\n\n"
        "window = 25\n"
        "smooth = np.convolve(episode_points, np.ones(window) / window, mode='valid')\n"
        "fig, ax = plt.subplots(figsize=(8, 3.5))\n"
        "ax.plot(episode_points, '.', alpha=0.25, label='hand')\n"
        "ax.plot(np.arange(window - 1, len(episode_points)), smooth, label=f'mean of {window}')\n"
        "ax.axhline(0, color='grey', lw=0.8)\n"
        "ax.set_xlabel('training hand')\n"
        "ax.set_ylabel('learner points')\n"
        "ax.legend();"
    ),
    new_markdown_cell(
        "## Evaluate against the baselines\n\n"
        "Each opponent plays `EVAL_HANDS` hands against the trained agent and, as a\n"
        "reference, against a uniform-random player on **the same deals and seats** (the\n"
        "seed fixes every deal). The figure is the agent's points per hand (scored minus\n"
        "conceded) with a 95% confidence interval. With this budget the trained agent may\n"
        "well lose to every baseline; the table says so when it does."
    ),
    new_code_cell(
        "class PPOPolicy:\n"
        "    def __init__(self, model):\n"
        "        self.model = model\n\n"
        "    def act(self, observation, rng=None):\n"
        "        action, _ = self.model.predict(observation['observation'], deterministic=True,\n"
        "                                       action_masks=observation['action_mask'] > 0)\n"
        "        return int(action)\n\n\n"
        "def hand_points(agent, opponent, hands, seed=1000):\n"
        '    """Points per hand for ``agent``, seats alternating, one hand per deal."""\n'
        "    env = gin_v0.raw_env(episode='hand')\n"
        "    rng = np.random.default_rng(seed)\n"
        "    out = []\n"
        "    for h in range(hands):\n"
        "        env.reset(seed=seed + h)\n"
        "        me = env.possible_agents[h % 2]\n"
        "        while not any(env.terminations.values()):\n"
        "            who = env.agent_selection\n"
        "            policy = agent if who == me else opponent\n"
        "            env.step(int(policy.act(env.observe(who), rng)))\n"
        "        result = env.infos[me]['hand_result']\n"
        "        sign = 0 if result['winner'] is None else (1 if result['winner'] == me else -1)\n"
        "        out.append(sign * result['points'])\n"
        "    return out\n\n\n"
        "trained = PPOPolicy(model)\n"
        "rows = []\n"
        "for name in ['random', 'simple', 'heuristic']:\n"
        "    opponent = make_agent(name)\n"
        "    for label, agent in [('trained PPO', trained), ('random', make_agent('random'))]:\n"
        "        mean, half = ci95(hand_points(agent, opponent, EVAL_HANDS))\n"
        "        rows.append((label, name, mean, half))\n"
        "        print(f'{label:12} vs {name:10} {mean:+7.2f} ± {half:.2f} points per hand')"
    ),
    new_code_cell(
        "from IPython.display import Markdown\n\n"
        "lines = ['| agent | opponent | points per hand | 95% CI |', '|---|---|---:|---:|']\n"
        "lines += [f'| {a} | {o} | {m:+.2f} | ± {h:.2f} |' for a, o, m, h in rows]\n"
        "Markdown('\\n'.join(lines))"
    ),
    new_code_cell(
        "fig, ax = plt.subplots(figsize=(7, 3.5))\n"
        "names = ['random', 'simple', 'heuristic']\n"
        "for k, label in enumerate(['trained PPO', 'random']):\n"
        "    vals = [r for r in rows if r[0] == label]\n"
        "    ax.bar(np.arange(3) + k * 0.4, [r[2] for r in vals], 0.4,\n"
        "           yerr=[r[3] for r in vals], capsize=3, label=label)\n"
        "ax.set_xticks(np.arange(3) + 0.2, names)\n"
        "ax.set_xlabel('opponent')\n"
        "ax.set_ylabel('points per hand')\n"
        "ax.axhline(0, color='grey', lw=0.8)\n"
        "ax.legend();"
    ),
]

TEAM = [
    new_markdown_cell(
        "# Team versus solo: does advice help the captain?\n\n"
        "In three-handed gin the **box** plays alone against the **captain**, who has an\n"
        "**adviser** at his side. Here the adviser suggests one of the captain's legal moves\n"
        "before each captain decision, and a captain who *listens* plays the suggestion.\n"
        "We compare, on the same deals, captains playing alone (the adviser says nothing)\n"
        "with captains advised by a simple and by a heuristic adviser, against a fixed box.\n"
        "Each condition plays `HANDS` single hands (`episode='hand'`), every hand's roles\n"
        "coming from the seeded draw, so all conditions see the same deals and seats."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "import numpy as np\n\n"
        "from gin_env import actions as A\n"
        "from gin_env import three_handed_gin_v0\n"
        "from gin_env.encoding import views\n\n"
        "HANDS = 150  # per condition; raise for tighter intervals"
    ),
    new_code_cell(
        AGENT_HELPERS + "\n\n\n"
        "class Silent:\n"
        '    """An adviser that never advises."""\n\n'
        "    def act(self, observation, rng=None):\n"
        "        return A.NO_ADVICE\n\n\n"
        "class Listening:\n"
        '    """A captain who plays the adviser\'s suggestion when there is one."""\n\n'
        "    def __init__(self, base):\n"
        "        self.base = base\n\n"
        "    def act(self, observation, rng=None):\n"
        "        suggestion = views(observation['observation'])['suggestion']\n"
        "        if suggestion.any():\n"
        "            a = int(np.argmax(suggestion))\n"
        "            if a != A.NO_ADVICE and observation['action_mask'][a]:\n"
        "                return a\n"
        "        return self.base.act(observation, rng)"
    ),
    new_code_cell(
        "def play_hands(box, captain, adviser, hands=HANDS, seed=0):\n"
        '    """Outcomes of ``hands`` single hands: +points when the box scores, -points when\n'
        '    the captain does, 0 for a draw."""\n'
        "    env = three_handed_gin_v0.raw_env(episode='hand')\n"
        "    rng = np.random.default_rng(seed)\n"
        "    out = []\n"
        "    for h in range(hands):\n"
        "        env.reset(seed=seed + h)\n"
        "        by_role = {'box': box, 'captain': captain, 'adviser': adviser}\n"
        "        while not any(env.terminations.values()):\n"
        "            who = env.agent_selection\n"
        "            policy = by_role[env.infos[who]['role']]\n"
        "            env.step(int(policy.act(env.observe(who), rng)))\n"
        "        result = env.infos['player_0']['hand_result']\n"
        "        if result['winner'] is None:\n"
        "            out.append(0)\n"
        "        else:\n"
        "            box_won = result['roles'][result['winner']] == 'box'\n"
        "            out.append(result['points'] if box_won else -result['points'])\n"
        "    return np.array(out)\n\n\n"
        "box = make_agent('simple')\n"
        "results = {}\n"
        "for captain_name in ['random', 'simple']:\n"
        "    for adviser_name in ['none', 'simple', 'heuristic']:\n"
        "        adviser = Silent() if adviser_name == 'none' else make_agent(adviser_name)\n"
        "        captain = Listening(make_agent(captain_name))\n"
        "        results[captain_name, adviser_name] = play_hands(box, captain, adviser)\n"
        "print(len(results), 'conditions played')"
    ),
    new_markdown_cell(
        "## Box win rate by agent pair\n\n"
        "Win rates count hands won by each side (a draw is nobody's); the points column is\n"
        "the box's points per hand with a 95% interval. `advice effect` is the captain\n"
        "team's gain in points per hand over the same captain alone, **paired by deal**."
    ),
    new_code_cell(
        "from IPython.display import Markdown\n\n"
        "lines = ['| captain | adviser | box wins | captain wins | draws | box points/hand |'\n"
        "         ' advice effect (captain pts/hand) |', '|---|---|---:|---:|---:|---:|---:|']\n"
        "for (cap, adv), out in results.items():\n"
        "    mean, half = ci95(out)\n"
        "    diff = results[cap, 'none'] - out  # positive: the advised captain did better\n"
        "    effect = '-' if adv == 'none' else '{:+.2f} ± {:.2f}'.format(*ci95(diff))\n"
        "    lines.append(f'| {cap} | {adv} | {np.mean(out > 0):.0%} | {np.mean(out < 0):.0%} | '\n"
        "                 f'{np.mean(out == 0):.0%} | {mean:+.2f} ± {half:.2f} | {effect} |')\n"
        "Markdown('\\n'.join(lines))"
    ),
    new_code_cell(
        "import matplotlib.pyplot as plt\n\n"
        "fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)\n"
        "advisers = ['none', 'simple', 'heuristic']\n"
        "for ax, cap in zip(axes, ['random', 'simple'], strict=True):\n"
        "    box_rate = [np.mean(results[cap, a] > 0) for a in advisers]\n"
        "    cap_rate = [np.mean(results[cap, a] < 0) for a in advisers]\n"
        "    x = np.arange(3)\n"
        "    ax.bar(x - 0.2, box_rate, 0.4, label='box wins')\n"
        "    ax.bar(x + 0.2, cap_rate, 0.4, label='captain wins')\n"
        "    ax.set_xticks(x, advisers)\n"
        "    ax.set_xlabel('adviser')\n"
        "    ax.set_title(f'{cap} captain vs simple box')\n"
        "axes[0].set_ylabel('share of hands')\n"
        "axes[0].legend();"
    ),
    new_markdown_cell(
        "## What the numbers say\n\n"
        "The cell below states, from the runs above, where advice changed the captain's\n"
        "result by more than its 95% interval. A weak captain has the most to gain from a\n"
        "good adviser; a captain as strong as his adviser gains little. With `HANDS` this\n"
        "small only large effects are resolved."
    ),
    new_code_cell(
        "for cap in ['random', 'simple']:\n"
        "    for adv in ['simple', 'heuristic']:\n"
        "        mean, half = ci95(results[cap, 'none'] - results[cap, adv])\n"
        "        verdict = ('helps' if mean - half > 0 else 'hurts' if mean + half < 0\n"
        "                   else 'no clear effect')\n"
        "        print(f'{adv:9} advice to a {cap:6} captain: {mean:+.2f} ± {half:.2f} '\n"
        "              f'points per hand -> {verdict}')"
    ),
]

NOTEBOOKS = {
    "01_quickstart.ipynb": QUICKSTART,
    "02_train_and_evaluate.ipynb": TRAIN,
    "03_team_vs_solo.ipynb": TEAM,
}


def build(directory: Path = HERE) -> list[Path]:
    """Write every notebook into ``directory``; return their paths."""
    paths = []
    for name, cells in NOTEBOOKS.items():
        nb = new_notebook(cells=cells)
        for i, cell in enumerate(nb.cells):
            cell["id"] = f"cell-{i:02d}"  # stable ids: rebuilding changes nothing
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}  # fmt: skip
        nb.metadata["language_info"] = {"name": "python"}
        nbformat.validate(nb)
        path = directory / name
        nbformat.write(nb, path)
        paths.append(path)
    return paths


if __name__ == "__main__":
    for p in build():
        print(p)
