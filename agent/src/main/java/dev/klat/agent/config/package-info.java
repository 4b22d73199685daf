/**
 * The agent's configuration ({@code klat.*} system properties, {@code KLAT_*} environment
 * variables, an optional properties file), its topic filter, and its own stderr log.
 */
package dev.klat.agent.config;
