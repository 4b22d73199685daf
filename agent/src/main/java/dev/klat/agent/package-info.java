/**
 * The klat -javaagent: entry point, start-up and attach. Its configuration is in {@code config},
 * its log, weaver and clocks are the core's ({@code dev.klat.agentcore}).
 */
package dev.klat.agent;
