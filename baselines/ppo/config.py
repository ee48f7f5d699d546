"""The PPO run configuration: a typed dataclass, loaded from YAML, overridden on the command line.

Every field of :class:`PPOConfig` has a docstring; :func:`help_text` turns them into the
``--help`` text. A YAML file sets any subset of the fields, and ``--key value`` on the
command line overrides any of them (the value is parsed as YAML, so ``--lr 1e-4``,
``--opponents "{self: 1.0}"`` and ``--conv_channels "[32, 32]"`` all work). An unknown key
or a value of the wrong type is a :class:`~tabletop_rl.envs.errors.ConfigError` that names
the key and lists what is allowed.

>>> cfg = config_from_dict({"env": "liniell_v0", "lr": 0.001})
>>> cfg.lr, cfg.num_envs > 0
(0.001, True)
>>> config_from_dict({"learning_rate": 0.1})
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: unknown config key 'learning_rate'; valid keys: ...
>>> apply_overrides(cfg, ["--seed", "seven"])
Traceback (most recent call last):
...
tabletop_rl.envs.errors.ConfigError: config key 'seed' must be int, got str 'seven'
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import textwrap
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tabletop_rl.envs.core.files import atomic_write_text
from tabletop_rl.envs.errors import ConfigError


@dataclass(frozen=True)
class PPOConfig:
    """Everything that defines a PPO self-play run (see the module docstring)."""

    # ----------------------------------------------------------------- environment
    env: str = "liniell_v0"
    """Environment: a registered name (``tabletop_rl.envs.available_envs()``) or a factory
    ``"module:callable"`` returning a raw ``TabletopAECEnv``."""
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments for the environment's constructor (e.g. ``{num_players: 3}``)."""
    relative_reward: bool = False
    """Train on each seat's reward minus the mean reward of the other seats in the same step
    (makes ``reward: score`` zero-sum: points the opponents score count against the seat)."""
    reward_scale: float = 1.0
    """Multiply the environment's rewards by this before training (e.g. 0.05 for points)."""
    win_bonus: float = 0.0
    """Added at the end of each game: +win_bonus to the winners, -win_bonus to the others
    (0 to all on a full tie), as ``reward: win`` does; useful on top of ``reward: score``."""
    seed: int = 1
    """Seed of every random number generator of the run (environments, opponents, network
    initialisation, sampling, minibatches)."""

    # ------------------------------------------------------------------- collection
    total_steps: int = 1_000_000
    """Stop after this many learner decisions (transitions trained on); the learning rate
    anneals over this many."""
    max_minutes: float = 0.0
    """Also stop once the run has trained this many wall-clock minutes (0: no limit). Periodic
    evaluations do not count. The schedule still follows ``total_steps``, so a run stopped
    here and resumed with a larger limit continues as if it had never stopped. Checked after
    every update, and on the compiled batch also at every batch and minibatch step (the run
    then ends at its last update boundary)."""
    max_cpu_minutes: float = 0.0
    """Also stop once the training process (all its threads) has used this many CPU
    minutes (0: no limit; evaluations do not count): a budget that does not depend on what else
    runs on the machine (10 minutes on 2 cores = 20 CPU minutes). Checked as ``max_minutes``
    is."""
    num_envs: int = 32
    """Games played side by side; each rollout step asks the networks for one decision in every
    game."""
    num_workers: int = 2
    """Subprocesses that play the periodic evaluations (0: in the training process). Training
    collects on the batch in the training process (``baselines/ppo/batched.py``)."""
    rollout_steps: int = 64
    """Decision rounds over all games per update (the batch is about ``num_envs *
    rollout_steps`` decisions, of which the learner's are trained on)."""
    opponents: dict[str, float] = field(
        default_factory=lambda: {"self": 0.6, "pool": 0.2, "random": 0.1, "greedy": 0.1}
    )
    """Relative weights of what fills each seat the learner does not hold in a new game:
    ``self`` (the learner plays that seat too), ``pool`` (a past snapshot of the learner), or a
    scripted agent name (``random``, ``greedy``, ...). The learner holds one random seat."""
    pool_size: int = 10
    """How many past learner snapshots the opponent pool keeps (oldest dropped first)."""
    snapshot_every: int = 10
    """Add a snapshot of the learner to the pool every this many updates."""
    symmetry_augmentation: bool = False
    """Let the learner see each of its decisions in a random frame of the game's symmetries
    (Qwirkle: the 8 rotations and reflections of the board; an error for a game that declares
    none): it observes the transformed position, picks an action there, and the game plays the
    matching real action. Transitions are stored in the frame they were seen in, so PPO stays
    exact; the frames are drawn from their own generator seeded with ``seed``."""

    # ------------------------------------------------------------------------ PPO
    lr: float = 3e-4
    """Adam learning rate (at the start, when ``anneal_lr`` is on)."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over ``total_steps``."""
    gamma: float = 1.0
    """Discount factor per decision of the same seat."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    update_epochs: int = 4
    """Passes over each batch."""
    num_minibatches: int = 4
    """Minibatches per pass."""
    clip_coef: float = 0.2
    """PPO surrogate clipping coefficient."""
    clip_vloss: bool = True
    """Clip the value loss like the policy ratio."""
    norm_adv: bool = True
    """Normalise advantages within each minibatch."""
    ent_coef: float = 0.01
    """Entropy bonus coefficient."""
    vf_coef: float = 0.5
    """Value loss coefficient."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    target_kl: float = 0.0
    """Stop the epochs of an update early when the approximate KL exceeds this (0: never)."""
    pg_coef: float = 1.0
    """Weight of the clipped policy-gradient loss (0 with a ``teacher``: the policy only
    imitates the teacher, as ``tabletop-rl clone`` does)."""

    # -------------------------------------------------------------- kickstarting
    teacher: str = ""
    """Kickstarting (Schmitt et al., 2018): an agent of the game that labels every learner
    decision with the actions it rates best (those it breaks ties between at random): a
    scripted agent (``heuristic``, ``greedy``, ...), the search ``mcts`` or the feature value
    agent ``value:FIELD=WEIGHT,...``, each with options as in the arena
    (``heuristic:risk=1,pair=0``, ``mcts:simulations=60``). A teacher whose value the policy
    reads among its action features can be copied exactly (Qwirkle's config teaches with the
    heuristic's value agent, ``place_net`` and ``turn_net``; a ``value:`` teacher with
    ``action_features: true`` always can: its weights are ones the policy learns). ``mcts``
    searches a copy of the learner's game with the hidden information redrawn, and in Qwirkle
    and Qwirkle Cards labels a turn only while the learner follows the turn it planned
    (:meth:`MCTSAgent.best_actions`); it costs about as much CPU per learner turn as it does in
    the arena. The update adds
    ``teacher_coef`` times a distillation loss, minus the log-probability the learner's
    masked policy gives those actions together, to the PPO loss. Empty: no teacher."""
    teacher_coef: float = 1.0
    """Weight of the distillation loss at the start of the run."""
    teacher_target: str = "any"
    """What the distillation loss raises: ``any``, the probability that the learner plays
    any of the teacher's best actions (it may spread over them), or ``likeliest``, the
    probability of the one of them the learner already rates highest (it settles on one:
    a player taking its most probable action never loses the teacher's move to a rival
    action that holds less probability than the teacher's best together, e.g. the orders in
    which one Qwirkle turn's tiles may be laid)."""
    teacher_decay_steps: int = 0
    """Anneal ``teacher_coef`` linearly to 0 over this many learner steps, after which the
    teacher is no longer asked (0: keep it constant for the whole run)."""
    teacher_plays: float = 0.0
    """Fraction of the learner's decisions on which the teacher's action (one of its best,
    drawn at random) is played instead of the learner's (1: behaviour cloning on the
    teacher's own games). Needs ``pg_coef: 0``: the policy gradient is only valid on the
    learner's own actions."""
    init_from: str = ""
    """Start the network from the weights of this checkpoint (a training run folder, a
    checkpoint file, e.g. the output of ``tabletop-rl clone``, or ``pretrained/<env>``); it
    must have been trained with the same environment and network settings. Empty: a fresh
    network initialised from ``seed``."""

    # -------------------------------------------------------------------- network
    network: str = "conv"
    """``conv`` (convolutional encoder for spatial fields, per-cell policy head for spatial
    action groups), ``crop`` (the same network run on the occupied part of the board only:
    several times faster on a large, sparsely filled window such as Qwirkle's; legal spatial
    actions must lie next to a nonzero cell, as in Qwirkle and Liniell) or ``mlp`` (one MLP
    over the whole flat observation)."""
    conv_channels: list[int] = field(default_factory=lambda: [32, 32, 32])
    """Channels of the 3x3 convolution layers of the spatial encoder."""
    board_head_channels: int = 0
    """``conv`` only (``crop`` needs 0): also flatten a 1x1 convolution of the board features
    to this many planes into the trunk, so the value and the non-spatial action heads see where
    features are, not only their board-wide mean and max (0: pooling only)."""
    action_features: bool = False
    """Add to each action's logit a learned weighted sum of the observation fields that
    describe that action (fields declared with an ``action_group``, such as Qwirkle's
    ``place_points`` and ``place_best``), read in their own units; one weight per field,
    starting at 0. Needs such fields (``env_kwargs: {features: true}``)."""
    hidden_sizes: list[int] = field(default_factory=lambda: [128, 128])
    """Widths of the MLP layers (the vector-field encoder and the trunk; the whole network for
    ``network: mlp``)."""
    torch_threads: int = 1
    """Threads torch uses in the training process."""

    # ------------------------------------------------------------ logging and runs
    run_dir: str = "runs/ppo"
    """Directory of the run: resolved config, checkpoints, TensorBoard events, CSV logs."""
    checkpoint_every: int = 10
    """Write a checkpoint every this many updates (and always at the end)."""
    eval_every: int = 50
    """Evaluate against the scripted agents every this many updates (0: only at the end)."""
    eval_games: int = 200
    """Games per scripted opponent in each periodic evaluation (seats rotated)."""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "greedy"])
    """Scripted agents to evaluate against (those not defined for the game are skipped)."""
    eval_deterministic: bool = True
    """Evaluate with the most probable legal action instead of sampling."""
    progress_bar: bool = True
    """Show a tqdm progress bar."""


NETWORK_KINDS = ("conv", "crop", "mlp")
"""The values of the config key ``network``."""

TEACHER_TARGETS = ("any", "likeliest")
"""The values of the config key ``teacher_target``."""

_FIELDS = {f.name: f for f in dataclasses.fields(PPOConfig)}


def _field_docs() -> dict[str, str]:
    """The docstring under each field of :class:`PPOConfig`, read from the source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(PPOConfig)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, nxt in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


def _type_name(tp: Any) -> str:
    if isinstance(tp, type):
        return tp.__name__
    return str(tp).replace("typing.", "")


def _check_type(key: str, value: Any, tp: Any) -> Any:
    """``value`` converted to type ``tp`` where lossless (int -> float), else a ConfigError."""
    origin = typing.get_origin(tp)
    bad = ConfigError(
        f"config key {key!r} must be {_type_name(tp)}, got {type(value).__name__} {value!r}"
    )
    if tp is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(tp):
            try:
                return _check_type(key, value, arg)
            except ConfigError:
                continue
        raise bad
    if tp is type(None):
        if value is None:
            return None
        raise bad
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise bad
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise bad
    if tp is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):  # YAML 1.1 reads 1e-4 (no dot) as a string
            try:
                return float(value)
            except ValueError:
                pass
        raise bad
    if tp is str:
        if isinstance(value, str):
            return value
        raise bad
    if origin is list:
        (item,) = typing.get_args(tp)
        if not isinstance(value, list | tuple):
            raise bad
        return [_check_type(f"{key}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict:
        kt, vt = typing.get_args(tp)
        if not isinstance(value, dict):
            raise bad
        return {
            _check_type(f"{key} key", k, kt): _check_type(f"{key}[{k!r}]", v, vt)
            for k, v in value.items()
        }
    raise TypeError(f"unsupported config type {tp!r} for {key!r}")


_HINTS = typing.get_type_hints(PPOConfig)


def _validate(cfg: PPOConfig) -> None:
    positive = (
        "total_steps",
        "num_envs",
        "rollout_steps",
        "pool_size",
        "snapshot_every",
        "update_epochs",
        "num_minibatches",
        "torch_threads",
        "checkpoint_every",
        "eval_games",
    )
    for key in positive:
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"config key {key!r} must be > 0, got {getattr(cfg, key)}")
    for key in ("max_minutes", "max_cpu_minutes"):
        if getattr(cfg, key) < 0:
            raise ConfigError(
                f"config key {key!r} must be >= 0 (0: no limit), got {getattr(cfg, key)}"
            )
    if cfg.board_head_channels < 0:
        raise ConfigError(
            f"config key 'board_head_channels' must be >= 0, got {cfg.board_head_channels}"
        )
    if cfg.num_workers < 0:
        raise ConfigError(f"config key 'num_workers' must be >= 0, got {cfg.num_workers}")
    if cfg.network not in NETWORK_KINDS:
        raise ConfigError(
            f"config key 'network' must be one of {', '.join(map(repr, NETWORK_KINDS))}, "
            f"got {cfg.network!r}"
        )
    if cfg.network == "crop" and cfg.board_head_channels:
        raise ConfigError(
            "config key 'board_head_channels' must be 0 with network 'crop' (it pools over the "
            f"occupied region only), got {cfg.board_head_channels}"
        )
    if not cfg.opponents or any(w < 0 for w in cfg.opponents.values()):
        raise ConfigError(f"config key 'opponents' needs non-negative weights, got {cfg.opponents}")
    if sum(cfg.opponents.values()) <= 0:
        raise ConfigError("config key 'opponents' needs at least one positive weight")
    if not 0.0 <= cfg.gamma <= 1.0 or not 0.0 <= cfg.gae_lambda <= 1.0:
        raise ConfigError("config keys 'gamma' and 'gae_lambda' must lie in [0, 1]")
    for key in ("teacher_coef", "pg_coef", "teacher_decay_steps"):
        if getattr(cfg, key) < 0:
            raise ConfigError(f"config key {key!r} must be >= 0, got {getattr(cfg, key)}")
    if cfg.teacher_target not in TEACHER_TARGETS:
        raise ConfigError(
            f"config key 'teacher_target' must be one of "
            f"{', '.join(map(repr, TEACHER_TARGETS))}, got {cfg.teacher_target!r}"
        )
    if not 0.0 <= cfg.teacher_plays <= 1.0:
        raise ConfigError(f"config key 'teacher_plays' must lie in [0, 1], got {cfg.teacher_plays}")
    if cfg.teacher_plays > 0 and not cfg.teacher:
        raise ConfigError("config key 'teacher_plays' needs a 'teacher' (a scripted agent name)")
    if cfg.teacher_plays > 0 and cfg.pg_coef != 0:
        raise ConfigError(
            "config key 'teacher_plays' > 0 needs 'pg_coef: 0': the policy gradient is only "
            f"valid on the learner's own actions (got pg_coef {cfg.pg_coef})"
        )
    if cfg.teacher and cfg.symmetry_augmentation:
        raise ConfigError(
            "config keys 'teacher' and 'symmetry_augmentation' cannot be combined: the teacher "
            "labels the real position, the learner sees a transformed one"
        )
    if cfg.pg_coef == 0 and not cfg.teacher:
        raise ConfigError("config key 'pg_coef: 0' needs a 'teacher', or nothing is learned")


def config_from_dict(values: dict[str, Any]) -> PPOConfig:
    """A validated :class:`PPOConfig` from a mapping of field names to values."""
    if not isinstance(values, dict):
        raise ConfigError(f"a config must be a mapping of keys to values, got {type(values)}")
    kwargs = {}
    for key, value in values.items():
        if key not in _FIELDS:
            raise ConfigError(
                f"unknown config key {key!r}; valid keys: {', '.join(sorted(_FIELDS))}"
            )
        kwargs[key] = _check_type(key, value, _HINTS[key])
    cfg = PPOConfig(**kwargs)
    _validate(cfg)
    return cfg


def config_to_dict(cfg: PPOConfig) -> dict[str, Any]:
    """The config as plain YAML-able containers."""
    return dataclasses.asdict(cfg)


def load_config(path: str | Path) -> PPOConfig:
    """Read a YAML config file (keys are :class:`PPOConfig` fields)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        with path.open(encoding="utf-8") as f:  # an open file: YAML's messages name it
            values = yaml.safe_load(f) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"config file {str(path)!r} is not UTF-8 text: {exc}") from None
    if not isinstance(values, dict):
        raise ConfigError(
            f"config file {str(path)!r} holds a {type(values).__name__}; a config is a mapping "
            "of keys to values (key: value lines)"
        )
    try:
        return config_from_dict(values)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def apply_overrides(cfg: PPOConfig, args: list[str]) -> PPOConfig:
    """``cfg`` with ``--key value`` pairs applied (values parsed as YAML)."""
    values = config_to_dict(cfg)
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--"):
            raise ConfigError(f"expected --key value, got {arg!r}")
        key = arg[2:].replace("-", "_")
        if "=" in key:
            key, raw = key.split("=", 1)
            i += 1
        else:
            if i + 1 >= len(args):
                raise ConfigError(f"option --{key} needs a value")
            raw = args[i + 1]
            i += 2
        if key not in _FIELDS:
            raise ConfigError(
                f"unknown config key {key!r}; valid keys: {', '.join(sorted(_FIELDS))}"
            )
        try:
            parsed = yaml.safe_load(raw)
        except yaml.YAMLError:
            parsed = raw
        if _HINTS[key] is str and not isinstance(parsed, str):
            parsed = raw  # e.g. a run_dir named 123
        values[key] = parsed
    return config_from_dict(values)


def save_config(cfg: PPOConfig, path: str | Path) -> None:
    """Write the resolved config as YAML (loadable with :func:`load_config`), atomically."""
    atomic_write_text(Path(path), yaml.safe_dump(config_to_dict(cfg), sort_keys=False))


def help_text(cfg: PPOConfig | None = None, source: str = "the config") -> str:
    """The ``--help`` text: every key with its type, default and docstring.

    With ``cfg`` (a loaded config file, named ``source``), the defaults shown are that config's
    values, and the built-in default where the config changes it.
    """
    docs = _field_docs()
    lines = []
    for name, f in _FIELDS.items():
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[misc]
        shown = f"default: {default!r}"
        if cfg is not None:
            value = getattr(cfg, name)
            shown = f"{source}: {value!r}"
            if value != default:
                shown += f"; built-in default: {default!r}"
        lines.append(f"  --{name} {_type_name(_HINTS[name])} ({shown})")
        lines.extend("      " + ln for ln in textwrap.wrap(docs.get(name, ""), 88))
    return "\n".join(lines)
