# syntax=docker/dockerfile:1
# Kinetograph's image for the full stack (docker-compose.yml): the web server
# (gunicorn) and the Celery workers run the same image with different commands.
#
#   docker build -t kinetograph .
#
# The source tree lives in /app and is first on PYTHONPATH, so settings.BASE_DIR is
# /app and templates/, static/ and tests/data/ (the demo clips of seed_demo) are found
# there; `pip install .` installs the project's runtime dependencies (no dev extras).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app \
    DJANGO_SETTINGS_MODULE=webapp.settings \
    KINETOGRAPH_VAR_DIR=/app/var \
    KINETOGRAPH_MEDIA_ROOT=/data/media \
    NUMBA_CACHE_DIR=/app/var/numba-cache

WORKDIR /app

# Optional dependency groups of pyproject.toml to add, comma-separated: EXTRAS=s3 for
# KINETOGRAPH_STORAGE=s3 (docker build --build-arg EXTRAS=s3 .). Never "dev".
ARG EXTRAS=""

# Dependencies in their own layer: rebuilt only when pyproject.toml or EXTRAS change.
COPY pyproject.toml ./
RUN python -c "import os, tomllib; \
project = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
extras = [e.strip() for e in os.environ.get('EXTRAS', '').split(',') if e.strip()]; \
print('\n'.join(project['dependencies'] + [d for e in extras for d in project['optional-dependencies'][e]]))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

COPY . .
RUN pip install --no-deps . \
    && rm -rf build kinetograph.egg-info \
    # static files, collected once into the image (STATIC_ROOT = /app/var/staticfiles,
    # served by WhiteNoise); the key only lets settings load, it is not used at run time
    && DJANGO_SECRET_KEY=collectstatic-at-build-time-only python manage.py collectstatic --noinput -v 0 \
    # compile motioncore's numba kernels into the cache now, not in every new container
    && python -c "from pathlib import Path; from motioncore import bvh; bvh.load(Path('tests/data/games105/walk60.bvh').read_bytes())" \
    && useradd --system --create-home --uid 10001 --user-group kinetograph \
    && mkdir -p /data/media \
    && chown -R kinetograph:kinetograph /app/var /data/media

USER kinetograph
EXPOSE 8000
# docker-compose.yml overrides this for the worker and the one-shot migrate service.
CMD ["gunicorn", "webapp.wsgi:application", "--bind", "0.0.0.0:8000", "--timeout", "120", \
     "--access-logfile", "-"]
