package io.replaysafe.common.spark;

import com.fasterxml.jackson.databind.JsonNode;
import io.replaysafe.common.io.Json;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * What a Delta data file's statistics ({@code AddFile.stats}: {@code numRecords}, {@code
 * minValues}, {@code maxValues}, {@code nullCount}, as JSON) tell of one of its columns.
 */
final class FileStatistics {
  private FileStatistics() {}

  /**
   * Whether the file is known to hold no value of the timestamp {@code column} before {@code
   * before}: its minimum is not before it, or every one of its rows is null there. False when the
   * statistics are missing or do not say.
   */
  static boolean noneBefore(String stats, String column, Instant before) {
    if (stats == null) {
      return false;
    }
    Optional<JsonNode> parsed = Json.tryRead(stats);
    if (parsed.isEmpty()) {
      return false;
    }
    JsonNode json = parsed.get();
    JsonNode records = json.path("numRecords");
    JsonNode nulls = json.path("nullCount").path(column);
    if (records.canConvertToLong()
        && nulls.canConvertToLong()
        && nulls.asLong() == records.asLong()) {
      return true;
    }
    JsonNode min = json.path("minValues").path(column);
    if (!min.isTextual()) {
      return false;
    }
    try {
      return !OffsetDateTime.parse(min.asText()).toInstant().isBefore(before);
    } catch (DateTimeParseException e) {
      return false;
    }
  }
}
