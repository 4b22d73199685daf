package dev.klat.agentcore.weave;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Rewrites one class file according to its {@link ClassPlan}: inserts the hook calls and, when the
 * plan asks for it, adds the {@link StateHolder} field and accessors.
 *
 * <p>Plain ASM on purpose. ByteBuddy's {@code AgentBuilder} did the same job but loaded about 1,240
 * classes during {@code premain} (420 ms of start-up on the benchmark machine); this loads a few
 * dozen, and only when a class it instruments is loaded.
 */
public final class Weaver {

  static final String STATE_FIELD = "klat$state";
  private static final String STATE_HOLDER = Type.getInternalName(StateHolder.class);
  private static final String OBJECT_DESCRIPTOR = "Ljava/lang/Object;";

  private Weaver() {}

  /** The outcome of weaving one class: the new bytes and what could not be applied. */
  public static final class Result {
    /** The woven class, or null when nothing was changed. */
    public final byte[] bytes;

    /** Why each hook that was left out could not be applied. */
    public final List<String> skipped;

    Result(byte[] bytes, List<String> skipped) {
      this.bytes = bytes;
      this.skipped = skipped;
    }
  }

  /**
   * Weaves {@code classFile}. A hook whose method is missing or whose values do not fit is left out
   * and named in {@link Result#skipped}; the other hooks still apply. Returns null bytes when
   * nothing was changed.
   */
  public static Result weave(byte[] classFile, ClassPlan plan) {
    return weave(classFile, plan, true);
  }

  /**
   * Weaves {@code classFile}; with {@code mayAddState} false, the class gets its hooks but no
   * {@link StateHolder} field, as a class already loaded must keep its fields and methods when it
   * is retransformed (the client agent's {@code States} keeps those instances' state instead).
   */
  public static Result weave(byte[] classFile, ClassPlan plan, boolean mayAddState) {
    ClassReader reader = new ClassReader(classFile);
    // COMPUTE_MAXS only: the inserted code has no branches, so frames stay as they are, and
    // computing frames could load application classes from inside the transformer.
    ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
    HookingVisitor visitor = new HookingVisitor(writer, plan, mayAddState);
    reader.accept(visitor, 0);
    List<String> skipped = new ArrayList<String>(visitor.problems);
    for (Hook hook : plan.hooks) {
      if (!visitor.applied.contains(hook) && !visitor.rejected.contains(hook)) {
        skipped.add(hook.label + ": no method " + hook.methodName + " with the expected arguments");
      }
    }
    boolean changed = !visitor.applied.isEmpty() || visitor.stateAdded;
    return new Result(changed ? writer.toByteArray() : null, skipped);
  }

  private static final class HookingVisitor extends ClassVisitor {
    private final ClassPlan plan;
    private final Map<String, String> instanceFieldDescriptors = new HashMap<String, String>();
    final Set<Hook> applied = new LinkedHashSet<Hook>();
    final Set<Hook> rejected = new LinkedHashSet<Hook>();
    final List<String> problems = new ArrayList<String>();
    boolean stateAdded;
    private String owner;
    private boolean addState;

    private final boolean mayAddState;

    HookingVisitor(ClassVisitor next, ClassPlan plan, boolean mayAddState) {
      super(Opcodes.ASM9, next);
      this.plan = plan;
      this.mayAddState = mayAddState;
    }

    @Override
    public void visit(
        int version,
        int access,
        String name,
        String signature,
        String superName,
        String[] interfaces) {
      owner = name;
      boolean isInterface = (access & Opcodes.ACC_INTERFACE) != 0;
      addState = plan.addState && mayAddState && !isInterface;
      if (plan.addState && isInterface) {
        problems.add(name + " is an interface: it cannot hold klat state");
      }
      String[] withHolder = interfaces;
      if (addState) {
        withHolder = new String[interfaces == null ? 1 : interfaces.length + 1];
        if (interfaces != null) {
          System.arraycopy(interfaces, 0, withHolder, 0, interfaces.length);
        }
        withHolder[withHolder.length - 1] = STATE_HOLDER;
      }
      super.visit(version, access, name, signature, superName, withHolder);
    }

    @Override
    public FieldVisitor visitField(
        int access, String name, String descriptor, String signature, Object value) {
      if ((access & Opcodes.ACC_STATIC) == 0) {
        instanceFieldDescriptors.put(name, descriptor);
      }
      return super.visitField(access, name, descriptor, signature, value);
    }

    @Override
    public MethodVisitor visitMethod(
        int access, String name, String descriptor, String signature, String[] exceptions) {
      MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
      // Bridges and other synthetic methods delegate to the real one, which gets the hook.
      if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_SYNTHETIC)) != 0
          || name.equals("<clinit>")) {
        return next;
      }
      List<Hook> enter = null;
      List<Hook> exit = null;
      for (Hook hook : plan.hooks) {
        if (!hook.matches(name, descriptor)) {
          continue;
        }
        String problem = check(hook, access, descriptor);
        if (problem != null) {
          rejected.add(hook);
          problems.add(hook.label + ": " + problem);
          continue;
        }
        applied.add(hook);
        if (hook.at == Hook.At.ENTER) {
          enter = add(enter, hook);
        } else {
          exit = add(exit, hook);
        }
      }
      if (enter == null && exit == null) {
        return next;
      }
      return new HookInserter(
          next, owner, access, descriptor, enter, exit, instanceFieldDescriptors);
    }

    @Override
    public void visitEnd() {
      if (addState) {
        addStateHolder();
        stateAdded = true;
      }
      super.visitEnd();
    }

    private void addStateHolder() {
      FieldVisitor field =
          super.visitField(
              Opcodes.ACC_PRIVATE
                  | Opcodes.ACC_VOLATILE
                  | Opcodes.ACC_SYNTHETIC
                  | Opcodes.ACC_TRANSIENT,
              STATE_FIELD,
              OBJECT_DESCRIPTOR,
              null,
              null);
      field.visitEnd();

      MethodVisitor getter =
          super.visitMethod(Opcodes.ACC_PUBLIC, STATE_FIELD, "()" + OBJECT_DESCRIPTOR, null, null);
      getter.visitCode();
      getter.visitVarInsn(Opcodes.ALOAD, 0);
      getter.visitFieldInsn(Opcodes.GETFIELD, owner, STATE_FIELD, OBJECT_DESCRIPTOR);
      getter.visitInsn(Opcodes.ARETURN);
      getter.visitMaxs(0, 0);
      getter.visitEnd();

      MethodVisitor setter =
          super.visitMethod(
              Opcodes.ACC_PUBLIC, STATE_FIELD, "(" + OBJECT_DESCRIPTOR + ")V", null, null);
      setter.visitCode();
      setter.visitVarInsn(Opcodes.ALOAD, 0);
      setter.visitVarInsn(Opcodes.ALOAD, 1);
      setter.visitFieldInsn(Opcodes.PUTFIELD, owner, STATE_FIELD, OBJECT_DESCRIPTOR);
      setter.visitInsn(Opcodes.RETURN);
      setter.visitMaxs(0, 0);
      setter.visitEnd();
    }

    /**
     * Why this hook cannot be woven into this method, or null when it can. Every value must fit the
     * hook's parameter exactly (primitives) or be passed to {@code Object} or to its own type
     * (references), so that the verifier accepts the call without knowing the class hierarchy.
     */
    private String check(Hook hook, int access, String methodDescriptor) {
      boolean isStatic = (access & Opcodes.ACC_STATIC) != 0;
      Type[] methodArguments = Type.getArgumentTypes(methodDescriptor);
      Type returnType = Type.getReturnType(methodDescriptor);
      Type[] hookParameters = Type.getArgumentTypes(hook.hookDescriptor);
      if (hookParameters.length != hook.values.size()) {
        return "the hook method takes "
            + hookParameters.length
            + " arguments but "
            + hook.values.size()
            + " values are passed";
      }
      for (int i = 0; i < hookParameters.length; i++) {
        Hook.Value value = hook.values.get(i);
        Type valueType;
        switch (value.kind) {
          case THIS:
            if (isStatic) {
              return "the method is static: there is no this";
            }
            valueType = Type.getObjectType(owner);
            break;
          case ARGUMENT:
            if (value.argumentIndex >= methodArguments.length) {
              return "there is no " + value;
            }
            valueType = methodArguments[value.argumentIndex];
            break;
          case FIELD:
            String fieldDescriptor = instanceFieldDescriptors.get(value.fieldName);
            if (fieldDescriptor == null || isStatic) {
              return "no instance " + value;
            }
            valueType = Type.getType(fieldDescriptor);
            break;
          default:
            if (returnType.getSort() == Type.VOID) {
              return "the method returns nothing";
            }
            valueType = returnType;
        }
        if (!fits(valueType, hookParameters[i])) {
          return value
              + " is "
              + valueType.getClassName()
              + ", the hook takes "
              + hookParameters[i].getClassName();
        }
      }
      Type hookReturn = Type.getReturnType(hook.hookDescriptor);
      if (hook.storeIntoArgument >= 0) {
        if (hook.storeIntoArgument >= methodArguments.length) {
          return "there is no argument " + hook.storeIntoArgument + " to replace";
        }
        if (!hookReturn.equals(methodArguments[hook.storeIntoArgument])) {
          return "the hook returns "
              + hookReturn.getClassName()
              + ", argument "
              + hook.storeIntoArgument
              + " is "
              + methodArguments[hook.storeIntoArgument].getClassName();
        }
      }
      return null;
    }

    private static boolean fits(Type value, Type parameter) {
      boolean valueIsReference = value.getSort() == Type.OBJECT || value.getSort() == Type.ARRAY;
      boolean parameterIsReference =
          parameter.getSort() == Type.OBJECT || parameter.getSort() == Type.ARRAY;
      if (valueIsReference != parameterIsReference) {
        return false;
      }
      if (!valueIsReference) {
        return value.equals(parameter);
      }
      return parameter.getDescriptor().equals(OBJECT_DESCRIPTOR) || parameter.equals(value);
    }

    private static List<Hook> add(List<Hook> hooks, Hook hook) {
      List<Hook> list = hooks == null ? new ArrayList<Hook>(2) : hooks;
      list.add(hook);
      return list;
    }
  }

  /** Inserts the calls into one method's code. */
  private static final class HookInserter extends MethodVisitor {
    private final String owner;
    private final boolean isStatic;
    private final Type[] arguments;
    private final int[] argumentSlots;
    private final List<Hook> enter;
    private final List<Hook> exit;
    private final Map<String, String> fieldDescriptors;

    HookInserter(
        MethodVisitor next,
        String owner,
        int access,
        String descriptor,
        List<Hook> enter,
        List<Hook> exit,
        Map<String, String> fieldDescriptors) {
      super(Opcodes.ASM9, next);
      this.owner = owner;
      this.isStatic = (access & Opcodes.ACC_STATIC) != 0;
      this.arguments = Type.getArgumentTypes(descriptor);
      this.argumentSlots = new int[arguments.length];
      int slot = isStatic ? 0 : 1;
      for (int i = 0; i < arguments.length; i++) {
        argumentSlots[i] = slot;
        slot += arguments[i].getSize();
      }
      this.enter = enter;
      this.exit = exit;
      this.fieldDescriptors = fieldDescriptors;
    }

    @Override
    public void visitCode() {
      super.visitCode();
      if (enter != null) {
        for (Hook hook : enter) {
          emit(hook, 0);
        }
      }
    }

    @Override
    public void visitInsn(int opcode) {
      if (exit != null && opcode >= Opcodes.IRETURN && opcode <= Opcodes.RETURN) {
        int returnedSize =
            opcode == Opcodes.RETURN
                ? 0
                : opcode == Opcodes.LRETURN || opcode == Opcodes.DRETURN ? 2 : 1;
        for (Hook hook : exit) {
          emit(hook, returnedSize);
        }
      }
      super.visitInsn(opcode);
    }

    private void emit(Hook hook, int returnedSize) {
      for (Hook.Value value : hook.values) {
        switch (value.kind) {
          case THIS:
            super.visitVarInsn(Opcodes.ALOAD, 0);
            break;
          case ARGUMENT:
            Type type = arguments[value.argumentIndex];
            super.visitVarInsn(type.getOpcode(Opcodes.ILOAD), argumentSlots[value.argumentIndex]);
            break;
          case FIELD:
            super.visitVarInsn(Opcodes.ALOAD, 0);
            super.visitFieldInsn(
                Opcodes.GETFIELD, owner, value.fieldName, fieldDescriptors.get(value.fieldName));
            break;
          default:
            // The returned value is on the stack: keep one copy for the return itself.
            super.visitInsn(returnedSize == 2 ? Opcodes.DUP2 : Opcodes.DUP);
        }
      }
      super.visitMethodInsn(
          Opcodes.INVOKESTATIC, hook.hookOwner, hook.hookName, hook.hookDescriptor, false);
      Type hookReturn = Type.getReturnType(hook.hookDescriptor);
      if (hook.storeIntoArgument >= 0) {
        super.visitVarInsn(
            hookReturn.getOpcode(Opcodes.ISTORE), argumentSlots[hook.storeIntoArgument]);
      } else if (hookReturn.getSize() == 1) {
        super.visitInsn(Opcodes.POP);
      } else if (hookReturn.getSize() == 2) {
        super.visitInsn(Opcodes.POP2);
      }
    }
  }
}
