package io.replaysafe.bronze;

import static io.replaysafe.bronze.ValueConversion.MISMATCH;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.replaysafe.common.config.SchemaEvolutionMode;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * Maps the records of a CSV file to bronze's typed columns and the rescued-data column, with the
 * JSON path's rules ({@link RescuingJsonParser}). Columns are matched to the schema by the header's
 * names, exactly as JSON fields are matched: a name the schema does not declare, or declares only
 * with another letter case, is rescued; a declared column the header lacks is null; of a name the
 * header repeats, the last column is typed and the earlier ones rescued ({@code name#2}, as JSON's
 * repeated keys). Without a header ({@code header: false}) the fields are the schema's columns in
 * order.
 *
 * <p>A value that does not convert to its column's type ({@link CsvValueConversion}) is null in its
 * column and rescued as the text it was, e.g. {@code {"amount":"abc","_file_path":"..."}}; an empty
 * value is null and holds nothing to rescue. A record with another number of fields than the header
 * (or the schema, without a header), or whose last value opens a quote the file never closes, is
 * kept whole as {@code _corrupt_record}, as a malformed JSON line is: every typed column null,
 * nothing rescued.
 */
final class CsvRecordMapping implements Serializable {
  private static final long serialVersionUID = 1L;

  private final StructType schema;
  private final SchemaEvolutionMode mode;
  private final CsvValueConversion conversion;
  // Built on first use: not serialisable, and stateless.
  private transient JsonFactory json;

  CsvRecordMapping(StructType schema, SchemaEvolutionMode mode, String sessionTimeZone) {
    this.schema = schema;
    this.mode = mode;
    this.conversion = new CsvValueConversion(sessionTimeZone);
  }

  /**
   * Where each of a file's columns goes.
   *
   * @param names the columns' names (the header's; {@code _c<i>} where it has none)
   * @param targets per column, the schema's position it is typed into, or -1 (rescued)
   */
  record FileColumns(String[] names, int[] targets) {
    int width() {
      return names.length;
    }
  }

  /** The columns of a file without a header: the schema's, in order. */
  FileColumns bySchema() {
    String[] names = schema.fieldNames();
    int[] targets = new int[names.length];
    for (int i = 0; i < targets.length; i++) {
      targets[i] = i;
    }
    return new FileColumns(names, targets);
  }

  /**
   * The columns a header names. Under {@code failOnNewColumns}, a name the schema does not declare
   * stops the run here, naming it and the file (as a new JSON field does).
   */
  FileColumns byHeader(String[] header, String file) {
    Map<String, Integer> declared = new HashMap<>();
    String[] fields = schema.fieldNames();
    for (int i = 0; i < fields.length; i++) {
      declared.putIfAbsent(fields[i], i);
    }
    String[] names = new String[header.length];
    int[] targets = new int[header.length];
    Map<String, Integer> lastColumn = new HashMap<>();
    for (int i = 0; i < header.length; i++) {
      // Spark names a column without a header name _c<i> (CSVUtils.makeSafeHeader).
      names[i] = header[i] == null || header[i].isEmpty() ? "_c" + i : header[i];
      lastColumn.put(names[i], i);
    }
    for (int i = 0; i < header.length; i++) {
      Integer position = declared.get(names[i]);
      if (position == null && mode == SchemaEvolutionMode.FAIL_ON_NEW_COLUMNS) {
        throw BronzeErrors.newColumn(names[i], file);
      }
      targets[i] = position != null && lastColumn.get(names[i]) == i ? position : -1;
    }
    return new FileColumns(names, targets);
  }

  /**
   * One record's values and rescued object, or a corrupt record.
   *
   * @param text the record's text, read only when the record is corrupt
   */
  RescuingJsonParser.Parsed map(
      FileColumns columns,
      String[] fields,
      boolean unterminatedQuote,
      java.util.function.Supplier<String> text,
      String filePath) {
    Object[] values = new Object[schema.size()];
    if (fields.length != columns.width() || unterminatedQuote) {
      return new RescuingJsonParser.Parsed(values, null, text.get(), null);
    }
    RescuedObject rescued = null;
    for (int i = 0; i < fields.length; i++) {
      String value = fields[i];
      int target = columns.targets()[i];
      Object typed = MISMATCH;
      if (target >= 0) {
        DataType type = schema.fields()[target].dataType();
        typed = conversion.convert(value, type);
        if (typed != MISMATCH) {
          values[target] = typed;
          continue;
        }
      } else if (value == null || value.isEmpty()) {
        continue; // an empty value of an undeclared column holds nothing to rescue
      }
      if (rescued == null) {
        rescued = new RescuedObject(null, null);
      }
      rescued.put(columns.names()[i], quoted(value));
    }
    if (rescued == null) {
      return new RescuingJsonParser.Parsed(values, null, null, null);
    }
    try {
      return new RescuingJsonParser.Parsed(values, rescued.toJson(json(), filePath), null, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // written to a string: cannot happen
    }
  }

  private static String quoted(String text) {
    return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + '"';
  }

  private JsonFactory json() {
    if (json == null) {
      json = new JsonFactory();
    }
    return json;
  }
}
