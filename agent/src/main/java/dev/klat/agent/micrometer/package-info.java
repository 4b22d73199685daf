/**
 * The opt-in mirror of klat's every-record histograms into the application's own Micrometer,
 * reached by reflection so that the agent ships no Micrometer and names none of its types.
 */
package dev.klat.agent.micrometer;
