#!/usr/bin/env bash
# ./klat test [MAVEN ARGS...]: installs what the tests need, then runs every test.
#
# 1. The outside tools the tests run, installed where this user can (root, or sudo without a
#    password): Debian's chromium (DemoIT's and LabIT's browser steps), Debian's prometheus with
#    promtool (PrometheusIT, PromtoolTest, DeployTest's config check), Node.js and npm (Debian's
#    nodejs and npm, when no node is on the PATH) and the exact npm packages of
#    dashboards/schema-check (GrafanaSchemaTest) and it-apps/otel-node (OtelNodeClientsIT), and
#    it-apps/rdkafka-node's node-rdkafka, compiled with the librdkafka it bundles (ClientTelemetryIT's
#    librdkafka client; with Debian's g++, make, node-gyp and Node.js headers). One
#    line per tool says what it found, installed, or could not install and which tests that skips.
#    The list is RequiredTool's (test-support/src/main/java/dev/klat/testsupport/RequiredTool.java):
#    add a tool to both.
# 2. ./mvnw verify --fail-at-end, with the arguments given, so that a failing module does not hide
#    the modules after it. -Dklat.test.skip-jdk-independent=true (CI's second pass, on JDK 25:
#    .ci/run) leaves out the tests tagged @Tag("jdk-independent"), those whose outcome cannot
#    depend on the JDK that runs Maven, and runs the short variants of the long ITs that have one
#    (test-support's JdkIndependent says which qualify).
# 3. Every module's tests at the end: passed, failed, skipped, each failed or skipped test with its
#    reason, and with -Dklat.test.skip-jdk-independent=true what it left to the first pass: how many
#    classes and methods carry the tag, how many ITs ran their short variant; the same lines go to
#    target/test-summary.txt.
# Tests whose tool is missing are skipped, saying why; under CI=true they fail instead.
set -uo pipefail
cd "$(dirname "$0")/.."

mkdir -p target
setup_log=target/test-setup.log
: >"$setup_log"
missing=0

say() { printf 'klat test: %-26s %s\n' "$1" "$2"; }

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
  cannot_install=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
  cannot_install=""
else
  as_root=()
  cannot_install="not root, and no sudo without a password"
fi

# Installs Debian packages; refreshes the package lists once if the first try fails (stale lists
# name versions the mirror no longer has).
apt_install() {
  {
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" \
      || { "${as_root[@]}" apt-get update -q \
        && "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"; }
  } >>"$setup_log" 2>&1
}

version_of() { "$1" --version 2>/dev/null | head -1; }

find_tool() { command -v "$1" 2>/dev/null || { [ -x "/usr/bin/$1" ] && echo "/usr/bin/$1"; }; }

# ensure LABEL COMMAND PACKAGES SKIPS: finds COMMAND, or installs the Debian PACKAGES that bring it.
ensure() {
  local label=$1 command=$2 packages=$3 skips=$4 path
  if path=$(find_tool "$command"); then
    say "$label" "present: $(version_of "$path") ($path)"
    return 0
  fi
  if [ -n "$cannot_install" ]; then
    say "$label" "NOT INSTALLED ($cannot_install; apt-get install $packages): skips $skips"
    missing=$((missing + 1))
    return 1
  fi
  # shellcheck disable=SC2086 # PACKAGES is a list of package names.
  if apt_install $packages && path=$(find_tool "$command"); then
    say "$label" "installed Debian's $packages: $(version_of "$path")"
    return 0
  fi
  say "$label" "NOT INSTALLED (apt-get install $packages failed, see $setup_log): skips $skips"
  missing=$((missing + 1))
  return 1
}

say "java" "$(java -version 2>&1 | head -1)${JAVA_HOME:+ (JAVA_HOME=$JAVA_HOME)}"
ensure chromium chromium chromium "DemoIT's and LabIT's browser steps"
ensure prometheus prometheus prometheus "PrometheusIT"
ensure promtool promtool prometheus "PromtoolTest and DeployTest's promtool check"
# npm_packages DIR SKIPS: installs the exact npm packages DIR/package-lock.json pins (npm ci),
# unless DIR/node_modules already holds them.
npm_packages() {
  local check=$1 skips=$2 installed
  if [ -f "$check/node_modules/.package-lock.json" ] \
    && [ ! "$check/package-lock.json" -nt "$check/node_modules/.package-lock.json" ]; then
    say "npm packages" "present: $check/node_modules, as $check/package-lock.json pins them"
  elif npm ci --prefix "$check" --no-audit --no-fund --loglevel=error >>"$setup_log" 2>&1; then
    # npm's hidden lockfile lists what it installed, one "node_modules/<name>" entry a package.
    installed=$(grep -c '"node_modules/' "$check/node_modules/.package-lock.json")
    say "npm packages" "installed $installed packages into $check/node_modules (npm ci)"
  else
    say "npm packages" "NOT INSTALLED (npm ci --prefix $check failed, see $setup_log): skips $skips"
    missing=$((missing + 1))
  fi
}

# rdkafka_node DIR SKIPS: node-rdkafka, as DIR/package-lock.json pins it, compiled with the
# librdkafka it bundles (2.5+ pushes KIP-714 telemetry; Debian's librdkafka is 2.0) by Debian's
# node-gyp, with Debian's Node.js headers (libnode-dev, which node-gyp depends on), so that nothing
# comes from outside npm's and Debian's registries. Built once: DIR/node_modules keeps the build,
# and the next run finds it. librdkafka compiles at -O0 without debug symbols and with make -j
# (about 95 s of CPU instead of 190 s): node-rdkafka's own install script runs make serially, its
# gyp actions race under -j, so the packages are installed with --ignore-scripts and built in the
# same steps that script takes, librdkafka first.
rdkafka_node() {
  local dir=$1 skips=$2 addon tools=() headers version started
  addon=$dir/node_modules/node-rdkafka/build/Release/node-librdkafka.node
  if [ -f "$addon" ] && [ ! "$dir/package-lock.json" -nt "$addon" ]; then
    say "node-rdkafka" "present: $addon (librdkafka $(cd "$dir" && node -p \
      "require('node-rdkafka').librdkafkaVersion" 2>/dev/null || echo "does not load"))"
    return 0
  fi
  find_tool g++ >/dev/null || tools+=(g++)
  find_tool make >/dev/null || tools+=(make)
  [ -x /usr/bin/node-gyp ] || tools+=(node-gyp)
  [ -f /usr/include/node/node_version.h ] || tools+=(libnode-dev)
  if [ "${#tools[@]}" -gt 0 ]; then
    if [ -n "$cannot_install" ]; then
      say "node-rdkafka" "NOT INSTALLED ($cannot_install; apt-get install ${tools[*]}): skips $skips"
      missing=$((missing + 1))
      return 1
    fi
    if ! apt_install "${tools[@]}"; then
      say "node-rdkafka" "NOT INSTALLED (apt-get install ${tools[*]} failed, see $setup_log): skips $skips"
      missing=$((missing + 1))
      return 1
    fi
  fi
  # The addon is compiled against these headers: they must be the running node's.
  headers=$(sed -n 's/^#define NODE_\(MAJOR\|MINOR\|PATCH\)_VERSION \([0-9]*\).*/\2/p' \
    /usr/include/node/node_version.h | paste -sd.)
  version=$(node -p process.versions.node 2>/dev/null)
  if [ "$headers" != "$version" ]; then
    say "node-rdkafka" "NOT INSTALLED (Debian's Node.js headers are $headers, node is $version): skips $skips"
    missing=$((missing + 1))
    return 1
  fi
  started=$SECONDS
  # Debian's node-gyp runs Debian's gyp module, which only /usr/bin/python3 has.
  if (
    export npm_config_python=/usr/bin/python3 npm_config_nodedir=/usr \
      CFLAGS="-O0 -g0" CXXFLAGS="-O0 -g0"
    npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error \
      && cd "$dir/node_modules/node-rdkafka" \
      && ./configure \
      && make -j"$(nproc)" -C deps/librdkafka libs \
      && /usr/bin/node-gyp configure \
      && JOBS=$(nproc) /usr/bin/node-gyp build
  ) >>"$setup_log" 2>&1 && [ -f "$addon" ]; then
    say "node-rdkafka" "built into $dir/node_modules in $((SECONDS - started)) s (librdkafka $(cd "$dir" \
      && node -p "require('node-rdkafka').librdkafkaVersion" 2>/dev/null || echo "does not load"))"
  else
    say "node-rdkafka" "NOT INSTALLED (building it failed after $((SECONDS - started)) s, see $setup_log): skips $skips"
    missing=$((missing + 1))
    return 1
  fi
}

ensure node node "nodejs npm" "GrafanaSchemaTest and OtelNodeClientsIT"
if ensure npm npm npm "GrafanaSchemaTest and OtelNodeClientsIT"; then
  npm_packages dashboards/schema-check "GrafanaSchemaTest"
  # kafkajs with OpenTelemetry's kafkajs instrumentation and Node SDK (issue 46's real clients).
  npm_packages it-apps/otel-node "OtelNodeClientsIT"
  rdkafka_node it-apps/rdkafka-node "ClientTelemetryIT's librdkafka client"
else
  say "npm packages" "NOT INSTALLED (no npm): skips GrafanaSchemaTest and OtelNodeClientsIT"
  say "node-rdkafka" "NOT INSTALLED (no npm): skips ClientTelemetryIT's librdkafka client"
fi
if [ "$missing" -gt 0 ] && [ "${CI:-}" = "true" ]; then
  echo "klat test: CI=true: the tests that need what is missing fail instead of skipping"
fi

# The tests this run leaves to the first pass: the test classes and methods tagged jdk-independent.
jdk_independent=""
for arg in "$@"; do
  if [ "$arg" = "-Dklat.test.skip-jdk-independent=true" ]; then
    tagged=$(grep -rE --include='*.java' '@Tag\((JdkIndependent\.TAG|"jdk-independent")\)' \
      -- */src/test it-apps/*/src/test 2>/dev/null | wc -l)
    # The ITs whose short variant this property selects (JdkIndependent.leftToFirstPass()).
    shortened=$(grep -rl --include='*IT.java' 'JdkIndependent.leftToFirstPass()' \
      -- */src/test it-apps/*/src/test 2>/dev/null | wc -l)
    jdk_independent="; left to the first pass: ${tagged} test classes and methods tagged jdk-independent and the long phases of ${shortened} ITs"
    say "jdk-independent" "left out: ${tagged} test classes and methods tagged jdk-independent; ${shortened} ITs run their short variant"
  fi
done

started=target/test-started
touch "$started"
./mvnw -B -ntp verify --fail-at-end "$@"
status=$?

# attr NAME TAG: the number in NAME="..." of an XML start tag, 0 if it has none.
attr() {
  local value
  value=$(printf '%s' "$2" | grep -o " $1=\"[0-9]*\"" | head -1 | grep -o '[0-9]\+')
  echo "${value:-0}"
}

# Module by module, from this run's Surefire and Failsafe reports (not an earlier run's).
summary=target/test-summary.txt
{
  echo
  echo "klat test: every module's tests (this run's Surefire and Failsafe reports)"
  total_passed=0 total_failed=0 total_skipped=0 total_flaky=0
  # Each failed and skipped test with its reason, after the module lines.
  skipped_lines=()
  for module in $(sed -n 's:.*<module>\(.*\)</module>.*:\1:p' pom.xml); do
    tests=0 failures=0 errors=0 skipped=0 flakes=0 reports=0
    while IFS= read -r report; do
      reports=$((reports + 1))
      suite=$(grep -m1 -o '<testsuite [^>]*>' "$report")
      tests=$((tests + $(attr tests "$suite")))
      failures=$((failures + $(attr failures "$suite")))
      errors=$((errors + $(attr errors "$suite")))
      skipped=$((skipped + $(attr skipped "$suite")))
      flakes=$((flakes + $(attr flakes "$suite")))
      while IFS= read -r line; do
        skipped_lines+=("$line")
      done < <(awk '
        /<testcase / {
          match($0, /classname="[^"]*"/); cls = substr($0, RSTART + 11, RLENGTH - 12)
          sub(/.*\./, "", cls)
          match($0, / name="[^"]*"/); name = substr($0, RSTART + 7, RLENGTH - 8)
        }
        /<skipped/ {
          msg = ""
          if (match($0, /message="[^"]*"/)) msg = substr($0, RSTART + 9, RLENGTH - 10)
          else if (match($0, /CDATA\[[^:]*: /)) {
            msg = substr($0, RSTART + RLENGTH); sub(/\]\]>.*/, "", msg)
          }
          gsub(/&apos;/, "\047", msg); gsub(/&quot;/, "\"", msg); gsub(/&lt;/, "<", msg)
          gsub(/&gt;/, ">", msg); gsub(/&amp;/, "\\&", msg)
          print "  skipped " cls "." name ": " msg
        }
        # The message of a failure: its first line, unescaped, at most 300 characters.
        function failure_message(  msg) {
          msg = ""
          if (match($0, /message="[^"]*"/)) msg = substr($0, RSTART + 9, RLENGTH - 10)
          sub(/&#10;.*/, "", msg); gsub(/&apos;/, "\047", msg); gsub(/&quot;/, "\"", msg)
          gsub(/&lt;/, "<", msg); gsub(/&gt;/, ">", msg); gsub(/&amp;/, "\\&", msg)
          if (length(msg) > 300) msg = substr(msg, 1, 300) "..."
          return msg
        }
        /<flakyFailure|<flakyError/ {
          print "  FLAKY " cls "." name " (failed, then passed on its rerun): " failure_message()
        }
        /<failure|<error/ { print "  FAILED " cls "." name ": " failure_message() }' "$report")
    done < <(find "$module/target/surefire-reports" "$module/target/failsafe-reports" \
      -name 'TEST-*.xml' -newer "$started" 2>/dev/null)
    failed=$((failures + errors))
    passed=$((tests - failed - skipped))
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    total_skipped=$((total_skipped + skipped))
    total_flaky=$((total_flaky + flakes))
    if [ "$reports" -eq 0 ]; then
      printf '  %-22s no tests ran\n' "$module"
    else
      printf '  %-22s %d passed, %d failed, %d skipped\n' "$module" "$passed" "$failed" "$skipped"
    fi
  done
  for line in "${skipped_lines[@]}"; do
    echo "$line"
  done
  result="passed"
  [ "$status" -ne 0 ] && result="FAILED (./mvnw exited $status)"
  flaky=""
  [ "$total_flaky" -gt 0 ] && flaky=", ${total_flaky} flaky (passed on a rerun, listed above)"
  echo "klat test: ${result}: ${total_passed} passed, ${total_failed} failed, ${total_skipped} skipped${flaky}${jdk_independent}"
} | tee "$summary"
exit "$status"
