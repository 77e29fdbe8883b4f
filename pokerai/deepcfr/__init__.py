"""Deep CFR (Brown, Lerer, Gross & Sandholm, "Deep Counterfactual Regret Minimization", ICML 2019).

Encoding, networks, reservoir buffers, batched traversals, the trainer and checkpoints.
"""
