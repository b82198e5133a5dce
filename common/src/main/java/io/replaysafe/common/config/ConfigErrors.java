package io.replaysafe.common.config;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.ErrorMessages;
import io.replaysafe.common.ReservedNames;
import java.util.Collection;
import java.util.List;

/**
 * Every error about the pipeline file and the arguments, in one vocabulary: each names the key (as
 * written in the file, e.g. {@code silver.sequenceBy}), what is wrong with it, and what to write
 * instead. All are {@link ConfigException}s, which the CLI and the cluster mains turn into exit
 * code 2.
 */
public final class ConfigErrors {
  private ConfigErrors() {}

  /** Any problem the user fixes in the file or the arguments, as what failed / why / how to fix. */
  public static ConfigException of(String problem, String why, String fix, Throwable cause) {
    return new ConfigException(ErrorMessages.of(problem, why, fix), cause);
  }

  /** A required key is absent: {@code "<key> is missing; <fix>"}. */
  public static ConfigException missing(String key, String fix) {
    return new ConfigException(key + " is missing" + (fix == null ? "" : "; " + fix));
  }

  /** A value the key does not accept: {@code "<key> '<value>' <problem>; <fix>"}. */
  public static ConfigException badValue(String key, Object value, String problem, String fix) {
    return new ConfigException(key + " '" + value + "' " + problem + "; " + fix);
  }

  /** The same, keeping what the parser said. */
  public static ConfigException badValue(
      String key, Object value, String problem, String fix, Throwable cause) {
    return new ConfigException(key + " '" + value + "' " + problem + "; " + fix, cause);
  }

  /** A value outside a closed set: {@code "<key> '<value>' is unknown; use one of [...]"}. */
  public static ConfigException unknownValue(String key, Object value, Collection<?> allowed) {
    return badValue(key, value, "is unknown", "use one of " + List.copyOf(allowed));
  }

  /** Two keys that exclude each other: {@code "<section> sets both <a> and <b>; <fix>"}. */
  public static ConfigException bothSet(String section, String a, String b, String fix) {
    return new ConfigException(section + " sets both " + a + " and " + b + "; " + fix);
  }

  /** A rule across keys or with the schema: {@code "<problem>; <fix>"}. */
  public static ConfigException rule(String problem, String fix) {
    return new ConfigException(problem + "; " + fix);
  }

  /** The same, keeping what the parser said. */
  public static ConfigException rule(String problem, String fix, Throwable cause) {
    return new ConfigException(problem + "; " + fix, cause);
  }

  /**
   * A column named like one replaysafe writes or reads for itself ({@link ReservedNames}): {@code
   * "<where> declares column '<name>', a name reserved by the ingestion contract: it clashes with
   * <clash>. Reserved names: [...]; rename it"}.
   */
  public static ConfigException reservedName(String where, String column, String clash) {
    return rule(
        where
            + " declares column '"
            + column
            + "', a name reserved by the ingestion contract: it clashes with "
            + clash
            + ". Reserved names: "
            + ReservedNames.describe(),
        "rename it (a producer's field of that name then lands in the rescued-data column)");
  }

  /** A job's command line is wrong: {@code "Cannot start the <job> job: <problem>. Usage: ..."}. */
  public static ConfigException jobUsage(
      String job, String problem, String usage, Throwable cause) {
    return new ConfigException(
        "Cannot start the " + job + " job: " + problem + ". Usage: " + usage, cause);
  }

  /** An option replaysafe refuses, and why: {@code "<key> is not supported: <why>"}. */
  public static ConfigException notSupported(String key, String why) {
    return new ConfigException(key + " is not supported: " + why);
  }

  /** A source.schema column of a type bronze cannot read from JSON lines. */
  public static ConfigException unreadableType(String column, String typeSql, String why) {
    return new ConfigException(
        "source.schema column '"
            + column
            + "' has type "
            + typeSql
            + ", which bronze cannot read from JSON: "
            + why
            + ". Supported: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p,s),"
            + " STRING, BINARY, DATE, TIMESTAMP, TIMESTAMP_NTZ, VARIANT, and ARRAY, MAP<STRING, ...>"
            + " and STRUCT of these.");
  }

  /** A key naming a column the source schema does not declare. */
  public static ConfigException unknownColumn(String where, String column, List<String> known) {
    return new ConfigException(
        where
            + " names column '"
            + column
            + "', which source.schema does not declare; declared columns are "
            + known
            + ". Fix the name or add the column to source.schema");
  }

  /** A problem found while reading one pipeline file: {@code "Pipeline file <origin>: ..."}. */
  public static ConfigException inPipelineFile(String origin, String detail, Throwable cause) {
    return new ConfigException("Pipeline file " + origin + ": " + detail, cause);
  }

  /** The pipeline file itself cannot be read. */
  public static ConfigException cannotReadPipelineFile(
      Object file, String detail, Throwable cause) {
    return new ConfigException("Cannot read pipeline file " + file + ": " + detail, cause);
  }

  /**
   * A key the pipeline file must fill in but left empty (as {@code replaysafe init} drafts it when
   * the data does not decide): {@code "<key> is empty: the pipeline does not run until you choose
   * <what>. ..."}.
   */
  public static ConfigException unchosen(String key, String what) {
    return new ConfigException(
        key
            + " is empty: the pipeline does not run until you choose "
            + what
            + ". A file drafted by 'replaysafe init' lists candidates with their evidence in the"
            + " comment above it.");
  }

  /**
   * A pipeline-file value of the wrong type (a list where a string belongs). The value is not
   * shown: it may be a secret pasted into the wrong key.
   *
   * @param expected {@code ": expected a list"}, or empty when the type is not known
   */
  public static ConfigException wrongShape(String origin, String key, String expected) {
    return new ConfigException(
        "Pipeline file "
            + origin
            + ": '"
            + key
            + "' has the wrong shape"
            + expected
            + " (value not shown)");
  }

  /**
   * The pipeline file is not YAML. The text is not shown: it may hold a secret.
   *
   * @param location {@code " at line L, column C"}, or empty when the parser did not say
   * @param problem the parser's problem alone, without the quoted text
   */
  public static ConfigException invalidYaml(String origin, String location, String problem) {
    return new ConfigException(
        "Pipeline file "
            + origin
            + " is not valid YAML"
            + location
            + ": "
            + problem
            + " (text not shown)");
  }

  /** storage.endpoint does not parse as a URI; the value is never echoed (it may hold a secret). */
  public static ConfigException endpointNotAUrl() {
    return new ConfigException(
        "storage.endpoint is not a URL (value not shown); write it as http://host:port");
  }

  /** storage.endpoint lacks a scheme or a host. */
  public static ConfigException endpointWithoutHost() {
    return new ConfigException(
        "storage.endpoint has no scheme or host (value not shown); write it as"
            + " http://host:port");
  }

  /** storage.endpoint carries user info: credentials belong in the AWS default chain. */
  public static ConfigException endpointWithCredentials() {
    return new ConfigException(
        "storage.endpoint holds credentials (user:secret@); remove them and give"
            + " credentials through the AWS default chain (environment, profile, role)");
  }

  /**
   * A duration option given as zero: {@code "<option> must be longer than 0, e.g. '<example>'"}.
   */
  public static ConfigException notLongerThanZero(String option, String example) {
    return new ConfigException(option + " must be longer than 0, e.g. '" + example + "'");
  }
}
