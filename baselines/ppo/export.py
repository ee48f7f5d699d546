"""Write a trained policy as a small file: ``tabletop-rl export RUN_DIR OUT.pt``.

The file keeps what playing needs (config, the observation version the network was trained
on, network weights, where in training they come from; see :func:`~.checkpoint.export_policy`),
not the optimizer, generators or the games in progress, so it is a fraction of the
checkpoint's size. It loads wherever a checkpoint does:
``ppo:OUT.pt`` in the arena and ``play``, ``tabletop-rl evaluate OUT.pt``, ``init_from``.
The policies shipped with the package (``pretrained/<env name>``) were written this way.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tabletop_rl.envs.errors import ConfigError

from ..arguments import CommandParser, fail
from .checkpoint import export_policy
from .evaluate import checkpoint_label


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(prog="tabletop-rl export", description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", help="training run folder or checkpoint file")
    parser.add_argument("out", help="the policy file to write (e.g. liniell_v0.pt)")
    args = parser.parse_args(argv)
    try:
        policy = export_policy(args.run_dir, args.out)
    except ConfigError as exc:
        fail(parser.prog, str(exc))
    size = Path(args.out).stat().st_size
    print(f"{args.out}: {policy['config']['env']}, {checkpoint_label(policy)}, {size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
