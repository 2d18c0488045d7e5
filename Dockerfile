# The Koz API under gunicorn; Redis runs beside it (see docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY service ./service
RUN pip install --no-cache-dir '.[server]'
ENV REDIS_URL=redis://redis:6379/0
EXPOSE 8000
# gthread workers: views may be held for a long-poll while other requests go on
CMD ["gunicorn", "service.wsgi:app", "--bind", "0.0.0.0:8000", "--workers", "2", "--worker-class", "gthread", "--threads", "16", "--timeout", "75", "--access-logfile", "-"]
