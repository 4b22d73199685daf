package dev.klat.agentcore.weave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.klat.agentcore.weave.Hook.Value;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class WeaverTest {

  private static final String TARGET = WeaveTarget.class.getName();
  private static final String HOOKS = TestHooks.class.getName();

  @BeforeEach
  void clearEvents() {
    TestHooks.EVENTS.clear();
  }

  @Test
  void entryHookReceivesThisArgumentsAndFieldsAndMayReplaceAnArgument() throws Exception {
    Object target =
        wovenInstance(
            Hook.on("greet", TARGET, "greet")
                .arguments("Ljava/lang/String;", "J")
                .passing(Value.self(), Value.argument(0), Value.argument(1), Value.field("name"))
                .calling(
                    HOOKS, "onGreet", "(Ljava/lang/Object;Ljava/lang/String;JLjava/lang/String;)V")
                .build(),
            Hook.on("greet", TARGET, "greet")
                .arguments("Ljava/lang/String;", "J")
                .passing(Value.argument(0))
                .calling(HOOKS, "replaceWho", "(Ljava/lang/String;)Ljava/lang/String;")
                .storingResultInto(0)
                .build());

    Object greeting = invoke(target, "greet", "ada", 3L);

    assertThat(greeting).isEqualTo("target greets ADA x3");
    assertThat(TestHooks.EVENTS).containsExactly("greet WeaveTarget ada 3 target");
  }

  @Test
  void exitHookSeesTheReturnedValueOfEverySizeAtEveryReturn() throws Exception {
    Object target =
        wovenInstance(
            Hook.on("greet", TARGET, "greet")
                .arguments("Ljava/lang/String;", "J")
                .atExit()
                .passing(Value.returned(), Value.argument(1))
                .calling(HOOKS, "onGreetReturn", "(Ljava/lang/Object;J)V")
                .build(),
            Hook.on("add", TARGET, "add")
                .arguments("J")
                .atExit()
                .passing(Value.returned(), Value.self())
                .calling(HOOKS, "onAddReturn", "(JLjava/lang/Object;)V")
                .build());

    assertThat(invoke(target, "greet", "bob", 2L)).isEqualTo("target greets bob x2");
    assertThat(invoke(target, "add", 5L)).isEqualTo(7L);
    assertThat(invoke(target, "add", -1L)).isEqualTo(7L);

    assertThat(TestHooks.EVENTS)
        .containsExactly("returned target greets bob x2 2", "add returned 7", "add returned 7");
  }

  @Test
  void staticMethodsTakeArgumentsAndTheApplicationsExceptionsStillPropagate() throws Exception {
    Object target =
        wovenInstance(
            Hook.on("increment", TARGET, "increment")
                .arguments("I")
                .passing(Value.argument(0))
                .calling(HOOKS, "onStatic", "(I)V")
                .build(),
            Hook.on("fail", TARGET, "fail")
                .passing(Value.self())
                .calling(HOOKS, "onFail", "(Ljava/lang/Object;)V")
                .build());

    Method increment = target.getClass().getMethod("increment", int.class);
    assertThat(increment.invoke(null, 41)).isEqualTo(42);
    Method fail = target.getClass().getMethod("fail");
    assertThatThrownBy(() -> fail.invoke(target))
        .hasRootCauseInstanceOf(IllegalStateException.class)
        .hasRootCauseMessage("the application's own failure");
    assertThat(TestHooks.EVENTS).containsExactly("increment 41", "fail entered");
  }

  @Test
  void constructorExitHooksSeeTheInitializedObject() throws Exception {
    wovenInstance(
        Hook.on("constructor", TARGET, "<init>")
            .anyArguments()
            .atExit()
            .passing(Value.self(), Value.field("name"))
            .calling(HOOKS, "onConstructed", "(Ljava/lang/Object;Ljava/lang/String;)V")
            .build());

    assertThat(TestHooks.EVENTS).containsExactly("constructed target");
    assertThatThrownBy(
            () ->
                Hook.on("constructor", TARGET, "<init>")
                    .anyArguments()
                    .passing(Value.self())
                    .calling(HOOKS, "onEither", "(Ljava/lang/Object;)V")
                    .build())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void alternativeNamesAndReturnTypesSelectTheMethod() throws Exception {
    Object target =
        wovenInstance(
            Hook.on("renamed", TARGET, "absentOldName")
                .orNamed("add")
                .anyArguments()
                .returning("J")
                .passing(Value.self())
                .calling(HOOKS, "onEither", "(Ljava/lang/Object;)V")
                .build());
    invoke(target, "add", 1L);
    invoke(target, "greet", "x", 1L);

    assertThat(TestHooks.EVENTS).containsExactly("either");
    Weaver.Result wrongReturn =
        Weaver.weave(
            classFile(WeaveTarget.class),
            ClassPlan.of(
                TARGET,
                false,
                Collections.singletonList(
                    Hook.on("add returning int", TARGET, "add")
                        .anyArguments()
                        .returning("I")
                        .passing(Value.self())
                        .calling(HOOKS, "onEither", "(Ljava/lang/Object;)V")
                        .build())));
    assertThat(wrongReturn.skipped).hasSize(1);
  }

  @Test
  void aHookThatDoesNotFitIsSkippedWithItsReasonAndTheOthersStillApply() throws Exception {
    List<Hook> hooks =
        Arrays.asList(
            Hook.on("wrong primitive", TARGET, "greet")
                .arguments("Ljava/lang/String;", "J")
                .passing(Value.self(), Value.argument(1))
                .calling(HOOKS, "takesWrongType", "(Ljava/lang/Object;I)V")
                .build(),
            Hook.on("narrower reference", TARGET, "greet")
                .arguments("Ljava/lang/String;", "J")
                .passing(Value.argument(0))
                .calling(HOOKS, "takesSpecificType", "(Ljava/lang/Integer;)V")
                .build(),
            Hook.on("missing field", TARGET, "greet")
                .arguments("Ljava/lang/String;", "J")
                .passing(Value.self(), Value.argument(0), Value.argument(1), Value.field("nope"))
                .calling(
                    HOOKS, "onGreet", "(Ljava/lang/Object;Ljava/lang/String;JLjava/lang/String;)V")
                .build(),
            Hook.on("this in a static method", TARGET, "increment")
                .arguments("I")
                .passing(Value.self())
                .calling(HOOKS, "onFail", "(Ljava/lang/Object;)V")
                .build(),
            Hook.on("missing method", TARGET, "absent").calling(HOOKS, "onStatic", "(I)V").build(),
            Hook.on("fits", TARGET, "increment")
                .arguments("I")
                .passing(Value.argument(0))
                .calling(HOOKS, "onStatic", "(I)V")
                .build());

    Weaver.Result result =
        Weaver.weave(classFile(WeaveTarget.class), ClassPlan.of(TARGET, false, hooks));

    assertThat(result.skipped)
        .hasSize(5)
        .anySatisfy(line -> assertThat(line).startsWith("wrong primitive: argument 1 is long"))
        .anySatisfy(line -> assertThat(line).startsWith("narrower reference: argument 0 is"))
        .anySatisfy(line -> assertThat(line).startsWith("missing field: no instance field nope"))
        .anySatisfy(line -> assertThat(line).contains("there is no this"))
        .anySatisfy(line -> assertThat(line).startsWith("missing method: no method absent"));
    Class<?> woven = define(result.bytes);
    assertThat(woven.getMethod("increment", int.class).invoke(null, 1)).isEqualTo(2);
    assertThat(TestHooks.EVENTS).containsExactly("increment 1");
  }

  @Test
  void stateHolderFieldIsAddedAndWorks() throws Exception {
    Weaver.Result result =
        Weaver.weave(
            classFile(WeaveTarget.class),
            ClassPlan.of(TARGET, true, Collections.<Hook>emptyList()));
    Object target = define(result.bytes).getConstructor().newInstance();

    assertThat(target).isInstanceOf(StateHolder.class);
    StateHolder holder = (StateHolder) target;
    assertThat(holder.klat$state()).isNull();
    holder.klat$state("state");
    assertThat(holder.klat$state()).isEqualTo("state");
  }

  @Test
  void aRetransformedClassGetsItsHooksButNoField() throws Exception {
    Weaver.Result result =
        Weaver.weave(
            classFile(WeaveTarget.class),
            ClassPlan.of(
                TARGET,
                true,
                Collections.singletonList(
                    Hook.on("greet", TARGET, "greet")
                        .arguments("Ljava/lang/String;", "J")
                        .passing(
                            Value.self(), Value.argument(0), Value.argument(1), Value.field("name"))
                        .calling(
                            HOOKS,
                            "onGreet",
                            "(Ljava/lang/Object;Ljava/lang/String;JLjava/lang/String;)V")
                        .build())),
            false);
    Class<?> woven = define(result.bytes);
    Object target = woven.getConstructor().newInstance();

    assertThat(target).isNotInstanceOf(StateHolder.class);
    assertThat(Arrays.stream(woven.getDeclaredFields()).map(f -> f.getName()))
        .doesNotContain(Weaver.STATE_FIELD);
    assertThat(invoke(target, "greet", "ada", 1L)).isEqualTo("target greets ada x1");
    assertThat(TestHooks.EVENTS).containsExactly("greet WeaveTarget ada 1 target");
  }

  @Test
  void aClassWithNothingToDoIsLeftAlone() throws Exception {
    Weaver.Result result =
        Weaver.weave(
            classFile(WeaveTarget.class),
            ClassPlan.of(
                TARGET,
                false,
                Collections.singletonList(
                    Hook.on("missing", TARGET, "absent")
                        .calling(HOOKS, "onStatic", "(I)V")
                        .build())));

    assertThat(result.bytes).isNull();
    assertThat(result.skipped).hasSize(1);
  }

  @Test
  void exitHooksCannotReplaceArgumentsAndOnlyExitHooksSeeTheReturnedValue() {
    assertThatThrownBy(
            () ->
                Hook.on("x", TARGET, "greet")
                    .atExit()
                    .calling(HOOKS, "replaceWho", "(Ljava/lang/String;)Ljava/lang/String;")
                    .storingResultInto(0)
                    .build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(
            () ->
                Hook.on("x", TARGET, "greet")
                    .passing(Value.returned())
                    .calling(HOOKS, "onFail", "(Ljava/lang/Object;)V")
                    .build())
        .isInstanceOf(IllegalStateException.class);
  }

  private static Object wovenInstance(Hook... hooks) throws Exception {
    Weaver.Result result =
        Weaver.weave(
            classFile(WeaveTarget.class), ClassPlan.of(TARGET, false, Arrays.asList(hooks)));
    assertThat(result.skipped).isEmpty();
    return define(result.bytes).getConstructor().newInstance();
  }

  private static Object invoke(Object target, String name, Object... arguments) throws Exception {
    for (Method method : target.getClass().getMethods()) {
      if (method.getName().equals(name) && method.getParameterCount() == arguments.length) {
        return method.invoke(target, arguments);
      }
    }
    throw new NoSuchMethodException(name);
  }

  static byte[] classFile(Class<?> type) throws IOException {
    return resource(type.getName().replace('.', '/') + ".class", type.getClassLoader());
  }

  static byte[] resource(String path, ClassLoader loader) throws IOException {
    try (InputStream in = loader.getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      for (int n; (n = in.read(buffer)) > 0; ) {
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    }
  }

  /** Defines the woven class in a loader of its own; the JVM verifies it there. */
  private static Class<?> define(byte[] bytes) throws Exception {
    ClassLoader loader =
        new ClassLoader(WeaverTest.class.getClassLoader()) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.equals(TARGET)) {
              synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                return loaded != null ? loaded : defineClass(name, bytes, 0, bytes.length);
              }
            }
            return super.loadClass(name, resolve);
          }
        };
    return Class.forName(TARGET, true, loader);
  }
}
