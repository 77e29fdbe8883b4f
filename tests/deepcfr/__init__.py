"""Tests of pokerai.deepcfr."""
