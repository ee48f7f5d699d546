"""docs/results' policy diagnostics (teacher agreement, policy confidence, feature choice) run
on a shipped policy and report every kind of decision it made."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tabletop_rl.envs.errors import ConfigError

pytest.importorskip("torch")


def run_on_liniell(script: str, run: Callable[..., str], *extra: str) -> str:
    """What ``python docs/results/SCRIPT pretrained/liniell_v0 EXTRA... --games 2`` prints."""
    return run(script, "pretrained/liniell_v0", *extra, "--games", "2")


def test_teacher_agreement_counts_each_kind_of_decision(
    run_results_script: Callable[..., str],
) -> None:
    out = run_on_liniell("teacher_agreement.py", run_results_script)
    rows = re.findall(r"  (\w+): (\d+) decisions, several .* at ([\d.]+), .* at ([\d.]+)", out)
    assert {name for name, *_ in rows} >= {"lay"}, out
    for _, n, several, agree in rows:
        assert int(n) > 0 and 0 <= float(several) <= 1 and 0 <= float(agree) <= 1


def test_policy_confidence_reports_how_sure_each_decision_is(
    run_results_script: Callable[..., str],
) -> None:
    out = run_on_liniell("policy_confidence.py", run_results_script)
    rows = re.findall(
        r"  (\w+): (\d+) decisions, (\d+) with a choice, mean entropy ([\d.]+) nats, "
        r"most probable action p > 0.99: ([\d.]+), p > 0.999: ([\d.]+)",
        out,
    )
    assert {name for name, *_ in rows} >= {"lay"}, out
    for _, n, chosen, entropy, above99, above999 in rows:
        assert 0 < int(chosen) <= int(n) and float(entropy) >= 0
        assert 0 <= float(above999) <= float(above99) <= 1


def test_feature_choice_compares_the_policy_with_a_field_and_the_teacher(
    run_results_script: Callable[..., str],
) -> None:
    out = run_on_liniell("feature_choice.py", run_results_script, "lay_turn_margin")
    rows = re.findall(
        r"  (\w+): (\d+) decisions: teacher ([\d.]+), value ([\d.]+), value meets teacher "
        r"([\d.]+), value within teacher ([\d.]+); split (\d+) of (\d+) disagreements",
        out,
    )
    assert {name for name, *_ in rows} >= {"lay"}, out
    for name, n, teacher, value, meets, within, split, disagree in rows:
        assert 0 <= float(within) <= float(meets) <= 1 and 0 <= float(value) <= 1
        assert int(split) <= int(disagree) <= int(n)
        # the disagreements are the decisions where the policy left the teacher's best
        assert int(disagree) == round(int(n) * (1 - float(teacher)))
        if name != "lay":  # no named field scores these actions: never the value choice
            assert float(value) == 0.0


def test_feature_choice_names_the_fields_it_can_read(
    run_results_script: Callable[..., str],
) -> None:
    with pytest.raises(
        ConfigError, match="'board' is not a feature field that scores actions.*lay_gain"
    ):
        run_on_liniell("feature_choice.py", run_results_script, "board")


def run_value_agent(run: Callable[..., str], *args: str) -> str:
    """What ``python docs/results/feature_value_agent.py liniell_v0 ARGS...`` prints."""
    return run("feature_value_agent.py", "liniell_v0", *args)


def test_a_value_agent_of_greedys_fields_wins_as_often_as_greedy(
    run_results_script: Callable[..., str],
) -> None:
    """Greedy's own values as the weighted sum (its turn margins, weight 1) make an agent
    that plays greedy's choices: against greedy it wins about half its games."""
    margins = ["lay_turn_margin=1", "occupy_turn_margin=1", "skip_turn_margin=1"]
    out = run_value_agent(run_results_script, *margins, "--games", "40", "--seed", "3")
    rate, low, high = map(float, re.findall(r"40 games: ([\d.]+) \(([\d.]+)-([\d.]+)\)", out)[0])
    assert low <= 0.5 <= high and 0.3 <= rate <= 0.7, out


def test_a_value_agent_refuses_a_malformed_weight(
    run_results_script: Callable[..., str],
) -> None:
    with pytest.raises(ConfigError, match="bad field weight 'lay_gain'; write FIELD=WEIGHT"):
        run_value_agent(run_results_script, "lay_gain")
