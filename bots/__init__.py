"""Sample bots: random, greedy and defensive."""
