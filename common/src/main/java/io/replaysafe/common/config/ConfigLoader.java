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
      throw ConfigErrors.inPipelineFile(
          origin, "'" + pathOf(e) + "' has the wrong shape: " + e.getOriginalMessage(), e);
    } catch (JsonProcessingException e) {
      throw ConfigErrors.rule(
          "Pipeline file " + origin + " is not valid YAML: " + e.getOriginalMessage(),
          "fix the syntax where the parser points",
          e);
    }
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
