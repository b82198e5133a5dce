package io.replaysafe.silver.ops;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import io.replaysafe.common.config.PipelineConfig;
import io.replaysafe.common.spark.DeltaTables;
import io.replaysafe.common.spark.SqlNames;
import io.replaysafe.silver.SilverContract;
import io.replaysafe.silver.SilverErrors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Data-quality checks on silver: key uniqueness (current version per key for history tables), and
 * CHECK constraints given or already on the table, counted and sampled. Adding a constraint that
 * existing rows violate is refused (seed 003: Delta would accept it and fail later writes).
 */
public final class Check {
  static final int SAMPLE = 5;

  private final PipelineConfig config;
  private final SparkSession spark;

  public Check(PipelineConfig config, SparkSession spark) {
    this.config = config;
    this.spark = spark;
  }

  /** What became of one constraint. */
  public enum Decision {
    /** On the table already, checked against its rows. */
    ON_TABLE,
    /** Given on the command line, checked, not added (no {@code --add}). */
    CHECKED,
    /** Given with {@code --add}, not added: existing rows violate it. */
    REFUSED,
    /** Given with {@code --add}, added: no row violates it. */
    ADDED
  }

  public record ConstraintResult(
      String name, String predicate, long violations, List<String> sample, Decision decision) {
    /** The decision in words, as {@code replaysafe check} prints it. */
    public String state() {
      return switch (decision) {
        case ON_TABLE -> "on table";
        case CHECKED -> "checked";
        case REFUSED -> "refused: " + violations + " existing row(s) violate it";
        case ADDED -> "added";
      };
    }
  }

  public record Outcome(
      long rows,
      long duplicateKeys,
      List<String> duplicateSample,
      List<ConstraintResult> constraints) {
    public boolean clean() {
      return duplicateKeys == 0 && constraints.stream().allMatch(c -> c.violations() == 0);
    }

    /** True when an {@code --add} was refused: a decision for a person, not only an alert. */
    public boolean refused() {
      return constraints.stream().anyMatch(c -> c.decision() == Decision.REFUSED);
    }
  }

  /** {@code constraints}: name to predicate; {@code add}: add those without violations. */
  public Outcome execute(Map<String, String> constraints, boolean add) {
    OpsContext context = OpsContext.open(config, spark);
    if (add) {
      context.recoverInFlight();
    }
    SilverContract contract = context.contract();
    String path = config.requireSilver().path();
    Dataset<Row> silver = context.tables().silver();
    Dataset<Row> current = contract.currentRows(silver);
    Dataset<Row> duplicates =
        current
            .groupBy(SqlNames.columns(contract.keys()))
            .agg(count(lit(1)).as("rows"))
            .where(col("rows").gt(1));
    long duplicateKeys = duplicates.count();
    List<String> duplicateSample = duplicates.limit(SAMPLE).toJSON().collectAsList();

    Map<String, String> all = new LinkedHashMap<>(existingConstraints(path));
    all.putAll(constraints);
    List<ConstraintResult> results = new ArrayList<>();
    for (Map.Entry<String, String> c : all.entrySet()) {
      Dataset<Row> violating;
      try {
        violating = silver.where(not(expr(c.getValue())).or(expr(c.getValue()).isNull()));
        violating.schema();
      } catch (Exception e) {
        throw SilverErrors.unusablePredicate(c.getKey(), c.getValue(), e);
      }
      long violations = violating.count();
      List<String> sample =
          violating
              .select(SqlNames.columns(contract.silverColumns()))
              .limit(SAMPLE)
              .toJSON()
              .collectAsList();
      Decision decision;
      if (!constraints.containsKey(c.getKey())) {
        decision = Decision.ON_TABLE;
      } else if (!add) {
        decision = Decision.CHECKED;
      } else if (violations > 0) {
        decision = Decision.REFUSED;
      } else {
        spark.sql(
            "ALTER TABLE delta."
                + SqlNames.quote(path)
                + " ADD CONSTRAINT "
                + c.getKey()
                + " CHECK ("
                + c.getValue()
                + ")");
        decision = Decision.ADDED;
      }
      results.add(new ConstraintResult(c.getKey(), c.getValue(), violations, sample, decision));
    }
    return new Outcome(silver.count(), duplicateKeys, duplicateSample, results);
  }

  private Map<String, String> existingConstraints(String path) {
    Map<String, String> existing = new LinkedHashMap<>();
    Map<String, String> properties = DeltaTables.properties(spark, path);
    properties.forEach(
        (k, v) -> {
          if (k.startsWith("delta.constraints.")) {
            existing.put(k.substring("delta.constraints.".length()), v);
          }
        });
    return existing;
  }
}
