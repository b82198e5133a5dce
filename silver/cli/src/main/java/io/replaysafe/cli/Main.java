package io.replaysafe.cli;

/** Entry point of the {@code replaysafe} command; everything else is in {@link ReplaysafeCli}. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(ReplaysafeCli.commandLine(System.out, System.err).execute(args));
  }
}
