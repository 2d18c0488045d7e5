"""Koz's HTTP service: flask-smorest resources over a Redis game store."""

from .app import create_app

__all__ = ["create_app"]
