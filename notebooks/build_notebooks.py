"""Build the tutorial notebooks from the cell sources in this file.

``python notebooks/build_notebooks.py`` writes ``notebooks/0*.ipynb``; ``--check`` only
compares them with what this script would write and exits 1 if any differs (CI runs the
same comparison in ``tests/test_notebooks.py``).

The notebooks are kept here as plain Python strings so that a review sees ordinary code, and
they are written without outputs or execution counts, with stable cell ids. Each notebook
has one code cell tagged ``parameters`` (papermill's convention) whose small defaults a
test or a user can override, e.g.::

    papermill notebooks/02_scripted_agents.ipynb out.ipynb -p games 2

Cell sources must stay ``ruff format`` clean: ``ruff check .`` and ``ruff format --check .``
lint the notebooks too.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import nbformat
from nbformat.notebooknode import NotebookNode

HERE = Path(__file__).resolve().parent

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}

# Cell sources start with a newline after the opening quotes; textwrap.dedent + strip
# turns them into the cell's text.
Cell = tuple[str, str]  # (kind, source); kind is "md", "code" or "parameters"


def md(text: str) -> Cell:
    return ("md", text)


def code(text: str) -> Cell:
    return ("code", text)


def parameters(text: str) -> Cell:
    return ("parameters", text)


FIND_REPO = '''
from pathlib import Path


def find_repo_root(start: Path) -> Path:
    """The checkout's top folder (the one holding configs/), searched upwards from start."""
    for folder in (start, *start.parents):
        if (folder / "configs").is_dir() and (folder / "notebooks").is_dir():
            return folder
    raise FileNotFoundError(f"no tabletop-rl checkout above {start}; run from the repository")


REPO = find_repo_root(Path.cwd())
'''


# --------------------------------------------------------------------------- 01
def environments() -> list[Cell]:
    return [
        md("""
        # 1. The environments

        This notebook tours the suite's games: it makes every registered environment, plays a
        random game in each, shows the `rgb_array` pictures, decodes an observation with its
        named views, and walks through one concrete turn to explain the action masks.

        Every environment is a [PettingZoo](https://pettingzoo.farama.org) AEC environment:
        agents `player_0 ... player_{n-1}` take turns, and each observation is a dict with a
        flat `float32` vector `"observation"` and an `int8` `"action_mask"` that marks the
        legal actions.

        The rules of each game, written for players: [Qwirkle](../docs/rules/qwirkle.md),
        [Qwirkle Cards](../docs/rules/qwirkle_cards.md), [Liniell](../docs/rules/liniell.md).
        """),
        parameters("""
        seed = 0  # seed of every game in this notebook
        demo_env = "liniell_v0"  # the game used for the detailed demos (if it is registered)
        """),
        code("""
        import matplotlib.pyplot as plt
        import numpy as np
        from IPython.display import Markdown, display

        from tabletop_rl.envs import IllegalActionError, available_envs, make

        names = available_envs()
        if demo_env not in names:
            demo_env = names[0]
        print("registered environments:", ", ".join(names))
        """),
        md("""
        Every environment declares its static facts up front in `env.unwrapped.info` (a
        `GameInfo`): players, size of the action space, the longest possible game, and
        whether it has hidden information or chance.
        """),
        code("""
        rows = ["| env | players | actions | max game length | perfect information | chance |"]
        rows.append("|---|---|---|---|---|---|")
        for name in names:
            info = make(name).unwrapped.info
            rows.append(
                f"| `{name}` | {info.min_players}-{info.max_players} | {info.num_actions} | "
                f"{info.max_game_length} | {info.perfect_information} | {info.chance} |"
            )
        display(Markdown("\\n".join(rows)))
        """),
        md("""
        ## A random game in every environment

        The standard AEC loop: `env.last()` gives the observation of the agent to act, which
        picks one of the actions whose mask entry is 1. A finished agent must step `None`.
        `render_mode="rgb_array"` makes `env.render()` return a picture of the table.
        """),
        code("""
        def play_random_game(env, rng):
            \"\"\"Play env to the end with random legal actions; steps and final rewards.\"\"\"
            steps, final_rewards = 0, {}
            for agent in env.agent_iter():
                observation, reward, termination, truncation, _info = env.last()
                if termination or truncation:
                    action = None
                    final_rewards[agent] = reward
                else:
                    action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
                    steps += 1
                env.step(action)
            return steps, final_rewards


        rng = np.random.default_rng(seed)
        pictures = {}
        for name in names:
            env = make(name, render_mode="rgb_array")
            env.reset(seed=seed)
            steps, final_rewards = play_random_game(env, rng)
            winners = env.unwrapped.winners()
            print(f"{name}: {steps} agent steps, winners {winners}, rewards {final_rewards}")
            pictures[name] = env.render()
            env.close()
        """),
        code("""
        fig, axes = plt.subplots(1, len(pictures), figsize=(6 * len(pictures), 6), squeeze=False)
        for ax, (name, picture) in zip(axes[0], pictures.items(), strict=True):
            ax.imshow(picture)
            ax.set_title(f"{name}: end of a random game")
            ax.axis("off")
        plt.show()
        """),
        md("""
        ## Reading an observation

        The observation is one flat vector so that it fits a single `Box` space, but you never
        need to index it by hand: `env.unwrapped.layout.decode(obs)` returns named views, one
        per field. Board planes are fields of shape `(planes, height, width)`. The same table
        is in every environment's documentation (its module docstring).
        """),
        code("""
        env = make(demo_env, render_mode="rgb_array")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(6):  # a few random moves so that the table is not empty
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))

        layout = env.unwrapped.layout
        display(Markdown(layout.markdown_table()))
        obs = env.observe(env.agent_selection)
        views = layout.decode(obs["observation"])
        for field_name, view in views.items():
            print(f"{field_name:>12}: shape {view.shape}, {np.count_nonzero(view)} non-zero")
        """),
        md("""
        The spatial fields can be shown as images: here are the first planes of the first
        spatial field next to the rendered table. The planes cover the observation's fixed
        window (large enough for every reachable position), the picture only the laid area.
        """),
        code("""
        spatial = next(f for f in layout if f.spatial)
        planes = views[spatial.name]
        shown = min(3, planes.shape[0])
        fig, axes = plt.subplots(1, shown + 1, figsize=(4 * (shown + 1), 4))
        axes[0].imshow(env.render())
        axes[0].set_title("the table")
        axes[0].axis("off")
        for k, ax in enumerate(axes[1:]):
            ax.imshow(planes[k], cmap="gray_r", vmin=0, vmax=1)
            ax.set_title(f"{spatial.name}[{k}]")
            ax.set_xticks([])
            ax.set_yticks([])
        plt.show()
        """),
        md("""
        ## Action masks, one concrete turn

        The mask is exact: an action has mask entry 1 if and only if the rules allow it now.
        `env.unwrapped.describe_action(a)` names an action in words. A turn may take several
        steps of the same agent (in Liniell: lay the tile, then occupy a line or skip), so
        after each step the mask changes.
        """),
        code("""
        raw = env.unwrapped
        for _ in range(3):
            agent = env.agent_selection
            mask = env.observe(agent)["action_mask"]
            legal = np.flatnonzero(mask)
            print(f"{agent} to act: {legal.size} legal actions of {mask.size}")
            for action in legal[:8]:
                print(f"  {action:4d}: {raw.describe_action(action)}")
            if legal.size > 8:
                print(f"  ... and {legal.size - 8} more")
            choice = int(legal[0])
            print(f"  -> plays {choice}: {raw.describe_action(choice)}\\n")
            env.step(choice)
        """),
        md("""
        What happens with an action whose mask entry is 0? The raw environment
        (`make(name, raw=True)`) raises an `IllegalActionError` that says why; the wrapped one
        (`make(name)`, PettingZoo's standard wrappers) ends the game and gives the offender
        -1, as PettingZoo's classic games do.
        """),
        code("""
        raw_env = make(demo_env, raw=True)
        raw_env.reset(seed=seed)
        mask = raw_env.observe(raw_env.agent_selection)["action_mask"]
        illegal = int(np.flatnonzero(mask == 0)[0])
        try:
            raw_env.step(illegal)
        except IllegalActionError as error:
            print("raw env:", error)

        wrapped = make(demo_env)
        wrapped.reset(seed=seed)
        offender = wrapped.agent_selection
        wrapped.step(illegal)
        print("wrapped env rewards:", wrapped.rewards, "(offender:", offender + ")")
        print("terminations:", wrapped.terminations)
        """),
        md("""
        ## Text rendering

        `render_mode="ansi"` returns a coloured text picture (from the point of view of the
        player to act, so it never shows another player's hidden tiles).
        """),
        code("""
        text_env = make(demo_env, render_mode="ansi")
        text_env.reset(seed=seed)
        print(text_env.render())
        """),
        md("""
        Next: `02_scripted_agents.ipynb` pits the scripted agents against each other,
        `03_train_ppo.ipynb` trains a policy, and `04_classroom_assignment.ipynb` asks you to
        write an agent of your own.
        """),
    ]


# --------------------------------------------------------------------------- 02
def scripted_agents() -> list[Cell]:
    return [
        md("""
        # 2. Scripted agents in the arena

        The suite ships a ladder of scripted opponents for every game, from `random` (uniform
        over the legal actions) through `greedy` (best immediate result) and `heuristic` to
        `mcts` (a search agent that plans with the rules engine and never sees hidden
        information). The arena plays every pairing with seats rotated, records a seed per
        game, and reports win rates with Wilson 95% intervals and Bradley-Terry ratings on
        the Elo scale. This notebook runs a small arena, shows the table and the ratings
        plot, and replays one game as an animation.
        """),
        parameters("""
        env_name = "liniell_v0"  # any name from tabletop_rl.envs.available_envs()
        games = 20  # games per pairing; a multiple of the player count balances the seats
        mcts_simulations = 50  # simulations per move of the MCTS agent; 0 leaves it out
        seed = 0  # seed of the whole run (every game's seeds derive from it)
        workers = 2  # worker processes
        out_dir = None  # where results go; None: runs/notebooks/arena_<env_name>
        """),
        code("""
        import sys

        from IPython.display import Image, Markdown, display

        from tabletop_rl.baselines.agents import agent_names
        from tabletop_rl.baselines.arena import ArenaConfig, format_table, run_arena
        from tabletop_rl.baselines.replay import load_game, print_replay, write_gif

        agents = agent_names(env_name)
        if mcts_simulations > 0:
            agents.append(f"mcts:simulations={mcts_simulations}")
        print("agents:", ", ".join(agents))
        """),
        code(FIND_REPO),
        md("""
        ## Run the arena

        `run_arena` is what `tabletop-rl arena` runs. Its results folder holds every game
        (`games.jsonl`, one replayable record per line), the summaries (`summary.csv`,
        `pairwise.csv`, `results.json`) and `ratings.png`. Running the same configuration
        again resumes it; `fresh=True` starts over.
        """),
        code("""
        out = Path(out_dir) if out_dir else REPO / "runs" / "notebooks" / f"arena_{env_name}"
        config = ArenaConfig(env=env_name, agents=tuple(agents), games=games, seed=seed)
        print(
            f"the same from a shell: tabletop-rl arena --env {env_name} --agents "
            f"{' '.join(agents)} --games {games} --seed {seed} --out {out} --fresh"
        )
        run = run_arena(config, out, workers=workers, progress=False, fresh=True)
        print(f"{len(run.records)} games played; results in {out}")
        display(Markdown(format_table(run.summary)))
        for note in run.summary["notes"]:
            print("-", note)
        """),
        md("""
        The ratings with their 95% intervals (`ratings.png` in the results folder). With few
        games the intervals are wide: raise `games` for numbers worth quoting.
        """),
        code("""
        display(Image(filename=str(out / "ratings.png")))
        """),
        md("""
        Head to head: each row is one agent's win rate against one opponent.
        """),
        code("""
        rows = ["| agent | opponent | games | win rate (95% CI) |", "|---|---|---:|---|"]
        for r in run.summary["head_to_head"]:
            rows.append(
                f"| {r['agent']} | {r['opponent']} | {r['games']} | "
                f"{r['win_rate']:.2f} ({r['win_lo']:.2f}-{r['win_hi']:.2f}) |"
            )
        display(Markdown("\\n".join(rows)))
        """),
        md("""
        ## Replay a game

        Every game can be replayed from its record: the environment is rebuilt, reset with
        the recorded seed and fed the recorded actions (`tabletop-rl replay games.jsonl
        --game ID`). Here is the first game between the two best-rated agents, move by move
        and as an animated GIF of the `rgb_array` pictures (`--gif`).
        """),
        code("""
        ranked = sorted(run.summary["agents"], key=lambda r: -r["rating"])
        top_two = {ranked[0]["agent"], ranked[1]["agent"]}
        game_id = min(r["game_id"] for r in run.records if set(r["agents"]) == top_two)
        record = load_game(out / "games.jsonl", game_id)
        print(f"game {game_id}: {' vs '.join(record['agents'])}, seed {record['seed']}")
        print_replay(record, sys.stdout, board=False)
        """),
        code("""
        gif = out / f"game_{game_id}.gif"
        frames = write_gif(record, gif, fps=2)
        print(f"{gif}: {frames} frames")
        display(Image(filename=str(gif)))
        """),
    ]


# --------------------------------------------------------------------------- 03
def train_ppo() -> list[Cell]:
    return [
        md("""
        # 3. Training a PPO agent

        `tabletop_rl.baselines.ppo` trains a masked PPO policy by self-play: the learner
        holds one seat of each game, and the other seats are filled by itself, past snapshots
        of itself, or scripted agents. A run is defined by a YAML config (`configs/*.yaml`);
        any key can be overridden. This notebook trains a small policy, plots its learning
        curve from the run's CSV logs, evaluates it against the scripted agents and watches
        it play.

        The shipped configs start the learner from a scripted teacher (kickstarting: a
        distillation loss towards the `heuristic` agent's best actions, annealed away) and give
        it the observation features; a full run takes 10 minutes on an idle 2-core machine. The
        defaults below train far less than that, enough to run the whole pipeline: start a full
        run with `tabletop-rl train`, then set `train_now = False` and `run_dir` to its folder
        to plot, evaluate and watch it here. The policy of each game's full run ships with the
        package: the last section plays it.
        """),
        parameters("""
        config = "configs/liniell_ppo.yaml"  # relative to the checkout
        total_steps = 30_000  # learner decisions to train on
        num_envs = 32  # games played side by side
        rollout_steps = 32  # decision rounds per update
        num_workers = 2  # subprocesses stepping the games (0: in this process)
        eval_every = 10  # evaluate against the scripted agents every this many updates
        eval_games = 100  # games per scripted opponent in each evaluation
        seed = 1
        run_dir = None  # None: runs/notebooks/ppo_<config name>
        train_now = True  # False: only plot, evaluate and watch the run already in run_dir
        """),
        code("""
        import csv
        import sys

        import matplotlib.pyplot as plt
        import numpy as np
        from IPython.display import Image, Markdown, display

        from tabletop_rl.baselines.agents import agent_names
        from tabletop_rl.baselines.ppo import evaluate, train
        from tabletop_rl.baselines.ppo.config import load_config
        from tabletop_rl.baselines.replay import print_replay, record_game, write_gif
        """),
        code(FIND_REPO),
        md("""
        ## Train

        `train.main(argv)` is `tabletop-rl train`: the config file, then `--key value`
        overrides. The run folder gets the resolved config, checkpoints, TensorBoard events
        (`tb/`) and two CSV logs: `progress.csv` (one row per update) and `eval.csv` (the
        periodic evaluations). If the folder already holds this run, it is resumed (and
        returns at once when it is finished); delete it or pick another `run_dir` to start
        over.
        """),
        code("""
        config_path = REPO / config
        run = Path(run_dir) if run_dir else REPO / "runs" / "notebooks" / f"ppo_{config_path.stem}"
        argv = [str(config_path)]
        overrides = {
            "total_steps": total_steps,
            "num_envs": num_envs,
            "rollout_steps": rollout_steps,
            "num_workers": num_workers,
            "eval_every": eval_every,
            "eval_games": eval_games,
            "seed": seed,
            "run_dir": str(run),
            "progress_bar": "false",
        }
        for key, value in overrides.items():
            argv += [f"--{key}", str(value)]
        if (run / "checkpoint.pt").exists():
            argv.append("--resume")
        if train_now:
            print("tabletop-rl train", " ".join(argv))
            status = train.main(argv)
            if status != 0:
                raise RuntimeError(f"training failed with status {status}; see the message above")
        env_name = load_config(run / "config.yaml").env  # the run's resolved config
        print(f"run {run} trains on {env_name}")
        """),
        md("""
        ## Learning curve

        Straight from the CSV logs: the evaluation's win rate against each scripted agent with
        its Wilson 95% interval, and the return of the learner's training games (+1 win, -1
        loss with `reward: win`). `python -m tabletop_rl.baselines.ppo.plot RUN_DIR OUT.png`
        draws a fuller figure.
        """),
        code("""
        def read_csv(path):
            with open(path, newline="") as f:
                return list(csv.DictReader(f))


        progress = read_csv(run / "progress.csv")
        evals = read_csv(run / "eval.csv")

        fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
        for opponent in sorted({r["opponent"] for r in evals}):
            rows = [r for r in evals if r["opponent"] == opponent]
            steps = [int(r["global_step"]) for r in rows]
            rate = np.array([float(r["win_rate"]) for r in rows])
            low = np.array([float(r["ci_low"]) for r in rows])
            high = np.array([float(r["ci_high"]) for r in rows])
            yerr = [rate - low, high - rate]
            left.errorbar(steps, rate, yerr=yerr, marker="o", capsize=3, label=f"vs {opponent}")
        left.set_ylim(0, 1)
        left.set_xlabel("learner steps")
        left.set_ylabel("win rate (95% CI)")
        left.set_title("evaluation against scripted agents")
        left.legend()

        rows = [r for r in progress if r["episodic_return"]]
        steps = np.array([int(r["global_step"]) for r in rows])
        returns = np.array([float(r["episodic_return"]) for r in rows])
        right.plot(steps, returns, marker=".", alpha=0.4, label="per update")
        k = max(1, len(returns) // 10)
        if len(returns) >= k:
            smooth = np.convolve(returns, np.ones(k) / k, mode="valid")
            right.plot(steps[k - 1 :], smooth, label=f"mean of {k} updates")
        right.set_xlabel("learner steps")
        right.set_ylabel("return of finished training games")
        right.set_title("training")
        right.legend()
        plt.show()
        """),
        md("""
        ## Evaluate against the scripted agents

        `evaluate.main` is `tabletop-rl evaluate RUN_DIR`: the latest checkpoint plays its most
        probable legal action against every scripted agent, seats rotated, and the results go
        to `evaluation.csv` in the run folder.
        """),
        code("""
        opponents = agent_names(env_name)
        eval_argv = [str(run), "--games", str(eval_games), "--seed", str(seed)]
        eval_argv += ["--workers", str(num_workers), "--opponents", *opponents]
        print("tabletop-rl evaluate", " ".join(eval_argv))
        if evaluate.main(eval_argv) != 0:
            raise RuntimeError("evaluation failed; see the message above")
        results = read_csv(run / "evaluation.csv")
        rows = ["| opponent | games | win rate | 95% CI |", "|---|---:|---:|---|"]
        for r in results:
            rows.append(
                f"| {r['opponent']} | {r['games']} | {float(r['win_rate']):.2f} | "
                f"{float(r['ci_low']):.2f}-{float(r['ci_high']):.2f} |"
            )
        display(Markdown("\\n".join(rows)))
        """),
        md("""
        ## Watch it play

        A trained run is an agent like any other: `ppo:RUN_DIR` in the arena, or
        `tabletop_rl.baselines.ppo.agent.load_ppo_agent`. Here it plays one game against the
        strongest scripted agent; the game is recorded like an arena game and animated.
        """),
        code("""
        record = record_game(env_name, [f"ppo:{run}", opponents[-1]], seed=seed)
        print_replay(record, sys.stdout, board=False)
        gif = run / "watch.gif"
        write_gif(record, gif, fps=2)
        display(Image(filename=str(gif)))
        """),
        md("""
        ## The policies that ship with the package

        `ppo:pretrained/<env name>` is the policy of that game's shipped config, trained by
        `tabletop-rl train configs/<game>_ppo.yaml` (results in `docs/results/index.md`); it
        needs no training. It is an agent spec like any other: in the arena, in
        `tabletop-rl play --opponents ppo:pretrained/liniell_v0`, and for `tabletop-rl
        evaluate pretrained/liniell_v0`. Here it plays one game against the strongest
        scripted agent.
        """),
        code("""
        shipped = f"ppo:pretrained/{env_name}"
        record = record_game(env_name, [shipped, opponents[-1]], seed=seed)
        print_replay(record, sys.stdout, board=False)
        """),
    ]


# --------------------------------------------------------------------------- 04
def classroom() -> list[Cell]:
    return [
        md("""
        # 4. Assignment: write a Liniell agent

        **Your task.** Write an agent that plays Liniell (`liniell_v0`, two players) as well
        as you can. It must

        1. implement the suite's `Agent` protocol: a `name` and a method
           `act(observation, view) -> int` that returns a legal action;
        2. pass the legality test below (every action legal in every game, for 2 to 4
           players, and the same choices again given the same seed);
        3. be ranked in the arena against the scripted ladder (`random`, `greedy`,
           `heuristic`): the goal is to beat `greedy`; beating `heuristic` is excellent.

        Only edit the cell marked **YOUR AGENT**, then run the whole notebook (*Run All*).
        The cell runs as it is, with a simple legal policy for you to improve. The rules
        are in the environment's documentation: run `help(liniell_v0)` or read
        `envs/liniell_v0.py` (and the rules, [docs/rules/liniell.md](../docs/rules/liniell.md)).
        """),
        parameters("""
        games = 20  # arena games per pairing (even: both agents play both seats equally)
        legality_games = 12  # games of the legality test (2, 3 and 4 players in turn)
        seed = 0
        use_reference_solution = False  # for teachers: rank notebooks/solutions/ instead
        """),
        code("""
        import importlib.util

        import numpy as np
        from IPython.display import Image, Markdown, display

        from tabletop_rl.baselines.agents import Agent, agent_names
        from tabletop_rl.baselines.arena import (
            ArenaConfig,
            final_scores,
            format_table,
            ratings_plot,
            resolve_agent,
            schedule,
            summarize,
        )
        from tabletop_rl.envs import IllegalActionError, liniell_v0, make
        from tabletop_rl.envs.core.simulator import select_action
        from tabletop_rl.envs.liniell.game import Game, Occupation, PawnSource, Phase
        from tabletop_rl.envs.liniell.tiles import Port

        ENV = "liniell_v0"
        """),
        code(FIND_REPO),
        md("""
        ## What your agent gets

        `act(observation, view)` is called whenever it is your agent's turn to act:

        - `observation["action_mask"]`: 1 for every legal action (209 actions; see
          `describe_action` below). Return one of them.
        - `observation["observation"]`: the flat observation vector;
          `liniell_v0.raw_env().layout.decode(...)` gives its named parts (`scores`,
          `supply`, `stack`, the board planes, ...).
        - `view`: a copy of the rules engine's game state (`tabletop_rl.envs.liniell.game.Game`),
          with the face-down stack sorted so that it reveals nothing. You may play moves on
          `view.copy()` to look ahead: `apply_action` below plays an environment action on
          it, and `game.board.points()` gives every player's score as if the game ended now.

        A turn is two steps: lay the drawn tile (`4 * cell + rotation`), then occupy a line of
        that tile with a pawn from the supply or moved from another line, or skip
        (`SKIP`). After joining lines of different players the second step is a compulsory
        pawn move instead.
        """),
        code("""
        OCCUPY, SKIP, NUM_SOURCES = liniell_v0.OCCUPY, liniell_v0.SKIP, liniell_v0.NUM_SOURCES


        def apply_action(game, action):
            \"\"\"Play environment action `action` on the engine state `game` (a Game).\"\"\"
            if action < OCCUPY:
                cell, rotation = divmod(action, 4)
                game.lay(cell, rotation)
            elif action == SKIP:
                game.skip()
            else:
                port, source = divmod(action - OCCUPY, NUM_SOURCES)
                game.occupy(Occupation(Port(port), PawnSource(source)))


        demo = make(ENV, raw=True)
        demo.reset(seed=seed)
        mask = demo.observe(demo.agent_selection)["action_mask"]
        game = demo.public_view(demo.agent_selection)
        assert isinstance(game, Game) and game.phase is Phase.LAY  # a game starts with a lay
        print("phase:", game.phase.value, "| player to act:", game.current)
        for action in np.flatnonzero(mask)[:4]:
            after = game.copy()
            apply_action(after, int(action))
            print(f"{action:4d} {demo.describe_action(action)} -> phase {after.phase.value}")
        """),
        md("""
        ## YOUR AGENT

        Improve `act`. Ideas: look one whole turn ahead (every placement, then every
        occupation) and keep the turn that leaves you furthest ahead of the best opponent;
        value lines that can still grow; keep a pawn in reserve early in the game. Keep the
        agent reproducible: use only `self.rng` for randomness.
        """),
        code("""
        class MyAgent:
            \"\"\"YOUR AGENT: a Liniell player (edit act; keep the signature).\"\"\"

            name = "my_agent"

            def __init__(self, rng: np.random.Generator) -> None:
                self.rng = rng

            def act(self, observation, view=None) -> int:
                legal = np.flatnonzero(observation["action_mask"])
                # A simple legal start: whenever the mask allows it, put a pawn from the
                # supply on a line of the tile just laid; otherwise play a random legal action.
                from_supply = [
                    a
                    for a in legal
                    if OCCUPY <= a < SKIP and (a - OCCUPY) % NUM_SOURCES == PawnSource.SUPPLY
                ]
                if from_supply:
                    return int(self.rng.choice(from_supply))
                return int(self.rng.choice(legal))


        make_my_agent = MyAgent
        """),
        code("""
        if use_reference_solution:
            path = REPO / "notebooks" / "solutions" / "liniell_agent.py"
            spec = importlib.util.spec_from_file_location("liniell_agent", path)
            solution = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(solution)
            make_my_agent = solution.LookaheadAgent
            print("ranking the reference solution from", path)

        my_name = make_my_agent(np.random.default_rng(0)).name
        assert isinstance(make_my_agent(np.random.default_rng(0)), Agent), "not an Agent"
        assert my_name not in agent_names(ENV), f"choose a name other than {agent_names(ENV)}"
        print("agent:", my_name)
        """),
        md("""
        ## Test: legal and reproducible

        The agent plays `legality_games` games against `random` with 2, 3 and 4 players, in
        every seat. Every action is checked against the mask (`select_action` raises
        `IllegalActionError` naming the agent), and each game is played twice with the same
        seeds: the agent must choose the same actions.
        """),
        code("""
        def play_test_game(num_players, game_seed, my_seat):
            \"\"\"One game against random opponents; the list of actions played.\"\"\"
            env = make(ENV, raw=True, num_players=num_players)
            env.reset(seed=game_seed)
            agents = [
                make_my_agent(np.random.default_rng([game_seed, s]))
                if s == my_seat
                else resolve_agent("random", ENV, np.random.default_rng([game_seed, s]))
                for s in range(num_players)
            ]
            actions = []
            while not any(env.terminations.values()):
                seat = env.possible_agents.index(env.agent_selection)
                action = select_action(agents[seat], env, env_name=ENV)
                env.step(action)
                actions.append(action)
            return actions


        decisions = 0
        for g in range(legality_games):
            num_players = 2 + g % 3
            first = play_test_game(num_players, seed + g, g % num_players)
            again = play_test_game(num_players, seed + g, g % num_players)
            assert first == again, f"game {g}: same seeds, different actions"
            decisions += len(first)
        print(f"passed: {legality_games} games, {decisions} actions, all legal and reproducible")
        """),
        md("""
        ## Rank it in the arena

        Every pairing of your agent and the ladder plays `games` games with seats rotated and
        seeds drawn by the arena's schedule (as `tabletop-rl arena` does). The table gives win
        rates with Wilson 95% intervals and Bradley-Terry ratings on the Elo scale
        (`random` = 0). An illegal action forfeits the game.
        """),
        code("""
        def play_arena_game(task):
            \"\"\"Play one scheduled game; a record as the arena writes it.\"\"\"
            env = make(ENV, raw=True, num_players=len(task.seats))
            env.reset(seed=task.seed)
            agents = [
                make_my_agent(np.random.default_rng(s))
                if spec == my_name
                else resolve_agent(spec, ENV, np.random.default_rng(s))
                for spec, s in zip(task.seats, task.agent_seeds, strict=True)
            ]
            forfeit = None
            while not (any(env.terminations.values()) or any(env.truncations.values())):
                seat = env.possible_agents.index(env.agent_selection)
                try:
                    action = select_action(agents[seat], env, env_name=ENV)
                except IllegalActionError as error:
                    print(f"game {task.game_id}: forfeit: {error}")
                    forfeit = seat
                    break
                env.step(action)
            truncated = forfeit is None and any(env.truncations.values())
            if forfeit is not None:
                winners = [s for s in range(len(task.seats)) if s != forfeit]
            elif truncated:
                winners = []
            else:
                winners = [env.possible_agents.index(a) for a in env.winners()]
            return {
                "game_id": task.game_id,
                "agents": list(task.seats),
                "winners": winners,
                "scores": final_scores(env),
                "forfeit": forfeit,
                "truncated": truncated,
            }


        ladder = agent_names(ENV)
        config = ArenaConfig(env=ENV, agents=(*ladder, my_name), games=games, seed=seed)
        records = [play_arena_game(task) for task in schedule(config)]
        summary = summarize(config, records)
        display(Markdown(format_table(summary)))
        display(Image(data=ratings_plot(summary)))
        """),
        code("""
        mine = {r["opponent"]: r for r in summary["head_to_head"] if r["agent"] == my_name}
        for opponent in ladder:
            r = mine[opponent]
            if r["win_lo"] > 0.5:
                verdict = "beats it"
            elif r["win_hi"] < 0.5:
                verdict = "loses to it"
            else:
                verdict = "not significant at this number of games (raise `games`)"
            print(
                f"{my_name} vs {opponent}: win rate {r['win_rate']:.2f} "
                f"(95% CI {r['win_lo']:.2f}-{r['win_hi']:.2f}): {verdict}"
            )
        """),
    ]


NOTEBOOKS: dict[str, Callable[[], list[Cell]]] = {
    "01_environments.ipynb": environments,
    "02_scripted_agents.ipynb": scripted_agents,
    "03_train_ppo.ipynb": train_ppo,
    "04_classroom_assignment.ipynb": classroom,
}


def build(cells: list[Cell], stem: str) -> NotebookNode:
    """A clean notebook (no outputs, no execution counts, stable ids) from ``cells``."""
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": dict(KERNELSPEC),
        "language_info": {"name": "python"},
    }
    prefix = stem.split("_")[0]
    for i, (kind, text) in enumerate(cells):
        source = textwrap.dedent(text).strip("\n")
        if kind == "md":
            cell = nbformat.v4.new_markdown_cell(source)
        else:
            cell = nbformat.v4.new_code_cell(source)
            if kind == "parameters":
                cell.metadata["tags"] = ["parameters"]
        cell.id = f"nb{prefix}-{i:02d}"
        nb.cells.append(cell)
    nbformat.validate(nb)
    return nb


def render_all() -> dict[str, str]:
    """File name -> the exact text this script writes for it."""
    return {name: nbformat.writes(build(cells(), name)) + "\n" for name, cells in NOTEBOOKS.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare, write nothing")
    args = parser.parse_args(argv)
    stale = []
    for name, text in render_all().items():
        path = HERE / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(name)
        if not args.check:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if args.check and stale:
        print(f"out of date: {', '.join(stale)}; run python notebooks/build_notebooks.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
