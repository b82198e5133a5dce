package io.replaysafe.common.io;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import io.replaysafe.common.ReservedNames;
import io.replaysafe.common.spark.SqlNames;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Writes a table as JSON lines: one object per row, every column present (nulls included), rows in
 * a deterministic order (the given columns first, then the row's own JSON as a tie-break).
 */
public final class JsonLinesExport {
  private JsonLinesExport() {}

  public static long write(Dataset<Row> table, List<String> orderBy, PrintWriter out) {
    Column json =
        to_json(
            struct(SqlNames.columns(Arrays.asList(table.columns()))),
            Map.of("ignoreNullFields", "false"));
    List<Column> order = new ArrayList<>();
    orderBy.forEach(c -> order.add(SqlNames.column(c).asc_nulls_first()));
    order.add(col(ReservedNames.JSON));
    Iterator<Row> rows =
        table
            .withColumn(ReservedNames.JSON, json)
            .orderBy(order.toArray(Column[]::new))
            .select(ReservedNames.JSON)
            .toLocalIterator();
    long count = 0;
    while (rows.hasNext()) {
      out.println(rows.next().getString(0));
      count++;
    }
    out.flush();
    return count;
  }
}
