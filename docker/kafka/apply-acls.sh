#!/bin/sh
# Applies the ACLs of docker/acls.md (the commands below are that file's) as the admin principal once the
# cluster answers. Adding an ACL that exists changes nothing, so it runs again safely after a change.
set -eu
bootstrap="${BOOTSTRAP_SERVERS:-kafka1:9092}"
admin="${ADMIN_CONFIG:-/etc/reme/kafka/admin.properties}"
bin="${KAFKA_HOME:-/opt/kafka}/bin"
until "$bin/kafka-broker-api-versions.sh" --bootstrap-server "$bootstrap" --command-config "$admin" > /dev/null 2>&1; do
  echo "waiting for Kafka at $bootstrap"
  sleep 3
done

P=reme.
APP=reme-streams
acl() { "$bin/kafka-acls.sh" --bootstrap-server "$bootstrap" --command-config "$admin" --add "$@"; }

# The application (instances)
acl --allow-principal User:reme-app --operation Read --operation Write --operation Describe \
    --topic "$P" --resource-pattern-type prefixed
acl --allow-principal User:reme-app --operation All --topic "$APP-" --resource-pattern-type prefixed
acl --allow-principal User:reme-app --operation Read --group "$APP" --resource-pattern-type prefixed
acl --allow-principal User:reme-app --operation Write --operation Describe \
    --transactional-id "$APP" --resource-pattern-type prefixed
# Creating and checking the topics at start (or let an admin create them with the same settings beforehand)
acl --allow-principal User:reme-app --operation Create --operation DescribeConfigs \
    --topic "$P" --resource-pattern-type prefixed

# Separate workers
for t in llm.requests diary memories.pending; do
  acl --allow-principal User:reme-workers --operation Read --operation Describe --topic "$P$t"; done
for t in llm.results diary.edits memories.pending memories dlq; do
  acl --allow-principal User:reme-workers --operation Write --operation Describe --topic "$P$t"; done
acl --allow-principal User:reme-workers --operation Read --group "$APP-" --resource-pattern-type prefixed

# Kafka Connect (the file sinks); Connect's own topics and group are named in its worker config
for t in dialog diary tool-results; do
  acl --allow-principal User:reme-connect --operation Read --operation Describe --topic "$P$t"; done
acl --allow-principal User:reme-connect --operation Write --operation Describe --topic "${P}dlq"
acl --allow-principal User:reme-connect --operation All --topic reme-connect- --resource-pattern-type prefixed
acl --allow-principal User:reme-connect --operation Read --group reme-connect --resource-pattern-type prefixed
acl --allow-principal User:reme-connect --operation Read --group connect- --resource-pattern-type prefixed

# Agents
acl --allow-principal User:agents --operation Write --operation Describe --topic "${P}messages"
