"""The Chains panel: its widget, dialogs and models."""
