/** The klat -javaagent: entry point, configuration and the agent's own log. */
package dev.klat.agent;
