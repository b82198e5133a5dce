package io.replaysafe.cli;

import io.replaysafe.silver.ops.KeySelection;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --keys K1,K2} and {@code --keys-file FILE}: the keys an operation acts on. */
final class KeysOption {
  @Option(
      names = "--keys",
      paramLabel = "K1,K2",
      description = "Keys as reports print them (several key columns: v1/v2).")
  String keys;

  @Option(names = "--keys-file", paramLabel = "FILE", description = "One key per line.")
  Path keysFile;

  KeySelection selection() {
    return KeySelection.of(keys, keysFile);
  }
}
