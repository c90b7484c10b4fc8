# The image for web, worker and beat (see docker-compose.yml).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production

# WeasyPrint renders with Pango/HarfBuzz; fonts for the PDFs.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 libffi8 shared-mime-info \
      fonts-dejavu-core fonts-liberation2 \
 && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 1000 rackpass
WORKDIR /app

COPY pyproject.toml ./
COPY . .
RUN pip install --upgrade pip && pip install .

# Static files are collected at build time and served by whitenoise.
RUN DJANGO_SECRET_KEY=build-only DATABASE_URL=sqlite:////tmp/build.sqlite3 REDIS_URL=redis://localhost:6379/0 \
    DJANGO_ALLOWED_HOSTS=localhost python manage.py collectstatic --noinput \
 && mkdir -p /app/var/media && chown -R rackpass:rackpass /app/var

USER rackpass
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
