# The Koz API under gunicorn; Redis and the workers (`koz worker`) run beside it (see docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY service ./service
RUN pip install --no-cache-dir .
ENV REDIS_URL=redis://redis:6379/0
EXPOSE 8000
# gevent workers: a long-poll or an event stream waiting for a move is a greenlet, not a thread
CMD ["gunicorn", "service.wsgi:app", "--bind", "0.0.0.0:8000", "--workers", "2", "--worker-class", "gevent", "--worker-connections", "10000", "--timeout", "30", "--access-logfile", "-"]
