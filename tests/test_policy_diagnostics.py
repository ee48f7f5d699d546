"""docs/results' policy diagnostics (teacher agreement, policy confidence) run on a shipped
policy and report every kind of decision it made."""

from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def run_on_liniell(
    script: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> str:
    """What ``python docs/results/SCRIPT pretrained/liniell_v0 --games 2`` prints."""
    monkeypatch.syspath_prepend(str(RESULTS))  # as when run: the script's folder on the path
    monkeypatch.setattr(sys, "argv", [script, "pretrained/liniell_v0", "--games", "2"])
    runpy.run_path(str(RESULTS / script))["main"]()
    return capsys.readouterr().out


def test_teacher_agreement_counts_each_kind_of_decision(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_on_liniell("teacher_agreement.py", monkeypatch, capsys)
    rows = re.findall(r"  (\w+): (\d+) decisions, several .* at ([\d.]+), .* at ([\d.]+)", out)
    assert {name for name, *_ in rows} >= {"lay"}, out
    for _, n, several, agree in rows:
        assert int(n) > 0 and 0 <= float(several) <= 1 and 0 <= float(agree) <= 1


def test_policy_confidence_reports_how_sure_each_decision_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_on_liniell("policy_confidence.py", monkeypatch, capsys)
    rows = re.findall(
        r"  (\w+): (\d+) decisions, (\d+) with a choice, mean entropy ([\d.]+) nats, "
        r"most probable action p > 0.99: ([\d.]+), p > 0.999: ([\d.]+)",
        out,
    )
    assert {name for name, *_ in rows} >= {"lay"}, out
    for _, n, chosen, entropy, above99, above999 in rows:
        assert 0 < int(chosen) <= int(n) and float(entropy) >= 0
        assert 0 <= float(above999) <= float(above99) <= 1
