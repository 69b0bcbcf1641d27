"""Item models shared by several panels."""
