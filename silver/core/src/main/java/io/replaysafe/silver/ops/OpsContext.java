package io.replaysafe.silver.ops;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverErrors;
import io.replaysafe.silver.SilverTables;
import io.replaysafe.silver.TableShape;
import org.apache.spark.sql.SparkSession;

/**
 * What every on-call operation starts from: the pipeline's storage settings applied to the session,
 * its silver contract and its tables. Built once here so each operation reads the same way and
 * refuses a history table with the same words.
 */
record OpsContext(
    PipelineConfig config, SparkSession spark, SilverContract contract, SilverTables tables) {

  static OpsContext open(PipelineConfig config, SparkSession spark) {
    SparkSessions.applyStorage(spark, config.storage());
    // The recorded contract history decides how stored hashes compare and which version writes.
    SilverContract contract =
        io.replaysafe.silver.ContractHistory.resolve(spark, config).contract();
    return new OpsContext(config, spark, contract, new SilverTables(spark, contract));
  }

  /**
   * For a command about to write: undoes first the silver batch an interrupted command left
   * part-way ({@link io.replaysafe.silver.InFlightBatch}), whichever command that was.
   */
  OpsContext recoverInFlight() {
    io.replaysafe.silver.InFlightBatch.of(spark, config.requireSilver().checkpoint()).recover();
    return this;
  }

  /** The SCD type 2 guard of the operations that write current state directly. */
  OpsContext requireCurrentState(String operation) {
    if (contract.shape() != TableShape.CURRENT_STATE) {
      throw SilverErrors.historyTable(operation, config.requireSilver().path());
    }
    return this;
  }
}
