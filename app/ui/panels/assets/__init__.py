"""The Assets panel: its widget, dialogs and models."""
