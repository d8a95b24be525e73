#!/bin/sh
# The container's command: wait for the schema (MTLB_WAIT_FOR_SCHEMA seconds, when set), load the
# demo into an empty store (unless MTLB_NO_DEMO is set; without demo accounts, whose passwords the Log in
# page would show to everyone who reaches the container), then serve the app on MTLB_ADDRESS:MTLB_PORT
# (`mtlb serve`: every page runs once in-process before it listens, so the first visitor waits no longer
# than the next).
set -eu
cd /app
if [ -n "${MTLB_WAIT_FOR_SCHEMA:-}" ] && [ "${MTLB_WAIT_FOR_SCHEMA}" != 0 ]; then
  mtlb db wait --timeout "${MTLB_WAIT_FOR_SCHEMA}"
fi
if [ -z "${MTLB_NO_DEMO:-}" ]; then
  mtlb demo --no-accounts
fi
exec mtlb serve --port "${MTLB_PORT:-8501}" --address "${MTLB_ADDRESS:-0.0.0.0}"
