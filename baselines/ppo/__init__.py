"""PPO baselines."""
