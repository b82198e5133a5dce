package io.replaysafe.silver.ops;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.SparkSessions;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverErrors;
import io.replaysafe.silver.SilverTables;
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
    SilverContract contract = new SilverContract(config);
    return new OpsContext(config, spark, contract, new SilverTables(spark, contract));
  }

  /** The SCD type 2 guard of the operations that write current state directly. */
  OpsContext requireCurrentState(String operation) {
    if (contract.isHistory()) {
      throw SilverErrors.historyTable(operation, config.requireSilver().path());
    }
    return this;
  }
}
