/**
 * The agent's configuration ({@code klat.*} system properties, {@code KLAT_*} environment
 * variables, an optional properties file) and its topic filter. The log it reports problems to is
 * the core's ({@code dev.klat.agentcore.log.AgentLog}), shared with the broker probe.
 */
package dev.klat.agent.config;
