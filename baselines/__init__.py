"""tabletop-rl baselines: scripted agents, the arena and PPO (PPO needs the ``baselines`` extra)."""
