"""Small widgets shared by several panels.

Copyable fields, typed argument editors, the source editor, the confirmation sheet.
"""
