package io.replaysafe.bronze;

import io.replaysafe.common.ReplaysafeException;

/**
 * A field the schema does not declare, met under {@code schemaEvolutionMode: failOnNewColumns}.
 * Raised inside a Spark task and found again in the failure's cause chain by {@link BronzeIngest}.
 */
public final class NewColumnException extends ReplaysafeException {
  private static final long serialVersionUID = 1L;

  NewColumnException(String field, String file) {
    super(
        "New field '"
            + field
            + "' in "
            + file
            + " is not declared in source.schema and schemaEvolutionMode is failOnNewColumns."
            + " Add the field to source.schema, or set schemaEvolutionMode: rescue to keep it in"
            + " the rescued-data column. Bronze did not advance; the rerun reads this file again.");
  }
}
