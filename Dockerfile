# The Koz API under gunicorn; Redis and the workers (`koz worker`) run beside it (see docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY service ./service
RUN pip install --no-cache-dir .
ENV REDIS_URL=redis://redis:6379/0
EXPOSE 8000
# gunicorn's settings (gevent workers, limits, JSON logs) are in service/http_server.py
CMD ["gunicorn", "service.wsgi:app", "-c", "python:service.gunicorn_conf", "--bind", "0.0.0.0:8000", "--workers", "2"]
