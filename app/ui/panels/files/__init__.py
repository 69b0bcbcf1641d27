"""The Files panel: its widget, dialogs and models."""
