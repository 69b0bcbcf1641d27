"""The Composer panel: its widget, dialogs and models."""
