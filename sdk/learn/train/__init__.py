"""Train a policy network: behaviour cloning from a teacher bot, then PPO, on 2 cores.

``python -m sdk.learn.train RUN_DIR`` runs the whole recipe into ``RUN_DIR`` and can be
stopped and started again at any point (each stage keeps a checkpoint and skips what is
done):

1. **data** (:mod:`.data`): the teacher (``bots.defensive`` by default) plays itself in
   the arena with its records saved; ``sdk.learn.dataset`` turns them into
   ``bc.npz`` (observation, mask, action of every decision).
2. **clone** (:mod:`.clone`): a small MLP learns the teacher's answers (cross-entropy
   over the legal actions); ``clone.pt`` after each epoch, ``clone.npz`` at the end.
3. **ppo** (:mod:`.ppo`): PPO against opponent bots in the Gymnasium environment, the
   actor started from the clone, the critic reading the oracle observation (the hidden
   hands and the wall: allowed in training, never at play); shaped rewards
   (:mod:`sdk.learn.rewards`). ``ppo.pt`` after each update.
4. **curve** (:mod:`.curve`): at the end of each stage and every ``--eval-every``
   steps, the policy plays three ``bots.greedy`` in the duplicate arena; the points per
   hand with their interval go to ``curve.csv`` and ``curve.png``.

The result, ``policy.npz``, is a file of :mod:`sdk.learn.mlp`'s format: ``bots.neural``
plays it with numpy alone (``"bots.neural?weights=RUN_DIR/policy.npz"``).

Needs the ``train`` extra (torch, matplotlib); everything else in ``sdk.learn`` and
``bots.neural`` does not.
"""
