"""The Dashboard panel: its widget, dialogs and models."""
