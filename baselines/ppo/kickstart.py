"""Kickstarting: the weight of the distillation loss towards a scripted teacher over a run.

Schmitt et al. (2018), *Kickstarting Deep Reinforcement Learning*: a student trained by
policy gradient also minimises the cross-entropy of its policy on a teacher's choices, with a
weight that is annealed away so the student can end up better than its teacher. Here the
teacher is one of the game's scripted agents or the search ``mcts`` (config key ``teacher``):
every learner decision is labelled with the actions the teacher rates best in the same position
(:class:`~.batched.BatchedCollector` asks it, in batch where it has a batch form), and
:func:`~.ppo.ppo_update` adds ``teacher_weight(cfg, step)`` times the distillation loss to the
PPO loss.

The distillation loss is minus the log-probability the student gives the teacher's best
actions *together*. A scripted agent breaks ties between equally valued actions at random
(the Liniell heuristic does so at 41% of its decisions, ``research/teacher_ties.py``), so
a single drawn action would be a noisy label: the student would be pushed towards whichever
tie was drawn and away from the others. The paper's cross-entropy to the teacher's policy
would ask the student to spread evenly over the ties; this loss lets it settle on any of
them, which is all that matters to a player taking its most probable action, as long as
it settles: spread over several of them, each may hold less probability than one rival
action, which such a player then takes (the shipped Qwirkle policy does so at 33 of the
1,037 placements of 20 of the heuristic's games, ``research/feature_choice.py``).
``teacher_target: likeliest`` raises only the one of them the student already rates
highest, so it settles on one.

>>> from tabletop_rl.baselines.ppo.config import config_from_dict
>>> cfg = config_from_dict(
...     {"teacher": "heuristic", "teacher_coef": 2.0, "teacher_decay_steps": 1000}
... )
>>> teacher_weight(cfg, 0), teacher_weight(cfg, 250), teacher_weight(cfg, 5000)
(2.0, 1.5, 0.0)
>>> teacher_weight(config_from_dict({}), 0)  # no teacher
0.0
"""

from __future__ import annotations

from .config import PPOConfig


def teacher_weight(cfg: PPOConfig, global_step: int) -> float:
    """The distillation loss's weight after ``global_step`` learner steps: ``teacher_coef``,
    decayed linearly to 0 over ``teacher_decay_steps`` (constant when that is 0); 0 without a
    teacher."""
    if not cfg.teacher:
        return 0.0
    if cfg.teacher_decay_steps == 0:
        return cfg.teacher_coef
    return cfg.teacher_coef * max(0.0, 1.0 - global_step / cfg.teacher_decay_steps)
