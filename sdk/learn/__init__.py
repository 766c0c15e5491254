"""Learning: observation encoding, one discrete action space, PettingZoo and Gymnasium
environments, datasets from game records, and rollouts on Ray (``docs/LEARNING.md``).

Needs the ``rl`` extra (in a clone, ``pip install '.[rl]'``: numpy, gymnasium, pettingzoo).
The encoding and the action space need numpy only; the environments import gymnasium or
pettingzoo when their module is imported.
"""
