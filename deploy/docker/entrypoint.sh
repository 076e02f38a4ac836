#!/bin/sh
# Starts `ogai serve` on the mounted model for the container image (deploy/docker/Dockerfile):
# listens on 0.0.0.0:$OGAI_PORT, names the replica after the pod ($OGAI_REPLICA_ID, else
# $HOSTNAME) and passes the API key from a mounted secret file ($OGAI_API_KEY_FILE) when one is
# given. Extra arguments go to `ogai serve` as they are.
set -eu
set -- --host 0.0.0.0 --port "${OGAI_PORT:-8000}" --replica-id "${OGAI_REPLICA_ID:-${HOSTNAME:-ogai}}" "$@"
if [ -n "${OGAI_API_KEY_FILE:-}" ]; then
  [ -r "$OGAI_API_KEY_FILE" ] || { echo "ogai-entrypoint: cannot read OGAI_API_KEY_FILE=$OGAI_API_KEY_FILE" >&2; exit 2; }
  # --api-key is the server's own flag (docs/serve.md); the key never appears in the image.
  set -- "$@" --api-key "$(cat "$OGAI_API_KEY_FILE")"
fi
exec ogai serve "${OGAI_MODEL:-/models/model}" "$@"
