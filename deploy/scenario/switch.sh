#!/bin/sh
# The load generator's scenario switch. The demo producer and consumer read the scenario in force
# from /scenario/scenario twice a second. KLAT_SCENARIO is one scenario id (steady, linger-burst,
# slow-follower, fetch-wait, slow-consumer), or "cycle" to go through them all, KLAT_SCENARIO_SECONDS
# each. Switch with: KLAT_SCENARIO=linger-burst docker compose up -d scenario
set -eu
scenario=${KLAT_SCENARIO:-steady}
seconds=${KLAT_SCENARIO_SECONDS:-120}

write() {
  # Written whole, then renamed, so that a reader never sees half an id.
  printf '%s' "$1" > /scenario/scenario.tmp
  mv /scenario/scenario.tmp /scenario/scenario
  echo "scenario: $1"
}

if [ "$scenario" != "cycle" ]; then
  write "$scenario"
  # Keep running, so that the health check shows which scenario is in force.
  exec sleep 2147483647
fi
while true; do
  for s in steady linger-burst slow-follower fetch-wait slow-consumer; do
    write "$s"
    sleep "$seconds"
  done
done
