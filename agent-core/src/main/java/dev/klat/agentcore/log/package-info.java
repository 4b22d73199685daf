/**
 * The agents' own log ({@link dev.klat.agentcore.log.AgentLog}): one line per message on standard
 * error, never throwing, with once-only and throttled warnings for anything that can repeat.
 */
package dev.klat.agentcore.log;
