/**
 * The latency model's vocabulary shared by the agent, the collector and the dashboards: instants,
 * segments and their breakdown, the timing header, span attribute keys and metric names.
 */
package dev.klat.model;
