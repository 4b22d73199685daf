/**
 * The weaver both agents instrument Kafka with: hooks declared as data ({@link
 * dev.klat.agentcore.weave.Hook}, {@link dev.klat.agentcore.weave.ClassPlan}), and {@link
 * dev.klat.agentcore.weave.Weaver}, which inserts one {@code invokestatic} per hook with plain ASM
 * and, where a plan asks, the {@link dev.klat.agentcore.weave.StateHolder} field. Which classes to
 * weave, and when, is each agent's own (the client agent's {@code KlatTransformer}, the probe's
 * {@code ProbeTransformer}).
 */
package dev.klat.agentcore.weave;
