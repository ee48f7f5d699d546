"""The PettingZoo-style spec table that heads each environment's documentation page."""

from __future__ import annotations

from .aec import TabletopAECEnv


def spec_table(env: TabletopAECEnv, import_line: str) -> str:
    """The spec table of ``env`` (built with default options) as Markdown.

    Each environment module's docstring contains this table verbatim; a test keeps it true.
    """
    agent = env.possible_agents[0]
    obs_space = env.observation_space(agent)["observation"]
    info = env.info
    rows = [
        ("Import", f"`{import_line}`"),
        ("Actions", "Discrete"),
        ("Parallel API", "Yes (`parallel_env()`, turn-based)"),
        ("Manual Control", "Yes (`tabletop-rl play`)"),
        ("Agents", f"`agents= {env.possible_agents}`"),
        ("Players", f"{info.min_players} to {info.max_players} (default {info.default_players})"),
        ("Action Shape", f"Discrete({info.num_actions})"),
        ("Action Values", f"Discrete({info.num_actions})"),
        (
            "Observation Shape",
            f"`observation`: {obs_space.shape}, `action_mask`: ({info.num_actions},)",
        ),
        ("Observation Values", f"[{obs_space.low.min():g}, {obs_space.high.max():g}]"),
        ("Max Game Length", f"{info.max_game_length} agent steps"),
        ("Perfect Information", "Yes" if info.perfect_information else "No"),
    ]
    lines = ["| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows]
    return "\n".join(lines)
