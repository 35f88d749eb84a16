#!/bin/sh
# Creates or updates (PUT is idempotent) every connector in /etc/reme/connectors/<name>.json once
# the Connect REST API answers; run it again after changing a file.
set -eu
url="${CONNECT_URL:-http://connect:8083}"
until curl -fsS "$url/connectors" > /dev/null; do
  echo "waiting for Kafka Connect at $url"
  sleep 3
done
for file in /etc/reme/connectors/*.json; do
  name=$(basename "$file" .json)
  curl -fsS -X PUT -H 'Content-Type: application/json' --data @"$file" "$url/connectors/$name/config"
  echo
done
