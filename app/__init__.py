"""Stratoscope: desktop explorer and wallet for the STRATO blockchain platform."""

__version__ = "0.2.0"
