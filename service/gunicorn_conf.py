"""gunicorn's settings for ``gunicorn -c python:service.gunicorn_conf service.wsgi:app``: the same
as ``koz serve`` applies (see :mod:`service.http_server`)."""

from service.http_server import SETTINGS

globals().update(SETTINGS)
