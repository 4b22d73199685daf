package dev.klat.it.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The agent's and the broker probe's jars carry every klat class their own classes refer to. The
 * probe's jar once took a hand-picked list of the agent's classes: a class one of them started to
 * use and the list did not name was missing at run time, and the probe's log, which swallows its
 * own errors so as never to fail the broker, fell silent. Both now shade {@code agent-core/} whole;
 * the probe relocates it, so that the two jars in one JVM share none of its classes
 * (agent-core/DESIGN.md).
 */
// The jars' entries and constant pools, read as bytes: CI runs it on its first JDK only
// (JdkIndependent).
@Tag("jdk-independent")
class SelfContainedJarsIT {

  @Test
  void theBrokerProbeJarHasEveryKlatClassItsClassesUse() throws IOException {
    assertThat(missingKlatClasses(Paths.get(System.getProperty("klat.broker-probe.jar"))))
        .isEmpty();
  }

  @Test
  void theAgentJarHasEveryKlatClassItsClassesUse() throws IOException {
    assertThat(missingKlatClasses(Paths.get(System.getProperty("klat.agent.jar")))).isEmpty();
  }

  @Test
  void theBrokerProbeJarHoldsTheCoreAndAsmRelocatedAndNothingOfTheClientAgent() throws IOException {
    Set<String> probe = classes(Paths.get(System.getProperty("klat.broker-probe.jar")));
    assertThat(probe)
        .as("only the probe's own packages and the model, as before")
        .allMatch(c -> c.startsWith("dev/klat/probe/") || c.startsWith("dev/klat/model/"))
        .anyMatch(c -> c.startsWith("dev/klat/probe/shaded/agentcore/weave/"))
        .anyMatch(c -> c.startsWith("dev/klat/probe/shaded/asm/"));
    Set<String> agent = classes(Paths.get(System.getProperty("klat.agent.jar")));
    assertThat(agent)
        .as("the core whole, ASM relocated")
        .allMatch(c -> c.startsWith("dev/klat/"))
        .anyMatch(c -> c.startsWith("dev/klat/agentcore/weave/"))
        .anyMatch(c -> c.startsWith("dev/klat/agent/shaded/asm/"));
    Set<String> shared = new TreeSet<>(probe);
    shared.retainAll(agent);
    assertThat(shared).as("classes in both jars").allMatch(c -> c.startsWith("dev/klat/model/"));
  }

  private static Set<String> classes(Path jar) throws IOException {
    Set<String> classes = new TreeSet<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> entries = file.entries();
      while (entries.hasMoreElements()) {
        String name = entries.nextElement().getName();
        if (name.endsWith(".class")) {
          classes.add(name);
        }
      }
    }
    return classes;
  }

  // A klat class named in a class constant or in a type descriptor.
  private static final Pattern KLAT_TYPE =
      Pattern.compile("^dev/klat/[\\w/$]+$|L(dev/klat/[\\w/$]+);");

  private static Set<String> missingKlatClasses(Path jar) throws IOException {
    Set<String> present = new HashSet<>();
    Set<String> referenced = new TreeSet<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      Enumeration<JarEntry> entries = file.entries();
      while (entries.hasMoreElements()) {
        JarEntry entry = entries.nextElement();
        String name = entry.getName();
        if (!name.startsWith("dev/klat/") || !name.endsWith(".class")) {
          continue;
        }
        present.add(name.substring(0, name.length() - ".class".length()));
        try (InputStream in = file.getInputStream(entry)) {
          for (String constant : utf8Constants(in)) {
            Matcher m = KLAT_TYPE.matcher(constant);
            while (m.find()) {
              referenced.add(m.group(1) != null ? m.group(1) : m.group());
            }
          }
        }
      }
    }
    assertThat(present).as("klat classes in %s", jar).isNotEmpty();
    referenced.removeAll(present);
    return referenced;
  }

  // The UTF-8 entries of a class file's constant pool, but string literals: class names and
  // descriptors among them (a literal such as a package prefix names no class).
  private static Set<String> utf8Constants(InputStream classFile) throws IOException {
    DataInputStream in = new DataInputStream(classFile);
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file");
    }
    in.readUnsignedShort();
    in.readUnsignedShort();
    int count = in.readUnsignedShort();
    Map<Integer, String> utf8 = new HashMap<>();
    Set<Integer> literals = new HashSet<>();
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> utf8.put(i, in.readUTF());
        case 8 -> literals.add(in.readUnsignedShort());
        case 7, 16, 19, 20 -> in.skipBytes(2);
        case 15 -> in.skipBytes(3);
        case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
        case 5, 6 -> {
          in.skipBytes(8);
          i++; // Longs and doubles take two entries.
        }
        default -> throw new IOException("unknown constant pool tag " + tag);
      }
    }
    literals.forEach(utf8::remove);
    return new HashSet<>(utf8.values());
  }
}
