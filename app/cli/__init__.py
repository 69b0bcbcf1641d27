"""Command lines of the app besides the window (``python -m app test``); no Qt."""
