package io.replaysafe.bronze;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.tables.DeltaTable;
import io.replaysafe.common.testing.LandingZone;
import io.replaysafe.common.testing.LocalLandingZone;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bronze contract on local disk. */
class LocalBronzeContractTest extends AbstractBronzeContractTest {
  @TempDir static Path dir;

  @Override
  protected LandingZone zone() {
    return new LocalLandingZone(dir);
  }

  /** The file statistics Delta recorded for the data file added in table version {@code v}. */
  private List<String> statsColumnsOfVersion(long v) {
    return rows(
        spark
            .read()
            .json(at(String.format("bronze/_delta_log/%020d.json", v)))
            .where("add IS NOT NULL")
            .selectExpr("json_object_keys(get_json_object(add.stats, '$.nullCount')) AS k")
            .selectExpr("explode(k)"));
  }

  @Test
  void keepsFileStatisticsOnTheSchemaColumnsOnlyAsAPropertyTheUserCanChange() {
    land("a.json", "{\"order_id\":1,\"source_version\":1,\"coupon\":\"X\"}", "not json");

    ingest(config());

    assertThat(
            DeltaTable.forPath(spark, at("bronze"))
                .detail()
                .select("properties")
                .first()
                .<String, String>getJavaMap(0)
                .get("delta.dataSkippingStatsColumns"))
        .isEqualTo("`order_id`,`source_version`,`status`,`op`,`customer`");
    assertThat(statsColumnsOfVersion(1))
        .containsExactly("order_id", "source_version", "status", "op", "customer");

    spark.sql(
        "ALTER TABLE delta.`"
            + at("bronze")
            + "` SET TBLPROPERTIES ('delta.dataSkippingStatsColumns' = 'order_id,source_file')");
    land("b.json", "{\"order_id\":2,\"source_version\":1}");
    ingest(config());

    assertThat(statsColumnsOfVersion(3)).containsExactly("order_id", "source_file");
  }
}
