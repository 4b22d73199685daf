package dev.klat.it.bench;

import java.lang.management.ManagementFactory;

/**
 * Attaches the klat agent to this JVM after the kafka-clients classes it instruments are loaded, so
 * that the agent takes its runtime-attach path (retransformation, state in a map) as it does for an
 * application that has been running for a while. Needs {@code -Djdk.attach.allowAttachSelf=true};
 * the agent's settings are this JVM's {@code klat.*} system properties.
 */
final class SelfAttach {

  private static final String[] INSTRUMENTED_CLASSES = {
    "org.apache.kafka.clients.producer.KafkaProducer",
    "org.apache.kafka.clients.producer.internals.ProducerBatch",
    "org.apache.kafka.clients.producer.internals.Sender",
    "org.apache.kafka.clients.consumer.KafkaConsumer",
    "org.apache.kafka.common.message.FetchRequestData",
    "org.apache.kafka.clients.consumer.internals.AbstractFetch",
    "org.apache.kafka.clients.consumer.internals.CompletedFetch",
  };

  private SelfAttach() {}

  static void afterLoadingKafkaClients(String agentJar) throws Exception {
    for (String name : INSTRUMENTED_CLASSES) {
      Class.forName(name, false, SelfAttach.class.getClassLoader());
    }
    String pid = ManagementFactory.getRuntimeMXBean().getName().split("@")[0];
    Class<?> vmClass = Class.forName("com.sun.tools.attach.VirtualMachine");
    Object vm = vmClass.getMethod("attach", String.class).invoke(null, pid);
    try {
      vmClass.getMethod("loadAgent", String.class).invoke(vm, agentJar);
    } finally {
      vmClass.getMethod("detach").invoke(vm);
    }
  }
}
