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
        "`agents.single_agent.make(game)` wraps the AEC env for a single\n"
        "learner (the other seats are played by policies) and exposes `action_masks()` for\n"
        "sb3-contrib's `MaskablePPO`."
    ),
    new_code_cell(
        "from agents import single_agent\n"
        "from agents.single_agent import RandomPolicy\n\n"
        "single = single_agent.make('gin_v0', learner='random', opponents=RandomPolicy(),\n"
        "                               episode='hand')\n"
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
    from agents.single_agent import RandomPolicy

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
        "from agents import single_agent\n"
        "from agents.single_agent import RandomPolicy\n"
        "from gin_env import gin_v0\n\n"
        "torch.set_num_threads(1)\n"
        "TOTAL_STEPS = 8_192  # raise this for a real agent\n"
        "EVAL_HANDS = 60  # hands per opponent in the evaluation"
    ),
    new_code_cell(AGENT_HELPERS),
    new_markdown_cell("## Train"),
    new_code_cell(
        "env = Monitor(single_agent.make('gin_v0', learner='random', opponents=RandomPolicy(),\n"
        "                                    episode='hand', reward_scale=0.01))\n"
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
        "# Team versus solo: what advice is worth, measured\n\n"
        "In three-handed gin the **box** plays alone against the **captain**, who has an\n"
        "**adviser** at his side: before every captain decision the adviser suggests one of the\n"
        "captain's legal moves (or nothing), and the captain sees the suggestion and decides.\n"
        "This notebook runs the three studies of `studies.team_vs_solo` at tiny budgets:\n\n"
        "1. **Duplicate evaluation**: the same deal sequences replayed with the three agents\n"
        "   permuted through the seats, so card luck cancels in comparisons;\n"
        "2. **the value of advice**: a captain x adviser matrix on the same deals, with\n"
        "   ablations of the advice channel;\n"
        "3. **box versus team balance** at equal skill under rule options.\n\n"
        "The full-size results (`results/team_*.json`) and the commands that made them are in\n"
        "`docs/team_vs_solo.md`; the last cells read them when they are there."
    ),
    new_code_cell(SETUP),
    new_code_cell(
        "from IPython.display import Markdown\n\n"
        "from gin_eval.duplicate import duplicate_vs_plain\n"
        "from studies import team_vs_solo as ts\n\n"
        "DEALS = 2  # duplicate: deal sequences, each played in the 6 seatings\n"
        "HANDS = 40  # advice: single hands per captain/adviser cell\n"
        "MATCHES = 6  # balance: matches per rule option"
    ),
    new_markdown_cell(
        "## 1. Duplicate three-handed evaluation\n\n"
        "The env's decks and initial role draw depend on its seed alone, so playing one seed\n"
        "with the agents permuted over the player seats replays the same deals. `duplicate`\n"
        "plays each of `DEALS` deal sequences in all six seatings; `plain` plays a fresh deal\n"
        "sequence per match (the same six seatings in turn). CIs are clustered by deal\n"
        "sequence. The **edge** is an agent's points per hand in a role minus the other\n"
        "agents' in that role; in the duplicate design the *paired* edge compares each hand\n"
        "with the other agents' results on the same cards in the same role."
    ),
    new_code_cell(
        "cmp = duplicate_vs_plain(['heuristic', 'simple', 'three-handed-ppo'], DEALS, seed=0)\n"
        "lines = ['| agent | role | points CI half-width: plain | duplicate |'\n"
        "         ' paired edge: plain / dup |', '|---|---|---:|---:|---:|']\n"
        "for row in cmp['half_widths']:\n"
        "    lines.append(f\"| {row['agent']} | {row['role']} | {row['points_half_plain']:.1f}\"\n"
        "                 f\" | {row['points_half_duplicate']:.1f} | \"\n"
        "                 f\"{row.get('paired_edge_ratio', float('nan')):.2f} |\")\n"
        "Markdown('\\n'.join(lines))"
    ),
    new_markdown_cell(
        "## 2. The value of advice\n\n"
        "Single hands against a fixed L2 box; every cell plays the same deals, so the **gain**\n"
        "(team points per hand over the same captain with no adviser) is paired by deal.\n"
        "`L1`, `L2` and most rule-based captains never read the suggestion: their *follow\n"
        "rate* is only agreement. `L1-weigh` (an L1 captain that plays the suggestion unless\n"
        "L2's judgement of its own move is clearly better) and `L1-follow` (always plays it)\n"
        "use it, and so may the trained `PPO` captain, whose network sees the suggestion."
    ),
    new_code_cell(
        "captains = {'L1': 'simple', 'PPO': 'three-handed-ppo',\n"
        "            'L1-weigh': 'captain:agent=simple,mode=weigh',\n"
        "            'L1-follow': 'captain:agent=simple,mode=follow'}\n"
        "advisers = {'none': 'none', 'L0': 'adviser:agent=random',\n"
        "            'L2': 'adviser:agent=heuristic', 'PPO': 'adviser:agent=three-handed-ppo'}\n"
        "matrix = ts.advice_matrix(captains, advisers, HANDS, box='heuristic', seed=0)\n"
        "ts.plot_advice(matrix);"
    ),
    new_code_cell(
        "lines = ['| captain | adviser | team pts/hand | gain vs none | follows | pts followed |'\n"
        "         ' pts overrode |', '|---|---|---:|---:|---:|---:|---:|']\n"
        "for cap, row in matrix['cells'].items():\n"
        "    for adv, c in row.items():\n"
        "        f = c['follow_rate']\n"
        "        fol, ovr = c['when_followed'], c['when_overrode']\n"
        "        fmt = lambda x: '-' if x is None else f'{x:+.1f}'  # noqa: E731\n"
        "        half = (c['gain_ci95'][1] - c['gain_ci95'][0]) / 2\n"
        "        lines.append(f\"| {cap} | {adv} | {c['team_points_per_hand']:+.1f} | \"\n"
        "                     f\"{c['gain']:+.1f} ± {half:.1f}\"\n"
        "                     f\" | {'-' if f is None else f'{f:.0%}'} | \"\n"
        "                     f\"{fmt(fol['team_points_per_hand'])} ({fol['hands']}) | \"\n"
        "                     f\"{fmt(ovr['team_points_per_hand'])} ({ovr['hands']}) |\")\n"
        "Markdown('\\n'.join(lines))"
    ),
    new_markdown_cell(
        "### Ablations of the advice channel\n\n"
        "`muted`: the adviser always says *no advice*; `random legal`: a uniformly random\n"
        "legal move; `shuffled`: L2's advice on the position with the cards relabelled at\n"
        "random (the right form, no information about the captain's melds); `own policy`: what\n"
        "the captain itself would play (advice that adds nothing). For a captain that follows,\n"
        "`own policy` must equal `none` exactly, and it does."
    ),
    new_code_cell(
        "ablations = ts.advice_matrix(\n"
        "    {'PPO': 'three-handed-ppo', 'L1-follow': 'captain:agent=simple,mode=follow'},\n"
        "    ts.ABLATIONS, HANDS, seed=0)\n"
        "for cap, row in ablations['cells'].items():\n"
        "    gains = [f\"{adv}: {c['gain']:+.1f}\" for adv, c in row.items()]\n"
        "    print(cap.ljust(10), '  '.join(gains))"
    ),
    new_markdown_cell(
        "## 3. Box versus team at equal skill\n\n"
        "L2 in every seat; the share of hands and of matches the box wins (a match counts for\n"
        "the box when its winner held the box in the deciding hand)."
    ),
    new_code_cell(
        "options = {k: ts.BALANCE_OPTIONS[k] for k in list(ts.BALANCE_OPTIONS)[:1] + [\n"
        "    'undercut bonus 25', 'knock limit 0 (gin only)']}\n"
        "bal = ts.balance(MATCHES, options, seed=0)\n"
        "for label, o in bal['options'].items():\n"
        "    lo, hi = o['box_hand_share_ci95']\n"
        "    print(f\"{label:45} box wins {o['box_hand_share']:.0%} of hands \"\n"
        "          f\"[{lo:.0%}, {hi:.0%}], {o['box_match_share']:.0%} of matches\")"
    ),
    new_markdown_cell(
        "## The full-size results\n\n"
        "Read from `results/` when the studies have been run there\n"
        "(`python -m studies.team_vs_solo advice` and friends, see `docs/team_vs_solo.md`)."
    ),
    new_code_cell(
        "import json\n\n"
        "results = root / 'results'  # results/<study>/<stem>.json\n"
        "folders = {'team_duplicate': 'team_duplicate', 'team_advice': 'team_advice',\n"
        "           'team_ablations': 'team_ablations', 'team_hidden': 'team_blind_adviser',\n"
        "           'team_balance': 'team_balance'}\n"
        "for stem, folder in folders.items():\n"
        "    path = results / folder / f'{stem}.json'\n"
        "    print(stem, 'present' if path.exists() else 'not run yet')\n"
        "path = results / 'team_advice' / 'team_advice.json'\n"
        "if path.exists():\n"
        "    full = json.loads(path.read_text())\n"
        "    caps = list(full['cells'])\n"
        "    advs = list(full['cells'][caps[0]])\n"
        "    lines = ['| captain | ' + ' | '.join(advs) + ' |', '|---|' + '---:|' * len(advs)]\n"
        "    for cap in caps:\n"
        "        cells = [full['cells'][cap][a] for a in advs]\n"
        "        lines.append(f'| {cap} | ' + ' | '.join(\n"
        "            f\"{c['gain']:+.1f} ± {(c['gain_ci95'][1] - c['gain_ci95'][0]) / 2:.1f}\"\n"
        "            for c in cells) + ' |')\n"
        "    display(Markdown(f\"Gain over no adviser, {full['hands']} hands per cell:\\n\\n\"\n"
        "                     + '\\n'.join(lines)))"
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
