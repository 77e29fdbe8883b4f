"""Deep CFR (Brown, Lerer, Gross & Sandholm 2019).

Encoding, networks, reservoir buffers, batched traversals, the trainer and checkpoints.
"""
