package io.replaysafe.common.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault-injecting HTTP proxy on loopback in front of an S3 endpoint, for tests that prove a run
 * survives a misbehaving store. Each request is forwarded on its own upstream connection, and a
 * seeded share of them fail: {@code 503 SlowDown} without reaching the store, the connection reset
 * in the middle of the response, or a latency spike before forwarding. Signatures stay valid: the
 * request, Host header included, is forwarded unchanged but for {@code Connection: close}.
 */
public final class FaultyS3Proxy implements AutoCloseable {
  public enum Fault {
    NONE,
    SLOW_DOWN,
    RESET,
    LATENCY
  }

  private final ServerSocket server;
  private final URI upstream;
  private final Random random;
  private final double slowDown;
  private final double reset;
  private final double latency;
  private final long latencyMillis;
  private final ExecutorService workers = Executors.newCachedThreadPool(daemon());
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong slowDowns = new AtomicLong();
  private final AtomicLong resets = new AtomicLong();
  private final AtomicLong spikes = new AtomicLong();
  private volatile boolean faulty = true;

  /**
   * @param slowDown share of requests answered 503 SlowDown
   * @param reset share of requests whose connection is reset mid-response
   * @param latency share of requests delayed by {@code latencyMillis}
   */
  public FaultyS3Proxy(
      URI upstream, long seed, double slowDown, double reset, double latency, long latencyMillis)
      throws IOException {
    this.upstream = upstream;
    this.random = new Random(seed);
    this.slowDown = slowDown;
    this.reset = reset;
    this.latency = latency;
    this.latencyMillis = latencyMillis;
    this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    workers.submit(this::acceptLoop);
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  /** Turns fault injection on or off; requests are forwarded either way. */
  public void faulty(boolean on) {
    this.faulty = on;
  }

  public long requests() {
    return requests.get();
  }

  public long faults() {
    return slowDowns.get() + resets.get() + spikes.get();
  }

  public String summary() {
    return requests.get()
        + " request(s): "
        + slowDowns.get()
        + " 503 SlowDown, "
        + resets.get()
        + " reset mid-response, "
        + spikes.get()
        + " latency spike(s) of "
        + latencyMillis
        + " ms";
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        workers.submit(() -> handle(client));
      } catch (IOException e) {
        return;
      }
    }
  }

  private Fault choose() {
    if (!faulty) {
      return Fault.NONE;
    }
    double r;
    synchronized (random) {
      r = random.nextDouble();
    }
    if (r < slowDown) {
      return Fault.SLOW_DOWN;
    }
    if (r < slowDown + reset) {
      return Fault.RESET;
    }
    if (r < slowDown + reset + latency) {
      return Fault.LATENCY;
    }
    return Fault.NONE;
  }

  private void handle(Socket client) {
    try (client) {
      InputStream in = client.getInputStream();
      String head = readHead(in);
      if (head == null) {
        return;
      }
      requests.incrementAndGet();
      String method = head.substring(0, head.indexOf(' '));
      long length = contentLength(head);
      boolean expectContinue = header(head, "expect") != null;
      Fault fault = choose();
      OutputStream toClient = client.getOutputStream();
      if (fault == Fault.SLOW_DOWN) {
        slowDowns.incrementAndGet();
        if (!expectContinue) {
          in.skipNBytes(length);
        }
        String body =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
                + "<Message>Please reduce your request rate.</Message>"
                + "<RequestId>FAULT</RequestId></Error>";
        toClient.write(
            ("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: "
                    + body.length()
                    + "\r\nConnection: close\r\n\r\n"
                    + body)
                .getBytes(StandardCharsets.US_ASCII));
        toClient.flush();
        return;
      }
      if (fault == Fault.LATENCY) {
        spikes.incrementAndGet();
        Thread.sleep(latencyMillis);
      }
      try (Socket up = new Socket(upstream.getHost(), upstream.getPort())) {
        up.setSoTimeout(120_000);
        OutputStream toUp = up.getOutputStream();
        toUp.write(withConnectionClose(head).getBytes(StandardCharsets.ISO_8859_1));
        toUp.flush();
        // The body goes up on its own thread: with "Expect: 100-continue" it follows the
        // store's interim response, which the relay below passes to the client.
        var body =
            workers.submit(
                () -> {
                  copy(in, toUp, length);
                  toUp.flush();
                  return null;
                });
        relay(up.getInputStream(), toClient, client, fault == Fault.RESET, method);
        body.cancel(true);
      }
    } catch (IOException | InterruptedException e) {
      // The client or the store went away: nothing to report for a fault injector.
    }
  }

  /** Copies the response; with {@code cut}, resets the client connection halfway through it. */
  private void relay(
      InputStream fromUp, OutputStream toClient, Socket client, boolean cut, String method)
      throws IOException {
    while (true) {
      String head = readHead(fromUp);
      if (head == null) {
        return;
      }
      boolean interim = head.startsWith("HTTP/1.1 1");
      long length = "HEAD".equals(method) || interim ? 0 : contentLength(head);
      if (cut && !interim) {
        resets.incrementAndGet();
        if (length > 0) {
          toClient.write(head.getBytes(StandardCharsets.ISO_8859_1));
          toClient.write(fromUp.readNBytes((int) Math.min(length / 2, 1 << 20)));
          toClient.flush();
        }
        client.setSoLinger(true, 0); // close() now sends RST
        return;
      }
      toClient.write(head.getBytes(StandardCharsets.ISO_8859_1));
      if (interim) {
        toClient.flush();
        continue;
      }
      if (length >= 0) {
        copy(fromUp, toClient, length);
      } else {
        // Without a length the store closes the connection at the end of the body.
        fromUp.transferTo(toClient);
      }
      toClient.flush();
      return;
    }
  }

  private static void copy(InputStream in, OutputStream out, long n) throws IOException {
    byte[] buffer = new byte[8192];
    while (n > 0) {
      int read = in.read(buffer, 0, (int) Math.min(buffer.length, n));
      if (read < 0) {
        return;
      }
      out.write(buffer, 0, read);
      n -= read;
    }
  }

  private static String withConnectionClose(String head) {
    StringBuilder out = new StringBuilder();
    for (String line : head.split("\r\n")) {
      if (!line.isEmpty() && !line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
        out.append(line).append("\r\n");
      }
    }
    return out.append("Connection: close\r\n\r\n").toString();
  }

  private static long contentLength(String head) {
    String v = header(head, "content-length");
    return v == null ? (head.startsWith("HTTP/") ? -1 : 0) : Long.parseLong(v.trim());
  }

  private static String header(String head, String name) {
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
        return line.substring(colon + 1).trim();
      }
    }
    return null;
  }

  /** Bytes up to and including the blank line, or null at end of stream. */
  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        return head.size() == 0 ? null : head.toString(StandardCharsets.ISO_8859_1);
      }
      head.write(b);
      matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  private static java.util.concurrent.ThreadFactory daemon() {
    return r -> {
      Thread t = new Thread(r, "faulty-s3-proxy");
      t.setDaemon(true);
      return t;
    };
  }

  @Override
  public void close() throws IOException {
    server.close();
    workers.shutdownNow();
  }
}
