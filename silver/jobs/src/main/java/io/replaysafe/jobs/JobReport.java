package io.replaysafe.jobs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.replaysafe.common.ErrorKind;
import io.replaysafe.common.ErrorMessages;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.io.Json;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one line a job prints on stdout when it ends, for schedulers that keep the last line (cron
 * mail, Airflow's XCom, a Databricks run's output): the human summary, or one JSON object with
 * {@code --json}. Success and failure both get one; details go to stderr.
 */
public final class JobReport {
  public static final int EXIT_OK = 0;
  public static final int EXIT_FAILURE = ErrorKind.FAILURE.exitCode();
  public static final int EXIT_USAGE = ErrorKind.CONFIGURATION.exitCode();

  public static final String OK = "ok";
  public static final String FAILED = "failed";

  private static final ObjectMapper JSON = Json.mapper();

  private JobReport() {}

  /** The exit code of {@code e}'s {@link ErrorKind}: 2 configuration, 4 retryable, 5 timeout... */
  public static int exitCode(Throwable e) {
    return ErrorKind.of(e).exitCode();
  }

  /** A replaysafe error's message as written; anything else with its type, which then matters. */
  public static String messageOf(Throwable e) {
    if (e instanceof ReplaysafeException) {
      return e.getMessage();
    }
    String name = e.getClass().getSimpleName();
    String message = e.getMessage() == null ? name : name + ": " + e.getMessage();
    // A wrapper (Scala's "Boxed Exception" around an Error in a Spark thread, a reflective call's
    // InvocationTargetException) names nothing that failed: its innermost cause does. Spark's own
    // messages usually quote their cause already, and then nothing is added.
    if (ErrorMessages.rootCause(e) != e) {
      String cause = ErrorMessages.rootMessage(e);
      if (e.getMessage() == null || !e.getMessage().contains(cause)) {
        message += " (caused by " + cause + ")";
      }
    }
    return message;
  }

  /** The first line of a message: reports of rejected batches go on for many lines. */
  public static String firstLine(String message) {
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** "{@code label}: FAILED: first line of the error". */
  public static String failureLine(String label, Throwable e) {
    return label + ": FAILED: " + firstLine(messageOf(e));
  }

  /** {@code fields} with {@code "status"} inserted after {@code "pipeline"} (or first). */
  public static Map<String, Object> withStatus(Map<String, Object> fields, String status) {
    Map<String, Object> map = new LinkedHashMap<>();
    if (!fields.containsKey("pipeline")) {
      map.put("status", status);
    }
    fields.forEach(
        (key, value) -> {
          map.put(key, value);
          if (key.equals("pipeline")) {
            map.put("status", status);
          }
        });
    return map;
  }

  /**
   * The failure fields every JSON report carries: status, exit code, the error's kind ({@link
   * ErrorKind#label()}), the whole message.
   */
  public static Map<String, Object> failureFields(Throwable e) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("status", FAILED);
    map.put("exitCode", exitCode(e));
    map.put("kind", ErrorKind.of(e).label());
    map.put("error", messageOf(e));
    return map;
  }

  public static String toJson(Map<String, Object> map) {
    try {
      return JSON.writeValueAsString(map);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write a job report as JSON: " + map.keySet(), e);
    }
  }
}
