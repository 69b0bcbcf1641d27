"""One subpackage per panel: the panel widget, its dialogs and its models."""
