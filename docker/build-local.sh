#!/bin/sh
# Build the app image (and, with --postgres, the PostgreSQL image of docker-compose.yml) on a machine
# where no container registry answers: the base is a Debian bookworm root file system made by
# debootstrap and imported as mtlb-base:bookworm (once), and the Python packages come from a
# wheelhouse built on the host with `pip wheel` (cp311 wheels match bookworm's python3.11).
# The app image uses the Dockerfile's default base python:3.11-slim when it is present or can be
# pulled, else the local base (MTLB_BASE chooses one explicitly); the PostgreSQL image always starts
# from the local base.
#
#   docker/build-local.sh                 # -> image mtlb:local
#   docker/build-local.sh --postgres      # -> also mtlb-postgres:local
# Environment: MTLB_IMAGE (default mtlb:local), MTLB_POSTGRES_IMAGE (default mtlb-postgres:local),
# MTLB_BASE (default mtlb-base:bookworm), PYTHON (the host python for `pip wheel`, default python3),
# MTLB_DOCKER_CACHE (debootstrap folder, default /var/tmp/mtlb-docker).
set -eu
cd "$(dirname "$0")/.."
IMAGE="${MTLB_IMAGE:-mtlb:local}"
PG_IMAGE="${MTLB_POSTGRES_IMAGE:-mtlb-postgres:local}"
LOCAL_BASE=mtlb-base:bookworm
PYTHON="${PYTHON:-python3}"
CACHE="${MTLB_DOCKER_CACHE:-/var/tmp/mtlb-docker}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
with_postgres=0
[ "${1:-}" = "--postgres" ] && with_postgres=1

say() { printf '[build-local] %s\n' "$*" >&2; }

if [ -n "${MTLB_BASE:-}" ]; then
  BASE="$MTLB_BASE"
elif docker image inspect python:3.11-slim >/dev/null 2>&1 || docker pull -q python:3.11-slim >/dev/null 2>&1; then
  BASE=python:3.11-slim
else
  say "python:3.11-slim cannot be pulled: using the local base $LOCAL_BASE"
  BASE="$LOCAL_BASE"
fi
[ "$with_postgres" = 1 ] && PG_BASE="$LOCAL_BASE" || PG_BASE=""

for needed in "$BASE" $PG_BASE; do
  docker image inspect "$needed" >/dev/null 2>&1 && continue
  if [ "$needed" != "$LOCAL_BASE" ]; then
    say "pulling $needed"; docker pull "$needed"
  else
    command -v debootstrap >/dev/null || { say "needs debootstrap (apt-get install debootstrap), as root"; exit 2; }
    root="$CACHE/bookworm"
    rm -rf "$root"; mkdir -p "$CACHE"
    say "debootstrap bookworm into $root (about a minute)"
    debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,ca-certificates \
      bookworm "$root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
      || { say "debootstrap failed, see $CACHE/debootstrap.log"; exit 1; }
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/*_Packages
    say "importing it as $LOCAL_BASE"
    tar -C "$root" -c . | docker import --change 'CMD ["/bin/bash"]' - "$LOCAL_BASE" >/dev/null
    rm -rf "$root"
  fi
done

build_args=""
case "$BASE" in
  mtlb-base:*)
    say "wheelhouse for the image: docker/wheelhouse (pip wheel on the host)"
    mkdir -p docker/wheelhouse
    "$PYTHON" -m pip wheel --quiet --wheel-dir docker/wheelhouse . 2>&1 | grep -v "^WARNING: Location" >&2 || true
    "$PYTHON" -m pip download --quiet --dest docker/wheelhouse --only-binary=:all: 'setuptools>=68' wheel \
      2>&1 | grep -v "^WARNING: Location" >&2 || true
    rm -f docker/wheelhouse/mtlb-*.whl  # the image installs the project from its own sources
    ls docker/wheelhouse/numpy-*.whl >/dev/null 2>&1 || { say "pip wheel failed"; exit 1; }
    build_args="--build-arg WHEELHOUSE=docker/wheelhouse"
    ;;
esac

say "building $IMAGE from $BASE"
previous="$(docker image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
# shellcheck disable=SC2086
docker build --build-arg BASE="$BASE" $build_args -t "$IMAGE" .
# the image this tag named before is dropped (containers still using it keep it)
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$IMAGE")" ]; then
  docker rmi "$previous" >/dev/null 2>&1 || true
fi

if [ "$with_postgres" = 1 ]; then
  say "building $PG_IMAGE from $PG_BASE (Debian's postgresql-15; apt reaches deb.debian.org over the host network)"
  docker build --network host --build-arg BASE="$PG_BASE" -t "$PG_IMAGE" docker/postgres
fi
say "done: $IMAGE$( [ "$with_postgres" = 1 ] && printf ' %s' "$PG_IMAGE" )"
