package io.replaysafe.common.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every pipeline-file key, read from where it is declared: each section's {@code @JsonCreator}
 * factory, whose {@code @JsonProperty} parameters are the keys and whose {@link Help} annotations
 * say what they mean. {@code replaysafe help config} prints {@link #text()}; a test checks that
 * every key has its help and that the READMEs name no key that does not exist.
 */
public final class ConfigReference {
  private ConfigReference() {}

  /**
   * One key.
   *
   * @param path dotted from the top of the file, e.g. {@code silver.sequenceBy}
   * @param section true for a key that holds a section of keys
   * @param help null when the key has no {@link Help} (a defect the test reports)
   */
  public record Key(String path, boolean section, String type, String defaultValue, String help) {}

  /** Every key of a pipeline file, sections first then their keys, in declaration order. */
  public static List<Key> keys() {
    List<Key> keys = new ArrayList<>();
    collect(PipelineConfig.class, "", keys);
    return List.copyOf(keys);
  }

  /** The key at {@code path}, if there is one. */
  public static Optional<Key> key(String path) {
    return keys().stream().filter(k -> k.path().equals(path)).findFirst();
  }

  private static void collect(Class<?> type, String prefix, List<Key> into) {
    Method creator = creator(type).orElseThrow();
    for (Parameter p : creator.getParameters()) {
      JsonProperty property = p.getAnnotation(JsonProperty.class);
      if (property == null) {
        continue;
      }
      String path = prefix + property.value();
      Help help = p.getAnnotation(Help.class);
      Optional<Method> nested = creator(p.getType());
      String typeName =
          help != null && !help.type().isEmpty() ? help.type() : typeName(p.getType());
      into.add(
          new Key(
              path,
              nested.isPresent(),
              typeName,
              help == null ? "" : help.defaultValue(),
              help == null ? null : help.value()));
      if (nested.isPresent()) {
        collect(p.getType(), path + ".", into);
      }
    }
  }

  /** A config section's factory: a static {@code @JsonCreator} method of this package's types. */
  private static Optional<Method> creator(Class<?> type) {
    if (type.getPackage() == null
        || !type.getPackage().getName().equals(ConfigReference.class.getPackageName())) {
      return Optional.empty();
    }
    for (Method m : type.getDeclaredMethods()) {
      if (Modifier.isStatic(m.getModifiers())
          && m.isAnnotationPresent(JsonCreator.class)
          && m.getParameterCount() > 0
          && m.getParameters()[0].isAnnotationPresent(JsonProperty.class)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  private static String typeName(Class<?> type) {
    if (type == String.class) {
      return "string";
    }
    if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
      return "integer";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true | false";
    }
    if (List.class.isAssignableFrom(type)) {
      return "list";
    }
    if (java.util.Map.class.isAssignableFrom(type)) {
      return "mapping";
    }
    return type.getSimpleName();
  }

  /** The reference as {@code replaysafe help config} prints it. */
  public static String text() {
    StringBuilder sb = new StringBuilder();
    sb.append("The pipeline file: every key, its type, its default and what it does.\n");
    sb.append("Unknown keys are errors; values are checked when the file is loaded.\n");
    for (Key key : keys()) {
      int depth = (int) key.path().chars().filter(c -> c == '.').count();
      String indent = "  ".repeat(depth);
      sb.append('\n').append(indent).append(key.path());
      if (key.section()) {
        sb.append(" (section)");
      } else {
        sb.append(" (").append(key.type());
        if (!key.defaultValue().isEmpty()) {
          sb.append("; default ").append(key.defaultValue());
        }
        sb.append(')');
      }
      sb.append('\n').append(indent).append("  ").append(key.help() == null ? "" : key.help());
      sb.append('\n');
    }
    return sb.toString();
  }
}
