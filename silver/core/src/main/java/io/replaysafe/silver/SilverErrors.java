package io.replaysafe.silver;

import io.replaysafe.common.ConfigException;
import io.replaysafe.common.ErrorMessages;
import io.replaysafe.common.ReplaysafeException;
import io.replaysafe.common.config.PipelineConfig;

/**
 * Every error the silver contract and its on-call operations raise on purpose, each saying what
 * failed, why, and how to fix it. A {@link ConfigException} is the user's to fix in the pipeline
 * file or the arguments (exit 2); any other is a state or a failure of the run (exit 1).
 */
public final class SilverErrors {
  private SilverErrors() {}

  /** Silver reads bronze: before the first bronze run there is nothing to read. */
  public static ReplaysafeException noBronzeTable(String pipeline, String bronzePath) {
    return new ReplaysafeException(
        ErrorMessages.of(
            "Cannot run silver for pipeline '" + pipeline + "'",
            "there is no bronze table at " + bronzePath + " yet",
            "Run 'replaysafe bronze' (or 'replaysafe run') first"));
  }

  /**
   * The bronze table lacks a column of source.schema (or has it at another type): bronze evolves
   * its table on its next run. Like a missing bronze table, a state to wait for, not a config
   * error.
   */
  public static ReplaysafeException bronzeNotEvolved(
      String pipeline, String declared, String bronzePath, String found) {
    return new ReplaysafeException(
        ErrorMessages.of(
            "Cannot run silver for pipeline '" + pipeline + "'",
            "source.schema declares "
                + declared
                + ", and the bronze table at "
                + bronzePath
                + " "
                + found,
            "Run 'replaysafe bronze' (or 'replaysafe run') first: it evolves the bronze table to"
                + " the new schema"));
  }

  /** A change of the contract that the stored tables cannot follow in place. */
  public static ConfigException contractChange(String change, String why, String fix) {
    return new ConfigException(ErrorMessages.of("Cannot " + change, why, fix));
  }

  /** A source.schema change silver cannot apply to what it stores. */
  public static ConfigException incompatibleSchema(String where, String changes) {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot continue " + where + " with the new source.schema",
            changes,
            "Only added nullable columns and widened types are applied in place; write silver"
                + " anew (new silver.path and silver.checkpoint) after bronze has the new schema"));
  }

  /** A run failed for a reason replaysafe did not raise itself (S3, Spark, the Delta log). */
  public static RuntimeException runFailed(PipelineConfig config, Exception e) {
    return ErrorMessages.runFailed(
        "Silver run of pipeline '" + config.name() + "'",
        config.bronze().path(),
        config.requireSilver().path(),
        e.getMessage(),
        "The silver checkpoint",
        e);
  }

  /** The SCD type 2 guard of the operations that write current state directly. */
  public static ConfigException historyTable(String operation, String silverPath) {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot " + operation + " silver " + silverPath,
            "it is a history table (storedAsScdType 2), and "
                + operation
                + " works on current-state tables (storedAsScdType 1) only",
            "Correct a history through its source instead: deliver the corrected or deleting"
                + " events, and the next batch rebuilds the history of every key they touch"));
  }

  /**
   * Silver's checkpoint needs a bronze version whose commit Delta's log cleanup removed: the events
   * of the versions in between can no longer be read as they landed.
   */
  public static ConfigException bronzeVersionsGone(
      PipelineConfig config,
      java.util.OptionalLong processed,
      long needed,
      long earliest,
      String retention) {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot run silver for pipeline '" + config.name() + "'",
            "silver's checkpoint "
                + config.requireSilver().checkpoint()
                + (processed.isPresent()
                    ? " processed bronze through version " + processed.getAsLong()
                    : " started on bronze")
                + " and reads version "
                + needed
                + " next, but the log of bronze "
                + config.bronze().path()
                + " holds versions from "
                + earliest
                + " on: versions "
                + needed
                + " to "
                + (earliest - 1)
                + " were removed by Delta's log cleanup (delta.logRetentionDuration = "
                + retention
                + "), longer ago than silver last ran",
            "Write silver anew from bronze's current snapshot (a new silver.path and"
                + " silver.checkpoint: a new checkpoint over a cleaned log starts from the"
                + " snapshot, and the erasures beside bronze still apply), and set bronze's"
                + " delta.logRetentionDuration longer than silver's longest pause"));
  }

  /** A table the command reads has not been written yet. */
  public static ReplaysafeException noTableYet(String what, String path, String fix) {
    return new ReplaysafeException(
        ErrorMessages.of(
            "Cannot read " + what, "there is no Delta table at " + path + " yet", fix));
  }

  public static ConfigException noKeysGiven() {
    return new ConfigException(
        ErrorMessages.of(
            "No keys given",
            "repair, reconcile and erase act on named keys only",
            "Pass --keys K1,K2 or --keys-file FILE (one key per line, as reports print them)"));
  }

  public static ConfigException unusablePredicate(String name, String predicate, Exception e) {
    return new ConfigException(
        ErrorMessages.of(
            "Constraint " + name + " (" + predicate + ") cannot be checked",
            "Spark cannot parse or resolve the predicate: " + ErrorMessages.firstLine(e),
            "Write it as a SQL boolean expression over silver's columns, e.g. amount >= 0"),
        e);
  }

  public static ConfigException badConstraintArgument(String argument) {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot read --constraint '" + argument + "'",
            "it has no '=' between a name and a predicate",
            "Write it as NAME=PREDICATE, e.g. total_non_negative=order_total >= 0"));
  }

  public static ConfigException quarantineIdsNotOpen(long open, int given) {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot decide on the quarantine rows given",
            "only " + open + " of the " + given + " quarantine id(s) given are open",
            "List the open ones with 'replaysafe quarantine list' and pass only those"));
  }

  public static ConfigException decisionWithoutAuthor() {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot record a quarantine decision",
            "every decision is kept on the row with who made it and why",
            "Pass --by (who decided) and --reason (why)"));
  }

  public static ConfigException releaseOfInvalidRow(String quarantineId, String reason) {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot release " + quarantineId,
            "it is " + reason + " and cannot satisfy the contract as it is",
            "Correct the source and deliver it again, or discard it"));
  }

  public static ConfigException releaseOfSeveralPayloads() {
    return new ConfigException(
        ErrorMessages.of(
            "Cannot release several payloads for one key and sequence",
            "only one payload can hold a key at a sequence",
            "Choose the one that wins, release it, and discard the others"));
  }

  /** Bronze's change feed holds a change that is not an insert: bronze is append-only. */
  static BatchRejectedException bronzeChanged(
      SilverContract contract, long batchId, long rows, Object version, String changeType) {
    String bronze = contract.pipeline().bronze().path();
    return new BatchRejectedException(
        "Cannot apply batch "
            + batchId
            + " to silver "
            + contract.silver().path()
            + ": bronze "
            + bronze
            + " version "
            + version
            + " holds "
            + rows
            + " change row(s) that are not inserts (change type "
            + changeType
            + "), and bronze is append-only by contract: an UPDATE, DELETE or MERGE on bronze"
            + " would reach silver as conflicting or resurrected events. Nothing was written and"
            + " the silver checkpoint did not advance. Undo the change (RESTORE TABLE delta.`"
            + bronze
            + "` TO VERSION AS OF "
            + (version instanceof Long v ? v - 1 : "the version before it")
            + ") and run again, or set silver.ignoreBronzeChanges: true to skip bronze's updates"
            + " and deletes (silver keeps what it applied; deliver a delete event to remove a"
            + " key).");
  }

  /**
   * {@code maintain --vacuum} (or the scheduled vacuum) refuses a retention shorter than what a
   * reader or silver's next run still needs.
   *
   * @param retention the retention as the messages say it, e.g. {@code "2 hour(s)"}
   */
  public static ConfigException vacuumRefused(String retention, String why, String fix) {
    return new ConfigException(
        ErrorMessages.of("Cannot VACUUM with a retention of " + retention, why, fix));
  }

  /** A quarantine row to release whose bronze row is gone (bronze was vacuumed or rewritten). */
  static ConfigException releaseOfRowGoneFromBronze(
      String quarantineId, String sourceFile, Object bronzeVersion, String bronzePath) {
    return new ConfigException(
        "Cannot release quarantine row "
            + quarantineId
            + ": its bronze row (file "
            + sourceFile
            + ", bronze version "
            + bronzeVersion
            + ") is no longer in bronze "
            + bronzePath
            + ". Deliver the event again instead, and discard this row.");
  }

  /** A quarantine row to release whose raw_payload does not parse as JSON. */
  static ConfigException releaseOfUnreadablePayload(String quarantineId, Exception cause) {
    return new ConfigException(
        "Cannot release quarantine row " + quarantineId + ": its raw_payload is not JSON", cause);
  }

  /** A batch the contract's {@code fail} policies reject; the message is the whole report. */
  static BatchRejectedException rejected(Rejection rejection) {
    return new BatchRejectedException(rejection.report(), rejection.reasons());
  }
}
