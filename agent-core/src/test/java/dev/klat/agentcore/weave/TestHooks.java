package dev.klat.agentcore.weave;

import java.util.ArrayList;
import java.util.List;

/** Hook methods for {@link WeaverTest}: they record what the woven code passed them. */
public final class TestHooks {

  static final List<String> EVENTS = new ArrayList<String>();

  private TestHooks() {}

  public static void onGreet(Object self, String who, long times, String name) {
    EVENTS.add("greet " + self.getClass().getSimpleName() + " " + who + " " + times + " " + name);
  }

  public static String replaceWho(String who) {
    return who.toUpperCase();
  }

  public static void onGreetReturn(Object returned, long times) {
    EVENTS.add("returned " + returned + " " + times);
  }

  public static void onAddReturn(long returned, Object self) {
    EVENTS.add("add returned " + returned);
  }

  public static void onStatic(int value) {
    EVENTS.add("increment " + value);
  }

  public static void onFail(Object self) {
    EVENTS.add("fail entered");
  }

  public static void onConstructed(Object self, String name) {
    EVENTS.add("constructed " + name);
  }

  public static void onEither(Object self) {
    EVENTS.add("either");
  }

  public static void takesWrongType(Object self, int times) {
    EVENTS.add("never");
  }

  public static void takesSpecificType(Integer who) {
    EVENTS.add("never");
  }
}
