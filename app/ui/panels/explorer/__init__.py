"""The Explorer panel: blocks, transactions (contracts and events: their own modules)."""
