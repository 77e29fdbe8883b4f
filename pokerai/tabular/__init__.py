"""Tabular blueprints: external-sampling MCCFR over (betting node, card bucket) in flat arrays (layer 4)."""
