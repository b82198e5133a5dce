package io.replaysafe.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class ErrorMessagesTest {
  @Test
  void aMessageSaysWhatWhyAndHowInThatOrder() {
    assertThat(ErrorMessages.of("Cannot list x", "it is gone", "Put it back"))
        .isEqualTo("Cannot list x: it is gone. Put it back.");
    assertThat(ErrorMessages.of("Cannot list x", "it is gone", "Put it back."))
        .isEqualTo("Cannot list x: it is gone. Put it back.");
  }

  @Test
  void anErrorRaisedOnPurposeIsFoundUnderSparksWrappingAndKeptAsItIs() {
    ConfigException own = new ConfigException("own");
    RuntimeException wrapped = new RuntimeException("Job aborted", new IllegalStateException(own));

    assertThat(ErrorMessages.raisedOnPurpose(wrapped)).isSameAs(own);
    assertThat(ErrorMessages.runFailed("Run", "a", "b", "c", "The checkpoint", wrapped))
        .isSameAs(own);
    assertThat(ErrorMessages.raisedOnPurpose(new RuntimeException("x"))).isNull();
  }

  @Test
  void aFailureFromElsewhereNamesTheRunItsPathsItsRootCauseAndTheCheckpoint() {
    IOException root = new IOException("403 Forbidden\n  at a long trace");
    RuntimeException failure = new RuntimeException("Job aborted", root);

    RuntimeException e =
        ErrorMessages.runFailed(
            "Bronze run of pipeline 'orders'",
            "s3a://landing/orders",
            "s3a://lake/bronze/orders",
            ErrorMessages.rootMessage(failure),
            "The checkpoint s3a://lake/_checkpoints/bronze/orders",
            failure);

    assertThat(e)
        .isExactlyInstanceOf(ReplaysafeException.class)
        .hasCause(failure)
        .hasMessage(
            "Bronze run of pipeline 'orders' failed reading s3a://landing/orders into"
                + " s3a://lake/bronze/orders: IOException: 403 Forbidden. The checkpoint"
                + " s3a://lake/_checkpoints/bronze/orders did not advance past the failed batch;"
                + " fix the cause and run again.");
  }

  @Test
  void theRootCauseOfALoopingChainIsTheLastCauseBeforeItRepeats() {
    Exception a = new Exception("a\nmore");
    Exception b = new Exception("b", a);
    a.initCause(b);

    assertThat(ErrorMessages.rootCause(b)).isSameAs(a);
    assertThat(ErrorMessages.rootMessage(b)).isEqualTo("Exception: a");
    Exception self = new Exception("self");
    assertThat(ErrorMessages.rootCause(self)).isSameAs(self);
  }

  @Test
  void storageErrorsNameThePathAndWhatToCheck() {
    IOException cause = new IOException("Permission denied\nmore");

    assertThat(StorageErrors.cannotList("source.path", "/landing", cause))
        .isExactlyInstanceOf(ReplaysafeException.class)
        .hasMessage(
            "Cannot list source.path /landing: Permission denied. Check that the path exists and"
                + " that this process can reach and read it.");
    assertThat(StorageErrors.cannotReadGivenFile("keys file", "/k.txt", cause))
        .hasMessage(
            "Cannot read keys file /k.txt: Permission denied. Check the path and that this process"
                + " may read it.");
    assertThat(StorageErrors.cannotAccess("the bronze checkpoint", "/c/_source.json", cause))
        .isExactlyInstanceOf(ReplaysafeException.class)
        .hasMessage(
            "Cannot read or write /c/_source.json in the bronze checkpoint: Permission denied."
                + " Check that the store is reachable and this process may write there.");
  }
}
