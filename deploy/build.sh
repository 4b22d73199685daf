#!/usr/bin/env bash
# Builds what the docker-compose stack copies into its images: the collector, agent and broker probe
# jars, the demo classes, and the demo applications' run-time jars (kafka-clients and its
# compression codecs).
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -q install -DskipTests
./mvnw -q -pl demo dependency:copy-dependencies -DincludeScope=runtime -DexcludeGroupIds=dev.klat \
  -DoutputDirectory=target/lib
echo "built; now: cd deploy && docker compose up -d"
