"""The Account panel: its widget, dialogs and models."""
