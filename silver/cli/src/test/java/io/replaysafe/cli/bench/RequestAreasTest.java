package io.replaysafe.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestAreasTest {
  @Test
  void requestsCountForTheDirectoryTheyTouchUnderTheSideRoot() {
    assertThat(
            RequestAreas.of(
                List.of(
                    "GET /lake/replaysafe/bronze/_delta_log/00000000000000000002.json",
                    "LIST /lake?list-type=2&prefix=replaysafe%2Fbronze%2F_delta_log%2F0000000000",
                    "LIST /lake?list-type=2&prefix=replaysafe%2Fbronze%2F_delta_log%2F"
                        + "00000000000000000002.crc%2F&delimiter=%2F",
                    "HEAD /lake/replaysafe/bronze/_delta_log/.00000000000000000002.crc.b84f.tmp",
                    "PUT /lake/replaysafe/checkpoints/bronze/offsets/3",
                    "LIST /lake?list-type=2&prefix=replaysafe%2Fcheckpoints%2Fbronze%2Fsources%2F0%2F",
                    "HEAD /lake/replaysafe/silver/part-00000-5b61-c000.snappy.parquet",
                    "LIST /landing?list-type=2&prefix=replaysafe%2Forders-00020.json%2F",
                    "HEAD /lake/"),
                "replaysafe"))
        .isEqualTo(
            Map.of(
                "lake:bronze/_delta_log", Map.of("GET", 1L, "LIST", 2L, "HEAD", 1L),
                "lake:checkpoints/bronze/offsets", Map.of("PUT", 1L),
                "lake:checkpoints/bronze/sources", Map.of("LIST", 1L),
                "lake:silver", Map.of("HEAD", 1L),
                "landing:/", Map.of("LIST", 1L),
                "lake:/", Map.of("HEAD", 1L)));
  }
}
