"""The window around the panels.

Main window, menus, navigation, status and message bars, docks, tour, theme and icons.
"""
