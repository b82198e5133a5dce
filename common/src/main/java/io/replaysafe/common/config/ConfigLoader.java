package io.replaysafe.common.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.replaysafe.common.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Collectors;

/**
 * Reads a pipeline file into a validated {@link PipelineConfig}: the one edge where YAML enters.
 */
public final class ConfigLoader {
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private ConfigLoader() {}

  public static PipelineConfig load(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw ConfigErrors.cannotReadPipelineFile(
          file, "it does not exist; check the --config path", e);
    } catch (IOException e) {
      throw ConfigErrors.cannotReadPipelineFile(file, e.getMessage(), e);
    }
    return parse(file.toString(), text);
  }

  /** Parses YAML text; {@code origin} names it in errors (a file path, or "inline"). */
  public static PipelineConfig parse(String origin, String yaml) {
    try {
      PipelineConfig config = YAML.readValue(yaml, PipelineConfig.class);
      if (config == null) {
        throw ConfigErrors.rule(
            "Pipeline file " + origin + " is empty", "give at least name, source and bronze");
      }
      return config;
    } catch (UnrecognizedPropertyException e) {
      String where = pathOf(e);
      String known =
          e.getKnownPropertyIds() == null
              ? "?"
              : e.getKnownPropertyIds().stream()
                  .map(String::valueOf)
                  .sorted()
                  .collect(Collectors.joining(", "));
      throw ConfigErrors.inPipelineFile(
          origin,
          "unknown key '"
              + where
              + "'; known keys there are ["
              + known
              + "]. Fix the spelling or"
              + " remove it.",
          e);
    } catch (JsonMappingException e) {
      ConfigException cause = findConfigException(e);
      if (cause != null) {
        throw ConfigErrors.inPipelineFile(origin, cause.getMessage(), cause);
      }
      if (yamlSyntaxError(e) != null) {
        throw invalidYaml(origin, yamlSyntaxError(e));
      }
      // Jackson's own message quotes the offending value, which may be a secret pasted into the
      // wrong key: name the key and the expected shape instead, and keep the cause out.
      throw ConfigErrors.wrongShape(origin, pathOf(e), expected(e));
    } catch (JsonProcessingException e) {
      throw invalidYaml(origin, e);
    }
  }

  private static String expected(JsonMappingException e) {
    if (e instanceof com.fasterxml.jackson.databind.exc.MismatchedInputException m
        && m.getTargetType() != null) {
      Class<?> type = m.getTargetType();
      String name =
          type == Boolean.class || type == boolean.class
              ? "true or false"
              : Number.class.isAssignableFrom(type) || type.isPrimitive()
                  ? "a number"
                  : java.util.Collection.class.isAssignableFrom(type)
                      ? "a list"
                      : java.util.Map.class.isAssignableFrom(type)
                          ? "a mapping"
                          : type == String.class ? "a string" : "a " + type.getSimpleName();
      return ": expected " + name;
    }
    return "";
  }

  /**
   * A syntax error met while mapping: Jackson reports it as a mapping error on the enclosing key.
   */
  private static JsonProcessingException yamlSyntaxError(JsonMappingException e) {
    for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
      if (t instanceof com.fasterxml.jackson.core.JsonParseException parse) {
        return parse;
      }
    }
    return null;
  }

  private static ConfigException invalidYaml(String origin, JsonProcessingException e) {
    return ConfigErrors.invalidYaml(origin, location(e), yamlProblem(e));
  }

  private static String location(JsonProcessingException e) {
    return e.getLocation() == null
        ? ""
        : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
  }

  /** SnakeYAML's problem alone ("mapping values are not allowed here"), without the quoted text. */
  private static String yamlProblem(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.yaml.snakeyaml.error.MarkedYAMLException marked
          && marked.getProblem() != null) {
        return marked.getProblem();
      }
    }
    return "check indentation, colons and quotes";
  }

  private static ConfigException findConfigException(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConfigException c) {
        return c;
      }
    }
    return null;
  }

  private static String pathOf(JsonMappingException e) {
    return e.getPath().stream()
        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
        .collect(Collectors.joining("."));
  }
}
