"""The Tables panel: its widget, dialogs and models."""
