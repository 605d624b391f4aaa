"""Renderers: pure functions of findings (and facts) into text. They decide nothing."""
