package io.replaysafe.common.io;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DeltaLogNamesTest {
  @Test
  void aCommitAndAChecksumAreTwentyDigitsAndTheirSuffix() {
    assertThat(DeltaLogNames.isCommit("00000000000000000042.json")).isTrue();
    assertThat(DeltaLogNames.isChecksum("00000000000000000042.crc")).isTrue();
    assertThat(DeltaLogNames.isCommitOrChecksum("00000000000000000042.json")).isTrue();
    assertThat(DeltaLogNames.isCommitOrChecksum("00000000000000000042.crc")).isTrue();

    assertThat(DeltaLogNames.isCommit("00000000000000000042.crc")).isFalse();
    assertThat(DeltaLogNames.isChecksum("00000000000000000042.json")).isFalse();
  }

  @Test
  void checkpointsPointersTemporariesAndOtherNamesAreNeither() {
    for (String name :
        new String[] {
          "00000000000000000010.checkpoint.parquet",
          "00000000000000000010.checkpoint.0000000001.0000000002.parquet",
          "_last_checkpoint",
          ".00000000000000000042.json.1b2c.tmp",
          "0000000000000000042.json", // 19 digits
          "000000000000000000042.json", // 21 digits
          "0000000000000000004x.json",
          "00000000000000000042.json.crc",
          "00000000000000000042.JSON",
          "",
        }) {
      assertThat(DeltaLogNames.isCommitOrChecksum(name)).as(name).isFalse();
    }
  }
}
