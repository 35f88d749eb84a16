#!/bin/sh
# Starts a Kafka Connect worker in distributed mode, configured from the environment: every
# CONNECT_<NAME> variable becomes the worker property <name> in lower case with '_' read as '.'
# (CONNECT_GROUP_ID=reme-connect -> group.id=reme-connect).
set -eu
props="${CONNECT_PROPERTIES_FILE:-/tmp/connect-distributed.properties}"
: > "$props"
env | sort | while IFS='=' read -r name value; do
  case "$name" in
    CONNECT_PROPERTIES_FILE) ;;
    CONNECT_*)
      key=$(printf '%s' "${name#CONNECT_}" | tr 'A-Z_' 'a-z.')
      printf '%s=%s\n' "$key" "$value" >> "$props"
      ;;
  esac
done
exec "${KAFKA_HOME:-/opt/kafka}/bin/connect-distributed.sh" "$props"
