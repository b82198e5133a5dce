package io.replaysafe.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What the commands that run a job ({@code bronze}, {@code silver}, {@code run}) share: the
 * pipeline file, the run's deadline, and the command's output streams. Each keeps its own {@code
 * --json}, whose help says what that command prints.
 */
final class JobOptions {
  @Mixin ConfigOption config;

  @Mixin TimeoutOption timeout;

  // The command this is mixed into, for its streams (tests give the command line their own).
  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  PrintWriter out() {
    return command.commandLine().getOut();
  }

  PrintWriter err() {
    return command.commandLine().getErr();
  }
}
