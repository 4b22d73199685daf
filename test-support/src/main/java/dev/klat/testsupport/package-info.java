/**
 * What klat's tests share beyond a Kafka cluster: {@link dev.klat.testsupport.RequiredTool}, the
 * one rule for a test whose outside tool (Chromium, Prometheus, Node.js and its packages) is
 * missing, and {@link dev.klat.testsupport.HeadlessChromium}, which renders the pages the tests
 * check; and {@link dev.klat.testsupport.SettingTableCheck}, what the doc tests of the agent's, the
 * broker probe's and the collector's settings tables check alike; {@link
 * dev.klat.testsupport.JdkIndependent}, the tag of the tests CI runs on its first JDK only. {@code
 * ./klat test} ({@code test-support/run-tests.sh}) installs the tools before Maven runs.
 */
package dev.klat.testsupport;
