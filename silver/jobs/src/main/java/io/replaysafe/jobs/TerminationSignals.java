package io.replaysafe.jobs;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM and SIGINT turned into a request to stop, for as long as a continuous run lasts. The
 * JVM's own handling would start its shutdown at once, and Spark's shutdown hook would stop the
 * session under the batch in flight; here the run stops its queries between batches, commits,
 * releases the lease and returns its exit code. The previous handlers are back after {@link
 * #close}. The CLI's continuous runs and the continuous cluster job ({@link PipelineMain}) use it.
 */
public final class TerminationSignals implements AutoCloseable {
  private static final String[] NAMES = {"TERM", "INT"};

  private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();

  private TerminationSignals() {}

  /** Calls {@code onSignal} with "SIGTERM" or "SIGINT" when one arrives. */
  public static TerminationSignals install(Consumer<String> onSignal) {
    TerminationSignals signals = new TerminationSignals();
    for (String name : NAMES) {
      Signal signal = new Signal(name);
      signals.previous.put(
          signal, Signal.handle(signal, s -> onSignal.accept("SIG" + s.getName())));
    }
    return signals;
  }

  @Override
  public void close() {
    previous.forEach(Signal::handle);
  }
}
