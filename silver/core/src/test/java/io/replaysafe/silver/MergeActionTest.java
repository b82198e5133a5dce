package io.replaysafe.silver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The action values stored in plans and matched by the MERGE clauses. */
class MergeActionTest {

  @Test
  void storedValuesAreTheNames() {
    assertThat(Arrays.stream(MergeAction.values()).map(MergeAction::name))
        .containsExactly(
            "INSERT", "REVIVE", "UPDATE", "DELETE", "TOMBSTONE_ONLY", "RETRY", "OLDER", "CONFLICT");
  }

  @Test
  void sqlLiterals() {
    assertThat(MergeAction.DELETE.sql()).isEqualTo("'DELETE'");
    assertThat(MergeAction.sqlIn("s.__action", MergeAction.INSERT, MergeAction.REVIVE))
        .isEqualTo("s.__action IN ('INSERT', 'REVIVE')");
    assertThat(MergeAction.sqlIn("s.__action", MergeAction.DELETE, MergeAction.TOMBSTONE_ONLY))
        .isEqualTo("s.__action IN ('DELETE', 'TOMBSTONE_ONLY')");
  }

  @Test
  void countSumsTheGivenActionsOnly() {
    Map<MergeAction, Long> counts =
        Map.of(MergeAction.INSERT, 3L, MergeAction.REVIVE, 1L, MergeAction.OLDER, 5L);
    assertThat(MergeAction.count(counts, MergeAction.INSERT, MergeAction.REVIVE)).isEqualTo(4);
    assertThat(MergeAction.count(counts, MergeAction.DELETE)).isZero();
  }
}
