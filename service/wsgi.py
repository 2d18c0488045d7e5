"""The WSGI entry point for an external server: ``gunicorn service.wsgi:app`` (REDIS_URL set)."""

from .app import create_app

app = create_app()
