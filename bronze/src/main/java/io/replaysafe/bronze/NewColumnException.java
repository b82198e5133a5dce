package io.replaysafe.bronze;

import io.replaysafe.common.ReplaysafeException;

/**
 * A field the schema does not declare, met under {@code schemaEvolutionMode: failOnNewColumns}.
 * Raised inside a Spark task and found again in the failure's cause chain by {@link BronzeIngest}.
 * Built by {@link BronzeErrors#newColumn}.
 */
public final class NewColumnException extends ReplaysafeException {
  private static final long serialVersionUID = 1L;

  NewColumnException(String message) {
    super(message);
  }
}
