"""Cirrus: indexed, read-only SQL-like access to contract state, events and history."""
