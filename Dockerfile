# The leaderboard app: a virtual environment, a non-root user, the store in a volume, the demo data
# loaded on the first start. Outside users build it as usual (`docker build -t mtlb .`: the official
# python:3.11-slim base, dependencies from PyPI); docker/build-local.sh builds it where no registry
# answers, from a debootstrap Debian base and a wheelhouse built on the host:
#   docker build --build-arg BASE=mtlb-base:bookworm --build-arg WHEELHOUSE=docker/wheelhouse -t mtlb .
ARG BASE=python:3.11-slim

# ---- build stage: the venv (the wheelhouse stays in this stage, not in the image) ----------------
FROM ${BASE} AS build
# a folder of wheels under docker/ in the build context (pip install --no-index); empty: PyPI
ARG WHEELHOUSE=
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PATH=/opt/mtlb/bin:$PATH
# a venv works on both bases (Debian's python3 refuses system-wide pip installs, PEP 668)
RUN python3 -m venv /opt/mtlb
WORKDIR /src
COPY docker/ ./docker/
COPY pyproject.toml ./
# the dependencies first (their layer is reused while only the project's sources change)...
RUN python3 -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
      > /tmp/requirements.txt \
 && if [ -n "$WHEELHOUSE" ]; then \
      pip install --no-index --find-links "/src/$WHEELHOUSE" -r /tmp/requirements.txt ; \
    else \
      pip install --upgrade pip && pip install -r /tmp/requirements.txt ; \
    fi
# ...then the project itself
COPY README.md ./
COPY leaderboard ./leaderboard
COPY metrics ./metrics
# the method documents the app shows (leaderboard/webapp/method links here; the wheel holds copies)
COPY docs/method ./docs/method
RUN if [ -n "$WHEELHOUSE" ]; then \
      pip install --no-index --find-links "/src/$WHEELHOUSE" --no-deps . ; \
    else \
      pip install --no-deps . ; \
    fi

# ---- the image ----------------------------------------------------------------------------------
FROM ${BASE}
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 VIRTUAL_ENV=/opt/mtlb PATH=/opt/mtlb/bin:$PATH \
    MTLB_DATA_DIR=/data MTLB_PORT=8501 MTLB_ADDRESS=0.0.0.0
RUN useradd --create-home --uid 10001 --user-group mtlb \
 && mkdir -p /data && chown mtlb:mtlb /data && chmod 0700 /data
COPY --from=build /opt/mtlb /opt/mtlb
COPY docker/start-app.sh /usr/local/bin/mtlb-start
WORKDIR /app
COPY app.py ./
COPY .streamlit ./.streamlit

USER mtlb
VOLUME ["/data"]
EXPOSE 8501
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD python -c "import os, sys, urllib.request; url = 'http://127.0.0.1:%s/_stcore/health' % os.environ.get('MTLB_PORT', '8501'); sys.exit(0 if urllib.request.urlopen(url, timeout=4).status == 200 else 1)"
# DATABASE_URL (e.g. postgresql+psycopg://user:password@host:5432/mtlb) selects a shared store; default
# SQLite in the /data volume. docker/start-app.sh: wait for the schema when MTLB_WAIT_FOR_SCHEMA is
# set, `mtlb demo` unless MTLB_NO_DEMO is set, then `mtlb serve` on MTLB_ADDRESS:MTLB_PORT.
CMD ["mtlb-start"]
